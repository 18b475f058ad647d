"""`netpol check --expect FILE`: allow/deny assertions evaluated against the computed reachability.

File format (YAML):

    expectations:
      - name: only run=test reaches web1      # optional; default: the assertion itself
        from: web/test                        # a name as on the command line, or a mapping (below)
        to: web/web1
        ports: [80]                           # optional: 80, 80/TCP, 53/UDP, {port: 53, protocol: UDP}
        expect: allow                         # allow | deny

Endpoint mappings: `{pod: ns/name}`, `{workload: deploy/ns/name}`, `{service: ns/name}` (ports are Service
ports, mapped to targetPorts), `{selector: app=web, namespace: web}`, `{namespace: web}`, `{cidr: 0.0.0.0/0}`.

`allow` passes when every (source, destination) pair allows every listed port (without ports: some
connection); `deny` passes when no pair allows any listed port (without ports: no connection at all). A
pod and itself are never paired. An endpoint matching no running pod fails the assertion (an
expectation about nothing would pass vacuously).
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from netpol.errors import InputError, SourceRef, UsageError
from netpol.explain import EP
from netpol.loading import typed as t
from netpol.loading.documents import read_text
from netpol.loading.yamlread import ReadError, load_text
from netpol.model.vocab import EXPECTATIONS, Expectation
from netpol.pipeline import Analysis
from netpol.ports import ConnectionSet
from netpol.targets import Probe, Resolver, Target, parse_probe

ENDPOINT_KEYS = ("pod", "workload", "service", "selector", "namespace", "cidr")
ASSERTION_KEYS = ("name", "from", "to", "ports", "port", "expect", "description")


@dataclass(frozen=True)
class Assertion:
    name: str
    src: object  # str or mapping, as written
    dst: object
    ports: tuple[Probe, ...]
    expect: Expectation
    index: int


@dataclass
class Result:
    assertion: Assertion
    passed: bool
    detail: str
    error: bool = False  # the assertion could not be evaluated (unknown pod, …)
    checked: int = 0  # pairs evaluated
    offending: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        a = self.assertion
        return {
            "name": a.name,
            "from": a.src,
            "to": a.dst,
            "ports": [p.render() for p in a.ports],
            "expect": a.expect,
            "passed": self.passed,
            "error": self.error,
            "pairs": self.checked,
            "detail": self.detail,
            "offending": self.offending,
        }


def _describe(ep: object) -> str:
    if isinstance(ep, Mapping):
        return ",".join(f"{k}={v}" for k, v in ep.items())
    return str(ep)


def _probe(value: Any, where: SourceRef, fld: str) -> Probe:
    if isinstance(value, Mapping):
        unknown = set(value) - {"port", "protocol"}
        if unknown or "port" not in value:
            raise InputError("a port mapping has `port` and optionally `protocol`", where, fld)
        port, proto = value["port"], value.get("protocol", "TCP")
        if not isinstance(port, int | str) or isinstance(port, bool) or not isinstance(proto, str):
            raise InputError("a port is a number or a name, its protocol a string", where, fld)
        value = f"{port}/{proto}"
    elif not isinstance(value, int | str) or isinstance(value, bool):
        raise InputError(
            f"a port is 80, 80/TCP, a name or {{port: 53, protocol: UDP}}; got {t.type_name(value)}", where, fld
        )
    try:
        probe = parse_probe(str(value))
    except UsageError as exc:
        raise InputError(str(exc).replace("--port ", "port "), where, fld) from None
    assert probe is not None
    return probe


def load_expectations(path: str) -> list[Assertion]:
    """Read through the manifests' bounded reader: the same size, UTF-8, depth and alias limits and messages."""
    return parse_expectations(read_text(path), path)


