"""NetworkPolicy (networking.k8s.io/v1) → model, validated as apis/networking/validation does.

policyTypes defaulting: Ingress always, Egress only when the policy has egress rules. Every field of a
policy decides reachability, so an unknown or misspelt key is an error here (`from` written `form` would
otherwise allow everyone), and `null` is unset (`namespaceSelector: null` is the policy's own namespace).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from netpol.errors import InputError, SourceRef
from netpol.loading import typed as t
from netpol.loading.fields import annotations_field, cidr_field, namespace_of, read_label_selector
from netpol.loading.schema import fields
from netpol.model.cluster import Warning_
from netpol.model.objects import (
    PROTOCOLS,
    IPBlock,
    NetworkPolicy,
    NetworkPolicyPeer,
    NetworkPolicyPort,
    NetworkPolicyRule,
)

SPEC = fields("NetworkPolicySpec")
INGRESS_RULE = fields("NetworkPolicyIngressRule")
EGRESS_RULE = fields("NetworkPolicyEgressRule")
PEER = fields("NetworkPolicyPeer")
IP_BLOCK = fields("IPBlock")
PORT = fields("NetworkPolicyPort")


def read_policy(obj: Mapping[str, Any], src: SourceRef) -> tuple[NetworkPolicy, list[Warning_]]:
    """The policy with the API server's defaults, and warnings for rules that can have no effect."""
    warnings: list[Warning_] = []
    meta = t.obj(obj.get("metadata"), src, "metadata")
    ns = namespace_of(meta, src)
    spec = obj.get("spec")
    if spec is None:
        raise t.required(src, "spec")
    spec = t.obj(spec, src, "spec")
    t.check_fields(spec, SPEC, src, "spec")
    if spec.get("podSelector") is None:
        raise t.required(src, "spec.podSelector", "use {} to select every pod of the namespace")
    pod_selector = read_label_selector(spec.get("podSelector"), src, "spec.podSelector")
    ingress = tuple(
        _rule(r, src, path, "from", INGRESS_RULE) for r, path in _rules(spec.get("ingress"), src, "spec.ingress")
    )
    egress_raw = t.arr(spec.get("egress"), src, "spec.egress")
    egress = tuple(_rule(r, src, path, "to", EGRESS_RULE) for r, path in _rules(egress_raw, src, "spec.egress"))
    types_raw = t.strings(spec.get("policyTypes"), src, "spec.policyTypes")
    if types_raw:
        types = []
        for i, ty in enumerate(types_raw):
            if ty not in ("Ingress", "Egress"):
                raise InputError(
                    f'Unsupported value: {t.show(ty)}: supported values: "Ingress", "Egress"',
                    src,
                    f"spec.policyTypes[{i}]",
                )
            if ty not in types:
                types.append(ty)
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
    name = t.string(meta.get("name"), src, "metadata.name")
    annotations = annotations_field(meta.get("annotations"), src)
    policy = NetworkPolicy(ns, name, pod_selector, policy_types, ingress, egress, src, raw=obj, annotations=annotations)
    return policy, warnings


def _rules(value: Any, src: SourceRef, path: str) -> list[tuple[Mapping[str, Any], str]]:
    """Rules of one direction; a null rule (`- ` alone) is the empty rule, as the API decodes it."""
    return t.objs(value, src, path)


def _rule(r: Mapping[str, Any], src: SourceRef, fld: str, peers_key: str, known: frozenset[str]) -> NetworkPolicyRule:
    t.check_fields(r, known, src, fld)
    peers = tuple(
        _peer(p, src, f"{fld}.{peers_key}[{i}]")
        for i, p in enumerate(t.arr(r.get(peers_key), src, f"{fld}.{peers_key}"))
    )
    ports = tuple(_port(p, src, f"{fld}.ports[{i}]") for i, p in enumerate(t.arr(r.get("ports"), src, f"{fld}.ports")))
    return NetworkPolicyRule(peers, ports)


