"""The matrix read out row by row, in sorted endpoint order, without a Python step per denied pair.

Exports of a 10,000-pod cluster can hold millions of allowed pairs, so this is the hot path of every
list-like format: per source it takes one row of the cell matrix (cells: classes no rule tells apart) (computed by the engine a block of
rows at a time, a few blocks kept), expands it to destination pods with numpy, orders destinations by a
precomputed rank of their names, and names each connection by an id into a table of distinct
connections (each rendered once): its ConnectionSet and, when some of its ports go only through a layer-7
filter (Cilium's L7 rules), that mark (netpol/readout/l7.py), so each distinct (ports, filtered ports, filters)
is one id. The pairs no class block gives (loopback, node-local traffic) come from the engine with their ports
(`Reachability.pod_overrides`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from netpol.engine import Exception_, Reachability
from netpol.model.vocab import Direction
from netpol.ports import ConnectionSet
from netpol.readout.l7 import ClassMarks, L7Mark


@dataclass
class ConnectionTable:
    """Distinct connections met so far, by id, so each is rendered once: a connection is its ports and, when
    some go only through layer-7 filters, their mark (`marks[id]`, None for a plain allow)."""

    reach: Reachability
    sets: list[ConnectionSet] = field(default_factory=list)
    marks: list[L7Mark | None] = field(default_factory=list)
    _ids: dict[bytes | tuple[bytes, L7Mark], int] = field(default_factory=dict)

    def id_of(self, bits: np.ndarray, mark: L7Mark | None = None) -> int:
        key: bytes | tuple[bytes, L7Mark] = bits.tobytes() if mark is None else (bits.tobytes(), mark)
        i = self._ids.get(key)
        if i is None:
            i = self._ids[key] = len(self.sets)
            self.sets.append(self.reach.ports.to_set(bits))
            self.marks.append(mark)
        return i


@dataclass(frozen=True)
class RowFilter:
    """Which pairs a view keeps (mirrors MatrixView's options)."""

    pods: np.ndarray  # bool over pods: the chosen namespaces
    include_external: bool = True
    direction: Direction | None = None  # ingress: keep pairs whose destination is chosen; egress: source
    # endpoint ids (pods are 0..n-1, external atoms n..n+E-1): keep pairs with an end among them (ingress: the
    # destination, egress: the source); an int is one id
    focus: frozenset[int] | int | None = None

    def focus_set(self) -> frozenset[int] | None:
        return frozenset((self.focus,)) if isinstance(self.focus, int) else self.focus


class Rows:
    """Endpoint names, ranks and the per-source rows of allowed destinations."""

    CACHED_BLOCKS = 3

    def __init__(self, reach: Reachability, include_external: bool = True) -> None:
        self.reach = reach
        self.n = len(reach.pods)
        self.include_external = include_external
        self.names = [p.key for p in reach.pods] + ([a.render() for a in reach.atoms] if include_external else [])
        order = sorted(range(len(self.names)), key=self.names.__getitem__)
        self.order = order
        self.rank = np.empty(len(self.names), dtype=np.int64)
        self.rank[order] = np.arange(len(self.names))
        self.table = ConnectionTable(reach)
        self.pc = np.asarray(reach.pod_cell, dtype=np.int64)  # rows are per cell: classes no rule tells apart
        self.host = frozenset(np.flatnonzero(reach.host_pods).tolist())
        self._step = reach.block_rows(reach.K + (reach.A if include_external else 0))
        self._blocks: dict[int, tuple[np.ndarray, np.ndarray | None]] = {}  # first cell → (cells, atoms)
        self._ids: dict[int, np.ndarray] = {}  # first cell → connection ids of the block's cell rows
        self._atom_ids: dict[int, np.ndarray] = {}  # external atom → connection id into every cell
        self._atom_rows: dict[int, np.ndarray] = {}
        # Layer-7 filters (Cilium's L7 rules): a connection id covers the ports and their filter mark. Worked out
        # only when some rule has a filter; otherwise nothing below costs anything.
        self.l7 = reach.has_l7
        self.marks = ClassMarks(reach) if self.l7 else None
        self._filtered: dict[int, tuple[np.ndarray, np.ndarray | None]] = {}  # first cell → filtered (cells, atoms)
        self._probe_marks: dict[tuple[int, int, tuple[str, int]], L7Mark | None] = {}

    def _block(self, cs: int) -> tuple[int, np.ndarray, np.ndarray | None]:
        """(first cell, cell rows, atom rows) of the block holding source cell cs."""
        lo = cs - cs % self._step
        hit = self._blocks.get(lo)
        if hit is None:
            r = self.reach
            rows = range(lo, min(r.K, lo + self._step))
            ext = r.ext_egress_block(r.cell_classes(rows)) if self.include_external and r.A else None
            hit = (r.cell_block(rows), ext)
            if len(self._blocks) >= self.CACHED_BLOCKS:
                old = next(iter(self._blocks))
                del self._blocks[old]
                self._ids.pop(old, None)
                self._filtered.pop(old, None)
            self._blocks[lo] = hit
        return lo, hit[0], hit[1]

    def class_row(self, cs: int) -> np.ndarray:
        """(K, W): what source cell cs may open towards every cell."""
        lo, block, _ = self._block(cs)
        return block[cs - lo]

    def filtered_rows(self, cs: int) -> tuple[int, np.ndarray, np.ndarray | None]:
        """(first cell, filtered ports of the block's cell rows towards every cell, towards every atom) of the
        block holding source cell cs: the ports allowed only through a layer-7 filter (only when `l7`)."""
        assert self.marks is not None
        lo, block, ext = self._block(cs)
        hit = self._filtered.get(lo)
        if hit is None:
            r, m = self.reach, self.marks
            rows = np.arange(lo, lo + len(block), dtype=np.int64)
            cells = np.arange(r.K, dtype=np.int64)
            atoms = np.arange(r.K, r.K + r.A, dtype=np.int64)
            f_ext = m.filtered(rows, atoms, ("egress",)) if ext is not None else None
            hit = self._filtered[lo] = (m.filtered(rows, cells), f_ext)
        return lo, hit[0], hit[1]

    def class_ok(self, cs: int, probe: tuple[str, int] | None = None) -> np.ndarray:
        """Bool over cells: some connection (or the probe) allowed from source cell cs."""
        row = self.class_row(cs)
        if probe is None:
            return np.asarray(row.any(axis=1))
        w, bit = self.reach.probe_bit(*probe)
        return (row[:, w] & bit) != 0

    def class_states(self, cs: int, probe: tuple[str, int] | None = None) -> np.ndarray:
        """uint8 over cells: 0 nothing, 1 some ports, 2 every port allowed from source cell cs (with a probe: 2
        when it passes, else 0), 3 some allowed port (the probe) only through a layer-7 filter. The grid's glyphs
        X ~ . f, the UI's and the report's legend."""
        out = self.bit_states(self.class_row(cs), probe)
        if self.l7:
            out[self.filtered_cells(cs, probe)] = 3
        return out

    def bit_states(self, rows: np.ndarray, probe: tuple[str, int] | None = None) -> np.ndarray:
        """uint8 per row of port bits (n, W): 0 nothing, 1 some ports, 2 every port (with a probe: 2 when it passes,
        else 0)."""
        if probe is not None:
            w, bit = self.reach.probe_bit(*probe)
            return np.where((rows[:, w] & bit) != 0, 2, 0).astype(np.uint8)
        every = np.all(rows == self.reach.ports.all_bits, axis=1)
        return np.where(every, 2, np.where(rows.any(axis=1), 1, 0)).astype(np.uint8)

    def filtered_cells(self, cs: int, probe: tuple[str, int] | None = None) -> np.ndarray:
        """Bool over cells: from source cell cs some allowed port (or the probe) goes only through an L7 filter."""
        if not self.l7:
            return np.zeros(self.reach.K, dtype=bool)
        lo, f, _ = self.filtered_rows(cs)
        row = f[cs - lo]
        if probe is None:
            return np.asarray(row.any(axis=1))
        w, bit = self.reach.probe_bit(*probe)
        return (row[:, w] & bit) != 0

    def probe_mark(self, s: int, d: int, probe: tuple[str, int]) -> L7Mark | None:
        """The filter mark of one probed pod pair, cut to the probe's port; None when the probe passes without a
        filter (or not at all), or the pair is one no policy decides (a pod and itself, node-local traffic)."""
        if not self.l7 or self.reach.pod_exception(s, d) is not Exception_.NONE:
            return None
        cs, dc = int(self.pc[s]), int(self.pc[d])
        key = (cs, dc, probe)
        if key in self._probe_marks:
            return self._probe_marks[key]
        lo, f, _ = self.filtered_rows(cs)
        bits = f[cs - lo, dc]
        w, bit = self.reach.probe_bit(*probe)
        mark = None
        if bits[w] & bit:
            assert self.marks is not None
            mark = self.marks.mark(cs, dc, bits).restrict(ConnectionSet.of([(probe[0], probe[1], probe[1])]))
        self._probe_marks[key] = mark
        return mark

    def _ids_of_rows(self, bits: np.ndarray) -> np.ndarray:
        """Connection id of each row of `bits` (k, W): each distinct bit pattern is registered once."""
        bits = np.ascontiguousarray(bits)
        keys = bits[:, 0] if bits.shape[1] == 1 else bits.view(np.dtype((np.void, bits.shape[1] * 8))).ravel()
        _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        table = np.fromiter((self.table.id_of(bits[i]) for i in first.tolist()), dtype=np.int32, count=len(first))
        return table[inverse.ravel()]

    def _class_row_ids(self, cs: int) -> np.ndarray:
        lo, block, _ = self._block(cs)
        ids = self._ids.get(lo)
        if ids is None:
            W = block.shape[2]
            ids = self._ids[lo] = self._ids_of_rows(block.reshape(-1, W)).reshape(block.shape[:2])
            if self.l7:  # pairs with filtered ports: an id of their own per (ports, mark)
                assert self.marks is not None
                _, f, _ = self.filtered_rows(cs)
                rows = np.arange(lo, lo + len(block), dtype=np.int64)
                for i, j, mark in self.marks.block(rows, np.arange(self.reach.K, dtype=np.int64), f):
                    ids[i, j] = self.table.id_of(block[i, j], mark)
        return ids[cs - lo]

    def endpoint(self, name: str) -> int | None:
        try:
            return self.names.index(name)
        except ValueError:
            return None

    def _pod_row(self, s: int, dst_pods: np.ndarray, with_atoms: bool) -> tuple[np.ndarray, np.ndarray]:
        """(destination endpoint ids, connection ids) for pod source s, unsorted."""
        pc = self.pc
        cs = int(pc[s])
        mask = self.class_ok(cs)[pc] & dst_pods
        over = self._overrides(s, dst_pods)
        if over is not None:
            mask |= over[0]
            over[0][s] = False
        mask[s] = False
        dsts = np.flatnonzero(mask)
        ids = self._class_row_ids(cs)[pc[dsts]].astype(np.int64)  # per cell once, then a gather
        if over is not None:
            ids[over[0][dsts]] = self.table.id_of(over[1])
        return self._with_atoms(cs, dsts, ids) if with_atoms else (dsts, ids)

    def _cell_row(self, cs: int, dst_pods: np.ndarray, with_atoms: bool) -> tuple[np.ndarray, np.ndarray]:
        """(destination endpoint ids, connection ids) of source cell cs, unsorted: the row of each of its pods
        that has no node-local traffic, itself included."""
        dsts = np.flatnonzero(self.class_ok(cs)[self.pc] & dst_pods)
        ids = self._class_row_ids(cs)[self.pc[dsts]].astype(np.int64)
        return self._with_atoms(cs, dsts, ids) if with_atoms else (dsts, ids)

    def _with_atoms(self, cs: int, dsts: np.ndarray, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """A pod row of source cell cs followed by the external atoms the cell may open connections to."""
        if not (self.include_external and self.reach.A):
            return dsts, ids
        lo, _, ext = self._block(cs)
        assert ext is not None
        row = ext[cs - lo]
        atoms = np.flatnonzero(row.any(axis=1))
        if not atoms.size:
            return dsts, ids
        if self.l7:
            assert self.marks is not None
            _, _, f_ext = self.filtered_rows(cs)
            assert f_ext is not None
            f, K = f_ext[cs - lo], self.reach.K
            atom_ids = [
                self.table.id_of(row[a], self.marks.mark(cs, K + a, f[a]) if f[a].any() else None)
                for a in atoms.tolist()
            ]
        else:
            atom_ids = [self.table.id_of(row[a]) for a in atoms.tolist()]
        return np.concatenate([dsts, self.n + atoms]), np.concatenate([ids, atom_ids])

    def _overrides(self, s: int, dst_pods: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """(chosen pods other than s whose pair with s no class block gives, their port bits): the engine's
        `pod_overrides`; None when there are none."""
        if not self.host:
            return None
        over, bits = self.reach.pod_overrides(s)
        mask = over & dst_pods
        mask[s] = False
        return (mask, bits) if mask.any() else None

    @staticmethod
    def _destinations(
        src_in: bool, direction: Direction | None, chosen: np.ndarray, everyone: np.ndarray
    ) -> np.ndarray | None:
        """The destination pods a pod source's row keeps, or None when the row is not shown: ingress views
        keep rows from anywhere into the chosen pods; egress views rows of chosen sources to anyone."""
        if direction == "ingress":
            return chosen
        if not src_in:
            return None
        return everyone if direction == "egress" else chosen

    def _atom_row(self, a: int, dst_pods: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        pc = self.pc
        row = self.atom_row(a)
        mask = np.asarray(row.any(axis=1))[pc] & dst_pods
        dsts = np.flatnonzero(mask)
        into = self._atom_ids.get(a)
        if into is None:
            into = self._atom_ids[a] = self._ids_of_rows(row)
            if self.l7:
                assert self.marks is not None
                K = self.reach.K
                src, cells = np.array([K + a]), np.arange(K, dtype=np.int64)
                f = self.marks.filtered(src, cells, ("ingress",))
                for _, j, mark in self.marks.block(src, cells, f):
                    into[j] = self.table.id_of(row[j], mark)
        return dsts, into[pc[dsts]].astype(np.int64)

    def atom_row(self, a: int) -> np.ndarray:
        """(K, W): what external atom a may open towards every cell (only ingress filters it)."""
        row = self._atom_rows.get(a)
        if row is None:
            r = self.reach
            row = self._atom_rows[a] = r.ext_ingress_block([a], r.cell_classes())[0]
        return row

    def rows(self, f: RowFilter) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
        """(source endpoint id, destination ids sorted by name, connection ids) for every non-empty row."""
        for e, _, dsts, ids, drop in self.shared_rows(f):
            if drop >= 0:
                dsts, ids = np.delete(dsts, drop), np.delete(ids, drop)
            if dsts.size:
                yield e, dsts, ids

    def shared_rows(self, f: RowFilter) -> Iterator[tuple[int, int, np.ndarray, np.ndarray, int]]:
        """`rows`, telling which rows are one cell's row: (source, key, destinations, connection ids, drop).

        Pods of one cell (classes no rule tells apart) have the same row but for themselves (a pod is never its
        own destination): consecutive such rows carry the same arrays, the cell's row, with `key` >= 0 naming
        it and `drop` the position of the source itself (-1: not in it), so a writer renders that row once.
        Other rows (external sources, a focus, node-local traffic) have key -1 and drop -1, and may be empty.
        """
        chosen = f.pods
        everyone = np.ones(self.n, dtype=bool)
        fset = f.focus_set()
        farr = np.fromiter(sorted(fset), dtype=np.int64) if fset is not None else None
        # an external focus under --direction ingress is a destination: pod rows then list their atoms too
        atoms_in = f.direction != "ingress" or (fset is not None and any(x >= self.n for x in fset))
        with_atoms = f.include_external and atoms_in
        # the last cell's sorted row: replicas of a workload are neighbours in name order (and one cell unless
        # labels tell them apart), so holding one row gets most of the reuse and memory stays one row
        last: tuple[int, np.ndarray, np.ndarray, np.ndarray] | None = None
        for e in self.order:
            in_focus = fset is not None and e in fset
            if fset is not None and not in_focus and f.direction == "egress":
                continue
            filtered = farr is not None and (not in_focus or f.direction == "ingress")
            if e < self.n:
                dst_pods = self._destinations(bool(chosen[e]), f.direction, chosen, everyone)
                if dst_pods is None:
                    continue
                if not filtered and (not self.host or self._overrides(e, dst_pods) is None):
                    key = 2 * int(self.pc[e]) + (dst_pods is chosen)
                    if last is None or last[0] != key:
                        dsts, ids = self._cell_row(key // 2, dst_pods, with_atoms)
                        order = np.argsort(self.rank[dsts], kind="stable")
                        last = (key, dsts[order], ids[order], self.rank[dsts[order]])
                    _, dsts, ids, ranks = last
                    at = int(np.searchsorted(ranks, self.rank[e]))
                    yield e, key, dsts, ids, at if at < dsts.size and dsts[at] == e else -1
                    continue
                dsts, ids = self._pod_row(e, dst_pods, with_atoms)
            else:
                if not f.include_external or (f.direction == "egress" and not in_focus):
                    continue
                dsts, ids = self._atom_row(e - self.n, everyone if f.direction == "egress" else chosen)
            if filtered and farr is not None:
                keep = np.isin(dsts, farr)  # the focus as a source does not count for ingress
                dsts, ids = dsts[keep], ids[keep]
            order = np.argsort(self.rank[dsts], kind="stable")
            yield e, -1, dsts[order], ids[order], -1

    def probe_rows(
        self,
        chosen: np.ndarray,
        protocol: str,
        port: int,
        direction: Direction | None,
        focus: frozenset[int] | int | None,
    ) -> Iterator[tuple[int, np.ndarray]]:
        """Pod pairs where one (protocol, port) passes, a pod and itself included (loopback)."""
        pc = self.pc
        everyone = np.ones(self.n, dtype=bool)
        fset = RowFilter(chosen, focus=focus).focus_set()
        farr = np.fromiter(sorted(fset), dtype=np.int64) if fset is not None else None
        probe_w, probe_bit = self.reach.probe_bit(protocol, port)
        for s in (e for e in self.order if e < self.n):
            dst_pods = self._destinations(bool(chosen[s]), direction, chosen, everyone)
            if dst_pods is None:
                continue
            mask = self.class_ok(int(pc[s]), (protocol, port))[pc] & dst_pods
            over = self._overrides(s, dst_pods)
            if over is not None and over[1][probe_w] & probe_bit:
                mask |= over[0]
            if dst_pods[s]:  # loopback (the engine's exception): every port
                mask[s] = True
            dsts = np.flatnonzero(mask)
            if fset is not None and farr is not None:
                in_focus = s in fset
                if not in_focus and direction == "egress":
                    continue
                if not in_focus or direction == "ingress":
                    dsts = dsts[np.isin(dsts, farr)]
            if dsts.size:
                yield s, dsts[np.argsort(self.rank[dsts], kind="stable")]
