"""The reachability graph (networkx): pods and external ranges as nodes, allowed connections as edges.

Each edge carries the allowed ConnectionSet and the rules that allowed it on both sides, which is what
`who-can-reach`, the explain views and the UI read. Built on demand from the bit tensors (the matrix is
the source of truth; a dense 10,000-pod graph has up to 10^8 edges, so only build it when it is asked for).
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx
import numpy as np

from netpol.compile.policies import CompiledPolicy
from netpol.engine import Reachability
from netpol.pipeline import Analysis
from netpol.ports import ConnectionSet
from netpol.rows import RowFilter, Rows


@dataclass(frozen=True, slots=True)
class SideVerdict:
    """One direction of one connection: is the endpoint isolated, by which policies, which rules allow."""

    direction: str  # "egress" (the source's side) | "ingress" (the destination's side)
    applies: bool  # False for external endpoints: nothing of ours filters there
    isolated: bool
    policies: tuple[str, ...]  # policies selecting the endpoint for this direction
    allowed: ConnectionSet  # what this side lets through
    rules: tuple[tuple[str, ConnectionSet], ...]  # (rule label, its contribution towards this peer)
    # (Baseline)AdminNetworkPolicy rules matching this pair, in evaluation order: (label, action, ports)
    admin: tuple[tuple[str, str, ConnectionSet], ...] = ()

    def render(self) -> str:
        text = self._render_np()
        if self.admin:
            tiers = "; ".join(f"{label} on {cs.render()}" for label, _, cs in self.admin)
            text += f" [admin tiers, first match wins per port: {tiers}; result {self.allowed.render()}]"
        return text

    def _render_np(self) -> str:
        if not self.applies:
            return f"{self.direction}: not applicable (external endpoint)"
        if not self.isolated:
            return f"{self.direction}: not isolated (no policy selects it): {self.allowed.render()}"
        if not self.rules:
            return f"{self.direction}: isolated by {', '.join(self.policies)}; no rule allows this peer"
        allowed_by = "; ".join(f"{label} ({cs.render()})" for label, cs in self.rules)
        return f"{self.direction}: isolated by {', '.join(self.policies)}; allowed by {allowed_by}"


@dataclass(frozen=True, slots=True)
class Endpoint:
    """A pod (by index into Reachability.pods) or an external IP atom (by index)."""

    pod: int | None = None
    atom: int | None = None


def _selecting(policies: tuple[CompiledPolicy, ...], cls: int, direction: str) -> tuple[str, ...]:
    out = []
    for cp in policies:
        if cp.selected[cls] and (cp.policy.affects_ingress if direction == "ingress" else cp.policy.affects_egress):
            out.append(cp.policy.key)
    return tuple(out)


def side_verdict(r: Reachability, direction: str, src: Endpoint, dst: Endpoint) -> SideVerdict:
    """Why one side allows what it allows between src and dst (pure; used by explain, graph and UI)."""
    ports = r.ports
    u = r.universe
    if direction == "egress":
        if src.pod is None:
            return SideVerdict("egress", False, False, (), ConnectionSet.all(), ())
        cls = int(u.pod_class[src.pod])
        isolated = bool(r.isolated_egress[cls])
        dst_cls = int(u.pod_class[dst.pod]) if dst.pod is not None else None
        rules = r.egress_rules_for(cls, dst_cls, dst.atom)
        allowed_bits = r.egress_tensor[cls, dst_cls if dst_cls is not None else u.class_count + dst.atom]
    else:
        if dst.pod is None:
            return SideVerdict("ingress", False, False, (), ConnectionSet.all(), ())
        cls = int(u.pod_class[dst.pod])
        isolated = bool(r.isolated_ingress[cls])
        src_cls = int(u.pod_class[src.pod]) if src.pod is not None else None
        rules = r.ingress_rules_for(src_cls, cls, src.atom)
        allowed_bits = r.ingress_tensor[src_cls if src_cls is not None else u.class_count + src.atom, cls]
    dest_class = int(u.pod_class[dst.pod]) if dst.pod is not None else None
    contributions = []
    for rule in rules:
        bits = rule.bits_for(u, ports, dest_class)
        if np.any(bits):
            contributions.append((rule.label, ports.to_set(bits)))
    policies = _selecting(r.policies, cls, direction)
    admin = tuple(
        (rule.label, rule.action, ports.to_set(bits))
        for rule, bits in r.admin_trace(
            direction,
            int(u.pod_class[src.pod]) if src.pod is not None else None,
            dest_class,
            src.atom,
            dst.atom,
        )
    )
    return SideVerdict(direction, True, isolated, policies, ports.to_set(allowed_bits), tuple(contributions), admin)


def build_graph(analysis: Analysis, *, with_rules: bool = True, include_external: bool = True) -> nx.DiGraph:
    """Pods and external ranges as nodes; one edge per allowed ordered pair (self-loops left out)."""
    r = analysis.reachability
    g = nx.DiGraph()
    for p in r.pods:
        g.add_node(
            p.key,
            kind="pod",
            namespace=p.namespace,
            pod=p.name,
            node=p.node_name,
            ip=p.pod_ip,
            owner=p.owner.render() if p.owner else "",
            labels=dict(p.labels),
        )
    cache: dict[tuple[int, int], tuple[tuple[str, ...], tuple[str, ...]]] = {}

    def provenance(src: Endpoint, dst: Endpoint, key: tuple[int, int]) -> dict[str, object]:
        if not with_rules:
            return {}
        hit = cache.get(key)
        if hit is None:
            eg = side_verdict(r, "egress", src, dst)
            ig = side_verdict(r, "ingress", src, dst)
            hit = (
                tuple(label for label, _ in eg.rules) if eg.isolated else ("not isolated",),
                tuple(label for label, _ in ig.rules) if ig.isolated else ("not isolated",),
            )
            cache[key] = hit
        return {"egress_rules": list(hit[0]), "ingress_rules": list(hit[1])}

    rows = Rows(r, include_external)
    n, pc, C = len(r.pods), r.universe.pod_class, r.universe.class_count
    if include_external:
        for atom in r.atoms:
            g.add_node(atom.render(), kind="external", cidr=atom.render())
    for src, dsts, ids in rows.rows(RowFilter(np.ones(n, dtype=bool), include_external)):
        for d, c in zip(dsts.tolist(), ids.tolist(), strict=True):
            cs = rows.table.sets[c]
            s_ep = Endpoint(pod=src) if src < n else Endpoint(atom=src - n)
            d_ep = Endpoint(pod=d) if d < n else Endpoint(atom=d - n)
            if src < n and d < n and r.same_node_host(src, d):
                attrs: dict[str, object] = (
                    {"egress_rules": ["hostNetwork"], "ingress_rules": ["own node"]} if with_rules else {}
                )
            else:
                key = (int(pc[src]) if src < n else C + src - n, int(pc[d]) if d < n else C + d - n)
                attrs = provenance(s_ep, d_ep, key)
            g.add_edge(rows.names[src], rows.names[d], conn=cs, text=cs.render(), **attrs)
    return g


def who_can_reach(g: nx.DiGraph, target: str) -> list[tuple[str, str]]:
    """(source, connections) for every predecessor of target, sorted."""
    return sorted((src, g.edges[src, target]["text"]) for src in g.predecessors(target))


def can_reach(g: nx.DiGraph, source: str) -> list[tuple[str, str]]:
    return sorted((dst, g.edges[source, dst]["text"]) for dst in g.successors(source))
