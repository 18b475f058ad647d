"""NetworkPolicy (networking.k8s.io/v1) → model, validated as apis/networking/validation does.

policyTypes defaulting: Ingress always, Egress only when the policy has egress rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from netpol.errors import InputError, SourceRef
from netpol.loading.fields import (
    annotations_field,
    cidr_field,
    int_field,
    list_field,
    namespace_of,
    read_label_selector,
)
from netpol.model.cluster import Warning_
from netpol.model.objects import (
    PROTOCOLS,
    IPBlock,
    NetworkPolicy,
    NetworkPolicyPeer,
    NetworkPolicyPort,
    NetworkPolicyRule,
)


def read_policy(obj: Mapping[str, Any], src: SourceRef) -> tuple[NetworkPolicy, list[Warning_]]:
    """The policy with the API server's defaults, and warnings for rules that can have no effect."""
    warnings: list[Warning_] = []
    meta = obj["metadata"]
    ns = namespace_of(meta)
    spec = obj.get("spec")
    if not isinstance(spec, Mapping):
        raise InputError("spec is required", src, "spec")
    if "podSelector" not in spec:
        raise InputError("podSelector is required (use {} to select every pod)", src, "spec.podSelector")
    pod_selector = read_label_selector(spec.get("podSelector"), src, "spec.podSelector")
    ingress = tuple(
        _rule(r, src, f"spec.ingress[{i}]", "from")
        for i, r in enumerate(list_field(spec.get("ingress"), src, "spec.ingress"))
    )
    egress_raw = list_field(spec.get("egress"), src, "spec.egress")
    egress = tuple(_rule(r, src, f"spec.egress[{i}]", "to") for i, r in enumerate(egress_raw))
    types_raw = spec.get("policyTypes")
    if types_raw:
        types = []
        for i, t in enumerate(types_raw):
            if t not in ("Ingress", "Egress"):
                raise InputError(
                    f"policyTypes entries must be Ingress or Egress, got {t!r}", src, f"spec.policyTypes[{i}]"
                )
            if t not in types:
                types.append(t)
        policy_types = tuple(sorted(types, key=("Ingress", "Egress").index))
    else:
        # API default (networking/v1 defaults.go): Ingress always; Egress only when egress rules exist.
        policy_types = ("Ingress", "Egress") if egress_raw else ("Ingress",)
    if egress and "Egress" not in policy_types:
        warnings.append(
            Warning_(
                "ignored-rules", "egress rules are present but Egress is not in policyTypes; they have no effect", src
            )
        )
    if ingress and "Ingress" not in policy_types:
        warnings.append(
            Warning_(
                "ignored-rules", "ingress rules are present but Ingress is not in policyTypes; they have no effect", src
            )
        )
    annotations = annotations_field(meta.get("annotations"), src)
    policy = NetworkPolicy(
        ns, meta["name"], pod_selector, policy_types, ingress, egress, src, raw=obj, annotations=annotations
    )
    return policy, warnings


def _rule(r: Any, src: SourceRef, fld: str, peers_key: str) -> NetworkPolicyRule:
    if r is None:
        r = {}
    if not isinstance(r, Mapping):
        raise InputError("must be a rule (a mapping)", src, fld)
    peers = tuple(
        _peer(p, src, f"{fld}.{peers_key}[{i}]")
        for i, p in enumerate(list_field(r.get(peers_key), src, f"{fld}.{peers_key}"))
    )
    ports = tuple(
        _port(p, src, f"{fld}.ports[{i}]") for i, p in enumerate(list_field(r.get("ports"), src, f"{fld}.ports"))
    )
    return NetworkPolicyRule(peers, ports)


def _peer(p: Any, src: SourceRef, fld: str) -> NetworkPolicyPeer:
    if not isinstance(p, Mapping):
        raise InputError("must be a peer (podSelector, namespaceSelector or ipBlock)", src, fld)
    has_pod = "podSelector" in p
    has_ns = "namespaceSelector" in p
    ipb = p.get("ipBlock")
    if ipb is not None and (has_pod or has_ns):
        raise InputError("ipBlock cannot be combined with podSelector or namespaceSelector in one peer", src, fld)
    if ipb is None and not (has_pod or has_ns):
        raise InputError("a peer needs podSelector, namespaceSelector or ipBlock", src, fld)
    if ipb is not None:
        return NetworkPolicyPeer(ip_block=_ip_block(ipb, src, fld + ".ipBlock"))
    return NetworkPolicyPeer(
        pod_selector=read_label_selector(p.get("podSelector"), src, fld + ".podSelector") if has_pod else None,
        namespace_selector=read_label_selector(p.get("namespaceSelector"), src, fld + ".namespaceSelector")
        if has_ns
        else None,
    )


def _ip_block(ipb: Any, src: SourceRef, fld: str) -> IPBlock:
    if not isinstance(ipb, Mapping) or not ipb.get("cidr"):
        raise InputError("ipBlock needs a cidr", src, fld + ".cidr")
    cidr = cidr_field(ipb["cidr"], src, fld + ".cidr")
    excepts = []
    for i, e in enumerate(list_field(ipb.get("except"), src, fld + ".except")):
        efld = f"{fld}.except[{i}]"
        ex = cidr_field(e, src, efld)
        if ex.version != cidr.version or ex not in cidr or ex == cidr:
            raise InputError(f"except {e} must be a strict subset of cidr {ipb['cidr']}", src, efld)
        excepts.append(str(e))
    return IPBlock(str(ipb["cidr"]), tuple(excepts))


def _port(p: Any, src: SourceRef, fld: str) -> NetworkPolicyPort:
    if not isinstance(p, Mapping):
        raise InputError("must be a port (protocol, port, endPort)", src, fld)
    proto = p.get("protocol") or "TCP"
    if proto not in PROTOCOLS:
        raise InputError(f"unknown protocol {proto!r} (expected TCP, UDP or SCTP)", src, fld + ".protocol")
    port = p.get("port")
    end = p.get("endPort")
    if isinstance(port, str) and port.isdigit():
        port = int(port)
    if port is not None:
        if isinstance(port, bool) or not isinstance(port, int | str):
            raise InputError(f"port must be a number or a port name, got {port!r}", src, fld + ".port")
        if isinstance(port, int) and not 1 <= port <= 65535:
            raise InputError(f"port must be in 1..65535, got {port}", src, fld + ".port")
        if isinstance(port, str) and not port:
            raise InputError("port name must not be empty", src, fld + ".port")
    if end is not None:
        end = int_field(end, src, fld + ".endPort")
        if port is None:
            raise InputError("endPort requires port", src, fld + ".endPort")
        if isinstance(port, str):
            raise InputError("endPort cannot be used with a named port", src, fld + ".endPort")
        if end < port:
            raise InputError(f"endPort {end} must be >= port {port}", src, fld + ".endPort")
        if end > 65535:
            raise InputError(f"endPort must be <= 65535, got {end}", src, fld + ".endPort")
    return NetworkPolicyPort(proto, port, end)
