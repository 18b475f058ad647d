"""Compiled rules as boxes, and the sorted-eid arithmetic that ORs boxes into a block.

A box says "every (source, destination) pair in `src × dst` gets `bits`" for one compiled rule; sources
and destinations are sorted endpoint ids (classes `0..C-1`, then IP atoms `C..C+A-1`). Kept apart from
the engine so the block computation, the admin tier and the what-if questions share one representation
(netpol/engine/ENGINE.md).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from netpol.engine.compile.universe import Universe
from netpol.engine.tiers import CompiledPolicy, CompiledRule
from netpol.model.vocab import Direction
from netpol.ports import PortAtoms

Eids = np.ndarray | range | Sequence[int]


@dataclass(frozen=True, slots=True, eq=False)
class Box:
    """Every (source, destination) endpoint pair in `src × dst` gets `bits` from `rule` (eids, sorted)."""

    src: np.ndarray
    dst: np.ndarray
    bits: np.ndarray
    rule: CompiledRule
    policy: int  # index into Reachability.policies
    family: int | None = None  # index into Universe.families when the box holds over that family only


def _groups(
    universe: Universe, ports: PortAtoms, rule: CompiledRule, classes: np.ndarray
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """(bits, classes) groups of `classes` by the port bits the rule gives towards each of them."""
    if not rule.per_destination:
        yield rule.static_bits, classes
        return
    groups: dict[bytes, tuple[np.ndarray, list[int]]] = {}
    by_ports: dict[tuple[tuple[str, str, int], ...], tuple[bytes, np.ndarray]] = {}
    classes_ = universe.classes
    for c in classes.tolist():
        named = classes_[c].named_ports  # names resolve on the class's port map only
        hit = by_ports.get(named)
        if hit is None:
            bits = rule.bits_for(ports, named)
            hit = by_ports[named] = (bits.tobytes(), bits)
        groups.setdefault(hit[0], (hit[1], []))[1].append(c)
    for bits, members in groups.values():
        if bits.any():
            yield bits, np.asarray(members, dtype=np.int64)


def peer_union(rule: CompiledRule, families: int) -> tuple[list[np.ndarray] | None, np.ndarray, np.ndarray]:
    """(classes per family when some peer tells the families apart, else None; classes over any family; atoms)
    the rule's peers hold together."""
    if len(rule.peers) == 1:
        p = rule.peers[0]
        return (list(p.family_classes) if p.family_classes else None), p.classes, p.atoms
    classes = np.logical_or.reduce([p.classes for p in rule.peers])
    atoms = np.logical_or.reduce([p.atoms for p in rule.peers])
    if not any(p.family_classes for p in rule.peers):
        return None, classes, atoms
    per = [np.logical_or.reduce([p.classes_in(k) for p in rule.peers]) for k in range(families)]
    if all(np.array_equal(m, per[0]) for m in per[1:]):
        return None, classes, atoms
    return per, classes, atoms


def rule_boxes(
    universe: Universe,
    ports: PortAtoms,
    rule: CompiledRule,
    owner: np.ndarray,
    k: int,
) -> Iterator[Box]:
    """The boxes of one rule whose policy selects the bool class mask `owner` (policy number `k`)."""
    C = universe.class_count
    owner_e = np.flatnonzero(owner).astype(np.int64)
    if not owner_e.size or not rule.peers:
        return
    per_family, any_family, atoms = peer_union(rule, len(universe.families))
    peer_a = C + np.flatnonzero(atoms).astype(np.int64)
    # Peers whose match depends on the address family (address blocks in a dual-stack cluster) give one box per
    # family; external atoms have one family each, so their box holds in every family.
    splits: list[tuple[int | None, np.ndarray]] = (
        [(fam, np.flatnonzero(mask).astype(np.int64)) for fam, mask in enumerate(per_family)]
        if per_family is not None
        else [(None, np.flatnonzero(any_family).astype(np.int64))]
    )
    split = per_family is not None
    if rule.direction == "ingress":  # names resolve on the destination: the owner
        for fam, peer_c in splits:
            peers = peer_c if split else np.concatenate([peer_c, peer_a])
            if peers.size:
                for bits, grp in _groups(universe, ports, rule, owner_e):
                    yield Box(peers, grp, bits, rule, k, fam)
        if split and peer_a.size:
            for bits, grp in _groups(universe, ports, rule, owner_e):
                yield Box(peer_a, grp, bits, rule, k)
    else:  # names resolve on the peer; never on external addresses
        for fam, peer_c in splits:
            for bits, grp in _groups(universe, ports, rule, peer_c):
                if grp.size:
                    yield Box(owner_e, grp, bits, rule, k, fam)
        if peer_a.size and rule.static_bits.any():
            yield Box(owner_e, peer_a, rule.static_bits, rule, k)


