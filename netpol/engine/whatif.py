"""What-if questions on the same compiled classes, IP atoms and port atoms: masks over policies.

The engine's classes, atoms and port atoms refine every subset of the policies, so "without policy k" or
"only these policies" is a mask passed to `side_block(without=…, only=…)`, never a recompilation; the
answer is a plain array comparison. Edits (policies disabled, rules removed, NetworkPolicies added) give an
engine on the same classes (`edited`): only the added policies are compiled.
"""

from __future__ import annotations

import copy
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from functools import cached_property
from itertools import chain
from typing import Self

import numpy as np

from netpol.engine.boxes import Box, Eids, rule_boxes
from netpol.engine.cells import box_memberships, cell_box, cell_partition, eid_table
from netpol.engine.compile.networkpolicy import NetworkPolicyCompiler
from netpol.engine.evaluate import order_policies
from netpol.engine.state import EngineState
from netpol.engine.tiers import CompiledPolicy, PolicyObject
from netpol.model.objects import NetworkPolicy
from netpol.model.vocab import DIRECTIONS, Direction


class WhatIf(EngineState):
    """Isolation and selection masks over policies, and the questions built on them."""

    def isolation(
        self,
        direction: Direction,
        without: int | None = None,
        only: np.ndarray | None = None,
        *,
        tier: int | None = None,
    ) -> np.ndarray:
        """Bool over classes: isolated in `direction` by the policies kept (all but `without`, or `only`) of tier
        number `tier` (None: of any tier ending in Deny)."""
        if without is None and only is None:
            hit = self._isolated.get((direction, tier))
            if hit is None:
                hit = self._isolated[(direction, tier)] = self._isolation(direction, None, None, tier)
                hit.flags.writeable = False  # shared by every caller
            return hit
        return self._isolation(direction, without, only, tier)

    def _isolation(
        self, direction: Direction, without: int | None, only: np.ndarray | None, tier: int | None
    ) -> np.ndarray:
        out = np.zeros(self.C, dtype=bool)
        for (d, t), count in self._iso_count.items():
            if d != direction or (tier is not None and t != tier):
                continue
            affects = self.isolates_mask(direction, t)
            keep = affects.copy()
            if only is not None:
                keep &= only
            if without is not None:
                keep[without] = False
            dropped = affects & ~keep
            if not dropped.any():
                out |= count > 0
            elif dropped.sum() < keep.sum():  # what-if questions leave out a few: subtract them from the counts
                out |= (count - self.selection[dropped].sum(axis=0)) > 0
            elif keep.any():
                out |= np.asarray(self.selection[keep].any(axis=0))
        return out

    def isolates_mask(self, direction: Direction, tier: int | None = None) -> np.ndarray:
        """Bool over policies: those that isolate in `direction` in a tier ending in Deny (of tier number `tier`
        only, when given)."""
        return self._isolates_masks[(direction, tier)] if tier is not None else self._isolates_masks[(direction, -1)]

    @cached_property
    def _isolates_masks(self) -> dict[tuple[Direction, int], np.ndarray]:
        index = {t: i for i, t in enumerate(self.tiers)}
        out: dict[tuple[Direction, int], np.ndarray] = {}
        for d in DIRECTIONS:
            iso = [cp.tier.end == "Deny" and d in cp.isolates for cp in self.policies]
            out[(d, -1)] = np.array(iso, dtype=bool)
            for t in range(len(self.tiers)):
                out[(d, t)] = np.array(
                    [on and index[cp.tier] == t for on, cp in zip(iso, self.policies, strict=True)], dtype=bool
                )
        return out

    @cached_property
    def _isolated(self) -> dict[tuple[Direction, int | None], np.ndarray]:
        """isolation() with every policy kept, per (direction, tier), computed once."""
        return {}

    @cached_property
    def selection(self) -> np.ndarray:
        """(policies, classes): which classes each policy selects."""
        if not self.policies:
            return np.zeros((0, self.C), dtype=bool)
        return np.stack([cp.selected for cp in self.policies])

    def policy_number(self, key: str) -> int:
        """The index of the compiled policy `key` in `policies` (KeyError when there is none)."""
        for k, cp in enumerate(self.policies):
            if cp.key == key:
                return k
        raise KeyError(key)

    def changes_without(self, k: int) -> bool:
        """Would removing policy number `k` change any connection (pods and external ranges)?

        When a single union tier decides (NetworkPolicies alone), a policy only shapes the ingress of the classes
        it selects and the egress of the same classes, so only those columns and rows are recomputed (from the
        policies that select some of them); with several tiers every block is compared."""
        E = self.eid_count
        if self.layered:
            step = self.block_rows(E)
            for direction in DIRECTIONS:
                for lo in range(0, E, step):
                    rows = range(lo, min(E, lo + step))
                    a = self.family_sides(direction, rows, range(E))
                    b = self.family_sides(direction, rows, range(E), without=k)
                    if any(not np.array_equal(x, y) for x, y in zip(a, b, strict=True)):
                        return True
            return False
        cp = self.policies[k]
        chosen = np.flatnonzero(cp.selected)
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

        if "ingress" in cp.isolates and differ("ingress", everyone, chosen):
            return True
        return "egress" in cp.isolates and differ("egress", chosen, everyone)

    def edited(
        self,
        disabled: Collection[str] = (),
        removed: Mapping[str, Collection[tuple[Direction, int]]] | None = None,
        added: Sequence[NetworkPolicy] = (),
        sources: Mapping[str, PolicyObject] | None = None,
    ) -> Self:
        """This engine with policies (by key) disabled, rules (by direction and 0-based index) removed and
        NetworkPolicies added, on the same classes, IP atoms and port atoms: valid when the added policies draw no
        new boundary (the UI's what-if edits add default-denies: empty podSelector, no rules). Only the added
        policies are compiled; the kept rules keep their boxes. Cells are refined by what an added policy tells
        apart (a default-deny selects a namespace's classes, which a cell may span). `sources`: the model objects
        of edited policies, by key (their manifests edited alike), to keep with them."""
        removed = removed or {}
        kept: list[tuple[CompiledPolicy, int]] = []  # (edited policy, its number here)
        for k, cp in enumerate(self.policies):
            if cp.key in disabled:
                continue
            gone = removed.get(cp.key)
            if gone:
                cp = replace(
                    cp,
                    ingress=tuple(r for r in cp.ingress if ("ingress", r.index) not in gone),
                    egress=tuple(r for r in cp.egress if ("egress", r.index) not in gone),
                    source=(sources or {}).get(cp.key, cp.source),
                )
            kept.append((cp, k))
        fresh = list(NetworkPolicyCompiler(tuple(added)).compile(self.context))
        ordered = order_policies([cp for cp, _ in kept] + fresh)
        origin = {id(cp): k for cp, k in kept}
        new = copy.copy(self)
        for cached in (
            "selection",
            "_class_policies",
            "_isolates_masks",
            "_isolated",
            "has_l7",
        ):  # cached_property: per policy list
            new.__dict__.pop(cached, None)
        new.policies = ordered
        new.tiers = tuple(sorted({p.tier for p in ordered}, key=lambda t: (t.order, t.name)))
        new._iso_count = new.isolation_counts(ordered)
        # Kept rules keep their boxes (over this engine's cells), renumbered; added policies get boxes over classes.
        old_boxes: dict[int, list[Box]] = {}
        for d in DIRECTIONS:
            for tr in self._tier_rules[d]:
                for box in tr.boxes:
                    old_boxes.setdefault(box.policy, []).append(box)
        kept_boxes: list[Box] = []
        added_classes: list[np.ndarray] = []
        fresh_boxes: list[Box] = []
        for k, cp in enumerate(ordered):
            o = origin.get(id(cp))
            if o is None:
                added_classes.append(np.flatnonzero(cp.selected))
                for rule in (*cp.ingress, *cp.egress):
                    fresh_boxes.extend(rule_boxes(self.universe, self.ports, rule, cp.selected, k))
                continue
            still = {(r.direction, r.index): r for r in (*cp.ingress, *cp.egress)}
            for box in old_boxes.get(o, ()):
                kept_rule = still.get((box.rule.direction, box.rule.index))
                if kept_rule is not None:
                    kept_boxes.append(replace(box, rule=kept_rule, policy=k))
        added_classes += box_memberships(fresh_boxes, self.C)
        if added_classes and self.K < self.C:
            order = np.argsort(self.cell_of, kind="stable")
            cells = np.split(order, np.cumsum(np.bincount(self.cell_of, minlength=self.K))[:-1])
            new.cell_of, new.cell_rep = cell_partition(self.C, chain(cells, added_classes))
            new.K = len(new.cell_rep)
        if new.K != self.K:  # cells split: the kept boxes move from this engine's cells to the new ones
            new._cell_eid = eid_table(new.cell_of, new.K, self.A)
            new.pod_cell = new.cell_of[self.universe.pod_class]
            kept_boxes = [self._recell(b, new._cell_eid) for b in kept_boxes]
        boxes = kept_boxes + [cell_box(b, new._cell_eid) for b in fresh_boxes]
        boxes.sort(key=lambda b: b.policy)  # evaluation order: policy order (stable: rule and box order kept)
        new._tier_rules = {d: new.tier_rules([b for b in boxes if b.rule.direction == d], d) for d in DIRECTIONS}
        new.init_families()
        return new

    def _recell(self, box: Box, table: np.ndarray) -> Box:
        """A box over this engine's cell eids, over the cells of `table` (class eid → cell eid)."""

        def classes(eids: np.ndarray) -> np.ndarray:
            cells, atoms = eids[eids < self.K], eids[eids >= self.K]
            return np.concatenate([np.flatnonzero(np.isin(self.cell_of, cells)), atoms - self.K + self.C])

        return cell_box(replace(box, src=classes(box.src), dst=classes(box.dst)), table)
