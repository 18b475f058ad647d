"""AdminNetworkPolicy and BaselineAdminNetworkPolicy (policy.networking.k8s.io/v1alpha1) → model.

Validation mirrors the CRD's schema: priority 0–1000, actions Allow/Deny/Pass (Pass only in ANPs), a
subject of `namespaces` or `pods`, peers of exactly one kind, ports of exactly one of portNumber,
namedPort, portRange (start <= end). The BANP is a singleton named `default`. Egress peers add `nodes`,
`networks` and, in ANPs only, `domainNames` (Allow rules only; apis/v1alpha1/adminnetworkpolicy_types.go); a
named port never goes with networks/nodes/domainNames peers (the CRD's egress rule validation).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, assert_never

from netpol.errors import InputError, SourceRef
from netpol.loading import typed as t
from netpol.loading.fields import cidr_field, read_label_selector
from netpol.model.admin import (
    AdminDomainNames,
    AdminNamespaces,
    AdminNetworkPolicy,
    AdminNetworks,
    AdminNodes,
    AdminPeer,
    AdminPods,
    AdminRule,
)
from netpol.model.labels import LabelSelector
from netpol.model.policies import NetworkPolicyPort
from netpol.model.vocab import (
    ADMIN_ACTIONS,
    ADMIN_PEER_KINDS,
    BASELINE_ACTIONS,
    BASELINE_EGRESS_PEER_KINDS,
    INGRESS_PEER_KINDS,
    PROTOCOLS,
    AdminAction,
    AdminPeerKind,
)

ANP_SPEC = frozenset({"priority", "subject", "ingress", "egress"})
BANP_SPEC = frozenset({"subject", "ingress", "egress"})
NS_POD = frozenset({"namespaceSelector", "podSelector"})
SUBJECT = frozenset({"namespaces", "pods"})


def read_admin_policy(obj: Mapping[str, Any], src: SourceRef) -> AdminNetworkPolicy:
    baseline = src.kind == "BaselineAdminNetworkPolicy"
    name = obj["metadata"]["name"]
    if obj.get("spec") is None:
        raise t.required(src, "spec")
    spec = t.obj(obj.get("spec"), src, "spec")
    t.check_fields(spec, BANP_SPEC if baseline else ANP_SPEC, src, "spec")
    if baseline and name != "default":
        raise t.invalid(
            name, "a BaselineAdminNetworkPolicy must be named 'default' (it is a singleton)", src, "metadata.name"
        )
    priority = None
    if not baseline:
        priority = t.integer(spec.get("priority"), src, "spec.priority", 0, 1000)
    ns_sel, pod_sel = read_subject(spec.get("subject"), src)
    actions = BASELINE_ACTIONS if baseline else ADMIN_ACTIONS
    ingress = tuple(
        _rule(r, src, f"spec.ingress[{i}]", "from", actions, INGRESS_PEER_KINDS)
        for i, r in enumerate(t.arr(spec.get("ingress"), src, "spec.ingress"))
    )
    egress = tuple(
        _rule(r, src, f"spec.egress[{i}]", "to", actions, BASELINE_EGRESS_PEER_KINDS if baseline else ADMIN_PEER_KINDS)
        for i, r in enumerate(t.arr(spec.get("egress"), src, "spec.egress"))
    )
    return AdminNetworkPolicy(name, priority, ns_sel, pod_sel, ingress, egress, src, raw=obj)


def _rule(
    r: Any,
    src: SourceRef,
    fld: str,
    peers_key: str,
    actions: tuple[AdminAction, ...],
    peer_kinds: tuple[AdminPeerKind, ...],
) -> AdminRule:
    m = t.obj(r, src, fld)
    t.check_fields(m, frozenset({"name", "action", peers_key, "ports"}), src, fld)
    action = m.get("action")
    if action not in actions:
        raise t.unsupported(action, actions, src, fld + ".action")
    peers_raw = t.arr(m.get(peers_key), src, f"{fld}.{peers_key}")
    if not peers_raw:
        raise t.required(src, f"{fld}.{peers_key}", "needs at least one peer")
    peers = tuple(read_peer(p, src, f"{fld}.{peers_key}[{i}]", peer_kinds) for i, p in enumerate(peers_raw))
    ports = tuple(_port(p, src, f"{fld}.ports[{i}]") for i, p in enumerate(t.arr(m.get("ports"), src, fld + ".ports")))
    check_no_named_port_to_addresses(peers, any(p.protocol == "" for p in ports), src, fld)
    check_domain_names_accept_only(peers, action, "Allow", src, f"{fld}.action")
    return AdminRule(t.string(m.get("name"), src, fld + ".name"), action, peers, ports)


def read_peer(
    p: Any, src: SourceRef, fld: str, kinds: tuple[AdminPeerKind, ...], *, pod_selector_required: bool = False
) -> AdminPeer:
    """One peer of a v1alpha1 or v1alpha2 rule: exactly one of `kinds` (MinProperties=MaxProperties=1).
    `pod_selector_required`: v1alpha2's NamespacedPod marks podSelector required (namespaceSelector optional)."""
    m = t.obj(p, src, fld)
    t.check_fields(m, frozenset(kinds), src, fld)
    present = [k for k in ADMIN_PEER_KINDS if k in m and m[k] is not None]
    if len(present) != 1 or present[0] not in kinds:
        raise InputError(f"Invalid value: a peer needs exactly one of {', '.join(kinds)}", src, fld)
    kind = present[0]
    value = m[kind]
    match kind:
        case "namespaces":
            return AdminNamespaces(read_label_selector(value, src, f"{fld}.namespaces"))
        case "pods":
            pods = t.obj(value, src, f"{fld}.pods")
            t.check_fields(pods, NS_POD, src, f"{fld}.pods")
            if pod_selector_required and pods.get("podSelector") is None:
                raise t.required(src, f"{fld}.pods.podSelector")
            return AdminPods(
                read_label_selector(pods.get("namespaceSelector"), src, f"{fld}.pods.namespaceSelector"),
                read_label_selector(pods.get("podSelector"), src, f"{fld}.pods.podSelector"),
            )
        case "nodes":
            return AdminNodes(read_label_selector(value, src, f"{fld}.nodes"))
        case "networks":
            nets = _set_of_strings(value, src, f"{fld}.networks", "CIDR")
            for i, c in enumerate(nets):
                if len(c) > MAX_CIDR_LENGTH:  # the CRD's `CIDR` type: MaxLength=43
                    raise t.invalid(c, f"may not be more than {MAX_CIDR_LENGTH} bytes", src, f"{fld}.networks[{i}]")
                cidr_field(c, src, f"{fld}.networks[{i}]")
            return AdminNetworks(nets)
        case "domainNames":
            names = _set_of_strings(value, src, f"{fld}.domainNames", "domain name")
            for i, n in enumerate(names):
                if not DOMAIN_NAME.fullmatch(n):
                    raise t.invalid(
                        n,
                        "must be a domain name, optionally with a leading '*.' wildcard (e.g. kubernetes.io, "
                        "*.kubernetes.io)",
                        src,
                        f"{fld}.domainNames[{i}]",
                    )
            return AdminDomainNames(names)
        case _:
            assert_never(kind)


