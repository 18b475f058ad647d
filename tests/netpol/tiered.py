"""A per-pair walk of the compiled tiers, written from netpol/engine/tiers.py's docstring alone.

Only for testing a compiler on its own (before, and besides, the engine's vectorised evaluation): it builds
the classes, address and port atoms the way the docstring says the engine does (every compiler asked what its
policies tell apart), compiles, then loops pair by pair, port atom by port atom. Slow on purpose.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from netpol.engine.compile.ipspace import IPSpace
from netpol.engine.compile.universe import Universe
from netpol.engine.options import EngineOptions
from netpol.engine.tiers import CompileContext, CompiledPolicy, CompiledRule, PolicyCompiler
from netpol.model.cluster import Cluster
from netpol.ports import ConnectionSet, PortAtoms


@dataclass
class Tiered:
    cluster: Cluster  # placed, with IPs
    universe: Universe
    ports: PortAtoms
    policies: list[CompiledPolicy]

    @classmethod
    def build(cls, cluster: Cluster, compilers: Sequence[PolicyCompiler], options: EngineOptions) -> Tiered:
        pods = cluster.running_pods
        blocks = [b for c in compilers for b in c.ip_blocks(cluster.nodes)]
        ipspace = IPSpace(blocks, (ip for p in pods for ip in p.pod_ips))
        keys = frozenset(k for c in compilers for k in c.label_keys())
        sa = any(c.splits_by_service_account() for c in compilers)
        u = Universe(pods, cluster.namespaces, ipspace, keys, sa)
        ports = PortAtoms([cut for c in compilers for cut in c.port_cuts(u)])
        ctx = CompileContext(u, ports, options, cluster.nodes, cluster.services)
        policies = [p for c in compilers for p in c.compile(ctx)]
        keys_seen = [p.key for p in policies]
        assert len(keys_seen) == len(set(keys_seen)), f"compiled policy keys are not unique: {keys_seen}"
        return cls(cluster, u, ports, policies)

    # --------------------------------------------------------------------------------------- endpoints

    def pod(self, key: str) -> int:
        for i, p in enumerate(self.universe.pods):
            if p.key == key:
                return int(self.universe.pod_class[i])
        raise KeyError(key)

    def _pod_object(self, key: str):  # noqa: ANN202
        return next(p for p in self.universe.pods if p.key == key)

    def atom(self, ip: str) -> int:
        return self.universe.ipspace.atom_index(ip)

    # --------------------------------------------------------------------------------------- walk

    def _side(self, owner: int, direction: str, other_class: int | None, other_atom: int | None, dst_class: int | None):
        """Per port atom: True allowed / False denied, and the L7 texts of the deciding Allow rules."""
        verdict: list[bool | None] = [None] * self.ports.count
        l7: list[str] = [""] * self.ports.count
        named = self.universe.classes[dst_class].named_ports if dst_class is not None else None
        tiers = sorted({(p.tier.order, p.tier.name): p.tier for p in self.policies}.items())
        for _, tier in tiers:
            mine = [p for p in self.policies if p.tier == tier and p.selected[owner]]
            rules: list[tuple[tuple, CompiledRule]] = []
            for p in mine:
                for r in p.rules(direction):  # type: ignore[arg-type]
                    rules.append(((p.precedence, r.index), r))
            rules.sort(key=lambda x: x[0])
            isolated = any(direction in p.isolates for p in mine)
            for k in range(self.ports.count):
                if verdict[k] is not None:
                    continue
                decided = False
                for _, r in rules:
                    if not self._holds(r, other_class, other_atom):
                        continue
                    bits = r.bits_for(self.ports, named)
                    if not (int(bits[k >> 6]) >> (k & 63)) & 1:
                        continue
                    if r.action == "Log":
                        continue
                    if r.action == "Pass":
                        decided = True  # leaves this tier undecided
                        break
                    verdict[k] = r.action == "Allow"
                    l7[k] = r.l7 if r.action == "Allow" else ""
                    decided = True
                    break
                if not decided and isolated:
                    if tier.end == "Deny":
                        verdict[k] = False
        return [True if v is None else v for v in verdict], l7

    @staticmethod
    def _holds(rule: CompiledRule, other_class: int | None, other_atom: int | None) -> bool:
        for peer in rule.peers:
            if other_class is not None and peer.classes[other_class]:
                return True
            if other_atom is not None and peer.atoms[other_atom]:
                return True
        return False

    def _set(self, ok: list[bool]) -> ConnectionSet:
        return ConnectionSet.of([self.ports.atoms[k] for k in range(self.ports.count) if ok[k]])

    def connection(self, src: str, dst: str) -> ConnectionSet:
        s, d = self.pod(src), self.pod(dst)
        a, b = self._pod_object(src), self._pod_object(dst)
        if src == dst or (a.node_name and a.node_name == b.node_name and (a.host_network or b.host_network)):
            return ConnectionSet.all()  # loopback and node-local traffic (the read-out's exceptions)
        eg, _ = self._side(s, "egress", d, None, d)
        ing, _ = self._side(d, "ingress", s, None, d)
        return self._set([a and b for a, b in zip(eg, ing, strict=True)])

    def l7(self, src: str, dst: str) -> set[str]:
        """The L7 filters the allowed ports of a pod pair go through (either side's deciding rule)."""
        s, d = self.pod(src), self.pod(dst)
        a, b = self._pod_object(src), self._pod_object(dst)
        if src == dst or (a.node_name and a.node_name == b.node_name and (a.host_network or b.host_network)):
            return set()
        eg, eg7 = self._side(s, "egress", d, None, d)
        ing, ing7 = self._side(d, "ingress", s, None, d)
        return {t for k in range(self.ports.count) if eg[k] and ing[k] for t in (eg7[k], ing7[k]) if t}

    def from_ip(self, ip: str, dst: str) -> ConnectionSet:
        d = self.pod(dst)
        ing, _ = self._side(d, "ingress", None, self.atom(ip), d)
        return self._set(ing)

    def to_ip(self, src: str, ip: str) -> ConnectionSet:
        s = self.pod(src)
        eg, _ = self._side(s, "egress", None, self.atom(ip), None)
        return self._set(eg)

    def policy(self, key: str) -> CompiledPolicy:
        return next(p for p in self.policies if p.key == key)

    def selected_pods(self, key: str) -> list[str]:
        sel = self.policy(key).selected
        return sorted(p.key for i, p in enumerate(self.universe.pods) if sel[self.universe.pod_class[i]])

    def peer_pods(self, peer_classes: np.ndarray) -> list[str]:
        return sorted(p.key for i, p in enumerate(self.universe.pods) if peer_classes[self.universe.pod_class[i]])
