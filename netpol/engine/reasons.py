"""Which policies select a class: the engine's index for reasons (netpol/engine/provenance.py), and the lint of
named ports that resolve nowhere.

A pair's reasons never scan every policy: per class, the few policies selecting it are indexed once.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from netpol.engine.state import EngineState
from netpol.engine.tiers import CompiledPolicy, CompiledRule


class Reasons(EngineState):
    """The policies behind a verdict, read from the engine's own compiled data."""

    @cached_property
    def _class_policies(self) -> list[list[int]]:
        """Per class, the policies selecting it (few), in evaluation order."""
        out: list[list[int]] = [[] for _ in range(self.C)]
        for k, cp in enumerate(self.policies):
            for c in np.flatnonzero(cp.selected).tolist():
                out[c].append(k)
        return out

    def selecting(self, cls: int) -> list[int]:
        """Numbers (into `policies`) of the policies selecting a class, in evaluation order."""
        return self._class_policies[cls]

    def policies_selecting(self, cls: int) -> list[CompiledPolicy]:
        return [self.policies[k] for k in self._class_policies[cls]]


def unresolved_named_ports(r: EngineState) -> list[tuple[CompiledPolicy, CompiledRule, str, str]]:
    """(policy, rule, port name, protocol) for every named port that resolves on no destination the rule covers.

    Ingress names resolve on the pods the policy selects; egress names on the peer pods. A name that
    resolves nowhere matches nothing — legal, but almost always a typo or a missing containerPort name.
    """
    out = []
    u = r.universe
    for cp in r.policies:
        for rule in (*cp.ingress, *cp.egress):
            if not rule.named:
                continue
            if rule.direction == "ingress":
                dests = np.flatnonzero(cp.selected)
            elif rule.peers:
                dests = np.flatnonzero(np.logical_or.reduce([p.classes for p in rule.peers]))
            else:
                dests = np.zeros(0, dtype=np.int64)
            for name, proto in rule.named:
                if not any(
                    n == name and (not proto or p == proto) for c in dests for n, p, _ in u.classes[int(c)].named_ports
                ):
                    out.append((cp, rule, name, proto))
    return out
