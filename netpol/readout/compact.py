"""`netpol matrix -o json --compact`: the whole matrix by equivalence class, lossless and small.

A 100,000-pod matrix listed pair by pair is tens of GiB; by class it is megabytes, because pods of one
class have the same row and the same column. The document (format `netpol-matrix-compact/1`):

    pods, pending, external      exactly as in the plain `-o json` document
    classes                      [[pod index, ...], ...]  the members of each class (indexes into pods); the
                                 classes are the engine's cells, classes no rule tells apart
    sets                         [{"conn": …, "text": …[, "l7": …]}, ...]  distinct connections: a set's fields
                                 are exactly a plain connection's, `l7` (the ports allowed only through layer-7
                                 filters, and each filter) included, so a filtered connection is a set of its own
    rows                         distinct class rows, each a flat list of runs
                                 [first class, count, set, first class, count, set, ...]: classes
                                 first..first+count-1 get connection set `set` (absent: nothing allowed)
    class_rows                   [row index per source class]
    external_in                  [[atom, runs over destination classes], ...]  (atoms that reach any class)
    external_out                 [[class, [atom, set, atom, set, ...]], ...]   (classes reaching any atom)
    node_local                   [[source pod, destination pod], ...]  always allowed (all ports): a pod and a
                                 hostNetwork pod of its own node, both ways
With `--port`, `rows`/`external_*` hold sets of the probe only (`set` 0 = allowed) and the document
carries `port` and `protocol`; when some pair passes that port only through layer-7 filters, `sets` is
[{}, {"l7": {"filters": [...]}}, ...]: set 0 a plain allow, each other set a pair through those filters (the
plain probe document's `l7` list).

Format note: `l7` came with Cilium's layer-7 rules under the same format name; a document of a cluster without
them has no `l7` anywhere and is what it was before.

`expand()` rebuilds the plain document (the tests check it equals `-o json` byte for byte once parsed):
every ordered pair of different pods gets its classes' set, node-local pairs every port, external
atoms their rows; pairs sorted by (source, destination) name. A pod reaching itself is not listed (the
plain form omits it too, probe documents included).
"""

from __future__ import annotations

from typing import Any, TextIO

import numpy as np

from netpol.engine import Reachability
from netpol.model.vocab import Direction
from netpol.ports import ConnectionSet
from netpol.readout.jsondump import dumps_compact
from netpol.readout.l7 import ClassMarks, L7Mark

FORMAT = "netpol-matrix-compact/1"


def _runs(ids: np.ndarray) -> list[int]:
    """[first, count, id, ...] over positions whose id is >= 0 (runs of equal ids)."""
    if not ids.size:
        return []
    change = np.flatnonzero(np.diff(ids)) + 1
    starts = np.concatenate([[0], change])
    ends = np.concatenate([change, [ids.size]])
    vals = ids[starts]
    keep = vals >= 0
    out = np.stack([starts[keep], (ends - starts)[keep], vals[keep]], axis=1)
    return out.ravel().tolist()


class _Sets:
    def __init__(self, r: Reachability) -> None:
        self.r = r
        self.sets: list[ConnectionSet] = []
        self.marks: list[L7Mark | None] = []
        self._ids: dict[bytes | tuple[bytes, L7Mark], int] = {}

    def ids(self, bits: np.ndarray) -> np.ndarray:
        """(..., W) → (...) set ids, -1 where no port is allowed."""
        W = bits.shape[-1]
        flat = np.ascontiguousarray(bits.reshape(-1, W))
        keys = flat[:, 0] if W == 1 else flat.view(np.dtype((np.void, W * 8))).ravel()
        uniq, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        table = np.empty(len(uniq), dtype=np.int64)
        for k, i in enumerate(first.tolist()):
            row = flat[i]
            if not row.any():
                table[k] = -1
                continue
            table[k] = self.id_of(row)
        return table[inverse.ravel()].reshape(bits.shape[:-1])

    def id_of(self, row: np.ndarray, mark: L7Mark | None = None) -> int:
        key: bytes | tuple[bytes, L7Mark] = row.tobytes() if mark is None else (row.tobytes(), mark)
        got = self._ids.get(key)
        if got is None:
            got = self._ids[key] = len(self.sets)
            self.sets.append(self.r.ports.to_set(row))
            self.marks.append(mark)
        return got

    def json(self) -> list[dict[str, Any]]:
        out = []
        for cs, mark in zip(self.sets, self.marks, strict=True):
            item: dict[str, Any] = {"conn": cs.to_json(), "text": cs.render()}
            if mark is not None:
                item["l7"] = mark.to_json()
            out.append(item)
        return out


