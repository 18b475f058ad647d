"""`netpol exposure` as text, Markdown or JSON: each path with its verdict and the rules deciding each hop,
then what the pods' own policies admit or reach beyond the input."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from netpol.exposure.beyond import Admission, PodBeyond
from netpol.exposure.doors import Door
from netpol.exposure.paths import Hop, Path
from netpol.exposure.proxies import ProxyPods


@dataclass(frozen=True)
class ExposureReport:
    """What one question printed: the paths kept (by -n, --focus), the pods' admissions beyond the input."""

    paths: tuple[Path, ...]
    beyond: tuple[PodBeyond, ...]
    proxies: dict[str, ProxyPods]
    cluster_traffic_source: str
    notes: tuple[str, ...] = ()
    title: str = "exposure"

    def render(self, fmt: str) -> str:
        match fmt:
            case "json":
                return json.dumps(self.to_json(), indent=2) + "\n"
            case "md":
                return "\n".join(md_lines(self)) + "\n"
            case _:
                return "\n".join(txt_lines(self)) + "\n"

    def to_json(self) -> dict[str, object]:
        return {
            "question": self.title,
            "cluster_traffic_source": self.cluster_traffic_source,
            "paths": [path_json(p) for p in self.paths],
            "proxies": [proxy_json(p) for _, p in sorted(self.proxies.items())],
            "beyond": [admission_json(b.pod, a) for b in self.beyond for a in b.admissions],
            "notes": list(self.notes),
        }


def door_words(door: Door) -> str:
    """`LoadBalancer web/front (port 80)` for a Service door, `Ingress web/site (HTTP 80)` for the others."""
    if door.object.startswith("Service "):
        return f"{door.kind} {door.object.removeprefix('Service ')} ({door.entry})"
    return f"{door.object} ({door.entry})"


def path_head(p: Path) -> str:
    parts = ["internet", door_words(p.door)]
    if p.proxy:
        parts.append(p.proxy)
    if p.backend is not None and p.backend.service:
        parts.append(p.service_port)
    if p.pod:
        parts.append(p.pod + (f" : {p.target}" if p.target else ""))
    return " → ".join(parts)


def hop_line(h: Hop) -> str:
    state = "allowed" if h.allowed else "blocked"
    if h.admitted and h.refused and h.allowed:
        state = f"allowed from {', '.join(h.admitted)}; refused from {', '.join(h.refused)}"
    elif h.admitted and h.allowed:
        state = f"allowed from {', '.join(h.admitted)}"
    elif h.refused and not h.allowed:
        state = f"blocked from {', '.join(h.refused)}"
    return f"{h.src} => {h.dst} : {h.port} {state}"


def path_lines(p: Path, proxies: dict[str, ProxyPods]) -> list[str]:
    out = [f"{p.verdict.upper():<11} {path_head(p)}"]
    if p.problem:
        out.append(f"  not routed: {p.problem}")
        return out
    if p.source:
        out.append(f"  source: {p.source}")
    for k, h in enumerate(p.hops, 1):
        prefix = f"hop {k}: " if len(p.hops) > 1 else ""
        out.append(f"  {prefix}{hop_line(h)}")
        if h.src not in ("internet", "nodes"):
            out.append(f"    egress:  {'; '.join(h.egress)}")
        out.append(f"    ingress: {'; '.join(h.ingress)}")
    if p.door.proxy is not None:
        proxy = proxies.get(p.door.proxy.key)
        if proxy is not None:
            out.append(f"  proxy: {p.door.proxy.what}: {proxy.how}")
    return out


def admission_line(pod: str, a: Admission) -> str:
    arrow = "<=" if a.direction == "ingress" else "=>"
    return f"{pod} {arrow} {a.peer} : {a.conn.render()}"


def txt_lines(report: ExposureReport) -> list[str]:
    out: list[str] = []
    for p in report.paths:
        out += path_lines(p, report.proxies)
    if not report.paths:
        out.append(
            "(no path from outside the cluster: no LoadBalancer or NodePort Service, externalIPs, Ingress, Gateway "
            "route or Route leads there)"
        )
    out += beyond_lines(report.beyond)
    out += [f"note: {n}" for n in report.notes]
    return out


