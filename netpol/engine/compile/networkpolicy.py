"""NetworkPolicy → CompiledPolicy: the selected classes, and per rule the peer masks and port vectors.

The shape follows Cyclonus' matcher (Target → peers → ports), with masks over equivalence classes and
IP atoms instead of per-pod objects. Semantics (networking/v1 API reference, "Behavior of to and from
selectors"):
- a peer with podSelector only means pods of the policy's own namespace;
- namespaceSelector and podSelector in one peer are ANDed; separate peers are ORed;
- an empty or absent `from`/`to` matches every source/destination, including external addresses;
- an empty or absent `ports` matches every port of every protocol;
- named ports resolve on the destination pod (for ingress: the selected pod; for egress: the peer),
  by name and protocol; an unresolved name matches nothing;
- dual-stack (concepts/services-networking/dual-stack): an ipBlock matches a pod through the pod's address
  of the block's own family; pod and namespace selectors match whatever the family. A rule whose ipBlocks
  tell the families apart keeps one peer mask per family (`family_classes`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from netpol.engine.compile.universe import Universe
from netpol.model.objects import NetworkPolicy, NetworkPolicyPeer, NetworkPolicyRule
from netpol.model.vocab import Direction
from netpol.ports import PortAtoms


@dataclass(frozen=True, eq=False)
class CompiledRule:
    policy: NetworkPolicy
    direction: Direction  # "ingress" | "egress"
    index: int
    rule: NetworkPolicyRule
    peer_classes: np.ndarray  # bool over classes
    peer_atoms: np.ndarray  # bool over IP atoms (external addresses)
    static_bits: np.ndarray  # numeric ports / all ports
    named: tuple[tuple[str, str], ...]  # (port name, protocol) resolved on the destination
    # Per Universe.families, the classes the peers match over that family; () when they are the same in every
    # family (then `peer_classes`, their union, is each family's mask).
    family_classes: tuple[np.ndarray, ...] = ()

    @property
    def label(self) -> str:
        return f"{self.policy.key} {self.direction} rule #{self.index + 1}"

    def peers_in(self, family_index: int | None) -> np.ndarray:
        """The classes this rule's peers match over one family (index into Universe.families; None: any)."""
        if family_index is None or not self.family_classes:
            return self.peer_classes
        return self.family_classes[family_index]

    def bits_for(self, universe: Universe, ports: PortAtoms, dst_class: int | None) -> np.ndarray:
        """Port bits towards one destination class (None: an external address, where names never resolve)."""
        if not self.named or dst_class is None:
            return self.static_bits
        bits = self.static_bits.copy()
        cls = universe.classes[dst_class]
        for name, proto in self.named:
            num = cls.resolve(name, proto)
            if num is not None:
                bits |= ports.range_bits(proto, num)
        return bits


@dataclass(frozen=True, eq=False)
class CompiledPolicy:
    policy: NetworkPolicy
    selected: np.ndarray  # bool over classes
    ingress: tuple[CompiledRule, ...]
    egress: tuple[CompiledRule, ...]


def port_cuts(policies: Sequence[NetworkPolicy], universe: Universe) -> list[tuple[str, int, int]]:
    """Every port boundary the policies can draw: numeric ports, ranges and resolved named ports."""
    cuts: list[tuple[str, int, int]] = []
    names: set[tuple[str, str]] = set()
    for pol in policies:
        for rule in (*pol.ingress, *pol.egress):
            for p in rule.ports:
                if isinstance(p.port, int):
                    cuts.append((p.protocol, p.port, p.end_port if p.end_port is not None else p.port))
                elif isinstance(p.port, str):
                    names.add((p.port, p.protocol))
    if names:
        for cls in universe.classes:
            for name, proto, num in cls.named_ports:
                if (name, proto) in names:
                    cuts.append((proto, num, num))
    return cuts