def parse_expectations(text: str, label: str = "<expectations>") -> list[Assertion]:
    where = SourceRef(label)
    try:
        docs = [d for d in load_text(text, json_hint=label.endswith(".json")) if d.value is not None]
    except ReadError as exc:
        kind = "JSON/YAML" if label.endswith(".json") else "YAML"
        raise InputError(f"invalid {kind}: {exc}", SourceRef(label, -1)) from None
    if len(docs) > 1:
        raise InputError(f"{len(docs)} YAML documents; an expectations file is one document", SourceRef(label, -1))
    if docs and docs[0].duplicates:
        raise InputError(f'duplicate field "{docs[0].duplicates[0]}"', where, docs[0].duplicates[0], show_field=False)
    doc = docs[0].value if docs else None
    items = doc.get("expectations") if isinstance(doc, Mapping) else doc
    if not isinstance(items, list) or not items:
        raise InputError("expected a list under `expectations:`", where, "expectations")
    out = []
    for i, item in enumerate(items):
        fld = f"expectations[{i}]"
        if not isinstance(item, Mapping):
            raise InputError("each expectation is a mapping with from, to, expect", where, fld)
        unknown = sorted(map(str, set(item) - set(ASSERTION_KEYS)))
        if unknown:
            raise InputError(f"unknown key(s) {', '.join(unknown)} (known: {', '.join(ASSERTION_KEYS)})", where, fld)
        for key in ("from", "to", "expect"):
            if key not in item:
                raise InputError(f"`{key}` is required", where, f"{fld}.{key}")
        for key in ("name", "description"):
            if item.get(key) is not None and not isinstance(item[key], str):
                raise InputError(f"must be a string, got {t.type_name(item[key])}", where, f"{fld}.{key}")
        word = item["expect"].lower() if isinstance(item["expect"], str) else None
        expect = next((e for e in EXPECTATIONS if e == word), None)
        if expect is None:
            raise InputError(f"expect must be allow or deny, got {t.show(item['expect'])}", where, f"{fld}.expect")
        for key in ("from", "to"):
            ep = item[key]
            if isinstance(ep, Mapping):
                bad = sorted(map(str, set(ep) - set(ENDPOINT_KEYS)))
                kinds = [k for k in ENDPOINT_KEYS if k in ep and k != "namespace"]
                if bad or len(kinds) > 1 or not ep or not all(isinstance(v, str) for v in ep.values()):
                    raise InputError(
                        f"an endpoint is one of {', '.join(ENDPOINT_KEYS)} (selector may add namespace), each a string",
                        where,
                        f"{fld}.{key}",
                    )
            elif not isinstance(ep, str) or not ep.strip():
                raise InputError(
                    "an endpoint is a name (ns/pod, deploy/ns/name, …) or a mapping", where, f"{fld}.{key}"
                )
        raw_ports = item.get("ports", item.get("port"))
        if raw_ports is None:
            ports: tuple[Probe, ...] = ()
        else:
            seq = raw_ports if isinstance(raw_ports, list) else [raw_ports]
            ports = tuple(_probe(p, where, f"{fld}.ports[{j}]") for j, p in enumerate(seq))
        port_text = f" : {', '.join(p.render() for p in ports)}" if ports else ""
        name = item.get("name") or f"{expect} {_describe(item['from'])} => {_describe(item['to'])}{port_text}"
        out.append(Assertion(name, item["from"], item["to"], ports, expect, i))
    return out


def _resolve(res: Resolver, ep: object) -> Target:
    if isinstance(ep, str):
        return res.resolve(ep)
    assert isinstance(ep, Mapping)
    ns = ep.get("namespace")
    namespaces = [str(ns)] if ns else []
    if "pod" in ep:
        return res.resolve(str(ep["pod"]), namespaces)
    if "workload" in ep:
        return res.resolve(str(ep["workload"]), namespaces)
    if "service" in ep:
        text = str(ep["service"])
        return res.resolve(text if text.startswith("svc/") else f"svc/{text}", namespaces)
    if "selector" in ep:
        return res.selector(str(ep["selector"]), namespaces, f"selector {ep['selector']}")
    if "cidr" in ep:
        t = res.resolve(str(ep["cidr"]))
        if not t.is_external:
            raise UsageError(f"cidr {ep['cidr']!r} is not an IP address or CIDR")
        return t
    return res.namespace(str(ns), f"namespace {ns}")


def _eps(t: Target) -> list[EP]:
    return [EP(pod=i) for i in t.pods] + [EP(atom=a) for a in t.atoms]


def _conn(analysis: Analysis, s: EP, d: EP) -> ConnectionSet:
    r = analysis.reachability
    if s.pod is not None and d.pod is not None:
        return r.connection(s.pod, d.pod)
    if s.atom is not None and d.pod is not None:
        return r.ingress_from_atom(s.atom, d.pod)
    if s.pod is not None and d.atom is not None:
        return r.egress_to_atom(s.pod, d.atom)
    raise UsageError("both ends are external addresses: this cluster's policies say nothing about that")


