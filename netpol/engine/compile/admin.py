"""(Baseline)AdminNetworkPolicy → compiled rules, evaluated in tiers before and after NetworkPolicies.

network-policy-api (policy.networking.k8s.io/v1alpha1) semantics:
- ANPs are checked first, lower `priority` first; inside one ANP, rules in the order written; the first
  rule whose peer and ports match decides: Allow (accepted, NetworkPolicies not consulted), Deny
  (dropped), Pass (skip the remaining ANPs and let NetworkPolicies decide).
- Then NetworkPolicies, for pods they isolate in that direction.
- Then the BaselineAdminNetworkPolicy (Allow/Deny, first match), for traffic no NetworkPolicy isolates.
- Anything still undecided is allowed. Host-networked pods are never subjects.
Ingress is decided at the destination, egress at the source; a connection needs both, as for NPs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import assert_never

import numpy as np

from netpol.engine.compile.universe import Universe
from netpol.model.admin import (
    AdminNamespaces,
    AdminNetworkPolicy,
    AdminNetworks,
    AdminNodes,
    AdminPeer,
    AdminPods,
    AdminRule,
)
from netpol.model.objects import IPBlock, Node
from netpol.model.vocab import AdminAction, Direction
from netpol.ports import PortAtoms


@dataclass(frozen=True, eq=False)
class CompiledAdminRule:
    policy: AdminNetworkPolicy
    direction: Direction
    index: int
    rule: AdminRule
    subject: np.ndarray  # bool over classes
    peer_classes: np.ndarray
    peer_atoms: np.ndarray
    static_bits: np.ndarray
    named: tuple[str, ...]  # namedPort: resolves on the destination pod, whatever the protocol
    # Per Universe.families, the classes the peers match over that family (`networks` match a pod's address
    # of their own family); () when every family sees the same classes.
    family_classes: tuple[np.ndarray, ...] = ()

    @property
    def action(self) -> AdminAction:
        return self.rule.action

    def peers_in(self, family_index: int | None) -> np.ndarray:
        """The classes this rule's peers match over one family (index into Universe.families; None: any)."""
        if family_index is None or not self.family_classes:
            return self.peer_classes
        return self.family_classes[family_index]

    @property
    def label(self) -> str:
        name = f" {self.rule.name!r}" if self.rule.name else ""
        return f"{self.policy.key} {self.direction} rule #{self.index + 1}{name} ({self.rule.action})"

    def bits_for(self, universe: Universe, ports: PortAtoms, dst_class: int | None) -> np.ndarray:
        if not self.named or dst_class is None:
            return self.static_bits
        bits = self.static_bits.copy()
        for n, proto, num in universe.classes[dst_class].named_ports:
            if n in self.named:
                bits |= ports.range_bits(proto, num)
        return bits


def admin_blocks(policies: tuple[AdminNetworkPolicy, ...], nodes: tuple[Node, ...]) -> list[IPBlock]:
    """Address blocks the admin tiers draw: `networks` CIDRs and, for `nodes` peers, node addresses."""
    blocks: list[IPBlock] = []
    uses_nodes = False
    for pol in policies:
        for rule in (*pol.ingress, *pol.egress):
            for peer in rule.peers:
                if isinstance(peer, AdminNetworks):
                    blocks.extend(IPBlock(c) for c in peer.networks)
                uses_nodes |= isinstance(peer, AdminNodes)
    if uses_nodes:
        for n in nodes:
            for ip in n.internal_ips:  # a dual-stack node: one InternalIP per family
                blocks.append(IPBlock(f"{ip}/{32 if ':' not in ip else 128}"))
    return blocks