def peer_masks(
    peer: NetworkPolicyPeer, policy_ns: str, universe: Universe, *, ipblock_matches_pods: bool
) -> tuple[list[np.ndarray], np.ndarray]:
    """(classes per family of `universe.families`, atoms) matched by one peer."""
    n_atoms = len(universe.ipspace.atoms)
    if peer.ip_block is not None:
        atoms = universe.ipspace.block_atoms(peer.ip_block)
        per_family = universe.block_classes(atoms)
        if not ipblock_matches_pods:  # only hostNetwork pods, i.e. node addresses
            per_family = [m & ~universe.selectable for m in per_family]
        return per_family, atoms
    if peer.namespace_selector is not None:
        classes = universe.namespaces_matching(peer.namespace_selector).copy()
    else:
        classes = universe.in_namespace(policy_ns).copy()
    if peer.pod_selector is not None:
        classes &= universe.pods_matching(peer.pod_selector)
    classes &= universe.selectable
    return [classes] * len(universe.families), np.zeros(n_atoms, dtype=bool)


def peer_mask(
    peer: NetworkPolicyPeer, policy_ns: str, universe: Universe, *, ipblock_matches_pods: bool
) -> tuple[np.ndarray, np.ndarray]:
    """(classes over any family, atoms) matched by one peer."""
    per_family, atoms = peer_masks(peer, policy_ns, universe, ipblock_matches_pods=ipblock_matches_pods)
    return np.logical_or.reduce(per_family), atoms


def compile_rule(
    policy: NetworkPolicy,
    direction: Direction,
    index: int,
    rule: NetworkPolicyRule,
    universe: Universe,
    ports: PortAtoms,
    *,
    ipblock_matches_pods: bool,
) -> CompiledRule:
    n_atoms = len(universe.ipspace.atoms)
    family_classes: tuple[np.ndarray, ...] = ()
    if not rule.peers:
        classes = np.ones(universe.class_count, dtype=bool)
        atoms = np.ones(n_atoms, dtype=bool)
    else:
        per_family = [np.zeros(universe.class_count, dtype=bool) for _ in universe.families]
        atoms = np.zeros(n_atoms, dtype=bool)
        for peer in rule.peers:
            cs, a = peer_masks(peer, policy.namespace, universe, ipblock_matches_pods=ipblock_matches_pods)
            for acc, c in zip(per_family, cs, strict=True):
                acc |= c
            atoms |= a
        classes = np.logical_or.reduce(per_family)
        if any(not np.array_equal(m, per_family[0]) for m in per_family[1:]):
            family_classes = tuple(per_family)
    if not rule.ports:
        static = ports.all_bits.copy()
        named: tuple[tuple[str, str], ...] = ()
    else:
        static = ports.no_bits.copy()
        named_list = []
        for p in rule.ports:
            if p.port is None:
                static |= ports.range_bits(p.protocol)
            elif isinstance(p.port, int):
                static |= ports.range_bits(p.protocol, p.port, p.end_port if p.end_port is not None else p.port)
            else:
                named_list.append((p.port, p.protocol))
        named = tuple(dict.fromkeys(named_list))
    return CompiledRule(policy, direction, index, rule, classes, atoms, static, named, family_classes)


def compile_policy(
    policy: NetworkPolicy, universe: Universe, ports: PortAtoms, *, ipblock_matches_pods: bool = True
) -> CompiledPolicy:
    selected = universe.in_namespace(policy.namespace) & universe.pods_matching(policy.pod_selector)
    kw = {"ipblock_matches_pods": ipblock_matches_pods}
    ingress = (
        tuple(compile_rule(policy, "ingress", i, r, universe, ports, **kw) for i, r in enumerate(policy.ingress))
        if policy.affects_ingress
        else ()
    )
    egress = (
        tuple(compile_rule(policy, "egress", i, r, universe, ports, **kw) for i, r in enumerate(policy.egress))
        if policy.affects_egress
        else ()
    )
    return CompiledPolicy(policy, selected, ingress, egress)