def evaluate(analysis: Analysis, assertion: Assertion, resolver: Resolver | None = None) -> Result:
    res = resolver or Resolver(analysis)
    r = analysis.reachability
    try:
        src = _resolve(res, assertion.src)
        dst = _resolve(res, assertion.dst)
        for side, t in (("from", src), ("to", dst)):
            if t.empty():
                why = "; ".join(
                    f"{p.key} does not run ({p.phase or 'not running'}{': ' + p.reason if p.reason else ''})"
                    for p in t.pending
                )
                return Result(
                    assertion, False, f"{side} {t.text} matches no running pod" + (f" ({why})" if why else ""), True
                )
        offending: list[str] = []
        checked = 0
        probes: list[Probe | None] = list(assertion.ports) or [None]
        for s in _eps(src):
            for d in _eps(dst):
                if s.pod is not None and s.pod == d.pod:
                    continue
                checked += 1
                conn = _conn(analysis, s, d)
                name = f"{s.name(r)} => {d.name(r)}"
                for probe in probes:
                    want = (
                        dst.dst_ports(r.pods[d.pod], probe)
                        if d.pod is not None
                        else (probe.as_set() if probe else None)
                    )
                    got = conn if want is None else conn.intersection(want)
                    label = probe.render() if probe else "any port"
                    if assertion.expect == "allow" and (got.is_empty or (want is not None and got != want)):
                        offending.append(
                            f"{name} does not allow {label}"
                            + (f" (allows {conn.render()})" if not conn.is_empty else "")
                        )
                    elif assertion.expect == "deny" and not got.is_empty:
                        offending.append(f"{name} allows {got.render()}")
        if checked == 0:
            return Result(assertion, False, "no (source, destination) pair to check (only a pod and itself)", True)
    except UsageError as exc:
        return Result(assertion, False, f"cannot evaluate: {exc}", True)
    if offending:
        shown = "; ".join(offending[:5]) + (f"; and {len(offending) - 5} more" if len(offending) > 5 else "")
        return Result(assertion, False, shown, False, checked, offending)
    return Result(assertion, True, f"{checked} pair(s) checked", False, checked)


def check(analysis: Analysis, assertions: list[Assertion], cluster_cidr: str | None = None) -> list[Result]:
    res = Resolver(analysis, cluster_cidr)
    return [evaluate(analysis, a, res) for a in assertions]


# ------------------------------------------------------------------------------------------ rendering


def summary(results: list[Result]) -> str:
    failed = sum(not r.passed for r in results)
    return f"{len(results) - failed} passed, {failed} failed"


def render(results: list[Result], fmt: str) -> str:
    match fmt:
        case "json":
            return json.dumps({"results": [r.to_json() for r in results], "summary": summary(results)}, indent=2) + "\n"
        case "md":
            lines = ["| result | expect | assertion | detail |", "|---|---|---|---|"]
            lines += [
                f"| {'PASS' if r.passed else 'FAIL'} | {r.assertion.expect} | {r.assertion.name} | {r.detail} |"
                for r in results
            ]
            return "\n".join(lines) + f"\n\n{summary(results)}\n"
        case _:
            width = max((len(r.assertion.name) for r in results), default=10)
            lines = [f"{'RESULT':<6}  {'EXPECT':<6}  {'ASSERTION':<{width}}  DETAIL"]
            lines += [
                f"{'PASS' if r.passed else 'FAIL':<6}  {r.assertion.expect:<6}  {r.assertion.name:<{width}}  {r.detail}"
                for r in results
            ]
            return "\n".join(lines) + f"\n{summary(results)}\n"


def junit_xml(results: list[Result], suite: str = "netpol check") -> str:
    """JUnit XML (the Jenkins/GitLab/GitHub test-report dialect): one testcase per assertion."""
    failures = sum(not r.passed and not r.error for r in results)
    errors = sum(r.error for r in results)
    root = ET.Element("testsuites", name=suite, tests=str(len(results)), failures=str(failures), errors=str(errors))
    ts = ET.SubElement(
        root,
        "testsuite",
        name=suite,
        tests=str(len(results)),
        failures=str(failures),
        errors=str(errors),
        skipped="0",
        time="0",
    )
    for r in results:
        tc = ET.SubElement(ts, "testcase", classname="netpol.check", name=r.assertion.name, time="0")
        if r.error:
            el = ET.SubElement(tc, "error", message=r.detail, type="ExpectationError")
            el.text = r.detail
        elif not r.passed:
            el = ET.SubElement(tc, "failure", message=r.detail, type="ExpectationFailed")
            el.text = "\n".join(r.offending) or r.detail
        else:
            ET.SubElement(tc, "system-out").text = r.detail
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