def _peer(p: Any, src: SourceRef, fld: str) -> NetworkPolicyPeer:
    """ValidateNetworkPolicyPeer: exactly the non-null selectors count; ipBlock stands alone."""
    if p is None:
        raise t.required(src, fld, "must specify a peer")
    p = t.obj(p, src, fld)
    t.check_fields(p, PEER, src, fld)
    pod = p.get("podSelector")
    nsel = p.get("namespaceSelector")
    ipb = p.get("ipBlock")
    present = sum(v is not None for v in (pod, nsel, ipb))
    if present == 0:
        raise t.required(src, fld, "must specify a peer")
    if ipb is not None and present > 1:
        raise InputError("Forbidden: may not specify both ipBlock and another peer", src, fld)
    if ipb is not None:
        return NetworkPolicyPeer(ip_block=_ip_block(ipb, src, fld + ".ipBlock"))
    return NetworkPolicyPeer(
        pod_selector=None if pod is None else read_label_selector(pod, src, fld + ".podSelector"),
        namespace_selector=None if nsel is None else read_label_selector(nsel, src, fld + ".namespaceSelector"),
    )


def _ip_block(ipb: Any, src: SourceRef, fld: str) -> IPBlock:
    m = t.obj(ipb, src, fld)
    t.check_fields(m, IP_BLOCK, src, fld)
    if not m.get("cidr"):
        raise t.required(src, fld + ".cidr")
    cidr = cidr_field(m["cidr"], src, fld + ".cidr")
    excepts = []
    for i, e in enumerate(t.arr(m.get("except"), src, fld + ".except")):
        efld = f"{fld}.except[{i}]"
        ex = cidr_field(e, src, efld)
        if ex.version != cidr.version or ex not in cidr or ex == cidr:
            raise t.invalid(e, f"must be a strict subset of `cidr` ({m['cidr']})", src, efld)
        excepts.append(str(e))
    return IPBlock(str(m["cidr"]), tuple(excepts))


def port_name_problem(name: str) -> str | None:
    """IsValidPortName (IANA_SVC_NAME): 1-15 lowercase alphanumerics or '-', a letter, no '--', no '-' at an end."""
    if not name or len(name) > 15:
        return "must be no more than 15 characters"
    if not all(c.islower() and c.isascii() or c.isdigit() and c.isascii() or c == "-" for c in name):
        return "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)"
    if "--" in name:
        return "must not contain consecutive hyphens"
    if not any(c.isalpha() for c in name):
        return "must contain at least one letter (a-z)"
    if name.startswith("-") or name.endswith("-"):
        return "must not begin or end with a hyphen"
    return None


def port_number(value: Any, src: SourceRef, fld: str) -> int | str | None:
    """A port as a number 1-65535 or a port name (IntOrString); a string of digits is not a name."""
    port = t.int_or_string(value, src, fld)
    if isinstance(port, int):
        if not 1 <= port <= 65535:
            raise t.invalid(port, "must be between 1 and 65535, inclusive", src, fld)
    elif isinstance(port, str):
        reason = port_name_problem(port)
        if reason:
            raise t.invalid(port, reason, src, fld)
    return port


def _port(p: Any, src: SourceRef, fld: str) -> NetworkPolicyPort:
    m = t.obj(p, src, fld)
    t.check_fields(m, PORT, src, fld)
    proto = t.string(m.get("protocol"), src, fld + ".protocol") or "TCP"
    if proto not in PROTOCOLS:
        raise InputError(
            f'Unsupported value: {t.show(proto)}: supported values: "SCTP", "TCP", "UDP"', src, fld + ".protocol"
        )
    port = port_number(m.get("port"), src, fld + ".port")
    end = m.get("endPort")
    if end is not None:
        end = t.integer(end, src, fld + ".endPort")
        if port is None:
            raise t.required(src, fld + ".port", "must specify `port` when `endPort` is specified")
        if isinstance(port, str):
            raise InputError("Forbidden: may not be specified when `port` is non-numeric", src, fld + ".endPort")
        if end < port:
            raise t.invalid(end, "must be greater than or equal to `port`", src, fld + ".endPort")
        if end > 65535:
            raise t.invalid(end, "must be between 1 and 65535, inclusive", src, fld + ".endPort")
    return NetworkPolicyPort(proto, port, end)