def admin_port_cuts(policies: tuple[AdminNetworkPolicy, ...], universe: Universe) -> list[tuple[str, int, int]]:
    cuts = []
    names = set()
    for pol in policies:
        for rule in (*pol.ingress, *pol.egress):
            for p in rule.ports:
                if isinstance(p.port, int):
                    cuts.append((p.protocol, p.port, p.end_port if p.end_port is not None else p.port))
                elif isinstance(p.port, str):
                    names.add(p.port)
    if names:
        for cls in universe.classes:
            cuts.extend((proto, num, num) for n, proto, num in cls.named_ports if n in names)
    return cuts


def _peer(
    peer: AdminPeer, universe: Universe, nodes: tuple[Node, ...], ipblock_matches_pods: bool
) -> tuple[list[np.ndarray], np.ndarray]:
    """(classes per family of universe.families, atoms) one peer matches."""
    n_atoms = len(universe.ipspace.atoms)
    no_atoms = np.zeros(n_atoms, dtype=bool)
    every = len(universe.families)
    match peer:
        case AdminNamespaces():
            return [universe.namespaces_matching(peer.namespace_selector) & universe.selectable] * every, no_atoms
        case AdminPods():
            classes = universe.namespaces_matching(peer.namespace_selector) & universe.pods_matching(peer.pod_selector)
            return [classes] * every, no_atoms
        case AdminNodes():
            chosen = [n for n in nodes if peer.node_selector.matches(n.labels)]
            names = {n.name for n in chosen}
            classes = np.array([c.host_network and c.host_node in names for c in universe.classes], dtype=bool)
            atoms = no_atoms.copy()
            for n in chosen:
                for ip in n.internal_ips:
                    atoms[universe.ipspace.atom_index(ip)] = True
            return [classes] * every, atoms
        case AdminNetworks():
            atoms = no_atoms.copy()
            for cidr in peer.networks:
                atoms |= universe.ipspace.block_atoms(IPBlock(cidr))
            per_family = universe.block_classes(atoms)
            if not ipblock_matches_pods:
                per_family = [m & ~universe.selectable for m in per_family]
            return per_family, atoms
        case _:
            assert_never(peer)


def compile_admin(
    policies: tuple[AdminNetworkPolicy, ...],
    universe: Universe,
    ports: PortAtoms,
    nodes: tuple[Node, ...],
    *,
    ipblock_matches_pods: bool = True,
) -> tuple[CompiledAdminRule, ...]:
    """Every rule of every (B)ANP, in evaluation order (ANPs by priority, then the BANP)."""
    out = []
    for pol in policies:
        subject = universe.namespaces_matching(pol.subject_namespaces) & universe.selectable
        if pol.subject_pods is not None:
            subject = subject & universe.pods_matching(pol.subject_pods)
        sides: tuple[tuple[Direction, tuple[AdminRule, ...]], ...] = (("ingress", pol.ingress), ("egress", pol.egress))
        for direction, rules in sides:
            for i, rule in enumerate(rules):
                per_family = [np.zeros(universe.class_count, dtype=bool) for _ in universe.families]
                atoms = np.zeros(len(universe.ipspace.atoms), dtype=bool)
                for peer in rule.peers:
                    cs, a = _peer(peer, universe, nodes, ipblock_matches_pods)
                    for acc, c in zip(per_family, cs, strict=True):
                        acc |= c
                    atoms |= a
                classes = np.logical_or.reduce(per_family)
                split = any(not np.array_equal(m, per_family[0]) for m in per_family[1:])
                family_classes = tuple(per_family) if split else ()
                named: tuple[str, ...] = ()
                if not rule.ports:
                    static = ports.all_bits.copy()
                else:
                    static = ports.no_bits.copy()
                    names = []
                    for p in rule.ports:
                        if isinstance(p.port, str):
                            names.append(p.port)
                        else:
                            static |= ports.range_bits(
                                p.protocol, p.port, p.end_port if p.end_port is not None else p.port
                            )
                    named = tuple(dict.fromkeys(names))
                out.append(
                    CompiledAdminRule(pol, direction, i, rule, subject, classes, atoms, static, named, family_classes)
                )
    return tuple(out)
