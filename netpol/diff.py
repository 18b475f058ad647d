"""The semantic difference between two clusters' reachability.

Compared by what users see — pod names and the ConnectionSets between them, external addresses by IP
range — never by policy identity, so reordering, renaming or rewriting policies equivalently gives no
difference. A connection is its ports and their layer-7 filters (Cilium's L7 rules): a filter that appears
or disappears on the same ports is a change. External ranges are compared on the common refinement of both sides' IP atoms (each side cuts
the address space at its own ipBlock boundaries), and adjacent ranges with the same change are merged.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass

import netaddr
import numpy as np

from netpol.engine import Reachability
from netpol.model.families import Family
from netpol.model.vocab import ChangeKind
from netpol.pipeline import Analysis
from netpol.ports import ConnectionSet
from netpol.readout.l7 import ClassMarks, L7Mark
from netpol.readout.l7 import render as l7_render
from netpol.readout.rows import RowFilter, Rows
from netpol.readout.textsafe import md_safe, text_safe

FORMATS = ("txt", "csv", "md", "json")
NONE = ConnectionSet.none()


@dataclass(frozen=True, slots=True)
class Change:
    src: str
    dst: str
    old: ConnectionSet
    new: ConnectionSet
    old_l7: L7Mark | None = None  # the ports of `old` allowed only through layer-7 filters, and the filters
    new_l7: L7Mark | None = None

    @property
    def kind(self) -> ChangeKind:
        if self.old.is_empty:
            return "added"
        if self.new.is_empty:
            return "removed"
        return "changed"

    def to_json(self) -> dict[str, object]:
        return {
            "change": self.kind,
            "src": self.src,
            "dst": self.dst,
            "old": self.old.to_json(),
            "new": self.new.to_json(),
            "old_text": self.old.render() if not self.old.is_empty else "",
            "new_text": self.new.render() if not self.new.is_empty else "",
            **({"old_l7": self.old_l7.to_json()} if self.old_l7 is not None else {}),
            **({"new_l7": self.new_l7.to_json()} if self.new_l7 is not None else {}),
        }

    @property
    def old_text(self) -> str:
        """The old connection as lines print it, its layer-7 filter included."""
        return l7_render(self.old, self.old_l7)

    @property
    def new_text(self) -> str:
        return l7_render(self.new, self.new_l7)


@dataclass
class DiffReport:
    pods_added: list[str]
    pods_removed: list[str]
    changes: list[Change]

    @property
    def empty(self) -> bool:
        return not (self.pods_added or self.pods_removed or self.changes)


def pod_connections(r: Reachability) -> dict[tuple[str, str], ConnectionSet]:
    """Allowed connections between different pods, by pod names (the matrix's rows, pods only). One entry
    per allowed pair: for small clusters and tests; `diff` compares rows without it."""
    rows = Rows(r, include_external=False)
    out: dict[tuple[str, str], ConnectionSet] = {}
    names, sets = rows.names, rows.table.sets
    for s, dsts, ids in rows.rows(RowFilter(np.ones(len(r.pods), dtype=bool), include_external=False)):
        for d, c in zip(dsts.tolist(), ids.tolist(), strict=True):
            out[(names[s], names[d])] = sets[c]
    return out


Connection = tuple[ConnectionSet, L7Mark | None]  # ports, and their layer-7 filters when some go through one


class _Side:
    """One cluster's pod rows in name order, their destinations as positions among both sides' pod names and
    their connections as ids shared by both sides (0: none), so two rows compare as integer arrays."""

    def __init__(self, r: Reachability, position: dict[str, int], shared: dict[Connection, int]) -> None:
        self.rows = Rows(r, include_external=False)
        self.where = np.array([position[k] for k in self.rows.names], dtype=np.int64)
        self.shared = shared
        self.gid = np.zeros(0, dtype=np.int64)  # this side's connection id → shared id
        every = RowFilter(np.ones(len(r.pods), dtype=bool), include_external=False)
        self._it = iter(self.rows.rows(every))
        self.head: tuple[str, np.ndarray, np.ndarray] | None = None
        self.advance()

    def advance(self) -> None:
        nxt = next(self._it, None)
        if nxt is None:
            self.head = None
            return
        src, dsts, ids = nxt
        sets, marks = self.rows.table.sets, self.rows.table.marks
        if len(sets) > len(self.gid):  # connections met for the first time in this row
            new = range(len(self.gid), len(sets))
            extra = [self.shared.setdefault((sets[i], marks[i]), len(self.shared)) for i in new]
            self.gid = np.concatenate([self.gid, np.asarray(extra, dtype=np.int64)])
        self.head = (self.rows.names[src], self.where[dsts], self.gid[ids])


def _pod_changes(old: Reachability, new: Reachability) -> list[Change]:
    """Changed pod pairs, row by row: both sides list each source's destinations in name order, so a row that
    did not change is two equal arrays, and only changed rows are looked at item by item. Memory is a row
    per side, time numpy per source pod (no Python work per unchanged pair)."""
    keys = sorted({p.key for p in old.pods} | {p.key for p in new.pods})
    position = {k: i for i, k in enumerate(keys)}
    shared: dict[Connection, int] = {(NONE, None): 0}
    a, b = _Side(old, position, shared), _Side(new, position, shared)
    sets: list[Connection] = []
    changes: list[Change] = []
    empty = np.zeros(0, dtype=np.int64)
    while a.head is not None or b.head is not None:
        src = min(h[0] for h in (a.head, b.head) if h is not None)
        pa, ga = (a.head[1], a.head[2]) if a.head is not None and a.head[0] == src else (empty, empty)
        pb, gb = (b.head[1], b.head[2]) if b.head is not None and b.head[0] == src else (empty, empty)
        if a.head is not None and a.head[0] == src:
            a.advance()
        if b.head is not None and b.head[0] == src:
            b.advance()
        if np.array_equal(pa, pb) and np.array_equal(ga, gb):
            continue
        at = np.union1d(pa, pb)
        va, vb = np.zeros(len(at), dtype=np.int64), np.zeros(len(at), dtype=np.int64)
        va[np.searchsorted(at, pa)] = ga
        vb[np.searchsorted(at, pb)] = gb
        differ = np.flatnonzero(va != vb)
        if differ.size:
            if len(sets) < len(shared):  # insertion order: shared id → set
                sets = list(shared)
            for k in differ.tolist():
                (o, o_l7), (n, n_l7) = sets[int(va[k])], sets[int(vb[k])]
                changes.append(Change(src, keys[int(at[k])], o, n, o_l7, n_l7))
    return changes


def _refinement(a: Reachability, b: Reachability) -> list[tuple[Family, int, int, int, int]]:
    """(version, first, last, atom of a, atom of b) for every piece of the common refinement, in order."""
    out = []
    j = 0
    bs = b.atoms
    for i, x in enumerate(a.atoms):
        while j < len(bs) and (bs[j].version, bs[j].last) < (x.version, x.first):
            j += 1
        k = j
        while k < len(bs) and (bs[k].version, bs[k].first) <= (x.version, x.last):
            y = bs[k]
            if y.version == x.version:
                out.append((x.version, max(x.first, y.first), min(x.last, y.last), i, k))
            k += 1
    return out


def _render_range(version: Family, first: int, last: int) -> str:
    return str(netaddr.IPRange(netaddr.IPAddress(first, version), netaddr.IPAddress(last, version)))


def _external_changes(old: Reachability, new: Reachability) -> list[Change]:
    pieces = _refinement(old, new)
    # (atoms, classes) and (classes, atoms): small, computed once per side
    into = {id(x): x.ext_ingress_block(range(x.A)) for x in (old, new)}
    out_of = {id(x): x.ext_egress_block(range(x.C)) for x in (old, new)}
    marks = {id(x): ClassMarks(x) for x in (old, new) if x.has_l7}

    def conn(x: Reachability, ingress: bool, pod: int | None, atom: int) -> Connection:
        if pod is None:
            return NONE, None
        c = x.pod_class(pod)
        bits = into[id(x)][atom, c] if ingress else out_of[id(x)][c, atom]
        m = marks.get(id(x))
        if m is None or not bits.any():
            return x.ports.to_set(bits), None
        cell, at = np.array([x.cell_of[c]]), np.array([x.K + atom])
        src, dst = (at, cell) if ingress else (cell, at)
        f = m.filtered(src, dst, ("ingress",) if ingress else ("egress",))[0, 0]
        return x.ports.to_set(bits), m.mark(int(src[0]), int(dst[0]), f) if f.any() else None

    def changed_runs(ingress: bool, i_old: int | None, i_new: int | None) -> list[tuple[str, Connection, Connection]]:
        runs: list[tuple[Family, int, int, Connection, Connection]] = []
        for version, first, last, ia, ib in pieces:
            o = conn(old, ingress, i_old, ia)
            n = conn(new, ingress, i_new, ib)
            if runs and runs[-1][0] == version and runs[-1][2] + 1 == first and runs[-1][3:] == (o, n):
                runs[-1] = (version, runs[-1][1], last, o, n)
            else:
                runs.append((version, first, last, o, n))
        return [(_render_range(version, first, last), o, n) for version, first, last, o, n in runs if o != n]

    # A pod's connections with external ranges depend on its class only: worked out once per pair of classes.
    seen: dict[tuple[bool, int, int], list[tuple[str, Connection, Connection]]] = {}
    keys = sorted({p.key for p in old.pods} | {p.key for p in new.pods})
    changes: list[Change] = []
    for key in keys:
        i_old, i_new = old.pod_index.get(key), new.pod_index.get(key)
        c_old = old.pod_class(i_old) if i_old is not None else -1
        c_new = new.pod_class(i_new) if i_new is not None else -1
        for ingress in (True, False):
            runs = seen.get((ingress, c_old, c_new))
            if runs is None:
                runs = seen[(ingress, c_old, c_new)] = changed_runs(ingress, i_old, i_new)
            for rng, (o, o_l7), (n, n_l7) in runs:
                changes.append(Change(rng, key, o, n, o_l7, n_l7) if ingress else Change(key, rng, o, n, o_l7, n_l7))
    return changes


def diff(old: Analysis, new: Analysis) -> DiffReport:
    ro, rn = old.reachability, new.reachability
    old_pods, new_pods = set(ro.pod_index), set(rn.pod_index)
    changes = _pod_changes(ro, rn)
    changes += _external_changes(ro, rn)
    changes.sort(key=lambda c: (c.src, c.dst))
    return DiffReport(sorted(new_pods - old_pods), sorted(old_pods - new_pods), changes)


def _text(cs: ConnectionSet, mark: L7Mark | None = None) -> str:
    return l7_render(cs, mark) if not cs.is_empty else "-"


def render(report: DiffReport, fmt: str) -> str:
    match fmt:
        case "json":
            return (
                json.dumps(
                    {
                        "pods_added": report.pods_added,
                        "pods_removed": report.pods_removed,
                        "connections": [c.to_json() for c in report.changes],
                    },
                    indent=2,
                )
                + "\n"
            )
        case "csv":
            buf = io.StringIO()
            w = csv.writer(buf, lineterminator="\n")
            w.writerow(["change", "src", "dst", "old", "new"])
            for p in report.pods_added:
                w.writerow(["pod added", p, "", "", ""])
            for p in report.pods_removed:
                w.writerow(["pod removed", p, "", "", ""])
            for c in report.changes:
                w.writerow([c.kind, c.src, c.dst, _text(c.old, c.old_l7), _text(c.new, c.new_l7)])
            return buf.getvalue()
        case "md":
            lines = ["| change | src | dst | old | new |", "|---|---|---|---|---|"]
            lines += [f"| pod added | {p} | | | |" for p in report.pods_added]
            lines += [f"| pod removed | {p} | | | |" for p in report.pods_removed]
            lines += [
                f"| {c.kind} | {c.src} | {c.dst} | {md_safe(_text(c.old, c.old_l7))} | {md_safe(_text(c.new, c.new_l7))} |"
                for c in report.changes
            ]
            if report.empty:
                lines.append("| (no difference) | | | | |")
            return "\n".join(lines) + "\n"
        case _:
            if report.empty:
                return "no difference in reachability\n"
            out = [f"pod added: {p}" for p in report.pods_added]
            out += [f"pod removed: {p}" for p in report.pods_removed]
            for c in report.changes:
                match c.kind:
                    case "added":
                        out.append(f"+ {c.src} => {c.dst} : {text_safe(c.new_text)}")
                    case "removed":
                        out.append(f"- {c.src} => {c.dst} : {text_safe(c.old_text)}")
                    case _:
                        out.append(f"~ {c.src} => {c.dst} : {text_safe(c.old_text)} -> {text_safe(c.new_text)}")
            return "\n".join(out) + "\n"
