"""AdminNetworkPolicy and BaselineAdminNetworkPolicy (policy.networking.k8s.io/v1alpha1) → model.

Validation mirrors the CRD's schema: priority 0–1000, actions Allow/Deny/Pass (Pass only in ANPs), a
subject of `namespaces` or `pods`, peers of exactly one kind, ports of exactly one of portNumber,
namedPort, portRange (start <= end). The BANP is a singleton named `default`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from netpol.errors import InputError, SourceRef
from netpol.loading.fields import cidr_field, int_field, list_field, read_label_selector
from netpol.model.objects import PROTOCOLS, AdminNetworkPolicy, AdminPeer, AdminRule, NetworkPolicyPort


def read_admin_policy(obj: Mapping[str, Any], src: SourceRef) -> AdminNetworkPolicy:
    baseline = src.kind == "BaselineAdminNetworkPolicy"
    name = obj["metadata"]["name"]
    spec = obj.get("spec")
    if not isinstance(spec, Mapping):
        raise InputError("spec is required", src, "spec")
    if baseline and name != "default":
        raise InputError(
            "a BaselineAdminNetworkPolicy must be named 'default' (it is a singleton)", src, "metadata.name"
        )
    priority = None
    if not baseline:
        priority = int_field(spec.get("priority"), src, "spec.priority", minimum=0)
        if priority > 1000:
            raise InputError(f"priority must be in 0..1000, got {priority}", src, "spec.priority")
    subject = spec.get("subject")
    if not isinstance(subject, Mapping) or len([k for k in ("namespaces", "pods") if k in subject]) != 1:
        raise InputError("subject needs exactly one of namespaces or pods", src, "spec.subject")
    if "namespaces" in subject:
        ns_sel = read_label_selector(subject["namespaces"], src, "spec.subject.namespaces")
        pod_sel = None
    else:
        pods = subject["pods"] or {}
        ns_sel = read_label_selector(pods.get("namespaceSelector"), src, "spec.subject.pods.namespaceSelector")
        pod_sel = read_label_selector(pods.get("podSelector"), src, "spec.subject.pods.podSelector")
    actions = ("Allow", "Deny") if baseline else ("Allow", "Deny", "Pass")
    ingress = tuple(
        _rule(r, src, f"spec.ingress[{i}]", "from", actions, ("namespaces", "pods"))
        for i, r in enumerate(list_field(spec.get("ingress"), src, "spec.ingress"))
    )
    egress = tuple(
        _rule(r, src, f"spec.egress[{i}]", "to", actions, ("namespaces", "pods", "nodes", "networks"))
        for i, r in enumerate(list_field(spec.get("egress"), src, "spec.egress"))
    )
    return AdminNetworkPolicy(name, priority, ns_sel, pod_sel, ingress, egress, src, raw=obj)


def _rule(
    r: Any, src: SourceRef, fld: str, peers_key: str, actions: tuple[str, ...], peer_kinds: tuple[str, ...]
) -> AdminRule:
    if not isinstance(r, Mapping):
        raise InputError("must be a rule", src, fld)
    action = r.get("action")
    if action not in actions:
        raise InputError(f"action must be one of {', '.join(actions)}, got {action!r}", src, fld + ".action")
    peers_raw = list_field(r.get(peers_key), src, f"{fld}.{peers_key}")
    if not peers_raw:
        raise InputError(f"{peers_key} needs at least one peer", src, f"{fld}.{peers_key}")
    peers = tuple(_peer(p, src, f"{fld}.{peers_key}[{i}]", peer_kinds) for i, p in enumerate(peers_raw))
    ports = tuple(
        _port(p, src, f"{fld}.ports[{i}]") for i, p in enumerate(list_field(r.get("ports"), src, fld + ".ports"))
    )
    return AdminRule(str(r.get("name") or ""), action, peers, ports)


def _peer(p: Any, src: SourceRef, fld: str, kinds: tuple[str, ...]) -> AdminPeer:
    if not isinstance(p, Mapping):
        raise InputError("must be a peer", src, fld)
    present = [k for k in p if k in ("namespaces", "pods", "nodes", "networks")]
    if len(present) != 1 or present[0] not in kinds:
        raise InputError(f"a peer needs exactly one of {', '.join(kinds)}", src, fld)
    kind = present[0]
    value = p[kind]
    match kind:
        case "namespaces":
            return AdminPeer(kind, namespace_selector=read_label_selector(value, src, f"{fld}.namespaces"))
        case "pods":
            value = value or {}
            return AdminPeer(
                kind,
                namespace_selector=read_label_selector(
                    value.get("namespaceSelector"), src, f"{fld}.pods.namespaceSelector"
                ),
                pod_selector=read_label_selector(value.get("podSelector"), src, f"{fld}.pods.podSelector"),
            )
        case "nodes":
            return AdminPeer(kind, node_selector=read_label_selector(value, src, f"{fld}.nodes"))
        case _:
            nets = list_field(value, src, f"{fld}.networks")
            if not nets:
                raise InputError("networks needs at least one CIDR", src, f"{fld}.networks")
            for i, c in enumerate(nets):
                cidr_field(c, src, f"{fld}.networks[{i}]")
            return AdminPeer(kind, networks=tuple(str(c) for c in nets))


def _port(p: Any, src: SourceRef, fld: str) -> NetworkPolicyPort:
    if not isinstance(p, Mapping) or len([k for k in ("portNumber", "namedPort", "portRange") if k in p]) != 1:
        raise InputError("a port needs exactly one of portNumber, namedPort or portRange", src, fld)
    if "namedPort" in p:
        if not isinstance(p["namedPort"], str) or not p["namedPort"]:
            raise InputError("namedPort must be a port name", src, fld + ".namedPort")
        return NetworkPolicyPort("", p["namedPort"])  # any protocol: the container port's own
    key = "portNumber" if "portNumber" in p else "portRange"
    v = p[key] or {}
    proto = v.get("protocol") or "TCP"
    if proto not in PROTOCOLS:
        raise InputError(f"unknown protocol {proto!r} (expected TCP, UDP or SCTP)", src, f"{fld}.{key}.protocol")
    if key == "portNumber":
        port = int_field(v.get("port"), src, f"{fld}.portNumber.port", minimum=1)
        if port > 65535:
            raise InputError(f"port must be in 1..65535, got {port}", src, f"{fld}.portNumber.port")
        return NetworkPolicyPort(proto, port)
    start = int_field(v.get("start"), src, f"{fld}.portRange.start", minimum=1)
    end = int_field(v.get("end"), src, f"{fld}.portRange.end", minimum=1)
    if end < start or end > 65535:
        raise InputError(f"portRange end {end} must be in {start}..65535", src, f"{fld}.portRange.end")
    return NetworkPolicyPort(proto, start, end)
