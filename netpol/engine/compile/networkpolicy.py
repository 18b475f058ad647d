"""Kubernetes NetworkPolicy → the tiered form: allow-lists in the default tier, isolating by policyTypes.

The shape follows Cyclonus' matcher (Target → peers → ports), with masks over equivalence classes and
IP atoms instead of per-pod objects. Semantics (networking/v1 API reference, "Behavior of to and from
selectors"):
- a pod is isolated for a direction when a policy with that policyType selects it; its allowed traffic is
  then the union of the selecting policies' rules (a tier of Allow rules ending in Deny for isolated owners);
- a peer with podSelector only means pods of the policy's own namespace;
- namespaceSelector and podSelector in one peer are ANDed; separate peers are ORed;
- an empty or absent `from`/`to` matches every source/destination, including external addresses;
- an empty or absent `ports` matches every port of every protocol;
- named ports resolve on the destination pod (for ingress: the selected pod; for egress: the peer),
  by name and protocol; an unresolved name matches nothing;
- dual-stack (concepts/services-networking/dual-stack): an ipBlock matches a pod through the pod's address
  of the block's own family; pod and namespace selectors match whatever the family.
Calico evaluates Kubernetes NetworkPolicies as its own policies of the default tier at order 1000 named
`knp.default.<name>` (docs.tigera.io, "Kubernetes policy"): their precedence here, which only matters when
policies of other kinds share the tier.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from netpol.engine.compile.universe import Universe, selector_keys
from netpol.engine.tiers import DEFAULT_TIER, CompileContext, CompiledPeer, CompiledPolicy, CompiledRule, PeerPart
from netpol.model.families import family
from netpol.model.labels import LabelSelector
from netpol.model.objects import IPBlock, NetworkPolicy, NetworkPolicyPeer, NetworkPolicyRule, Node
from netpol.model.vocab import Direction
from netpol.ports import PortAtoms

# Calico's order for Kubernetes NetworkPolicies (libcalico-go's conversion of networking.k8s.io/v1).
KNP_ORDER = 1000.0


def address_peer(
    block: IPBlock, universe: Universe, *, ipblock_matches_pods: bool, text: str | None = None
) -> CompiledPeer:
    """A peer that holds an address block: the external atoms inside it and, per family, the pods whose address
    of the block's family lies in it (only hostNetwork pods, i.e. node addresses, when pod IPs are not
    matched)."""
    atoms = universe.ipspace.block_atoms(block)
    per_family: Sequence[np.ndarray] = universe.shared_block_classes(atoms)
    if not ipblock_matches_pods:
        per_family = [m & ~universe.selectable for m in per_family]
    classes = per_family[0] if len(per_family) == 1 else np.logical_or.reduce(per_family)
    split = any(not np.array_equal(m, per_family[0]) for m in per_family[1:])
    text = text or f"ipBlock {block.render()}"
    part = PeerPart("address", text, classes, atoms, family(block.cidr))
    return CompiledPeer(classes, atoms, text, (part,), tuple(per_family) if split else ())


def selector_peer(parts: Sequence[PeerPart], universe: Universe, text: str | None = None) -> CompiledPeer:
    """A peer that holds the pods all its selector parts hold (never an address; never a hostNetwork pod, whose
    traffic carries its node's address)."""
    classes = universe.selectable_in_all([part.classes for part in parts])
    no_atoms = np.zeros(len(universe.ipspace.atoms), dtype=bool)
    return CompiledPeer(classes, no_atoms, text or " AND ".join(p.text for p in parts), tuple(parts))


def every_peer(universe: Universe, text: str) -> CompiledPeer:
    """A peer that holds every pod and every address (an absent or empty `from`/`to`)."""
    return CompiledPeer(
        np.ones(universe.class_count, dtype=bool), np.ones(len(universe.ipspace.atoms), dtype=bool), text
    )


def namespace_part(universe: Universe, namespace_selector: LabelSelector | None, own_namespace: str) -> PeerPart:
    """namespaceSelector, or (absent) the policy's own namespace."""
    if namespace_selector is not None:
        return PeerPart(
            "namespace",
            f"namespaceSelector {namespace_selector.render()}",
            universe.namespaces_matching(namespace_selector),
        )
    return PeerPart("namespace", f"the policy's namespace {own_namespace}", universe.in_namespace(own_namespace))


def compile_peer(
    peer: NetworkPolicyPeer, policy_ns: str, universe: Universe, *, ipblock_matches_pods: bool
) -> CompiledPeer:
    if peer.ip_block is not None:
        return address_peer(peer.ip_block, universe, ipblock_matches_pods=ipblock_matches_pods)
    parts = [namespace_part(universe, peer.namespace_selector, policy_ns)]
    if peer.pod_selector is not None:
        parts.append(
            PeerPart("pod", f"podSelector {peer.pod_selector.render()}", universe.pods_matching(peer.pod_selector))
        )
    return selector_peer(parts, universe, peer.render())


def port_bits(rule: NetworkPolicyRule, ports: PortAtoms) -> tuple[np.ndarray, tuple[tuple[str, str], ...]]:
    """(static bits, named ports) of a rule's `ports`."""
    if not rule.ports:
        return ports.all_bits.copy(), ()
    static = ports.no_bits.copy()
    named: list[tuple[str, str]] = []
    for p in rule.ports:
        if p.port is None:
            static |= ports.range_bits(p.protocol)
        elif isinstance(p.port, int):
            static |= ports.range_bits(p.protocol, p.port, p.end_port if p.end_port is not None else p.port)
        else:
            named.append((p.port, p.protocol))
    return static, tuple(dict.fromkeys(named))


def compile_rule(
    policy: NetworkPolicy, direction: Direction, index: int, rule: NetworkPolicyRule, ctx: CompileContext
) -> CompiledRule:
    u = ctx.universe
    if not rule.peers:
        peers: tuple[CompiledPeer, ...] = (
            every_peer(
                u,
                f"every {'source' if direction == 'ingress' else 'destination'} (no {'from' if direction == 'ingress' else 'to'})",
            ),
        )
    else:
        peers = tuple(
            compile_peer(p, policy.namespace, u, ipblock_matches_pods=ctx.options.ipblock_matches_pods)
            for p in rule.peers
        )
    static, named = port_bits(rule, ctx.ports)
    ports_text = ", ".join(p.render() for p in rule.ports) if rule.ports else "all ports"
    return CompiledRule(direction, index, "Allow", peers, static, named, ports_text=ports_text, source=rule)


def compile_policy(policy: NetworkPolicy, ctx: CompileContext) -> CompiledPolicy:
    u = ctx.universe
    selected = u.selectable_in_all([u.in_namespace(policy.namespace), u.pods_matching(policy.pod_selector)])
    sides: tuple[tuple[Direction, bool], ...] = (("ingress", policy.affects_ingress), ("egress", policy.affects_egress))
    isolates = frozenset(d for d, on in sides if on)
    ingress = (
        tuple(compile_rule(policy, "ingress", i, r, ctx) for i, r in enumerate(policy.ingress))
        if policy.affects_ingress
        else ()
    )
    egress = (
        tuple(compile_rule(policy, "egress", i, r, ctx) for i, r in enumerate(policy.egress))
        if policy.affects_egress
        else ()
    )
    return CompiledPolicy(
        "NetworkPolicy",
        policy.key,
        DEFAULT_TIER,
        (KNP_ORDER, f"knp.default.{policy.name}\0{policy.namespace}"),
        selected,
        isolates,
        ingress,
        egress,
        source=policy,
        namespace=policy.namespace,
    )


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


@dataclass(frozen=True, slots=True)
class NetworkPolicyCompiler:
    """networking.k8s.io/v1 NetworkPolicies."""

    policies: tuple[NetworkPolicy, ...]

    def label_keys(self) -> Iterable[str]:
        for pol in self.policies:
            yield from selector_keys(pol.pod_selector)
            for rule in (*pol.ingress, *pol.egress):
                for peer in rule.peers:
                    yield from selector_keys(peer.pod_selector)

    def mask_count(self) -> int:
        return sum(1 + len(p.ingress) + len(p.egress) for p in self.policies)

    def splits_by_service_account(self) -> bool:
        return False

    def ip_blocks(self, nodes: Sequence[Node]) -> Iterable[IPBlock]:
        for pol in self.policies:
            for rule in (*pol.ingress, *pol.egress):
                for peer in rule.peers:
                    if peer.ip_block is not None:
                        yield peer.ip_block

    def port_cuts(self, universe: Universe) -> Iterable[tuple[str, int, int]]:
        return port_cuts(self.policies, universe)

    def compile(self, ctx: CompileContext) -> Iterable[CompiledPolicy]:
        return (compile_policy(p, ctx) for p in self.policies)