class _Filtered:
    """The layer-7 marks of the document (only when some rule has a filter): plain sets get a mark's own id;
    with a probe, set 0 is a plain allow and each distinct list of filters a set of its own."""

    def __init__(self, r: Reachability, sets: _Sets, probe: tuple[str, int] | None) -> None:
        self.r, self.sets, self.probe = r, sets, probe
        self.marks = ClassMarks(r)
        self.probe_sets: dict[tuple[str, ...], int] = {(): 0}
        if probe is not None:
            self.one = ConnectionSet.of([(probe[0], probe[1], probe[1])])
            self.bit = r.probe_bit(*probe)

    def ids(
        self, bits: np.ndarray, src: np.ndarray, dst: np.ndarray, sides: tuple[Direction, ...] | None = None
    ) -> np.ndarray:
        """The set ids of a block (src × dst cell eids; `bits` (S, D, W), or with a probe (S, D) bool), filtered
        pairs under their marked sets (no unmarked set is made for them)."""
        f = self.marks.filtered(src, dst, sides)
        if self.probe is not None:
            ids = np.where(bits, 0, -1)
        else:
            skip = np.asarray(f.any(axis=2))
            ids = self.sets.ids(np.where(skip[..., None], np.uint64(0), bits))
        self._patch(ids, src, dst, bits, f)
        return ids

    def _patch(self, ids: np.ndarray, src: np.ndarray, dst: np.ndarray, bits: np.ndarray, f: np.ndarray) -> None:
        if self.probe is not None:
            w, bit = self.bit
            hit = (f[..., w] & bit) != 0
            f = f.copy()
            f[~hit] = 0
        for i, j, mark in self.marks.block(src, dst, f):
            if self.probe is None:
                ids[i, j] = self.sets.id_of(bits[i, j], mark)
                continue
            cut = mark.restrict(self.one)
            key = cut.texts if cut is not None else ()
            ids[i, j] = self.probe_sets.setdefault(key, len(self.probe_sets))

    def probe_json(self) -> list[dict[str, Any]]:
        if len(self.probe_sets) == 1:
            return []
        return [{"l7": {"filters": list(key)}} if key else {} for key in self.probe_sets]


def compact_document(r: Reachability, head: dict[str, Any], probe: tuple[str, int] | None = None) -> dict[str, Any]:
    """The compact document of the whole matrix (`head`: pods, pending, external of the plain form)."""
    C = r.K  # the document's classes are the engine's cells: classes no rule tells apart
    pc = np.asarray(r.pod_cell, dtype=np.int64)
    order = np.argsort(pc, kind="stable")
    bounds = np.searchsorted(pc[order], np.arange(C + 1))
    classes = [order[bounds[c] : bounds[c + 1]].tolist() for c in range(C)]
    sets = _Sets(r)
    ids_of = sets.ids
    filtered = _Filtered(r, sets, probe) if r.has_l7 else None
    cells = np.arange(C, dtype=np.int64)
    rows: list[list[int]] = []
    row_index: dict[bytes, int] = {}
    class_rows: list[int] = []
    for lo, block in r.stream_cell_blocks(probe):
        if filtered is not None:  # rows deduplicated on their ids, marks included
            keys = filtered.ids(block, np.arange(lo, lo + len(block), dtype=np.int64), cells)
        else:  # rows are deduplicated on their raw bits first: only a new distinct row is turned into runs
            keys = np.packbits(block, axis=1) if probe is not None else block
        for i in range(len(block)):
            key = keys[i].tobytes()
            k = row_index.get(key)
            if k is None:
                k = row_index[key] = len(rows)
                row = block[i]
                if filtered is not None:
                    rows.append(_runs(keys[i]))
                else:
                    rows.append(_runs(np.where(row, 0, -1) if probe is not None else ids_of(row)))
            class_rows.append(k)
    external_in, external_out = [], []
    if head.get("external") and probe is None:
        atoms = np.arange(C, C + r.A, dtype=np.int64)  # cell eids of the atoms
        block = r.ext_ingress_block(range(r.A), r.cell_classes())
        into = filtered.ids(block, atoms, cells, ("ingress",)) if filtered is not None else ids_of(block)
        for a in range(r.A):
            runs = _runs(into[a])
            if runs:
                external_in.append([a, runs])
        block = r.ext_egress_block(r.cell_classes())
        out_of = filtered.ids(block, cells, atoms, ("egress",)) if filtered is not None else ids_of(block)
        for c in range(C):
            hit = np.flatnonzero(out_of[c] >= 0)
            if hit.size:
                external_out.append([c, np.stack([hit, out_of[c][hit]], axis=1).ravel().tolist()])
    node_local = [list(pair) for pair in r.node_local_pairs()]
    doc: dict[str, Any] = {"format": FORMAT}
    if probe is not None:
        doc["port"], doc["protocol"] = probe[1], probe[0]
    doc.update(head)
    doc["classes"] = classes
    if probe is not None:
        doc["sets"] = filtered.probe_json() if filtered is not None else []
    else:
        doc["sets"] = sets.json()
    doc["rows"] = rows
    doc["class_rows"] = class_rows
    doc["external_in"] = external_in
    doc["external_out"] = external_out
    doc["node_local"] = sorted(map(list, {tuple(p) for p in node_local}))
    return doc


