"""`netpol matrix --port LO-HI` and `--port NAME`: each pair cut to the ports the probe means on its destination.

A range lists every pair that allows some port of it, with the allowed part (`web/test => web/web1 : TCP 8080`).
A name is resolved on each destination pod's containers, as NetworkPolicy resolves named ports (the same name
may mean different numbers on different pods): a pair is listed with the number it means there when that is
allowed; destinations that define no port of that name, and external ranges (an address has no port names),
are not listed, and a note on stderr says so. The grid marks a pair `.` when every port the probe means there
is allowed, `~` when some are (the UI's legend), `f` when some go only through a layer-7 filter (the mark the
other formats print after the ports). Self pairs are never listed, as everywhere in the matrix.
"""

from __future__ import annotations

import json
from typing import TextIO

from netpol.errors import UsageError
from netpol.ports import ConnectionSet
from netpol.readout.export import Edge, MatrixView
from netpol.readout.l7 import L7Mark
from netpol.readout.textsafe import md_safe, text_safe
from netpol.targets import Probe, listing


def restricted_edges(view: MatrixView, probe: Probe) -> tuple[list[Edge], list[str]]:
    """The view's pairs, each cut to what the probe means on its destination; notes for what was left out."""
    a = view.analysis
    rows = view.rows()
    names, sets, marks = rows.names, rows.table.sets, rows.table.marks
    pods = {p.key: p for p in a.pods}
    whole = None if probe.name is not None else probe.as_set()
    meaning: dict[int, ConnectionSet] = {}  # destination endpoint id -> the ports the probe means there
    cut: dict[tuple[int, ConnectionSet], ConnectionSet] = {}  # (connection id, meaning) -> their intersection
    undefined: set[str] = set()
    external = False

    def means(d: int) -> ConnectionSet:
        m = meaning.get(d)
        if m is None:
            pod = pods.get(names[d])
            if whole is not None:
                m = whole
            elif pod is None:
                m = ConnectionSet.none()
            else:
                m = probe.on(pod)
            meaning[d] = m
        return m

    edges: list[Edge] = []
    for src, dsts, ids in rows.rows(view.row_filter()):
        for d, c in zip(dsts.tolist(), ids.tolist(), strict=True):
            if d == src:
                continue
            m = means(d)
            if m.is_empty:
                if names[d] in pods:
                    undefined.add(names[d])
                else:
                    external = True
                continue
            cs = cut.get((c, m))
            if cs is None:
                cs = cut[(c, m)] = sets[c].intersection(m)
            if not cs.is_empty:
                mark = marks[c]
                edges.append(Edge(names[src], names[d], cs, mark.restrict(cs) if mark is not None else None))
    notes = []
    if probe.name is not None:
        defined = sorted({n for p in a.pods for n, proto, _ in p.named_ports() if proto == probe.protocol})
        if probe.name not in defined:
            raise UsageError(
                f"--port {probe.name}/{probe.protocol}: no pod names a {probe.protocol} port so (port names: "
                f"{listing(defined) or 'none'}); give a number, or one of those names"
            )
        if undefined:
            notes.append(
                f"{len(undefined)} destination pod{'s' if len(undefined) != 1 else ''} reached by some pair "
                f"define{'s' if len(undefined) == 1 else ''} no {probe.protocol} port named {probe.name}: "
                f"pairs to {'them' if len(undefined) != 1 else 'it'} are not listed ({listing(sorted(undefined), 5)})"
            )
        if external:
            notes.append(f"external ranges have no port named {probe.name}: pairs to them are not listed")
    if view.by_workload:
        edges = _by_workload(view, edges)
    return edges, notes


def _by_workload(view: MatrixView, edges: list[Edge]) -> list[Edge]:
    """Replicas grouped under their workload's label, ports united, the focus applied to the labels too."""
    focus = view.focus_set()
    merged: dict[tuple[str, str], ConnectionSet] = {}
    filtered: dict[tuple[str, str], L7Mark] = {}
    for e in edges:
        s, d = view.label(e.src), view.label(e.dst)
        if focus is not None:
            s_hit, d_hit = e.src in focus or s in focus, e.dst in focus or d in focus
            hit = d_hit if view.direction == "ingress" else s_hit if view.direction == "egress" else s_hit or d_hit
            if not hit:
                continue
        if s == d:
            continue
        merged[(s, d)] = merged[(s, d)].union(e.conn) if (s, d) in merged else e.conn
        if e.l7 is not None:
            filtered[(s, d)] = e.l7.union(filtered.get((s, d)))
    return [Edge(s, d, cs, filtered.get((s, d))) for (s, d), cs in sorted(merged.items())]


def write_ports(view: MatrixView, probe: Probe, fmt: str, out: TextIO, err: TextIO) -> None:
    edges, notes = restricted_edges(view, probe)
    match fmt:
        case "txt":
            out.writelines(f"{text_safe(e.src)} => {text_safe(e.dst)} : {text_safe(e.text)}\n" for e in edges)
        case "csv":
            import csv  # only this format needs it

            w = csv.writer(out, lineterminator="\n")
            w.writerow(["src", "dst", "conn"])
            w.writerows([e.src, e.dst, e.text] for e in edges)
        case "md":
            out.write("| src | dst | conn |\n|-----|-----|------|\n")
            out.writelines(f"| {md_safe(e.src)} | {md_safe(e.dst)} | {md_safe(e.text)} |\n" for e in edges)
        case "json":
            port: int | str = probe.name if probe.name is not None else f"{probe.port}-{probe.end}"
            doc = {
                "port": port,
                "protocol": probe.protocol,
                "allowed": [e.to_json() for e in edges],
                "notes": notes,
            }
            out.write(json.dumps(doc, indent=2) + "\n")
        case "grid":
            from netpol.readout.grid import L7_LEGEND, grid

            # one legend (the UI's): `.` every port the probe means on that destination, `~` some of them
            whole = None if probe.name is not None else probe.as_set()
            cells = {
                (e.src, e.dst): "f" if e.l7 is not None else "." if whole is None or e.conn == whole else "~"
                for e in edges
            }
            title = probe.render().replace(" ", "/")
            legend = f"# . every port of {title}   ~ some of them   X denied" + (L7_LEGEND if view.rows().l7 else "")
            out.write(grid(view, cells, title, legend))
        case "dot" | "graphml":
            from netpol.readout.graph import dot, graphml  # networkx is imported only for these formats

            out.write(dot(view, edges) if fmt == "dot" else graphml(view, edges))
        case _:
            raise ValueError(fmt)
    for note in notes:
        print(f"note: {note}", file=err)
