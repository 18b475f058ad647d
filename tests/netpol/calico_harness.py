"""The Calico compiler's output walked pair by pair, as netpol/engine/tiers.py specifies the evaluation.

It walks `CompiledPolicy` values the slow way, written from the spec apart from the engine's own walk
(netpol/engine/evaluate.py), so the compiled masks are checked against the reference evaluator
(tests/netpol/calico_reference.py) independently of the evaluation; the engine end to end is
tests/netpol/test_calico_pipeline.py's. It reads only the compiler's output; every rule of the spec is one line
below.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import yaml

from netpol.engine.compile.calico import CalicoCompiler
from netpol.engine.compile.ipspace import IPSpace
from netpol.engine.compile.universe import Universe
from netpol.engine.options import EngineOptions
from netpol.engine.tiers import CompileContext, CompiledPolicy
from netpol.manifests import load_text
from netpol.pipeline import prepare
from netpol.ports import PortAtoms


@dataclass
class Compiled:
    universe: Universe
    ports: PortAtoms
    policies: list[CompiledPolicy]
    pod_index: dict[str, int]

    def _has_bit(self, bits: np.ndarray, proto: str, port: int) -> bool:
        k = self.ports.atom_of(proto, port)
        return bool((int(bits[k >> 6]) >> (k & 63)) & 1)

    def _side(
        self, direction: str, owner: int, other: tuple[str, int], dst_ports: object, proto: str, port: int
    ) -> bool | None:
        """True allowed, False denied, None no tier decided (allowed)."""
        tiers = sorted({p.tier for p in self.policies}, key=lambda t: (t.order, t.name))
        for tier in tiers:
            pols = [p for p in self.policies if p.tier == tier and p.selected[owner]]
            rules = sorted(
                ((p.precedence, r.index, id(r), r) for p in pols for r in p.rules(direction)),  # type: ignore[arg-type]
                key=lambda x: (x[0], x[1], x[2]),
            )
            decided = None
            for _, _, _, r in rules:
                kind, idx = other
                if not any((peer.classes_in(0)[idx] if kind == "class" else peer.atoms[idx]) for peer in r.peers):
                    continue
                if not self._has_bit(r.bits_for(self.ports, dst_ports), proto, port):  # type: ignore[arg-type]
                    continue
                if r.action == "Log":
                    continue
                decided = r.action
                break
            if decided is None and any(direction in p.isolates for p in pols):
                decided = tier.end
            if decided == "Allow":
                return True
            if decided == "Deny":
                return False
        return None

    def allowed(self, src: str, dst: str, proto: str = "TCP", port: int = 80) -> bool:
        u = self.universe
        s = self.pod_index.get(src)
        d = self.pod_index.get(dst)
        if s is not None and s == d:
            return True
        sc = int(u.pod_class[s]) if s is not None else None
        dc = int(u.pod_class[d]) if d is not None else None
        dst_ports = u.classes[dc].named_ports if dc is not None else None
        if sc is not None:
            other = ("class", dc) if dc is not None else ("atom", u.ipspace.atom_index(dst))
            if self._side("egress", sc, other, dst_ports, proto, port) is False:  # type: ignore[arg-type]
                return False
        if dc is not None:
            other = ("class", sc) if sc is not None else ("atom", u.ipspace.atom_index(src))
            if self._side("ingress", dc, other, dst_ports, proto, port) is False:  # type: ignore[arg-type]
                return False
        return True


def compile_objects(objs: list[dict]) -> Compiled:
    cluster = load_text(yaml.safe_dump_all(objs))
    placed, _ = prepare(cluster)
    pods = placed.running_pods
    comp = CalicoCompiler(placed.calico, placed.services)
    ipspace = IPSpace(list(comp.ip_blocks(placed.nodes)), (ip for p in pods for ip in p.pod_ips))
    u = Universe(pods, placed.namespaces, ipspace, frozenset(comp.label_keys()), comp.splits_by_service_account())
    ports = PortAtoms(list(comp.port_cuts(u)))
    ctx = CompileContext(u, ports, EngineOptions(), placed.nodes, placed.services)
    return Compiled(u, ports, list(comp.compile(ctx)), {p.key: i for i, p in enumerate(u.pods)})
