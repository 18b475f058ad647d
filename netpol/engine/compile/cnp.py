"""ClusterNetworkPolicy (policy.networking.k8s.io/v1alpha2) → the tiered form (netpol/engine/tiers.py).

Semantics from the API's field documentation (apis/v1alpha2/clusternetworkpolicy_types.go, kubernetes-sigs/
network-policy-api):
- `spec.tier` Admin → ADMIN_TIER (before NetworkPolicies), Baseline → BASELINE_TIER (after them); neither
  isolates: an unmatched connection goes on to the next tier, and after the Baseline tier it is allowed.
- Inside a tier "policies with lower priority values have higher precedence"; inside a policy the rules of a
  direction take precedence in the order written. Equal priorities are ambiguous upstream; the precedence's
  tie-break is the name (the loader and the docs say so).
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

The peers are the v1alpha1 peer objects (netpol/model/admin.py) with the same meaning, so `PeerCompiler` here
compiles either version's peers.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import assert_never

import numpy as np

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

DOMAIN_NAMES_NOTE = "domainNames are resolved by DNS while traffic flows: statically they match no pod and no address"


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


def selector_text(selector: LabelSelector) -> str:
    """A selector in braces, `{}` for the empty one (which selects everything)."""
    return "{}" if selector.is_empty else "{" + selector.render() + "}"


def peer_text(peer: AdminPeer) -> str:
    """A peer in the API's own words."""
    match peer:
        case AdminNamespaces():
            return f"namespaces {selector_text(peer.namespace_selector)}"
        case AdminPods():
            return (
                f"pods namespaceSelector {selector_text(peer.namespace_selector)} "
                f"podSelector {selector_text(peer.pod_selector)}"
            )
        case AdminNodes():
            return f"nodes {selector_text(peer.node_selector)}"
        case AdminNetworks():
            return f"networks {', '.join(peer.networks)}"
        case AdminDomainNames():
            return f"domainNames {', '.join(peer.domain_names)}"
        case _:
            assert_never(peer)


def node_address_blocks(nodes: Iterable[Node]) -> list[IPBlock]:
    """Each node address as a host block (one InternalIP per family on a dual-stack node)."""
    return [IPBlock(f"{ip}/{128 if ':' in ip else 32}") for n in nodes for ip in n.internal_ips]


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
    return blocks + node_address_blocks(nodes) if uses_nodes else blocks


class PeerCompiler:
    """Peers of v1alpha1 and v1alpha2 rules → CompiledPeer, each distinct peer once (a cache per compile)."""

    def __init__(self, ctx: CompileContext) -> None:
        self.ctx = ctx
        u = ctx.universe
        self._none = np.zeros(u.class_count, dtype=bool)
        self._no_atoms = np.zeros(len(u.ipspace.atoms), dtype=bool)
        # The node a host-network class speaks for ("" for the others): `nodes` peers are one np.isin over it.
        self._host_node = np.array([c.host_node if c.host_network else "" for c in u.classes], dtype=object)
        self._cache: dict[AdminPeer, CompiledPeer] = {}

    def peer(self, peer: AdminPeer) -> CompiledPeer:
        hit = self._cache.get(peer)
        if hit is None:
            hit = self._cache[peer] = self._compile(peer)
        return hit

    def _compile(self, peer: AdminPeer) -> CompiledPeer:
        u = self.ctx.universe
        text = peer_text(peer)
        match peer:
            case AdminNamespaces():
                return CompiledPeer(u.namespaces_matching(peer.namespace_selector) & u.selectable, self._no_atoms, text)
            case AdminPods():
                classes = u.namespaces_matching(peer.namespace_selector) & u.pods_matching(peer.pod_selector)
                return CompiledPeer(classes, self._no_atoms, text)
            case AdminNodes():
                return self._nodes(peer, text)
            case AdminNetworks():
                atoms = self._no_atoms.copy()
                for cidr in peer.networks:
                    atoms |= u.ipspace.block_atoms(IPBlock(cidr))
                per_family = u.block_classes(atoms)
                if not self.ctx.options.ipblock_matches_pods:  # only host-network pods: node addresses
                    per_family = [m & ~u.selectable for m in per_family]
                return CompiledPeer(np.logical_or.reduce(per_family), atoms, text, _split(per_family))
            case AdminDomainNames():
                return CompiledPeer(self._none, self._no_atoms, text, note=DOMAIN_NAMES_NOTE)
            case _:
                assert_never(peer)

    def _nodes(self, peer: AdminNodes, text: str) -> CompiledPeer:
        u = self.ctx.universe
        chosen = [n for n in self.ctx.nodes if peer.node_selector.matches(n.labels)]
        atoms = self._no_atoms.copy()
        for n in chosen:
            for ip in n.internal_ips:
                atoms[u.ipspace.atom_index(ip)] = True
        names = [n.name for n in chosen]
        classes = np.isin(self._host_node, names) if names else self._none
        note = ""
        if not self.ctx.nodes:
            note = "the input has no Node objects: node addresses are unknown, so this peer matches none"
        elif not chosen:
            note = "no Node of the input matches this selector"
        elif not atoms.any():
            note = "the matching Nodes have no InternalIP address in the input"
        return CompiledPeer(classes, atoms, text, note=note)


def _split(per_family: list[np.ndarray]) -> tuple[np.ndarray, ...]:
    """Per-family masks when the families see different classes, else () (tiers.CompiledPeer.family_classes)."""
    return tuple(per_family) if any(not np.array_equal(m, per_family[0]) for m in per_family[1:]) else ()


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
        peers = PeerCompiler(ctx)
        for pol in self.policies:
            yield CompiledPolicy(
                kind=pol.kind,
                key=pol.key,
                tier=tier_of(pol.tier),
                precedence=(float(pol.priority), pol.name),
                selected=subject_mask(ctx.universe, pol.subject_namespaces, pol.subject_pods),
                isolates=frozenset(),  # neither tier isolates: undecided traffic goes on to the next tier
                ingress=tuple(_rule(ctx, peers, "ingress", i, r) for i, r in enumerate(pol.ingress)),
                egress=tuple(_rule(ctx, peers, "egress", i, r) for i, r in enumerate(pol.egress)),
                source=pol,
                precedence_text=f"priority {pol.priority}",
            )


def _rule(
    ctx: CompileContext, peers: PeerCompiler, direction: Direction, index: int, rule: ClusterNetworkPolicyRule
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
        source=rule,
    )
