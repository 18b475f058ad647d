"""Which compiled rules hold a pair, per side: the engine's index for reasons (netpol/engine/provenance.py).

A pair's reasons never scan every policy: per class, the few policies selecting it are indexed once, and
the rules whose peers contain the other end are read from their class and atom masks.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from netpol.engine.admin import admin_trace
from netpol.engine.compile.admin import CompiledAdminRule
from netpol.engine.compile.networkpolicy import CompiledPolicy, CompiledRule
from netpol.engine.state import EngineState
from netpol.model.vocab import Direction


class Reasons(EngineState):
    """The rules behind a verdict, read from the engine's own compiled data."""

    @cached_property
    def _class_policies(self) -> list[list[int]]:
        """Per class, the policies selecting it (few), so a pair's reasons never scan every policy."""
        out: list[list[int]] = [[] for _ in range(self.C)]
        for k, cp in enumerate(self.policies):
            for c in np.flatnonzero(cp.selected).tolist():
                out[c].append(k)
        return out

    def policies_selecting(self, cls: int) -> list[CompiledPolicy]:
        return [self.policies[k] for k in self._class_policies[cls]]

    def ingress_rules_for(
        self, src_class: int | None, dst_class: int, src_atom: int | None = None, family: int | None = None
    ) -> list[CompiledRule]:
        """Ingress rules of policies selecting dst_class whose peers contain the source (over one address
        family, index into Universe.families; None: any)."""
        out = []
        for cp in self.policies_selecting(dst_class):
            for r in cp.ingress:
                if (src_class is not None and r.peers_in(family)[src_class]) or (
                    src_atom is not None and r.peer_atoms[src_atom]
                ):
                    out.append(r)
        return out

    def egress_rules_for(
        self, src_class: int, dst_class: int | None, dst_atom: int | None = None, family: int | None = None
    ) -> list[CompiledRule]:
        """Egress rules of policies selecting src_class whose peers contain the destination (over one
        address family, index into Universe.families; None: any)."""
        out = []
        for cp in self.policies_selecting(src_class):
            for r in cp.egress:
                if (dst_class is not None and r.peers_in(family)[dst_class]) or (
                    dst_atom is not None and r.peer_atoms[dst_atom]
                ):
                    out.append(r)
        return out

    def admin_trace(
        self,
        direction: Direction,
        src_class: int | None,
        dst_class: int | None,
        src_atom: int | None = None,
        dst_atom: int | None = None,
        family: int | None = None,
    ) -> list[tuple[CompiledAdminRule, np.ndarray]]:
        """Admin rules that match this pair in evaluation order, each with the ports it covers (for explain)."""
        return admin_trace(
            self.admin_rules, self.universe, self.ports, direction, src_class, dst_class, src_atom, dst_atom, family
        )


def unresolved_named_ports(r: EngineState) -> list[tuple[CompiledRule, str, str]]:
    """(rule, port name, protocol) for every named port that resolves on no destination the rule covers.

    Ingress names resolve on the pods the policy selects; egress names on the peer pods. A name that
    resolves nowhere matches nothing — legal, but almost always a typo or a missing containerPort name.
    """
    out = []
    u = r.universe
    for cp in r.policies:
        for rule in (*cp.ingress, *cp.egress):
            if not rule.named:
                continue
            dests = np.flatnonzero(cp.selected if rule.direction == "ingress" else rule.peer_classes)
            for name, proto in rule.named:
                if not any(u.classes[int(c)].resolve(name, proto) is not None for c in dests):
                    out.append((rule, name, proto))
    return out
