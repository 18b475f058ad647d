"""What-if questions on the same compiled classes, IP atoms and port atoms: masks over policies.

The engine's classes, atoms and port atoms refine every subset of the policies, so "without policy k" or
"only these policies" is a mask passed to `side_block(without=…, only=…)`, never a recompilation; the
answer is a plain array comparison.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import replace
from functools import cached_property
from itertools import chain
from typing import Self

import numpy as np

from netpol.engine.boxes import Box, Eids, box_bounds, rule_boxes
from netpol.engine.cells import box_memberships, cell_box, cell_partition, eid_table
from netpol.engine.compile.networkpolicy import CompiledPolicy
from netpol.engine.state import EngineState
from netpol.model.objects import NetworkPolicy
from netpol.model.vocab import Direction


class WhatIf(EngineState):
    """Isolation and selection masks over policies, and the questions built on them."""

    def isolation(self, direction: Direction, without: int | None = None, only: np.ndarray | None = None) -> np.ndarray:
        """Bool over classes: isolated in `direction` by the policies kept (all but `without`, or `only`)."""
        affects = self.affects_mask(direction)
        keep = affects.copy()
        if only is not None:
            keep &= only
        if without is not None:
            keep[without] = False
        dropped = affects & ~keep
        if dropped.sum() < keep.sum():  # what-if questions leave out a few: subtract them from the counts
            if not dropped.any():
                return self._iso_count[direction] > 0
            return (self._iso_count[direction] - self.selection[dropped].sum(axis=0)) > 0
        return np.asarray(self.selection[keep].any(axis=0)) if keep.any() else np.zeros(self.C, dtype=bool)

    def affects_mask(self, direction: Direction) -> np.ndarray:
        """Bool over policies: those whose policyTypes include `direction`."""
        return self._affects_masks[direction]

    @cached_property
    def _affects_masks(self) -> dict[Direction, np.ndarray]:
        return {
            d: np.array(
                [cp.policy.affects_ingress if d == "ingress" else cp.policy.affects_egress for cp in self.policies],
                dtype=bool,
            )
            for d in ("ingress", "egress")
        }

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

    def with_policies(self, compiled: Sequence[CompiledPolicy], origin: Sequence[int | None]) -> Self:
        """This engine with other compiled NetworkPolicies on the same classes, IP atoms, port atoms and admin
        rules (a refinement valid for any policy set whose added policies draw no new boundary: the what-if
        edits of netpol/whatif.py). `compiled[k]` keeps the boxes of `self.policies[origin[k]]` whose rule it
        still has (by direction and index; it must select the same classes), or gets its boxes built when
        `origin[k]` is None. Cells are refined by what an added policy tells apart (a default-deny selects a
        namespace's classes, which a cell may span). Nothing is recompiled (hook for the UI's what-if)."""
        new = copy.copy(self)
        for cached in ("selection", "_class_policies", "_affects_masks"):  # cached_property: per policy list
            new.__dict__.pop(cached, None)
        new.policies = tuple(compiled)
        iso = {d: np.zeros(self.C, dtype=np.int32) for d in ("ingress", "egress")}
        for cp in new.policies:
            if cp.policy.affects_ingress:
                iso["ingress"] += cp.selected
            if cp.policy.affects_egress:
                iso["egress"] += cp.selected
        new._iso_count = iso
        new.isolated_ingress = iso["ingress"] > 0
        new.isolated_egress = iso["egress"] > 0
        kept: dict[str, list[Box]] = {"ingress": [], "egress": []}  # over this engine's cells
        fresh: dict[str, list[Box]] = {"ingress": [], "egress": []}  # over classes
        for d in ("ingress", "egress"):
            by_policy: dict[int, list[Box]] = {}
            for box in self._boxes[d]:
                by_policy.setdefault(box.policy, []).append(box)
            for k, (cp, o) in enumerate(zip(compiled, origin, strict=True)):
                rules = cp.ingress if d == "ingress" else cp.egress
                if o is None:
                    for rule in rules:
                        fresh[d].extend(rule_boxes(self.universe, self.ports, d, rule, cp.selected, k))
                    continue
                by_index = {r.index: r for r in rules}
                for box in by_policy.get(o, ()):
                    still = by_index.get(box.rule.index)  # NetworkPolicy boxes: their rule is a CompiledRule
                    if still is not None:
                        kept[d].append(replace(box, rule=still, policy=k))
        added = [np.flatnonzero(cp.selected) for cp, o in zip(compiled, origin, strict=True) if o is None]
        added += box_memberships([*fresh["ingress"], *fresh["egress"]], self.C)
        if added and self.K < self.C:
            order = np.argsort(self.cell_of, kind="stable")
            cells = np.split(order, np.cumsum(np.bincount(self.cell_of, minlength=self.K))[:-1])
            new.cell_of, new.cell_rep = cell_partition(self.C, chain(cells, added))
            new.K = len(new.cell_rep)
        if new.K != self.K:  # cells split: the kept boxes move from this engine's cells to the new ones
            new._cell_eid = eid_table(new.cell_of, new.K, self.A)
            new.pod_cell = new.cell_of[self.universe.pod_class]
            kept = {d: [self._recell(b, new._cell_eid) for b in bs] for d, bs in kept.items()}
            new._admin = {key: [self._recell(b, new._cell_eid) for b in bs] for key, bs in self._admin.items()}
        new._boxes = {d: kept[d] + [cell_box(b, new._cell_eid) for b in fresh[d]] for d in ("ingress", "egress")}
        new._bounds = {d: box_bounds(bs) for d, bs in new._boxes.items()}
        new.init_families()
        return new

    def _recell(self, box: Box, table: np.ndarray) -> Box:
        """A box over this engine's cell eids, over the cells of `table` (class eid → cell eid)."""

        def classes(eids: np.ndarray) -> np.ndarray:
            cells, atoms = eids[eids < self.K], eids[eids >= self.K]
            return np.concatenate([np.flatnonzero(np.isin(self.cell_of, cells)), atoms - self.K + self.C])

        return cell_box(replace(box, src=classes(box.src), dst=classes(box.dst)), table)