# The `DomainName` type's pattern, as the CRDs of both versions carry it (A-z included: it is upstream's).
DOMAIN_NAME = re.compile(
    r"(\*\.)?([a-zA-z0-9]([-a-zA-Z0-9_]*[a-zA-Z0-9])?\.)+[a-zA-z0-9]([-a-zA-Z0-9_]*[a-zA-Z0-9])?\.?"
)
MAX_CIDR_LENGTH = 43
MAX_PEER_ITEMS = 25  # networks and domainNames: MinItems=1, MaxItems=25, listType=set


def _set_of_strings(value: Any, src: SourceRef, fld: str, what: str) -> tuple[str, ...]:
    """A `+listType=set` list of 1 to 25 strings: the API server refuses an empty one, a longer one, a repeat."""
    items = t.strings(value, src, fld)
    if not items:
        raise t.required(src, fld, f"needs at least one {what}")
    if len(items) > MAX_PEER_ITEMS:
        raise InputError(f"Too many: {len(items)}: must have at most {MAX_PEER_ITEMS} items", src, fld)
    seen: set[str] = set()
    for i, item in enumerate(items):
        if item in seen:
            raise InputError(f"Duplicate value: {t.show(item)}", src, f"{fld}[{i}]")
        seen.add(item)
    return items


