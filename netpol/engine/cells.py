"""Cells: equivalence classes that no compiled rule tells apart, collapsed for the block computation.

Classes (compile/universe.py) are cut by everything a selector *could* see: label values, namespace,
named ports, IP atom. Many of those cuts end up unused: two classes that sit in exactly the same boxes
(as source and as destination, both directions, admin tiers included) and are selected by exactly the
same policies, and have addresses of the same families, get the same row and the same column of the
matrix, under every what-if mask and in every address family too. The
blocks are computed over such cells (measured on generated clusters: 29,797 classes → 9,852 cells at
100k pods; 3,033 → 2,153 at 10k), then gathered back to classes. Reasons keep reading classes (a
rule's masks, a class's labels), so no explanation changes.

Cells are found by hashing each class's memberships (two independent 64-bit XOR hashes of well-mixed
per-feature keys); two classes with different memberships collide with probability about 2^-128.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

import numpy as np

from netpol.engine.boxes import Box

_SEED = 0x6E6574706F6C  # fixed: cells (and so block order) are the same on every run


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64 of uint64 values: well-spread keys for the membership hashes, no random generator needed."""
    with np.errstate(over="ignore"):
        z = x + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def sorted_unique(x: np.ndarray) -> np.ndarray:
    """np.unique of an int array by sorting (np.unique pulls in numpy.ma on first use: start-up time)."""
    x = np.sort(x)
    if x.size:
        x = x[np.concatenate(([True], x[1:] != x[:-1]))]
    return x


def cell_partition(classes: int, memberships: Iterable[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(cell of each class, first class of each cell) for classes whose `memberships` (class index arrays, one
    per feature) coincide; cells are numbered in order of their first class."""
    feature_ids: list[np.ndarray] = []
    members: list[np.ndarray] = []
    for f, cls in enumerate(memberships):
        if cls.size:
            members.append(cls)
            feature_ids.append(np.full(cls.size, f, dtype=np.uint64))
    if not members or classes == 0:
        return np.zeros(classes, dtype=np.int64), np.zeros(min(classes, 1), dtype=np.int64)
    fid = np.concatenate(feature_ids)
    cls = np.concatenate(members)
    h = np.zeros((2, classes), dtype=np.uint64)
    np.bitwise_xor.at(h[0], cls, _mix(fid))
    np.bitwise_xor.at(h[1], cls, _mix(fid ^ np.uint64(_SEED)))
    order = np.lexsort((np.arange(classes), h[1], h[0]))  # by hash, then class: a group's first is its least
    hs = h[:, order]
    new = np.concatenate(([True], (hs[0, 1:] != hs[0, :-1]) | (hs[1, 1:] != hs[1, :-1])))
    group = np.cumsum(new) - 1
    first = order[new]  # least class of each group, groups in hash order
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    cell_of = np.empty(classes, dtype=np.int64)
    cell_of[order] = rank[group]
    return cell_of, np.sort(first)


def box_memberships(boxes: Sequence[Box], classes: int) -> Iterable[np.ndarray]:
    """Each box's source classes and destination classes (IP atoms left out: they are never collapsed)."""
    for box in boxes:
        yield box.src[: np.searchsorted(box.src, classes)]
        yield box.dst[: np.searchsorted(box.dst, classes)]


def eid_table(cell_of: np.ndarray, cells: int, atoms: int) -> np.ndarray:
    """Class eid (classes, then atoms) → cell eid (cells, then the same atoms)."""
    return np.concatenate([cell_of, cells + np.arange(atoms, dtype=np.int64)])


def cell_box(box: Box, table: np.ndarray) -> Box:
    """The same box over cell eids (every class of a cell is in it, so the mapping is exact)."""
    return replace(box, src=sorted_unique(table[box.src]), dst=sorted_unique(table[box.dst]))