def beyond_lines(beyond: Sequence[PodBeyond]) -> list[str]:
    """The pods' admissions beyond the input; pods not isolated at all summed up in one line per direction."""
    if not beyond:
        return []
    out = ["", "beyond the input (what each pod's own policies admit (<=) or reach (=>) outside it):"]
    open_: dict[str, list[str]] = {"ingress": [], "egress": []}
    for b in beyond:
        for a in b.admissions:
            if not a.isolated and a.whole_cluster and a.rules == ("not isolated",):
                open_[a.direction].append(b.pod)
                continue
            out.append(admission_line(b.pod, a))
            out.append(f"    {'; '.join(a.rules)}")
    for direction, pods in open_.items():
        if pods:
            out.append(f"not isolated for {direction} (the whole cluster, every port): {', '.join(pods)}")
    return out


def md_lines(report: ExposureReport) -> list[str]:
    out = [
        f"## {report.title}",
        "",
        "| verdict | path | hops (deciding rules) |",
        "|---|---|---|",
    ]
    for p in report.paths:
        if p.problem:
            detail = f"not routed: {p.problem}"
        else:
            detail = "<br>".join(
                f"{hop_line(h)}: {'; '.join((*(h.egress if h.src not in ('internet', 'nodes') else ()), *h.ingress))}"
                for h in p.hops
            )
        out.append(f"| {p.verdict} | {_md(path_head(p))} | {_md(detail)} |")
    if not report.paths:
        out.append("| - | no path from outside the cluster | - |")
    if report.beyond:
        out += ["", "### Beyond the input", "", "| pod | direction | peer | ports | rules |", "|---|---|---|---|---|"]
        out += [
            f"| {b.pod} | {a.direction} | {_md(a.peer)} | {a.conn.render()} | {_md('; '.join(a.rules))} |"
            for b in report.beyond
            for a in b.admissions
        ]
    out += [f"\n> {n}" for n in report.notes]
    return out


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def path_json(p: Path) -> dict[str, object]:
    d = p.door
    return {
        "verdict": p.verdict,
        "door": {
            "kind": d.kind,
            "object": d.object,
            "namespace": d.namespace,
            "entry": d.entry,
            "port": d.entry_port,
            "protocol": d.protocol,
            "client_ranges": list(d.client_ranges),
            "traffic_policy": d.traffic_policy,
            "proxy": d.proxy.key if d.proxy is not None else None,
            "file": d.source.file,
        },
        "proxy": p.proxy or None,
        "service": p.backend.service if p.backend is not None else None,
        "service_port": p.backend.port.port if p.backend is not None and p.backend.port is not None else None,
        "via": p.backend.via if p.backend is not None else None,
        "pod": p.pod or None,
        "target": p.target or None,
        "source": p.source,
        "problem": p.problem or None,
        "hops": [
            {
                "src": h.src,
                "dst": h.dst,
                "port": h.port,
                "allowed": h.allowed,
                "egress_rules": list(h.egress),
                "ingress_rules": list(h.ingress),
                "admitted": list(h.admitted),
                "refused": list(h.refused),
            }
            for h in p.hops
        ],
    }


def proxy_json(p: ProxyPods) -> dict[str, object]:
    return {
        "key": p.ref.key,
        "what": p.ref.what,
        "pods": [] if p.stand_in is not None else list(p.pods),
        "in_input": p.stand_in is None,
        "unknown": p.unknown,
        "assumed": p.ref.convention.name if p.unknown and p.ref.convention is not None else None,
        "how": p.how,
    }


def admission_json(pod: str, a: Admission) -> dict[str, object]:
    return {
        "pod": pod,
        "direction": a.direction,
        "peer": a.peer,
        "unknown_namespace": a.unknown_namespace,
        "isolated": a.isolated,
        "conn": a.conn.to_json(),
        "text": a.conn.render(),
        "rules": list(a.rules),
    }
