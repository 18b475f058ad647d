"""Why a verdict is what it is, read from the engine's compiled rules: the one source of reasons.

For a (source, destination) question `verdict()` gives the connection the engine allows (the same read-out as
the matrix: loopback and node-local traffic first) and, per side — the source's egress, the destination's
ingress — the trace of the tier walk (netpol/engine/evaluate.py) over the rules holding the pair: every rule
that holds it, in evaluation order, with the peers that hold the other end and the ports it decided (Allow,
Deny, Pass, or nothing when an earlier rule had decided them), each tier end that denied the rest, and the
rules of the policies selecting the endpoint that do not hold the pair (a nearest miss is chosen from these,
worded from their peers' parts). The side's bits are the walk's result: the same function as the matrix's
blocks, so a reason can never disagree with a verdict. explain, who-can-reach/can-reach, the graph formats,
audit, the report and the UI read reasons here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from netpol.engine.endpoints import Endpoint, Exception_
from netpol.engine.evaluate import Hit, TierRules, walk
from netpol.engine.reachability import Reachability
from netpol.engine.tiers import Action, CompiledPeer, CompiledPolicy, CompiledRule, PeerPart, Tier
from netpol.model.vocab import Direction
from netpol.ports import ConnectionSet

# Dual-stack: `family` arguments are indexes into Universe.families (None: every family at once, exact for
# clusters where no rule tells the families apart); a verdict for family k is what the pair gets over that
# address family alone (netpol/engine/families.py).


@dataclass(frozen=True, slots=True)
class RuleHit:
    """One rule that holds the pair (its policy selects the owner, one of its peers holds the other end), what
    it lets through towards this destination, and what it decided in the walk."""

    policy: CompiledPolicy
    rule: CompiledRule
    peers: tuple[int, ...]  # indexes into rule.peers of the peers holding the other end
    bits: np.ndarray  # the rule's ports towards this destination (named ports resolved there)
    decided: np.ndarray  # the ports this rule decided here (empty: an earlier rule had, or a Log rule)

    @property
    def label(self) -> str:
        return self.policy.rule_label(self.rule)

    @property
    def action(self) -> Action:
        return self.rule.action

    @property
    def tier(self) -> Tier:
        return self.policy.tier

    def peer_texts(self) -> tuple[str, ...]:
        return tuple(self.rule.peers[i].text for i in self.peers)


@dataclass(frozen=True, slots=True)
class TierEnd:
    """A tier ending in Deny for this owner: the policies of the tier isolating it, and the ports it denied."""

    tier: Tier
    policies: tuple[str, ...]
    denied: np.ndarray


@dataclass(frozen=True, slots=True)
class PartMatch:
    part: PeerPart
    holds: bool


@dataclass(frozen=True, slots=True)
class PeerMatch:
    """How one peer of a rule fares against the other end: whether it holds it, and each of its parts."""

    peer: CompiledPeer
    holds: bool
    parts: tuple[PartMatch, ...]

    @property
    def score(self) -> int:
        """How near the peer came: its parts that hold (all of them when it holds)."""
        return len(self.parts) + 1 if self.holds else sum(p.holds for p in self.parts)


@dataclass(frozen=True, slots=True)
class Candidate:
    """A rule of a policy selecting the owner, in this direction: how each of its peers fares, and the ports it
    has towards this destination (a nearest miss is chosen from these)."""

    policy: CompiledPolicy
    rule: CompiledRule
    peers: tuple[PeerMatch, ...]
    bits: np.ndarray

    @property
    def label(self) -> str:
        return self.policy.rule_label(self.rule)

    @property
    def holds(self) -> bool:
        return any(p.holds for p in self.peers)

    @property
    def best(self) -> PeerMatch | None:
        return max(self.peers, key=lambda p: p.score, default=None)


@dataclass(frozen=True, slots=True)
class SideVerdict:
    """One direction of one connection: the walk's trace and result for the owner of that side."""

    direction: Direction  # "egress" (the source's side) | "ingress" (the destination's side)
    applies: bool  # False for external endpoints: nothing of ours filters there
    isolated: bool  # some tier ending in Deny isolates the owner in this direction
    policies: tuple[str, ...]  # keys of the policies isolating the owner in this direction
    bits: np.ndarray  # what this side lets through
    hits: tuple[RuleHit, ...] = ()  # every rule holding the pair, in evaluation order
    ends: tuple[TierEnd, ...] = ()  # tier ends that denied what no rule decided
    candidates: tuple[Candidate, ...] = ()  # every rule of the policies selecting the owner, this direction

    @property
    def allowing(self) -> tuple[RuleHit, ...]:
        """The Allow rules whose ports this side lets through (the rules that make the verdict's allow)."""
        return tuple(h for h in self.hits if h.rule.action == "Allow" and (h.decided & self.bits).any())

    @property
    def deciding(self) -> tuple[RuleHit, ...]:
        """Every rule that decided some port here (Allow, Deny or Pass), in evaluation order."""
        return tuple(h for h in self.hits if h.decided.any())

    def allowed(self, r: Reachability) -> ConnectionSet:
        return r.ports.to_set(self.bits)

    def rules(self, r: Reachability) -> tuple[tuple[str, ConnectionSet], ...]:
        return tuple((h.label, r.ports.to_set(h.decided & self.bits)) for h in self.allowing)


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
    return SideVerdict(direction, False, False, (), r.ports.all_bits)


