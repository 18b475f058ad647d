"""(Baseline)AdminNetworkPolicy (policy.networking.k8s.io/v1alpha1) → the tiered form.

network-policy-api v1alpha1 semantics ("AdminNetworkPolicy" and "BaselineAdminNetworkPolicy" API reference):
- ANPs are checked first, lower `priority` first; inside one ANP, rules in the order written; the first
  rule whose peer and ports match decides: Allow (accepted, NetworkPolicies not consulted), Deny
  (dropped), Pass (skip the remaining ANPs and let NetworkPolicies decide): the Admin tier, ending in Pass.
- Then NetworkPolicies, for pods they isolate in that direction (the default tier).
- Then the BaselineAdminNetworkPolicy (Allow/Deny, first match), for traffic no NetworkPolicy isolates: the
  Baseline tier, ending in Pass.
- Anything still undecided is allowed. Host-networked pods are never subjects.
Ingress is decided at the destination, egress at the source; a connection needs both, as for NPs.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import assert_never

import numpy as np

from netpol.engine.compile.networkpolicy import address_peer, selector_peer
from netpol.engine.compile.universe import Universe, selector_keys
from netpol.engine.tiers import (
    ADMIN_TIER,
    BASELINE_TIER,
    CompileContext,
    CompiledPeer,
    CompiledPolicy,
    CompiledRule,
    PeerPart,
)
from netpol.model.admin import (
    AdminDomainNames,
    AdminNamespaces,
    AdminNetworkPolicy,
    AdminNetworks,
    AdminNodes,
    AdminPeer,
    AdminPods,
    AdminRule,
    peer_pod_selectors,
)
from netpol.model.objects import IPBlock, Node
from netpol.model.vocab import Direction
from netpol.ports import PortAtoms

DOMAIN_NAMES_NOTE = "domainNames are resolved by DNS while traffic flows: statically they match no pod and no address"


def node_blocks(nodes: Sequence[Node]) -> list[IPBlock]:
    """One /32 (/128) block per node address, so `nodes` peers can tell node addresses apart."""
    return [IPBlock(f"{ip}/{32 if ':' not in ip else 128}") for n in nodes for ip in n.internal_ips]


def nodes_peer(selector_text: str, chosen: Sequence[Node], universe: Universe) -> CompiledPeer:
    """The matching nodes' addresses, and the hostNetwork pods on those nodes (they speak with them)."""
    names = {n.name for n in chosen}
    classes = np.array([c.host_network and c.host_node in names for c in universe.classes], dtype=bool)
    atoms = np.zeros(len(universe.ipspace.atoms), dtype=bool)
    for n in chosen:
        for ip in n.internal_ips:
            atoms[universe.ipspace.atom_index(ip)] = True
    text = f"nodes {selector_text}"
    return CompiledPeer(classes, atoms, text, (PeerPart("node", text, classes, atoms),))


def compile_admin_peer(peer: AdminPeer, ctx: CompileContext) -> CompiledPeer:
    u = ctx.universe
    match peer:
        case AdminNamespaces():
            text = f"namespaces {peer.namespace_selector.render()}"
            return selector_peer([PeerPart("namespace", text, u.namespaces_matching(peer.namespace_selector))], u, text)
        case AdminPods():
            ns = peer.namespace_selector.render()
            return selector_peer(
                [
                    PeerPart("namespace", f"namespaceSelector {ns}", u.namespaces_matching(peer.namespace_selector)),
                    PeerPart("pod", f"podSelector {peer.pod_selector.render()}", u.pods_matching(peer.pod_selector)),
                ],
                u,
                f"pods (namespaceSelector {ns} AND podSelector {peer.pod_selector.render()})",
            )
        case AdminNodes():
            chosen = [n for n in ctx.nodes if peer.node_selector.matches(n.labels)]
            return nodes_peer(peer.node_selector.render(), chosen, u)
        case AdminNetworks():
            per = [
                address_peer(IPBlock(c), u, ipblock_matches_pods=ctx.options.ipblock_matches_pods, text=f"network {c}")
                for c in peer.networks
            ]
            if len(per) == 1:
                return per[0]
            classes = np.logical_or.reduce([p.classes for p in per])
            atoms = np.logical_or.reduce([p.atoms for p in per])
            fams: tuple[np.ndarray, ...] = ()
            if any(p.family_classes for p in per):
                fams = tuple(np.logical_or.reduce([p.classes_in(k) for p in per]) for k in range(len(u.families)))
            parts = tuple(q for p in per for q in p.parts)
            text = f"networks {', '.join(peer.networks)}"
            return CompiledPeer(classes, atoms, text, parts, fams)
        case AdminDomainNames():  # resolved by DNS while traffic flows: no pod and no address statically
            text = f"domainNames {', '.join(peer.domain_names)}"
            none = np.zeros(u.class_count, dtype=bool)
            no_atoms = np.zeros(len(u.ipspace.atoms), dtype=bool)
            return CompiledPeer(none, no_atoms, text, note=DOMAIN_NAMES_NOTE)
        case _:
            assert_never(peer)


