"""Why a verdict is what it is, read from the engine's compiled rules: the one source of reasons.

For a (source, destination[, ports]) question `verdict()` gives the connection the engine allows (the
same read-out as the matrix: loopback and node-local traffic first) and, per side — the source's egress,
the destination's ingress — whether the endpoint is isolated, by which policies, which rules allow what
(each rule's own port contribution towards this destination), the admin-tier rules that matched, and,
when nothing allows, every rule of the isolating policies (the candidates a nearest miss is chosen
from). explain, who-can-reach/can-reach, the graph formats, audit and the UI read reasons here.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from netpol.engine.compile.admin import CompiledAdminRule
from netpol.engine.compile.networkpolicy import CompiledRule
from netpol.engine.reachability import Endpoint, Reachability
from netpol.model.vocab import AdminAction, Direction
from netpol.ports import ConnectionSet

# Dual-stack: `family` arguments are indexes into Universe.families (None: every family at once, exact for
# clusters where no rule tells the families apart); a verdict for family k is what the pair gets over that
# address family alone (netpol/engine/families.py).


class Exception_(StrEnum):
    """Pairs the policies never decide."""

    NONE = ""
    LOOPBACK = "loopback"  # a pod reaching itself
    NODE_LOCAL = "node-local"  # a pod and its own node (a hostNetwork pod speaks with the node's address)


@dataclass(frozen=True, slots=True)
class RuleHit:
    """One rule that holds the pair (owner selected, peer matched) and what it lets through here."""

    rule: CompiledRule
    bits: np.ndarray

    @property
    def label(self) -> str:
        return self.rule.label


@dataclass(frozen=True, slots=True)
class SideVerdict:
    """One direction of one connection: is the endpoint isolated, by which policies, which rules allow."""

    direction: Direction  # "egress" (the source's side) | "ingress" (the destination's side)
    applies: bool  # False for external endpoints: nothing of ours filters there
    isolated: bool
    policies: tuple[str, ...]  # policies selecting the endpoint for this direction
    bits: np.ndarray  # what this side lets through (admin tiers included)
    allowing: tuple[RuleHit, ...]  # rules whose peer matches, each with its (non-empty) ports here
    candidates: tuple[CompiledRule, ...]  # every rule of the isolating policies (nearest misses come from these)
    admin: tuple[tuple[CompiledAdminRule, np.ndarray], ...] = ()  # matching admin rules, evaluation order

    def allowed(self, r: Reachability) -> ConnectionSet:
        return r.ports.to_set(self.bits)

    def rules(self, r: Reachability) -> tuple[tuple[str, ConnectionSet], ...]:
        return tuple((h.label, r.ports.to_set(h.bits)) for h in self.allowing)

    def admin_sets(self, r: Reachability) -> tuple[tuple[str, AdminAction, ConnectionSet], ...]:
        return tuple((rule.label, rule.action, r.ports.to_set(bits)) for rule, bits in self.admin)


@dataclass(frozen=True, slots=True)
class Verdict:
    src: Endpoint
    dst: Endpoint
    bits: np.ndarray  # the connection allowed (the matrix cell)
    exception: Exception_
    egress: SideVerdict
    ingress: SideVerdict

    def connection(self, r: Reachability) -> ConnectionSet:
        return r.ports.to_set(self.bits)


def _not_applicable(r: Reachability, direction: Direction) -> SideVerdict:
    return SideVerdict(direction, False, False, (), r.ports.all_bits, (), ())


def side_verdict(
    r: Reachability, direction: Direction, src: Endpoint, dst: Endpoint, family: int | None = None
) -> SideVerdict:
    """Why one side allows what it allows between src and dst (pure), over one address family or all."""
    owner = src if direction == "egress" else dst
    if owner.pod is None:
        return _not_applicable(r, direction)
    u = r.universe
    cls = r.pod_class(owner.pod)
    src_cls = r.pod_class(src.pod) if src.pod is not None else None
    dst_cls = r.pod_class(dst.pod) if dst.pod is not None else None
    if direction == "egress":
        isolated = bool(r.isolated_egress[cls])
        rules = r.egress_rules_for(cls, dst_cls, dst.atom, family)
    else:
        isolated = bool(r.isolated_ingress[cls])
        rules = r.ingress_rules_for(src_cls, cls, src.atom, family)
    allowing = []
    for rule in rules:
        rb = rule.bits_for(u, r.ports, dst_cls)
        if rb.any():
            allowing.append(RuleHit(rule, rb))
    if r.admin_rules:  # the tiers layer over the NetworkPolicy result: ask the engine for the cell
        bits = r.side_block(direction, [r.eid(src)], [r.eid(dst)], family=family)[0, 0]
    elif not isolated:
        bits = r.ports.all_bits
    else:  # an isolated side lets through exactly the union of its allowing rules (the boxes' definition)
        bits = r.ports.no_bits.copy()
        for hit in allowing:
            bits = bits | hit.bits
    policies = []
    candidates: list[CompiledRule] = []
    for cp in r.policies_selecting(cls):
        if cp.policy.affects_ingress if direction == "ingress" else cp.policy.affects_egress:
            policies.append(cp.policy.key)
            candidates += cp.ingress if direction == "ingress" else cp.egress
    admin = tuple(r.admin_trace(direction, src_cls, dst_cls, src.atom, dst.atom, family))
    return SideVerdict(direction, True, isolated, tuple(policies), bits, tuple(allowing), tuple(candidates), admin)


def exception_of(r: Reachability, src: Endpoint, dst: Endpoint) -> Exception_:
    if src.pod is not None and dst.pod is not None:
        if src.pod == dst.pod:
            return Exception_.LOOPBACK
        if r.node_local(src.pod, dst.pod):
            return Exception_.NODE_LOCAL
    return Exception_.NONE


def verdict(r: Reachability, src: Endpoint, dst: Endpoint, family: int | None = None) -> Verdict:
    """The verdict of src → dst with its reasons on both sides (the same bits as the matrix cell); with
    `family`, over that address family alone (both ends must have an address of it)."""
    exception = exception_of(r, src, dst)
    egress = side_verdict(r, "egress", src, dst, family)
    ingress = side_verdict(r, "ingress", src, dst, family)
    if family is None or exception is not Exception_.NONE:
        bits = r.endpoint_bits(src, dst)
    elif r.family_mask(family, [r.eid(src)], [r.eid(dst)]) is not None:
        bits = r.ports.no_bits  # an end has no address of this family
    else:
        bits = egress.bits & ingress.bits
    return Verdict(src, dst, bits, exception, egress, ingress)


def common_families(r: Reachability, src: Endpoint, dst: Endpoint) -> tuple[int, ...]:
    """Indexes into Universe.families of the address families both ends have (a connection uses one)."""
    s, d = r.eid(src), r.eid(dst)
    return tuple(k for k in range(len(r.universe.families)) if r.eid_family[k, s] and r.eid_family[k, d])
