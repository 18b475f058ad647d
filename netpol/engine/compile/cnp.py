"""ClusterNetworkPolicy (policy.networking.k8s.io/v1alpha2) → the tiered form (netpol/engine/tiers.py).

Semantics from the API's field documentation (apis/v1alpha2/clusternetworkpolicy_types.go, kubernetes-sigs/
network-policy-api):
- `spec.tier` Admin → ADMIN_TIER (before NetworkPolicies), Baseline → BASELINE_TIER (after them); neither
  isolates: an unmatched connection goes on to the next tier, and after the Baseline tier it is allowed.
- Inside a tier "policies with lower priority values have higher precedence"; inside a policy the rules of a
  direction take precedence in the order written. Equal priorities are ambiguous upstream; the precedence's
  tie-break is the name (netpol/ambiguity.py finds the pairs where it matters; the pipeline warns, the audit
  reports them).
- Actions: Accept → Allow, Deny → Deny, Pass → Pass ("skips all further ClusterNetworkPolicy rules in the current
  tier … and passes evaluation to the next tier").
- "host-networked pods are not included in subject selection", nor in `namespaces`/`pods` peers.
- `networks`: "cluster-internal traffic will be checked against the rule as well": a CIDR holds the pods whose
  address lies in it (unless `EngineOptions.ipblock_matches_pods` is off: then only host-network pods, which carry
  their node's address), and the external addresses.
- `nodes`: "the IPs present in the node.Status.Addresses field": the node addresses, and the host-network pods
  that speak with them.
- `domainNames`: resolved by DNS at run time; statically they match no pod and no address (a peer with an empty
  mask and a note, so explain says so).
- `protocols` absent: every port; `tcp`/`udp`/`sctp` with a number or a range; `destinationNamedPort`: the
  destination pod's container port of that name, whatever its protocol.

The peers are the v1alpha1 peer objects (netpol/model/admin.py) with the same meaning, compiled by the v1alpha1
compiler's `compile_admin_peer` (netpol/engine/compile/admin.py), once per distinct peer.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import assert_never

import numpy as np

from netpol.engine.compile.admin import compile_admin_peer, node_blocks
from netpol.engine.compile.universe import Universe, selector_keys
from netpol.engine.tiers import (
    ADMIN_TIER,
    BASELINE_TIER,
    Action,
    CompileContext,
    CompiledPeer,
    CompiledPolicy,
    CompiledRule,
    Tier,
)
from netpol.model.admin import (
    AdminDomainNames,
    AdminNamespaces,
    AdminNetworks,
    AdminNodes,
    AdminPeer,
    AdminPods,
    peer_pod_selectors,
)
from netpol.model.cnp import (
    ClusterNetworkPolicy,
    ClusterNetworkPolicyRule,
    CNPAction,
    CNPTier,
    NamedPortMatch,
    PortMatch,
    render_protocols,
)
from netpol.model.labels import LabelSelector
from netpol.model.objects import IPBlock, Node
from netpol.model.vocab import Direction


def tier_of(tier: CNPTier) -> Tier:
    match tier:
        case "Admin":
            return ADMIN_TIER
        case "Baseline":
            return BASELINE_TIER
        case _:
            assert_never(tier)


def action_of(action: CNPAction) -> Action:
    match action:
        case "Accept":
            return "Allow"
        case "Deny" | "Pass":
            return action
        case _:
            assert_never(action)


def peer_blocks(peers: Iterable[AdminPeer], nodes: Sequence[Node]) -> list[IPBlock]:
    """The address blocks some peers draw: `networks` CIDRs, and the node addresses when a `nodes` peer is used."""
    blocks: list[IPBlock] = []
    uses_nodes = False
    for peer in peers:
        match peer:
            case AdminNetworks():
                blocks.extend(IPBlock(c) for c in peer.networks)
            case AdminNodes():
                uses_nodes = True
            case AdminNamespaces() | AdminPods() | AdminDomainNames():
                pass
            case _:
                assert_never(peer)
    return blocks + node_blocks(nodes) if uses_nodes else blocks


class PeerCache:
    """Each distinct peer compiled once per compile (the same selector recurs across rules and policies)."""

    def __init__(self, ctx: CompileContext) -> None:
        self.ctx = ctx
        self._cache: dict[AdminPeer, CompiledPeer] = {}

    def peer(self, peer: AdminPeer) -> CompiledPeer:
        hit = self._cache.get(peer)
        if hit is None:
            hit = self._cache[peer] = compile_admin_peer(peer, self.ctx)
        return hit


def subject_mask(universe: Universe, namespaces: LabelSelector, pods: LabelSelector | None) -> np.ndarray:
    """The pods a subject selects; never a host-network pod ("host-networked pods are not included")."""
    mask = universe.namespaces_matching(namespaces) & universe.selectable
    return mask & universe.pods_matching(pods) if pods is not None else mask


class ClusterNetworkPolicyCompiler:
    """A `PolicyCompiler` (netpol/engine/tiers.py) for ClusterNetworkPolicies."""

    def __init__(self, policies: Sequence[ClusterNetworkPolicy]) -> None:
        self.policies = tuple(policies)

    def label_keys(self) -> Iterable[str]:
        keys: set[str] = set()
        for pol in self.policies:
            keys.update(selector_keys(pol.subject_pods))
            for rule in pol.rules():
                for peer in rule.peers:
                    keys.update(k for sel in peer_pod_selectors(peer) for k in selector_keys(sel))
        return sorted(keys)

    def mask_count(self) -> int:
        return sum(1 + len(p.ingress) + len(p.egress) for p in self.policies)

    def splits_by_service_account(self) -> bool:
        return False

    def ip_blocks(self, nodes: Sequence[Node]) -> Iterable[IPBlock]:
        return peer_blocks((peer for pol in self.policies for rule in pol.rules() for peer in rule.peers), nodes)

    def port_cuts(self, universe: Universe) -> Iterable[tuple[str, int, int]]:
        cuts: list[tuple[str, int, int]] = []
        names: set[str] = set()
        for pol in self.policies:
            for rule in pol.rules():
                for p in rule.protocols:
                    match p:
                        case PortMatch():
                            cuts.append((p.protocol, p.start, p.end))
                        case NamedPortMatch():
                            names.add(p.name)
                        case _:
                            assert_never(p)
        if names:
            for cls in universe.classes:
                cuts.extend((proto, num, num) for name, proto, num in cls.named_ports if name in names)
        return cuts

    def compile(self, ctx: CompileContext) -> Iterable[CompiledPolicy]:
        peers = PeerCache(ctx)
        for pol in self.policies:
            yield CompiledPolicy(
                kind=pol.kind,
                key=pol.key,
                tier=tier_of(pol.tier),
                # The v1alpha1 compiler's tie-break, (kind, name): equal priorities are ambiguous upstream.
                precedence=(float(pol.priority), f"{pol.kind}\0{pol.name}"),
                selected=subject_mask(ctx.universe, pol.subject_namespaces, pol.subject_pods),
                isolates=frozenset(),  # neither tier isolates: undecided traffic goes on to the next tier
                ingress=tuple(_rule(ctx, peers, "ingress", i, r) for i, r in enumerate(pol.ingress)),
                egress=tuple(_rule(ctx, peers, "egress", i, r) for i, r in enumerate(pol.egress)),
                source=pol,
                precedence_text=f"priority {pol.priority}",
            )


def _rule(
    ctx: CompileContext, peers: PeerCache, direction: Direction, index: int, rule: ClusterNetworkPolicyRule
) -> CompiledRule:
    ports = ctx.ports
    if not rule.protocols:
        static = ports.all_bits.copy()
        named: tuple[tuple[str, str], ...] = ()
    else:
        static = ports.no_bits.copy()
        names: list[tuple[str, str]] = []
        for p in rule.protocols:
            match p:
                case PortMatch():
                    static |= ports.range_bits(p.protocol, p.start, p.end)
                case NamedPortMatch():
                    names.append((p.name, ""))  # any protocol: the container port's own
                case _:
                    assert_never(p)
        named = tuple(dict.fromkeys(names))
    return CompiledRule(
        direction=direction,
        index=index,
        action=action_of(rule.action),
        peers=tuple(peers.peer(p) for p in rule.peers),
        static_bits=static,
        named=named,
        name=rule.name,
        ports_text=render_protocols(rule.protocols),
        action_text=rule.action,  # Accept, in the v1alpha2 API's words
        source=rule,
    )