def policy_boxes(
    universe: Universe, ports: PortAtoms, policies: Sequence[CompiledPolicy], direction: Direction
) -> list[Box]:
    """Every rule's boxes of one direction, in the order of `policies` (evaluation order) and rule order."""
    out: list[Box] = []
    for k, cp in enumerate(policies):
        for rule in cp.rules(direction):
            out.extend(rule_boxes(universe, ports, rule, cp.selected, k))
    return out


def box_bounds(boxes: list[Box]) -> np.ndarray:
    """(4, boxes): min/max source eid, min/max destination eid, to skip boxes a block misses."""
    if not boxes:
        return np.zeros((4, 0), dtype=np.int64)
    return np.array([[b.src[0], b.src[-1], b.dst[0], b.dst[-1]] for b in boxes], dtype=np.int64).T


def _positions(idx: np.ndarray, sel: np.ndarray, lo: int, contiguous: bool) -> np.ndarray:
    """Positions in the sorted eid array `sel` of the members of the sorted eid array `idx`."""
    if contiguous:
        a, b = np.searchsorted(idx, (lo, lo + len(sel)))
        return idx[a:b] - lo
    if not len(idx) or not len(sel):
        return idx[:0]
    if len(sel) <= len(idx):
        at = np.minimum(np.searchsorted(idx, sel), len(idx) - 1)
        return np.flatnonzero(idx[at] == sel)
    at = np.minimum(np.searchsorted(sel, idx), len(sel) - 1)
    return at[sel[at] == idx]


def or_box(out: np.ndarray, rows: np.ndarray, cols: np.ndarray, bits: np.ndarray | bool) -> None:
    """out[rows × cols] |= bits, by slices when rows/columns are contiguous (no fancy-index copy)."""
    if not rows.size or not cols.size:
        return
    if rows[-1] - rows[0] + 1 == rows.size:
        r: slice | np.ndarray = slice(int(rows[0]), int(rows[-1]) + 1)
        if cols[-1] - cols[0] + 1 == cols.size:
            out[r, int(cols[0]) : int(cols[-1]) + 1] |= bits
        else:
            out[r, cols] |= bits
        return
    out[np.ix_(rows, cols)] |= bits


def canonical(eids: Eids) -> tuple[np.ndarray | range, np.ndarray | None]:
    """(sorted unique eids, positions to gather the asked order back, or None when already sorted)."""
    if isinstance(eids, range) and eids.step == 1:
        return eids, None
    arr = np.asarray(eids, dtype=np.int64).ravel()
    if arr.size <= 1 or bool(np.all(arr[1:] > arr[:-1])):
        return arr, None
    uniq, back = np.unique(arr, return_inverse=True)
    return uniq, back.ravel()


class Selection:
    """A sorted eid selection, with its bounds (contiguous selections are sliced, not searched)."""

    __slots__ = ("eids", "lo", "hi", "contiguous")

    def __init__(self, eids: Eids) -> None:
        if isinstance(eids, range) and eids.step == 1:
            self.eids = np.arange(eids.start, eids.stop, dtype=np.int64)
        else:
            self.eids = np.asarray(eids, dtype=np.int64)
        n = len(self.eids)
        self.lo = int(self.eids[0]) if n else 0
        self.hi = int(self.eids[-1]) if n else -1
        self.contiguous = n > 0 and self.hi - self.lo + 1 == n

    def find(self, idx: np.ndarray) -> np.ndarray:
        """Positions in this selection of the members of the sorted eid array `idx`."""
        return _positions(idx, self.eids, self.lo, self.contiguous)
