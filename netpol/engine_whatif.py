"""What-if questions on the same compiled classes, IP atoms and port atoms: masks over policies.

The engine's classes, atoms and port atoms refine every subset of the policies, so "without policy k" or
"only these policies" is a mask passed to `side_block(without=…, only=…)`, never a recompilation; the
answer is a plain array comparison.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from netpol.engine_boxes import Eids
from netpol.engine_state import EngineState
from netpol.model.objects import NetworkPolicy
from netpol.model.vocab import Direction


class WhatIf(EngineState):
    """Isolation and selection masks over policies, and the questions built on them."""

    def isolation(self, direction: Direction, without: int | None = None, only: np.ndarray | None = None) -> np.ndarray:
        """Bool over classes: isolated in `direction` by the policies kept (all but `without`, or `only`)."""
        count = np.zeros(self.C, dtype=np.int32)
        for k, cp in enumerate(self.policies):
            if k == without or (only is not None and not only[k]):
                continue
            if cp.policy.affects_ingress if direction == "ingress" else cp.policy.affects_egress:
                count += cp.selected
        return count > 0

    @cached_property
    def selection(self) -> np.ndarray:
        """(policies, classes): which classes each NetworkPolicy selects."""
        if not self.policies:
            return np.zeros((0, self.C), dtype=bool)
        return np.stack([cp.selected for cp in self.policies])

    def changes_without(self, policy: NetworkPolicy) -> bool:
        """Would removing `policy` change any connection (pods and external ranges)?

        A NetworkPolicy only shapes the ingress of the classes it selects and the egress of the same
        classes, so without admin tiers only those columns and rows are recomputed (from the policies that
        select some of them); with admin tiers every block is compared."""
        k = next(k for k, cp in enumerate(self.policies) if cp.policy is policy)
        E = self.eid_count
        if self.admin_rules:
            step = self.block_rows(E)
            for direction in ("ingress", "egress"):
                for lo in range(0, E, step):
                    rows = range(lo, min(E, lo + step))
                    a = self.family_sides(direction, rows, range(E))
                    b = self.family_sides(direction, rows, range(E), without=k)
                    if any(not np.array_equal(x, y) for x, y in zip(a, b, strict=True)):
                        return True
            return False
        chosen = np.flatnonzero(self.policies[k].selected)
        if not chosen.size:
            return False
        only = np.asarray(self.selection[:, chosen].any(axis=1))
        everyone = range(E)
        without = only.copy()
        without[k] = False

        def differ(direction: Direction, src: Eids, dst: Eids) -> bool:
            a = self.family_sides(direction, src, dst, only=only)
            b = self.family_sides(direction, src, dst, only=without)
            return any(not np.array_equal(x, y) for x, y in zip(a, b, strict=True))

        if policy.affects_ingress and differ("ingress", everyone, chosen):
            return True
        return bool(policy.affects_egress) and differ("egress", chosen, everyone)