def write_compact(r: Reachability, head: dict[str, Any], out: TextIO, probe: tuple[str, int] | None = None) -> None:
    """The document as `json.dump(doc, out, separators=(",", ":"))` writes it, encoded by orjson (jsondump.py)."""
    out.write(dumps_compact(compact_document(r, head, probe)))
    out.write("\n")


def _expand_runs(runs: list[int]) -> dict[int, int]:
    out = {}
    for i in range(0, len(runs), 3):
        first, count, s = runs[i : i + 3]
        for c in range(first, first + count):
            out[c] = s
    return out


def expand(doc: dict[str, Any]) -> dict[str, Any]:
    """The plain `-o json` document (or the probe document) a compact one stands for."""
    names = [p["name"] for p in doc["pods"]]
    externals = doc["external"]
    cls_of = {}
    for c, members in enumerate(doc["classes"]):
        for p in members:
            cls_of[p] = c
    rows = [_expand_runs(r) for r in doc["rows"]]
    node_local = {tuple(p) for p in doc["node_local"]}
    probe = "port" in doc
    everything = {"conn": "all", "text": "All Connections"}
    pairs: list[tuple[str, str, Any]] = []
    for s in range(len(names)):
        row = rows[doc["class_rows"][cls_of[s]]]
        for d in range(len(names)):
            if s == d:  # a pod reaching itself: always allowed, never listed (probe documents too)
                continue
            if (s, d) in node_local:
                pairs.append((names[s], names[d], everything))
                continue
            k = row.get(cls_of[d])
            if k is not None:
                pairs.append((names[s], names[d], doc["sets"][k] if not probe or doc["sets"] else None))
    for a, runs in [] if probe else doc["external_in"]:
        for c, k in _expand_runs(runs).items():
            for d in doc["classes"][c]:
                pairs.append((externals[a], names[d], None if probe else doc["sets"][k]))
    for c, flat in [] if probe else doc["external_out"]:
        for i in range(0, len(flat), 2):
            a, k = flat[i], flat[i + 1]
            for s in doc["classes"][c]:
                pairs.append((names[s], externals[a], None if probe else doc["sets"][k]))
    pairs.sort(key=lambda p: (p[0], p[1]))
    if probe:
        plain_probe: dict[str, Any] = {
            "port": doc["port"],
            "protocol": doc["protocol"],
            "allowed": [[s, d] for s, d, _ in pairs],
        }
        l7 = [{"src": s, "dst": d, "filters": k["l7"]["filters"]} for s, d, k in pairs if k and "l7" in k]
        if l7:
            plain_probe["l7"] = l7
        return plain_probe
    plain = {k: doc[k] for k in ("pods", "pending", "external")}
    plain["connections"] = [{"src": s, "dst": d, **conn} for s, d, conn in pairs]
    return plain