def admin_port_bits(rule: AdminRule, ports: PortAtoms) -> tuple[np.ndarray, tuple[tuple[str, str], ...]]:
    """(static bits, named ports): `namedPort` resolves on the destination pod whatever its protocol."""
    if not rule.ports:
        return ports.all_bits.copy(), ()
    static = ports.no_bits.copy()
    named: list[tuple[str, str]] = []
    for p in rule.ports:
        if isinstance(p.port, str):
            named.append((p.port, ""))
        else:
            static |= ports.range_bits(p.protocol, p.port, p.end_port if p.end_port is not None else p.port)
    return static, tuple(dict.fromkeys(named))


def compile_admin_policy(pol: AdminNetworkPolicy, ctx: CompileContext) -> CompiledPolicy:
    u = ctx.universe
    subject = u.namespaces_matching(pol.subject_namespaces) & u.selectable
    if pol.subject_pods is not None:
        subject = subject & u.pods_matching(pol.subject_pods)

    def rules(direction: Direction, written: tuple[AdminRule, ...]) -> tuple[CompiledRule, ...]:
        out = []
        for i, rule in enumerate(written):
            static, named = admin_port_bits(rule, ctx.ports)
            out.append(
                CompiledRule(
                    direction,
                    i,
                    rule.action,
                    tuple(compile_admin_peer(p, ctx) for p in rule.peers),
                    static,
                    named,
                    name=rule.name,
                    ports_text=", ".join(p.render() for p in rule.ports) if rule.ports else "all ports",
                    source=rule,
                )
            )
        return tuple(out)

    tier = BASELINE_TIER if pol.baseline else ADMIN_TIER
    priority = float(pol.priority) if pol.priority is not None else 0.0
    return CompiledPolicy(
        pol.kind,
        pol.key,
        tier,
        (priority, f"{pol.kind}\0{pol.name}"),
        subject,
        frozenset(),  # nothing in these tiers isolates: an unmatched connection goes on
        rules("ingress", pol.ingress),
        rules("egress", pol.egress),
        source=pol,
        precedence_text="" if pol.baseline else f"priority {pol.priority}",
    )


@dataclass(frozen=True, slots=True)
class AdminCompiler:
    """policy.networking.k8s.io/v1alpha1 AdminNetworkPolicies and the BaselineAdminNetworkPolicy."""

    policies: tuple[AdminNetworkPolicy, ...]

    def label_keys(self) -> Iterable[str]:
        for anp in self.policies:
            yield from selector_keys(anp.subject_pods)
            for rule in (*anp.ingress, *anp.egress):
                for peer in rule.peers:
                    for sel in peer_pod_selectors(peer):
                        yield from selector_keys(sel)

    def mask_count(self) -> int:
        return sum(1 + len(p.ingress) + len(p.egress) for p in self.policies)

    def splits_by_service_account(self) -> bool:
        return False

    def ip_blocks(self, nodes: Sequence[Node]) -> Iterable[IPBlock]:
        uses_nodes = False
        for pol in self.policies:
            for rule in (*pol.ingress, *pol.egress):
                for peer in rule.peers:
                    if isinstance(peer, AdminNetworks):
                        yield from (IPBlock(c) for c in peer.networks)
                    uses_nodes |= isinstance(peer, AdminNodes)
        if uses_nodes:
            yield from node_blocks(nodes)

    def port_cuts(self, universe: Universe) -> Iterable[tuple[str, int, int]]:
        names = set()
        for pol in self.policies:
            for rule in (*pol.ingress, *pol.egress):
                for p in rule.ports:
                    if isinstance(p.port, int):
                        yield (p.protocol, p.port, p.end_port if p.end_port is not None else p.port)
                    elif isinstance(p.port, str):
                        names.add(p.port)
        if names:
            for cls in universe.classes:
                yield from ((proto, num, num) for n, proto, num in cls.named_ports if n in names)

    def compile(self, ctx: CompileContext) -> Iterable[CompiledPolicy]:
        return (compile_admin_policy(p, ctx) for p in self.policies)