def peer_match(peer: CompiledPeer, other_class: int | None, other_atom: int | None, family: int | None) -> PeerMatch:
    """How a peer fares against one endpoint (a class or an IP atom), from its compiled masks."""
    if other_class is not None:
        holds = bool(peer.classes_in(family)[other_class])
        parts = tuple([PartMatch(p, bool(p.classes[other_class])) for p in peer.parts])
    else:
        assert other_atom is not None
        holds = bool(peer.atoms[other_atom])
        parts = tuple([PartMatch(p, p.atoms is not None and bool(p.atoms[other_atom])) for p in peer.parts])
    return PeerMatch(peer, holds, parts)


_AT_ZERO = np.zeros(1, np.int64)  # the one row and the one column of a 1×1 block (read, never written)
_AT_ZERO.flags.writeable = False


def side_verdict(
    r: Reachability, direction: Direction, src: Endpoint, dst: Endpoint, family: int | None = None
) -> SideVerdict:
    """Why one side lets through what it does between src and dst (pure), over one address family or all: the
    tier walk over the rules holding the pair, traced."""
    owner = src if direction == "egress" else dst
    if owner.pod is None:
        return _not_applicable(r, direction)
    cls = r.pod_class(owner.pod)
    src_cls = r.pod_class(src.pod) if src.pod is not None else None
    dst_cls = r.pod_class(dst.pod) if dst.pod is not None else None
    other_cls, other_atom = (dst_cls, dst.atom) if direction == "egress" else (src_cls, src.atom)
    named = r.universe.classes[dst_cls].named_ports if dst_cls is not None else None
    by_tier: dict[int, list[Hit]] = {}
    candidates: list[Candidate] = []
    tier_of = {t: i for i, t in enumerate(r.tiers)}
    for k in r.selecting(cls):
        cp = r.policies[k]
        for rule in cp.rules(direction):
            matches = tuple([peer_match(p, other_cls, other_atom, family) for p in rule.peers])
            bits = rule.bits_for(r.ports, named)
            candidates.append(Candidate(cp, rule, matches, bits))
            held = tuple([i for i, m in enumerate(matches) if m.holds])
            if held and bits.any():
                by_tier.setdefault(tier_of[cp.tier], []).append(
                    Hit(_AT_ZERO, _AT_ZERO, bits, rule.action, k, rule, held)
                )
    recorded: list[RuleHit] = []
    ends: list[TierEnd] = []

    def hits(tr: TierRules) -> list[Hit]:
        return by_tier.get(tr.index, [])

    def isolated_in(tr: TierRules) -> np.ndarray | None:
        return np.array([bool(r.isolation(direction, tier=tr.index)[cls])])

    def record(_: int, h: Hit, fresh: np.ndarray) -> None:
        assert h.rule is not None
        recorded.append(RuleHit(r.policies[h.policy], h.rule, h.peers, np.asarray(h.bits), fresh.reshape(-1)))

    def end(t: int, denied: np.ndarray) -> None:
        tier = r.tiers[t]
        keys = tuple(cp.key for cp in r.policies_selecting(cls) if cp.tier == tier and direction in cp.isolates)
        ends.append(TierEnd(tier, keys, denied.reshape(-1)))

    bits = walk(direction, r._tier_rules[direction], hits, isolated_in, (1, 1), r.ports.all_bits, record, end)[0, 0]
    isolating = tuple(cp.key for cp in r.policies_selecting(cls) if cp.tier.end == "Deny" and direction in cp.isolates)
    return SideVerdict(
        direction,
        True,
        bool(r.isolation(direction)[cls]),
        isolating,
        bits,
        tuple(recorded),
        tuple(ends),
        tuple(candidates),
    )


def egress_rules_reaching(r: Reachability, dst_pod: int, protocol: str, port: int) -> dict[str, bool]:
    """Per compiled policy (by key): whether one of its egress rules holds pod `dst_pod` — one of its peers holds
    the pod, its ports hold (protocol, port) on it, named ports resolved there — whatever the policy selects.
    (NP030 asks it of a stand-in kube-dns pod: which policies' rules let DNS out.)"""
    cls = r.pod_class(dst_pod)
    named = r.universe.classes[cls].named_ports
    w, bit = r.probe_bit(protocol, port)
    return {
        cp.key: any(
            bool(rule.bits_for(r.ports, named)[w] & bit) and any(p.classes[cls] for p in rule.peers)
            for rule in cp.egress
        )
        for cp in r.policies
    }


def verdict(r: Reachability, src: Endpoint, dst: Endpoint, family: int | None = None) -> Verdict:
    """The verdict of src → dst with its reasons on both sides (the same bits as the matrix cell); with
    `family`, over that address family alone (both ends must have an address of it)."""
    exception = r.exception(src, dst)
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
