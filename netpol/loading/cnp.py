"""ClusterNetworkPolicy (policy.networking.k8s.io/v1alpha2) → model, as strict as the CRD.

Mirrors the schema and validation rules of config/crd/experimental/policy.networking.k8s.io_clusternetworkpolicies
.yaml (kubernetes-sigs/network-policy-api; the experimental channel: it adds `nodes` and `domainNames` peers):
- `spec.tier` Admin | Baseline, `spec.priority` 0–1000, `spec.subject` (all three required);
- the subject and every peer hold exactly one field (MinProperties = MaxProperties = 1); a `pods` field needs
  its `podSelector` (its `namespaceSelector` is optional: empty selects every namespace);
- at most 25 ingress and 25 egress rules; a rule's `name` at most 100 characters, `action` Accept | Deny | Pass,
  `from`/`to` 1–25 peers, `protocols` (when given) 1–25 entries;
- ingress peers are `namespaces` / `pods`; egress peers add `nodes`, `networks` (1–25 distinct CIDRs of at most 43
  characters) and `domainNames` (1–25 distinct names of the `DomainName` pattern);
- a `protocols` entry holds exactly one of `tcp` / `udp` / `sctp` / `destinationNamedPort`; a protocol holds its
  `destinationPort` (MinProperties=1: `tcp: {}` is refused), which holds exactly one of `number` (1–65535) or
  `range` {start, end} (both 1–65535, start < end);
- the egress rule's validation rule: no `destinationNamedPort` in a rule with networks/nodes/domainNames peers;
- `domainNames` only in Accept rules (the field's documentation: "only supported for Accept rules").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from netpol.errors import InputError, SourceRef
from netpol.loading import typed as t
from netpol.loading.admin import (
    check_domain_names_accept_only,
    check_no_named_port_to_addresses,
    read_peer,
    read_subject,
)
from netpol.model.admin import AdminPeer
from netpol.model.cnp import (
    CNP_ACTIONS,
    CNP_PROTOCOL_KEYS,
    CNP_TIERS,
    ClusterNetworkPolicy,
    ClusterNetworkPolicyRule,
    CNPAction,
    CNPProtocol,
    NamedPortMatch,
    PortMatch,
)
from netpol.model.vocab import ADMIN_PEER_KINDS, INGRESS_PEER_KINDS, AdminPeerKind, Protocol

SPEC = frozenset({"tier", "priority", "subject", "ingress", "egress"})
MAX_RULES = 25  # ingress, egress: MaxItems=25
MAX_ITEMS = 25  # from, to, protocols: MaxItems=25
MAX_RULE_NAME = 100
PROTOCOL_FIELDS = frozenset({*CNP_PROTOCOL_KEYS, "destinationNamedPort"})
PROTOCOL_NAMES: dict[str, Protocol] = {"tcp": "TCP", "udp": "UDP", "sctp": "SCTP"}


def read_cluster_network_policy(obj: Mapping[str, Any], src: SourceRef) -> ClusterNetworkPolicy:
    name = obj["metadata"]["name"]
    if obj.get("spec") is None:
        raise t.required(src, "spec")
    spec = t.obj(obj.get("spec"), src, "spec")
    t.check_fields(spec, SPEC, src, "spec")
    tier = spec.get("tier")
    if tier not in CNP_TIERS:
        raise t.unsupported(tier, CNP_TIERS, src, "spec.tier")
    priority = t.integer(spec.get("priority"), src, "spec.priority", 0, 1000)
    if spec.get("subject") is None:
        raise t.required(src, "spec.subject")
    ns_sel, pod_sel = read_subject(spec.get("subject"), src, pod_selector_required=True)
    ingress = tuple(
        _rule(r, src, f"spec.ingress[{i}]", "from", INGRESS_PEER_KINDS)
        for i, r in enumerate(_bounded(spec.get("ingress"), src, "spec.ingress", MAX_RULES))
    )
    egress = tuple(
        _rule(r, src, f"spec.egress[{i}]", "to", ADMIN_PEER_KINDS)
        for i, r in enumerate(_bounded(spec.get("egress"), src, "spec.egress", MAX_RULES))
    )
    return ClusterNetworkPolicy(name, tier, priority, ns_sel, pod_sel, ingress, egress, src, raw=obj)


def cnp_order(policies: Iterable[ClusterNetworkPolicy]) -> tuple[ClusterNetworkPolicy, ...]:
    """The evaluation order: the Admin tier, then the Baseline tier; inside a tier by priority (lower first), then
    by name (equal priorities are ambiguous upstream; the name is this tool's deterministic reading)."""
    return tuple(sorted(policies, key=lambda p: (CNP_TIERS.index(p.tier), p.priority, p.name)))


def _bounded(value: Any, src: SourceRef, fld: str, most: int) -> list[Any]:
    items = t.arr(value, src, fld)
    if len(items) > most:
        raise InputError(f"Too many: {len(items)}: must have at most {most} items", src, fld)
    return items


def _rule(
    r: Any, src: SourceRef, fld: str, peers_key: str, kinds: tuple[AdminPeerKind, ...]
) -> ClusterNetworkPolicyRule:
    m = t.obj(r, src, fld)
    t.check_fields(m, frozenset({"name", "action", peers_key, "protocols"}), src, fld)
    name = t.string(m.get("name"), src, f"{fld}.name")
    if len(name) > MAX_RULE_NAME:
        raise InputError(f"Too long: may not be more than {MAX_RULE_NAME} bytes", src, f"{fld}.name")
    action: CNPAction
    match m.get("action"):
        case "Accept" | "Deny" | "Pass" as known:
            action = known
        case other:
            raise t.unsupported(other, CNP_ACTIONS, src, f"{fld}.action")
    peers_raw = _bounded(m.get(peers_key), src, f"{fld}.{peers_key}", MAX_ITEMS)
    if not peers_raw:
        raise t.required(src, f"{fld}.{peers_key}", "needs at least one peer")
    peers: tuple[AdminPeer, ...] = tuple(
        read_peer(p, src, f"{fld}.{peers_key}[{i}]", kinds, pod_selector_required=True) for i, p in enumerate(peers_raw)
    )
    protocols_raw = m.get("protocols")
    if protocols_raw is not None and not t.arr(protocols_raw, src, f"{fld}.protocols"):
        raise t.required(src, f"{fld}.protocols", "must have at least 1 item when given")
    protocols = tuple(
        _protocol(p, src, f"{fld}.protocols[{i}]")
        for i, p in enumerate(_bounded(protocols_raw, src, f"{fld}.protocols", MAX_ITEMS))
    )
    check_no_named_port_to_addresses(peers, any(isinstance(p, NamedPortMatch) for p in protocols), src, fld)
    check_domain_names_accept_only(peers, action, "Accept", src, f"{fld}.action")
    return ClusterNetworkPolicyRule(name, action, peers, protocols)


def _protocol(p: Any, src: SourceRef, fld: str) -> CNPProtocol:
    m = t.obj(p, src, fld)
    t.check_fields(m, PROTOCOL_FIELDS, src, fld)
    present = [k for k in ("tcp", "udp", "sctp", "destinationNamedPort") if m.get(k) is not None]
    if len(present) != 1:
        raise InputError(
            "Invalid value: a protocols entry needs exactly one of tcp, udp, sctp or destinationNamedPort", src, fld
        )
    key = present[0]
    if key == "destinationNamedPort":
        named = t.string(m[key], src, f"{fld}.destinationNamedPort")
        if not named:
            raise t.required(src, f"{fld}.destinationNamedPort")
        return NamedPortMatch(named)
    protocol = PROTOCOL_NAMES[key]
    where = f"{fld}.{key}"
    body = t.obj(m[key], src, where)
    t.check_fields(body, frozenset({"destinationPort"}), src, where)
    if body.get("destinationPort") is None:  # MinProperties=1 on the protocol: `tcp: {}` is refused
        raise t.required(src, f"{where}.destinationPort", f"{key} needs a destinationPort (number or range)")
    port = t.obj(body["destinationPort"], src, f"{where}.destinationPort")
    where = f"{where}.destinationPort"
    t.check_fields(port, frozenset({"number", "range"}), src, where)
    chosen = [k for k in ("number", "range") if port.get(k) is not None]
    if len(chosen) != 1:
        raise InputError("Invalid value: a destinationPort needs exactly one of number or range", src, where)
    match chosen[0]:
        case "number":
            number = t.integer(port["number"], src, f"{where}.number", 1, 65535)
            return PortMatch(protocol, number, number)
        case "range":
            rng = t.obj(port["range"], src, f"{where}.range")
            t.check_fields(rng, frozenset({"start", "end"}), src, f"{where}.range")
            start = t.integer(rng.get("start"), src, f"{where}.range.start", 1, 65535)
            end = t.integer(rng.get("end"), src, f"{where}.range.end", 1, 65535)
            if not start < end:  # the CRD's rule: self.start < self.end
                raise t.invalid(end, "Start port must be less than End port", src, f"{where}.range")
            return PortMatch(protocol, start, end)
        case other:
            raise AssertionError(other)