def check_no_named_port_to_addresses(peers: tuple[AdminPeer, ...], named: bool, src: SourceRef, fld: str) -> None:
    """The CRDs' egress rule validation: a named port resolves on a pod, so it cannot go with networks, nodes or
    domainNames peers ("networks/nodes/domainNames peer cannot be set with namedPorts …")."""
    if named and any(isinstance(p, AdminNetworks | AdminNodes | AdminDomainNames) for p in peers):
        raise InputError(
            "Invalid value: networks/nodes/domainNames peer cannot be set with named ports since there are no named "
            "ports for networks/nodes/domainNames",
            src,
            fld,
        )


def check_domain_names_accept_only(
    peers: tuple[AdminPeer, ...], action: str, allowing: str, src: SourceRef, fld: str
) -> None:
    """`domainNames` "is only supported for {allowing} rules" (the field's documentation, both versions)."""
    if action != allowing and any(isinstance(p, AdminDomainNames) for p in peers):
        raise InputError(
            f"Invalid value: {t.show(action)}: domainNames peers are only supported in {allowing} rules", src, fld
        )


def _port(p: Any, src: SourceRef, fld: str) -> NetworkPolicyPort:
    m = t.obj(p, src, fld)
    t.check_fields(m, frozenset({"portNumber", "namedPort", "portRange"}), src, fld)
    present = [k for k in ("portNumber", "namedPort", "portRange") if m.get(k) is not None]
    if len(present) != 1:
        raise InputError("Invalid value: a port needs exactly one of portNumber, namedPort or portRange", src, fld)
    if present[0] == "namedPort":
        named = t.string(m["namedPort"], src, fld + ".namedPort")
        if not named:
            raise t.required(src, fld + ".namedPort")
        return NetworkPolicyPort("", named)  # any protocol: the container port's own
    key = present[0]
    v = t.obj(m[key], src, f"{fld}.{key}")
    t.check_fields(
        v, frozenset({"protocol", "port"} if key == "portNumber" else {"protocol", "start", "end"}), src, f"{fld}.{key}"
    )
    proto = t.string(v.get("protocol"), src, f"{fld}.{key}.protocol") or "TCP"
    if proto not in PROTOCOLS:
        raise InputError(
            f'Unsupported value: {t.show(proto)}: supported values: "SCTP", "TCP", "UDP"', src, f"{fld}.{key}.protocol"
        )
    if key == "portNumber":
        return NetworkPolicyPort(proto, t.integer(v.get("port"), src, f"{fld}.portNumber.port", 1, 65535))
    start = t.integer(v.get("start"), src, f"{fld}.portRange.start", 1, 65535)
    end = t.integer(v.get("end"), src, f"{fld}.portRange.end", 1, 65535)
    if end < start:
        raise t.invalid(end, "must be greater than or equal to `start`", src, f"{fld}.portRange.end")
    return NetworkPolicyPort(proto, start, end)


def read_subject(
    value: Any, src: SourceRef, pod_selector_required: bool = False
) -> tuple[LabelSelector, LabelSelector | None]:
    """`spec.subject` of an Admin/Baseline or ClusterNetworkPolicy: exactly one of `namespaces` (a namespace
    selector) or `pods` (namespaceSelector AND podSelector); (namespace selector, pod selector or None). The
    v1alpha2 CRD requires `pods.podSelector`; v1alpha1 left it optional."""
    subject = t.obj(value, src, "spec.subject")
    t.check_fields(subject, SUBJECT, src, "spec.subject")
    if len([k for k in SUBJECT if subject.get(k) is not None]) != 1:
        raise InputError("Invalid value: subject needs exactly one of namespaces or pods", src, "spec.subject")
    if subject.get("namespaces") is not None:
        return read_label_selector(subject["namespaces"], src, "spec.subject.namespaces"), None
    pods = t.obj(subject["pods"], src, "spec.subject.pods")
    t.check_fields(pods, NS_POD, src, "spec.subject.pods")
    if pod_selector_required and pods.get("podSelector") is None:
        raise t.required(src, "spec.subject.pods.podSelector")
    return (
        read_label_selector(pods.get("namespaceSelector"), src, "spec.subject.pods.namespaceSelector"),
        read_label_selector(pods.get("podSelector"), src, "spec.subject.pods.podSelector"),
    )
