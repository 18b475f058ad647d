"""The semantic difference between two clusters' reachability.

Compared by what users see — pod names and the ConnectionSets between them, external addresses by IP
range — never by policy identity, so reordering, renaming or rewriting policies equivalently gives no
difference. External ranges are compared on the common refinement of both sides' IP atoms (each side cuts
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
from netpol.rows import RowFilter, Rows

FORMATS = ("txt", "csv", "md", "json")
NONE = ConnectionSet.none()


@dataclass(frozen=True, slots=True)
class Change:
    src: str
    dst: str
    old: ConnectionSet
    new: ConnectionSet

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
        }


@dataclass
class DiffReport:
    pods_added: list[str]
    pods_removed: list[str]
    changes: list[Change]

    @property
    def empty(self) -> bool:
        return not (self.pods_added or self.pods_removed or self.changes)


def pod_connections(r: Reachability) -> dict[tuple[str, str], ConnectionSet]:
    """Allowed connections between different pods, by pod names (the matrix's rows, pods only)."""
    rows = Rows(r, include_external=False)
    out: dict[tuple[str, str], ConnectionSet] = {}
    names, sets = rows.names, rows.table.sets
    for s, dsts, ids in rows.rows(RowFilter(np.ones(len(r.pods), dtype=bool), include_external=False)):
        for d, c in zip(dsts.tolist(), ids.tolist(), strict=True):
            out[(names[s], names[d])] = sets[c]
    return out


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

    def conn(x: Reachability, ingress: bool, pod: int | None, atom: int) -> ConnectionSet:
        if pod is None:
            return NONE
        c = x.pod_class(pod)
        return x.ports.to_set(into[id(x)][atom, c] if ingress else out_of[id(x)][c, atom])

    keys = sorted({p.key for p in old.pods} | {p.key for p in new.pods})
    changes: list[Change] = []
    for key in keys:
        i_old, i_new = old.pod_index.get(key), new.pod_index.get(key)
        for ingress in (True, False):
            runs: list[tuple[Family, int, int, ConnectionSet, ConnectionSet]] = []
            for version, first, last, ia, ib in pieces:
                o = conn(old, ingress, i_old, ia)
                n = conn(new, ingress, i_new, ib)
                if runs and runs[-1][0] == version and runs[-1][2] + 1 == first and runs[-1][3:] == (o, n):
                    runs[-1] = (version, runs[-1][1], last, o, n)
                else:
                    runs.append((version, first, last, o, n))
            for version, first, last, o, n in runs:
                if o != n:
                    rng = _render_range(version, first, last)
                    changes.append(Change(rng, key, o, n) if ingress else Change(key, rng, o, n))
    return changes


def diff(old: Analysis, new: Analysis) -> DiffReport:
    ro, rn = old.reachability, new.reachability
    old_pods, new_pods = set(ro.pod_index), set(rn.pod_index)
    co, cn = pod_connections(ro), pod_connections(rn)
    changes = [
        Change(s, d, co.get((s, d), NONE), cn.get((s, d), NONE))
        for s, d in sorted(set(co) | set(cn))
        if co.get((s, d), NONE) != cn.get((s, d), NONE)
    ]
    changes += _external_changes(ro, rn)
    changes.sort(key=lambda c: (c.src, c.dst))
    return DiffReport(sorted(new_pods - old_pods), sorted(old_pods - new_pods), changes)


def _text(cs: ConnectionSet) -> str:
    return cs.render() if not cs.is_empty else "-"


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
                w.writerow([c.kind, c.src, c.dst, _text(c.old), _text(c.new)])
            return buf.getvalue()
        case "md":
            lines = ["| change | src | dst | old | new |", "|---|---|---|---|---|"]
            lines += [f"| pod added | {p} | | | |" for p in report.pods_added]
            lines += [f"| pod removed | {p} | | | |" for p in report.pods_removed]
            lines += [f"| {c.kind} | {c.src} | {c.dst} | {_text(c.old)} | {_text(c.new)} |" for c in report.changes]
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
                        out.append(f"+ {c.src} => {c.dst} : {c.new.render()}")
                    case "removed":
                        out.append(f"- {c.src} => {c.dst} : {c.old.render()}")
                    case _:
                        out.append(f"~ {c.src} => {c.dst} : {c.old.render()} -> {c.new.render()}")
            return "\n".join(out) + "\n"
