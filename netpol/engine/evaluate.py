"""The one evaluation of the tiered form (netpol/engine/tiers.py), over a block of endpoint pairs.

`walk` decides one side (ingress or egress) of a block: tiers in order; inside a tier, first match per port
in precedence order (Allow/Deny decide, Pass leaves the tier, Log goes on), or, for a tier of Allow rules
only, the union of its rules; the tier's `end` for owners it isolates; allowed when no tier decided. The
same function decides a whole streamed block (hits from boxes) and explains one pair (hits from the rules
holding it, with a recorder): a verdict and its reasons come from one place.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import assert_never

import numpy as np

from netpol.engine.boxes import Box, or_box
from netpol.engine.tiers import Action, CompiledPolicy, CompiledRule, Tier
from netpol.model.vocab import Direction


@dataclass(frozen=True, slots=True)
class TierRules:
    """One tier of one direction as the engine holds it: its boxes in evaluation order and their bounds."""

    tier: Tier
    index: int  # position among Reachability.tiers
    boxes: tuple[Box, ...]
    bounds: np.ndarray  # (4, boxes): min/max source eid, min/max destination eid
    union: bool  # only Allow rules: the order inside does not matter (NetworkPolicy's allow-lists)


@dataclass(frozen=True, slots=True)
class Hit:
    """One rule holding some pairs of a block: at `rows × cols` it lets through `bits` with `action`."""

    rows: np.ndarray  # positions in the block's sources
    cols: np.ndarray  # positions in the block's destinations
    bits: np.ndarray | bool  # port bits (or, probing one port, True: the rule holds it)
    action: Action
    policy: int = -1  # index into Reachability.policies
    rule: CompiledRule | None = None
    peers: tuple[int, ...] = ()  # which of the rule's peers hold the other end (explain only)


Recorder = Callable[[int, Hit, np.ndarray], None]
"""Called with (tier index, hit, the bits this hit decided) for every hit a traced walk meets."""

EndRecorder = Callable[[int, np.ndarray], None]
"""Called with (tier index, the bits the tier's end denied) for each tier that ends in Deny for an owner."""


def walk(
    direction: Direction,
    tiers: Sequence[TierRules],
    hits: Callable[[TierRules], Iterable[Hit]],
    isolated: Callable[[TierRules], np.ndarray | None],
    shape: tuple[int, int],
    full: np.ndarray | bool,
    record: Recorder | None = None,
    ends: EndRecorder | None = None,
    filtered: np.ndarray | None = None,
) -> np.ndarray:
    """What one side lets through over a block of `shape` (S sources × D destinations): (S, D, W) port words,
    or, when `full` is True (probing one port), (S, D) bools.

    `hits(tier)`: the rules of the tier holding pairs of the block, in evaluation order. `isolated(tier)`: bool
    over the owner axis (destinations for ingress, sources for egress), owners a policy of the tier isolates
    (None: none). `record`/`ends`: explain's recorders of what each hit and each tier end decided. `filtered`
    (an array of the result's shape, zeros): receives the ports allowed only by rules with a layer-7 filter
    (Cilium's HTTP/Kafka/DNS rules: the connection is allowed, but through the proxy's filter)."""
    if isinstance(full, bool):
        allow = np.zeros(shape, dtype=bool)
    else:
        allow = np.zeros((*shape, len(full)), dtype=np.uint64)
    decided = np.zeros_like(allow)
    # A tier no rule of which holds a pair of the block changes nothing before its end: its arrays are made at
    # its first hit (explain walks a 1×1 block per side, where most tiers hold nothing). `rows[:, None], cols`
    # indexes the rows × cols sub-block, as np.ix_ does, at half its cost.
    for tr in tiers:
        passed: np.ndarray | None = None  # ports a Pass rule of this tier handed on
        if tr.union:  # Allow rules only: a union, whatever their order (every allowing rule is a reason)
            got = got_l7 = None
            for h in hits(tr):
                if got is None:
                    got = np.zeros_like(allow)
                    got_l7 = np.zeros_like(allow) if filtered is not None else None
                if got_l7 is not None and h.rule is not None and h.rule.l7:
                    or_box(got_l7, h.rows, h.cols, h.bits)
                else:
                    or_box(got, h.rows, h.cols, h.bits)
                if record is not None:
                    record(tr.index, h, h.bits & ~decided[h.rows[:, None], h.cols])
            if got is not None:
                if got_l7 is not None and filtered is not None:
                    filtered |= got_l7 & ~got & ~decided  # an unfiltered allow of the same port wins
                    got |= got_l7
                allow |= got & ~decided
                decided |= got
        else:  # first match per port, in precedence order
            local = None
            for h in hits(tr):
                if local is None or passed is None:
                    local = decided.copy()
                    passed = np.zeros_like(allow)
                ix = (h.rows[:, None], h.cols)
                fresh = h.bits & ~local[ix]
                match h.action:
                    case "Allow":
                        allow[ix] |= fresh
                        decided[ix] |= fresh
                        if filtered is not None and h.rule is not None and h.rule.l7:
                            filtered[ix] |= fresh
                    case "Deny":
                        decided[ix] |= fresh
                    case "Pass":  # leaves this tier: the next tier decides these ports, not the tier's end
                        passed[ix] |= fresh
                    case "Log":  # matches and goes on (Calico): decides nothing, shadows nothing
                        if record is not None:
                            record(tr.index, h, np.zeros_like(fresh))
                        continue
                    case _:
                        assert_never(h.action)
                if record is not None:
                    record(tr.index, h, fresh)
                local[ix] |= h.bits
        if tr.tier.end == "Deny":
            iso = isolated(tr)
            if iso is not None and iso.any():
                # What no rule of the tier decided or passed on ends here, denied.
                if direction == "ingress":
                    denied = full & ~decided[:, iso] & ~passed[:, iso] if passed is not None else full & ~decided[:, iso]
                    if ends is not None:
                        ends(tr.index, denied)
                    decided[:, iso] |= denied
                else:
                    denied = full & ~decided[iso] & ~passed[iso] if passed is not None else full & ~decided[iso]
                    if ends is not None:
                        ends(tr.index, denied)
                    decided[iso] |= denied
    return allow | (~decided & full)


def box_hits(
    tr: TierRules,
    s_find: Callable[[np.ndarray], np.ndarray],
    d_find: Callable[[np.ndarray], np.ndarray],
    hit_mask: np.ndarray,
    keep: Callable[[Box], bool],
    probe: tuple[int, np.uint64] | None,
) -> Iterable[Hit]:
    """The boxes of a tier cutting a block (`hit_mask`: their bounds meet it), as hits."""
    for i in np.flatnonzero(hit_mask).tolist():
        box = tr.boxes[i]
        if not keep(box):
            continue
        bits: np.ndarray | bool = box.bits
        if probe is not None:
            if not box.bits[probe[0]] & probe[1]:
                continue
            bits = True
        rows = s_find(box.src)
        if not rows.size:
            continue
        cols = d_find(box.dst)
        if cols.size:
            yield Hit(rows, cols, bits, box.rule.action, box.policy, box.rule)


def order_policies(policies: Iterable[CompiledPolicy]) -> tuple[CompiledPolicy, ...]:
    """Evaluation order: tiers by (order, name), then precedence, then key (deterministic on ties)."""
    return tuple(sorted(policies, key=lambda p: (p.tier.order, p.tier.name, p.precedence, p.key)))
