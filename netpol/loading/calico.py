"""Calico's objects (projectcalico.org/v3 and crd.projectcalico.org/v1) → netpol.model.calico, kubectl-strict.

What the CRD schemas and Calico's validator refuse is refused (api/pkg/apis/projectcalico/v3 kubebuilder
markers and CEL rules; libcalico-go lib/validator/v3 validateRule / validateEntityRule / validateNetworkPolicy):
- names: policies and tiers are DNS-1123 labels (no dots), except Kubernetes-converted `knp.default.*` and the
  `<tier>.<name>` form Calico required before 3.30;
- actions Allow / Deny / Pass / Log; types Ingress / Egress (one or two, no repeats);
- protocol / notProtocol: TCP, UDP, ICMP, ICMPv6, SCTP, UDPLite (any case) or 1–255;
- ports: with a protocol only if it has ports (TCP, UDP, SCTP, UDPLite); without a protocol only named ports;
- nets: CIDRs (or plain addresses), not 0.0.0.0/0 or ::/0 in notNets, not IPv4 and IPv6 in one rule, matching
  ipVersion; icmp only with ICMP/ICMPv6;
- selectors parse (netpol.model.calico_selector; the error names the column); `global()` only in an entity
  rule's namespaceSelector, and alone there;
- services: a name, not with selector / notSelector / namespaceSelector / nets / notNets / serviceAccounts /
  ports; only in an egress rule's destination or an ingress rule's source.
Unknown fields are errors anywhere in a spec (they decide who reaches whom).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any, get_args

from netpol.errors import InputError, SourceRef
from netpol.loading import typed as t
from netpol.loading.fields import cidr_field, ip_field, labels_field, namespace_of
from netpol.model.calico import (
    CALICO_ACTIONS,
    LABEL_NAMESPACE,
    PROTOCOL_NUMBERS,
    CalicoObjects,
    CalicoPolicy,
    CalicoPolicyKind,
    CalicoPort,
    CalicoRule,
    CalicoTier,
    EntityRule,
    NetworkSet,
    Protocol,
    ServiceAccount,
    ServiceAccountMatch,
    ServiceMatch,
    TierAction,
)
from netpol.model.calico_selector import ALL, Selector, SelectorError, parse_selector
from netpol.model.vocab import Direction

CALICO_KINDS = frozenset({"NetworkPolicy", "GlobalNetworkPolicy", "Tier", "NetworkSet", "GlobalNetworkSet"})

NP_SPEC = frozenset(
    {"tier", "order", "ingress", "egress", "selector", "types", "serviceAccountSelector", "performanceHints"}
)
GNP_SPEC = NP_SPEC | frozenset({"namespaceSelector", "doNotTrack", "preDNAT", "applyOnForward"})
RULE = frozenset(
    {"action", "ipVersion", "protocol", "icmp", "notProtocol", "notICMP", "source", "destination", "http", "metadata"}
)
ENTITY = frozenset(
    {
        "nets",
        "selector",
        "namespaceSelector",
        "services",
        "ports",
        "notNets",
        "notSelector",
        "notPorts",
        "serviceAccounts",
    }
)
PORTED = frozenset({6, 17, 132, 136})  # numorstring.Protocol.SupportsPorts: TCP, UDP, SCTP, UDPLite
_LABEL_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_PORT_RANGE = re.compile(r"^(\d+):(\d+)$")
_PORT_NAME = re.compile(r"^[a-zA-Z0-9]([-a-zA-Z0-9_.]*[a-zA-Z0-9])?$")  # numorstring: IANA-ish names


def selector_field(value: Any, src: SourceRef, fld: str, *, allow_global: bool = False) -> Selector | None:
    """A selector string (None when absent or empty: no restriction); a parse error names its column."""
    text = t.string(value, src, fld)
    if not text.strip():
        return None
    if len(text) > 1024:
        raise t.invalid(text, "must be no more than 1024 characters", src, fld)
    try:
        sel = parse_selector(text)
    except SelectorError as exc:
        raise t.invalid(text, f"invalid selector: {exc}", src, fld) from None
    if sel.uses_global and not (allow_global and text.strip() == "global()"):
        detail = (
            "global() must be the whole namespaceSelector"
            if allow_global
            else "global() can only be used in an entity rule's namespaceSelector"
        )
        raise t.invalid(text, detail, src, fld)
    return sel


def _order(value: Any, src: SourceRef, fld: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise t.invalid(value, "must be a number", src, fld)
    return float(value)


def _name(name: str, src: SourceRef, *, policy: bool, tier: str = "") -> None:
    if policy and name.startswith("knp.default."):
        return  # Kubernetes NetworkPolicies as Calico shows them
    if policy and tier and name.startswith(tier + "."):
        name = name[len(tier) + 1 :]  # Calico before 3.30 wanted `<tier>.<name>` (and stores `default.<name>`)
    if len(name) > 63 or not _LABEL_NAME.match(name):
        raise t.invalid(
            name, "name must consist of lower case alphanumeric characters or '-' (at most 63)", src, "metadata.name"
        )


def read_tier(obj: Mapping[str, Any], src: SourceRef) -> CalicoTier:
    name = obj["metadata"]["name"]
    _name(name, src, policy=False)
    spec = t.obj(obj.get("spec"), src, "spec")
    t.check_fields(spec, frozenset({"order", "defaultAction"}), src, "spec")
    action = spec.get("defaultAction")
    choices: tuple[TierAction, ...] = get_args(TierAction)
    if action is not None and action not in choices:
        raise t.unsupported(action, choices, src, "spec.defaultAction")
    default: TierAction = "Pass" if name in ("kube-admin", "kube-baseline") else "Deny"
    return CalicoTier(name, _order(spec.get("order"), src, "spec.order"), action or default, src)


def read_network_set(obj: Mapping[str, Any], src: SourceRef) -> NetworkSet:
    meta = obj["metadata"]
    glob = src.kind == "GlobalNetworkSet"
    ns = "" if glob else namespace_of(meta, src)
    labels = labels_field(meta.get("labels"), src, "metadata.labels")
    if LABEL_NAMESPACE in labels:
        raise t.invalid(LABEL_NAMESPACE, f"{LABEL_NAMESPACE} is not a valid label name", src, "metadata.labels")
    spec = t.obj(obj.get("spec"), src, "spec")
    t.check_fields(spec, frozenset({"nets"}), src, "spec")
    nets = tuple(_net(v, src, f"spec.nets[{i}]") for i, v in enumerate(t.arr(spec.get("nets"), src, "spec.nets")))
    return NetworkSet(ns, meta["name"], labels, nets, src)


def read_service_account(obj: Mapping[str, Any], src: SourceRef) -> ServiceAccount:
    meta = obj["metadata"]
    return ServiceAccount(
        namespace_of(meta, src), meta["name"], labels_field(meta.get("labels"), src, "metadata.labels"), src
    )


def _net(value: Any, src: SourceRef, fld: str) -> str:
    """A CIDR, or a plain address meaning a /32 (/128) (libcalico-go ParseCIDROrIP), normalised to its network."""
    text = t.string(value, src, fld)
    if "/" not in text:
        ip = ip_field(text, src, fld)
        return f"{ip}/{32 if ip.version == 4 else 128}"
    return str(cidr_field(text, src, fld).cidr)


def read_policy(obj: Mapping[str, Any], src: SourceRef, api: str) -> CalicoPolicy:
    kind: CalicoPolicyKind = "GlobalNetworkPolicy" if src.kind == "GlobalNetworkPolicy" else "NetworkPolicy"
    meta = obj["metadata"]
    name = meta["name"]
    ns = "" if kind == "GlobalNetworkPolicy" else namespace_of(meta, src)
    spec = t.obj(obj.get("spec"), src, "spec")
    t.check_fields(spec, GNP_SPEC if kind == "GlobalNetworkPolicy" else NP_SPEC, src, "spec")
    tier = t.string(spec.get("tier"), src, "spec.tier") or "default"
    if len(tier) > 63 or not _LABEL_NAME.match(tier):
        raise t.invalid(tier, "a tier name is a DNS-1123 label", src, "spec.tier")
    _name(name, src, policy=True, tier=tier)
    ingress = tuple(
        _rule(r, src, f"spec.ingress[{i}]", "ingress", ns)
        for i, r in enumerate(t.arr(spec.get("ingress"), src, "spec.ingress"))
    )
    egress = tuple(
        _rule(r, src, f"spec.egress[{i}]", "egress", ns)
        for i, r in enumerate(t.arr(spec.get("egress"), src, "spec.egress"))
    )
    types = _types(spec.get("types"), src, bool(ingress), bool(egress))
    selector = selector_field(spec.get("selector"), src, "spec.selector")
    ns_selector = None
    flags = {"doNotTrack": False, "preDNAT": False, "applyOnForward": False}
    if kind == "GlobalNetworkPolicy":
        ns_selector = selector_field(spec.get("namespaceSelector"), src, "spec.namespaceSelector")
        for f in flags:
            flags[f] = t.boolean(spec.get(f), src, f"spec.{f}")
    for i, hint in enumerate(t.arr(spec.get("performanceHints"), src, "spec.performanceHints")):
        if hint != "AssumeNeededOnEveryNode":
            raise t.unsupported(hint, ("AssumeNeededOnEveryNode",), src, f"spec.performanceHints[{i}]")
    return CalicoPolicy(
        kind=kind,
        namespace=ns,
        name=name,
        tier=tier,
        order=_order(spec.get("order"), src, "spec.order"),
        selector=selector or ALL,
        types=types,
        ingress=ingress if "ingress" in types else (),
        egress=egress if "egress" in types else (),
        namespace_selector=ns_selector,
        service_account_selector=selector_field(spec.get("serviceAccountSelector"), src, "spec.serviceAccountSelector"),
        do_not_track=flags["doNotTrack"],
        pre_dnat=flags["preDNAT"],
        apply_on_forward=flags["applyOnForward"],
        api_version=api,
        source=src,
        raw=obj,
    )


def _types(value: Any, src: SourceRef, has_ingress: bool, has_egress: bool) -> tuple[Direction, ...]:
    """`types`, or Calico's default: Egress alone when only egress rules are given, both when both are, else
    Ingress (v3 NetworkPolicySpec.Types) — unlike Kubernetes, egress rules alone do not imply Ingress."""
    if value is None or value == []:
        if has_egress and not has_ingress:
            return ("egress",)
        return ("ingress", "egress") if has_egress else ("ingress",)
    items = t.arr(value, src, "spec.types")
    if len(items) > 2:
        raise t.invalid(value, "must have at most 2 items", src, "spec.types")
    out: list[Direction] = []
    for i, v in enumerate(items):
        if v not in ("Ingress", "Egress"):
            raise t.unsupported(v, ("Ingress", "Egress"), src, f"spec.types[{i}]")
        d: Direction = "ingress" if v == "Ingress" else "egress"
        if d in out:
            raise InputError(f"Duplicate value: {t.show(v)}", src, f"spec.types[{i}]")
        out.append(d)
    return tuple(sorted(out, key=("ingress", "egress").index))


def protocol_field(value: Any, src: SourceRef, fld: str) -> Protocol | None:
    if value is None:
        return None
    if isinstance(value, bool):
        raise t.wrong_type(value, "a protocol name or number", src, fld)
    if isinstance(value, int):
        if not 1 <= value <= 255:
            raise t.invalid(value, "must be between 1 and 255, inclusive", src, fld)
        return Protocol(value, str(value))
    text = t.string(value, src, fld)
    number = PROTOCOL_NUMBERS.get(text.lower())
    if number is None:
        if text.isdigit() and 1 <= int(text) <= 255:
            return Protocol(int(text), text)
        raise t.unsupported(value, ("TCP", "UDP", "ICMP", "ICMPv6", "SCTP", "UDPLite"), src, fld)
    return Protocol(number, text)


def _rule(r: Any, src: SourceRef, fld: str, direction: Direction, ns: str) -> CalicoRule:
    m = t.obj(r, src, fld)
    t.check_fields(m, RULE, src, fld)
    action = m.get("action")
    if action not in CALICO_ACTIONS:
        raise t.unsupported(action, CALICO_ACTIONS, src, f"{fld}.action")
    protocol = protocol_field(m.get("protocol"), src, f"{fld}.protocol")
    not_protocol = protocol_field(m.get("notProtocol"), src, f"{fld}.notProtocol")
    ip_version = None
    if m.get("ipVersion") is not None:
        ip_version = t.integer(m.get("ipVersion"), src, f"{fld}.ipVersion")
        if ip_version not in (4, 6):
            raise t.unsupported(ip_version, ("4", "6"), src, f"{fld}.ipVersion")
    icmp_text = []
    for key in ("icmp", "notICMP"):
        if m.get(key) is None:
            continue
        icmp = t.obj(m[key], src, f"{fld}.{key}")
        t.check_fields(icmp, frozenset({"type", "code"}), src, f"{fld}.{key}")
        typ = t.opt_integer(icmp.get("type"), src, f"{fld}.{key}.type", 0, 254)
        code = t.opt_integer(icmp.get("code"), src, f"{fld}.{key}.code", 0, 255)
        if code is not None and typ is None:
            raise t.invalid(code, "ICMP code specified without an ICMP type", src, f"{fld}.{key}.code")
        if key == "icmp" and (protocol is None or protocol.number not in (1, 58)):
            raise InputError("Invalid value: ICMP fields require protocol to be ICMP or ICMPv6", src, f"{fld}.icmp")
        icmp_text.append(f"{key} type {typ}" + (f" code {code}" if code is not None else ""))
    for p, key in ((protocol, "protocol"), (not_protocol, "notProtocol")):
        if (
            p is not None
            and ip_version is not None
            and p.number in (1, 58)
            and ip_version != (4 if p.number == 1 else 6)
        ):
            raise t.invalid(
                p.text, f"protocol {p.text} requires ipVersion {4 if p.number == 1 else 6}", src, f"{fld}.{key}"
            )
    http = ""
    if m.get("http") is not None:
        h = t.obj(m["http"], src, f"{fld}.http")
        t.check_fields(h, frozenset({"methods", "paths"}), src, f"{fld}.http")
        if action != "Allow":
            raise InputError("Forbidden: HTTP match is only valid on Allow rules", src, f"{fld}.http")
        if direction == "egress":
            raise InputError("Forbidden: not allowed in egress rule", src, f"{fld}.http")
        if protocol is not None and protocol.number != 6:
            raise InputError("Invalid value: rules with HTTP match must have protocol TCP or unset", src, f"{fld}.http")
        methods = t.strings(h.get("methods"), src, f"{fld}.http.methods")
        paths = []
        for path, where in t.objs(h.get("paths"), src, f"{fld}.http.paths"):
            t.check_fields(path, frozenset({"exact", "prefix"}), src, where)
            if (path.get("exact") is None) == (path.get("prefix") is None):
                raise InputError("Invalid value: a path needs exactly one of exact or prefix", src, where)
            exact = path.get("exact")
            paths.append(t.string(exact or path.get("prefix"), src, where) + ("" if exact else "*"))
        http = " ".join(part for part in (",".join(methods), ",".join(paths)) if part) or "any request"
    if m.get("metadata") is not None:
        meta = t.obj(m["metadata"], src, f"{fld}.metadata")
        t.check_fields(meta, frozenset({"annotations"}), src, f"{fld}.metadata")
        t.string_map(meta.get("annotations"), src, f"{fld}.metadata.annotations")
    source = _entity(m.get("source"), src, f"{fld}.source", protocol, ns)
    destination = _entity(m.get("destination"), src, f"{fld}.destination", protocol, ns)
    if direction == "egress" and source.services is not None:
        raise InputError("Forbidden: services not allowed in egress rule source", src, f"{fld}.source.services")
    if direction == "ingress" and destination.services is not None:
        raise InputError(
            "Forbidden: services not allowed in ingress rule destination", src, f"{fld}.destination.services"
        )
    if destination.services is not None and (destination.ports or destination.not_ports):
        raise InputError(
            "Forbidden: ports and notPorts cannot be specified with services", src, f"{fld}.destination.ports"
        )
    _families(
        src,
        fld,
        ip_version,
        (
            ("source.nets", source.nets),
            ("source.notNets", source.not_nets),
            ("destination.nets", destination.nets),
            ("destination.notNets", destination.not_nets),
        ),
    )
    return CalicoRule(action, protocol, not_protocol, ip_version, source, destination, "; ".join(icmp_text), http)


def _families(
    src: SourceRef, fld: str, ip_version: int | None, fields: tuple[tuple[str, tuple[str, ...]], ...]
) -> None:
    seen: set[int] = set()
    for name, nets in fields:
        versions = {6 if ":" in n else 4 for n in nets}
        if ip_version is not None and versions - {ip_version}:
            raise t.invalid(list(nets), "rule IP version doesn't match CIDR version", src, f"{fld}.{name}")
        seen |= versions
        if len(seen) > 1:
            raise t.invalid(list(nets), "rule contains both IPv4 and IPv6 CIDRs", src, f"{fld}.{name}")


def _entity(value: Any, src: SourceRef, fld: str, protocol: Protocol | None, ns: str) -> EntityRule:
    m = t.obj(value, src, fld)
    t.check_fields(m, ENTITY, src, fld)
    nets = tuple(_net(v, src, f"{fld}.nets[{i}]") for i, v in enumerate(t.arr(m.get("nets"), src, f"{fld}.nets")))
    not_nets = []
    for i, v in enumerate(t.arr(m.get("notNets"), src, f"{fld}.notNets")):
        net = _net(v, src, f"{fld}.notNets[{i}]")
        if net in ("0.0.0.0/0", "::/0"):
            raise t.invalid(
                v,
                "catch-all CIDR in negation creates logical contradiction (matches no traffic)",
                src,
                f"{fld}.notNets[{i}]",
            )
        not_nets.append(net)
    for key, items in (("nets", nets), ("notNets", not_nets)):
        if len(items) > 256:
            raise t.invalid(list(items), "must have at most 256 items", src, f"{fld}.{key}")
    selector = selector_field(m.get("selector"), src, f"{fld}.selector")
    not_selector = selector_field(m.get("notSelector"), src, f"{fld}.notSelector")
    ns_selector = selector_field(m.get("namespaceSelector"), src, f"{fld}.namespaceSelector", allow_global=True)
    ports = _ports(m.get("ports"), src, f"{fld}.ports", protocol)
    not_ports = _ports(m.get("notPorts"), src, f"{fld}.notPorts", protocol)
    sam = None
    if m.get("serviceAccounts") is not None:
        sa = t.obj(m["serviceAccounts"], src, f"{fld}.serviceAccounts")
        t.check_fields(sa, frozenset({"names", "selector"}), src, f"{fld}.serviceAccounts")
        sam = ServiceAccountMatch(
            tuple(dict.fromkeys(t.strings(sa.get("names"), src, f"{fld}.serviceAccounts.names"))),
            selector_field(sa.get("selector"), src, f"{fld}.serviceAccounts.selector"),
        )
    services = None
    if m.get("services") is not None:
        s = t.obj(m["services"], src, f"{fld}.services")
        t.check_fields(s, frozenset({"name", "namespace"}), src, f"{fld}.services")
        name = t.string(s.get("name"), src, f"{fld}.services.name")
        if not name:
            raise t.required(src, f"{fld}.services.name", "services must specify a service name")
        conflicts = [
            k
            for k, present in (
                ("selector", selector),
                ("notSelector", not_selector),
                ("namespaceSelector", ns_selector),
                ("nets", nets),
                ("notNets", not_nets),
                ("serviceAccounts", sam),
            )
            if present
        ]
        if conflicts:
            raise InputError(
                f"Forbidden: cannot specify {conflicts[0]} and services on the same rule", src, f"{fld}.services"
            )
        svc_ns = t.string(s.get("namespace"), src, f"{fld}.services.namespace") or ns
        if not svc_ns:
            raise t.required(src, f"{fld}.services.namespace", "a GlobalNetworkPolicy names the Service's namespace")
        services = ServiceMatch(name, svc_ns)
    return EntityRule(nets, tuple(not_nets), selector, not_selector, ns_selector, ports, not_ports, sam, services)


def _ports(value: Any, src: SourceRef, fld: str, protocol: Protocol | None) -> tuple[CalicoPort, ...]:
    items = t.arr(value, src, fld)
    if len(items) > 50:
        raise t.invalid(items, "must have at most 50 items", src, fld)
    out = []
    for i, v in enumerate(items):
        where = f"{fld}[{i}]"
        port = _port(v, src, where)
        if protocol is None and not port.name:
            raise t.invalid(
                v, "a numeric port or range needs the rule's protocol (TCP, UDP, SCTP or UDPLite)", src, where
            )
        if protocol is not None and protocol.number not in PORTED:
            raise t.invalid(v, f"protocol {protocol.text} does not support ports", src, where)
        out.append(port)
    return tuple(out)


def _port(v: Any, src: SourceRef, where: str) -> CalicoPort:
    if isinstance(v, bool):
        raise t.wrong_type(v, "a port number, range or name", src, where)
    if isinstance(v, int):
        if not 0 <= v <= 65535:
            raise t.invalid(v, "must be between 0 and 65535, inclusive", src, where)
        return CalicoPort(v, v)
    text = t.string(v, src, where)
    if text.isdigit():
        n = int(text)
        if n > 65535:
            raise t.invalid(v, "must be between 0 and 65535, inclusive", src, where)
        return CalicoPort(n, n)
    rng = _PORT_RANGE.match(text)
    if rng:
        lo, hi = int(rng[1]), int(rng[2])
        if hi > 65535 or lo > hi:
            raise t.invalid(v, "a port range is first:last with 0 <= first <= last <= 65535", src, where)
        return CalicoPort(lo, hi)
    if len(text) > 128 or not _PORT_NAME.match(text):
        raise t.invalid(v, 'must be a port number, a range "first:last" or a port name', src, where)
    return CalicoPort(name=text)


class CalicoReader:
    """Collects the Calico objects of one read (and ServiceAccounts, whose labels Calico's rules may select)."""

    def __init__(self) -> None:
        self.tiers: dict[str, CalicoTier] = {}
        self.policies: dict[tuple[str, str], CalicoPolicy] = {}
        self.network_sets: dict[tuple[str, str], NetworkSet] = {}
        self.service_accounts: dict[tuple[str, str], ServiceAccount] = {}

    def read(self, obj: Mapping[str, Any], src: SourceRef, api: str) -> tuple[dict, object, object] | None:
        """Model one object: (table, key, value) for the caller to store (it records duplicates), or None."""
        match src.kind:
            case "NetworkPolicy" | "GlobalNetworkPolicy":
                pol = read_policy(obj, src, api)
                return self.policies, (pol.kind, pol.key), pol
            case "Tier":
                tier = read_tier(obj, src)
                return self.tiers, tier.name, tier
            case "NetworkSet" | "GlobalNetworkSet":
                ns = read_network_set(obj, src)
                return self.network_sets, (ns.kind, ns.key), ns
            case "ServiceAccount":
                sa = read_service_account(obj, src)
                return self.service_accounts, (sa.namespace, sa.name), sa
            case _:
                return None

    def objects(self) -> tuple[CalicoObjects, list[tuple[str, str, SourceRef | None]]]:
        """The sorted objects, and (code, message, source) warnings: what is not evaluated, and why."""
        warnings: list[tuple[str, str, SourceRef | None]] = []
        kept = []
        for pol in sorted(self.policies.values(), key=lambda p: (p.kind, p.namespace, p.name)):
            if pol.do_not_track or pol.pre_dnat:
                flag = "doNotTrack" if pol.do_not_track else "preDNAT"
                warnings.append(
                    (
                        "calico-out-of-scope",
                        f"GlobalNetworkPolicy {pol.name} sets {flag}: it applies to "
                        "host endpoints only, which netpol does not model; not evaluated",
                        pol.source,
                    )
                )
                continue
            if pol.tier not in self.tiers and pol.tier not in ("default", "kube-admin", "kube-baseline"):
                warnings.append(
                    (
                        "calico-unknown-tier",
                        f"{pol.kind} {pol.key} is in tier {pol.tier}, which the "
                        "input does not define: evaluated as a tier of no order (after every ordered "
                        "tier) that denies at its end",
                        pol.source,
                    )
                )
            kept.append(pol)
        tiers = dict(self.tiers)
        for pol in kept:
            if pol.tier not in tiers and pol.tier not in ("default", "kube-admin", "kube-baseline"):
                tiers[pol.tier] = CalicoTier(pol.tier, None, "Deny", None)
        return (
            CalicoObjects(
                tiers=tuple(sorted(tiers.values(), key=lambda t_: t_.name)),
                policies=tuple(kept),
                network_sets=tuple(sorted(self.network_sets.values(), key=lambda n: (n.namespace, n.name))),
                service_accounts=tuple(sorted(self.service_accounts.values(), key=lambda a: (a.namespace, a.name))),
            ),
            warnings,
        )
