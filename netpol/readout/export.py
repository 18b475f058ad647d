"""The matrix in the formats users already know: txt, grid, csv, json, md, dot.

`txt` lines follow netpol-analyzer (`web/test => web/web1 : TCP 80`); `grid` is the upstream e2e truth
table (rows sources, columns destinations, `.` allowed, `X` denied). Output is sorted so that it is
byte-for-byte repeatable. Which endpoints and pairs are shown is the view's job (netpol/readout/view.py, re-exported
here); `-o grid` is drawn by netpol/readout/grid.py, the graph formats by netpol/readout/graph.py.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterator
from typing import TextIO

import numpy as np

from netpol.errors import UsageError
from netpol.ports import ConnectionSet
from netpol.readout.grid import L7_LEGEND, PROBE_LEGEND, fast_grid, grid
from netpol.readout.jsondump import dumps_indent2
from netpol.readout.l7 import L7Mark
from netpol.readout.l7 import render as l7_render
from netpol.readout.rows import ConnectionTable, RowFilter, Rows
from netpol.readout.textsafe import md_safe, text_safe
from netpol.readout.view import Edge, MatrixView

FORMATS = ("txt", "grid", "csv", "json", "md", "dot", "graphml")
DIRECTIONS = ("ingress", "egress")

__all__ = [
    "DIRECTIONS",
    "FORMATS",
    "Edge",
    "MatrixView",
    "matrix_json",
    "probe_marks",
    "probe_pairs",
    "render",
    "render_probe",
    "write",
    "write_compact",
    "write_probe",
]


def render(view: MatrixView, fmt: str) -> str:
    buf = io.StringIO()
    write(view, fmt, buf)
    return buf.getvalue()


def write(view: MatrixView, fmt: str, out: TextIO) -> None:
    """Write the view in `fmt`; list-like formats stream row by row (millions of pairs stay cheap)."""
    match fmt:
        case "txt" | "csv" | "md" if not view.by_workload:
            _write_lines(view, fmt, out)
        case "txt":
            out.writelines(
                f"{text_safe(e.src)} => {text_safe(e.dst)} : {text_safe(e.text)}\n" for e in view.sorted_edges()
            )
        case "csv":
            import csv  # lazy, like every format's own module: json and txt need none

            w = csv.writer(out, lineterminator="\n")
            w.writerow(["src", "dst", "conn"])
            for e in view.sorted_edges():
                w.writerow([e.src, e.dst, e.text])
        case "md":
            out.write("| src | dst | conn |\n|-----|-----|------|\n")
            out.writelines(
                f"| {md_safe(e.src)} | {md_safe(e.dst)} | {md_safe(e.text)} |\n" for e in view.sorted_edges()
            )
        case "json":
            _write_json(view, out)
        case "grid":
            out.write(grid(view))
        case "dot":
            from netpol.readout.graph import dot

            out.write(dot(view))
        case "graphml":
            from netpol.readout.graph import graphml  # networkx is imported only for this format

            out.write(graphml(view))
        case _:
            raise ValueError(fmt)


def _csv_field(text: str) -> str:
    import csv

    buf = io.StringIO()
    csv.writer(buf, lineterminator="").writerow([text])
    return buf.getvalue()


def _write_lines(view: MatrixView, fmt: str, out: TextIO) -> None:
    rows = view.rows()
    if fmt == "txt":
        names, sep, mid, end = [text_safe(n) for n in rows.names], " => ", " : ", "\n"
    elif fmt == "csv":
        out.write("src,dst,conn\n")
        names, sep, mid, end = [_csv_field(n) for n in rows.names], ",", ",", "\n"
    else:
        out.write("| src | dst | conn |\n|-----|-----|------|\n")
        names, sep, mid, end = [md_safe(n) for n in rows.names], " | ", " | ", " |\n"
    start = "| " if fmt == "md" else ""
    as_field = _csv_field if fmt == "csv" else md_safe if fmt == "md" else text_safe
    tails = _Tails(rows.table, lambda cs, mark: mid + as_field(l7_render(cs, mark)) + end)
    for src, items in _row_items(rows, view.row_filter(), np.array(names, dtype=object), tails):
        head = start + names[src] + sep
        out.write(head + head.join(items))


class _Tails:
    """Connection id → the text that follows a destination's name, made once per id as the table grows."""

    def __init__(self, table: ConnectionTable, render: Callable[[ConnectionSet, L7Mark | None], str]) -> None:
        self.table, self.render = table, render
        self.texts: list[str] = []
        self.array = np.zeros(0, dtype=object)

    def of(self, ids: np.ndarray) -> np.ndarray:
        sets, marks = self.table.sets, self.table.marks
        if len(self.texts) < len(sets):
            self.texts.extend(self.render(sets[i], marks[i]) for i in range(len(self.texts), len(sets)))
            self.array = np.array(self.texts, dtype=object)
        return self.array[ids]


def _row_items(rows: Rows, f: RowFilter, names: np.ndarray, tails: _Tails) -> Iterator[tuple[int, list[str]]]:
    """(source, name + tail of each destination) per non-empty row. A line is head + name + tail: numpy object
    arrays concatenate a whole row's names and tails in one C loop, once per cell (Rows.shared_rows: the
    pods of a cell share their row but for themselves, whose item is cut out)."""
    key_seen, texts = -1, []
    for src, key, dsts, ids, drop in rows.shared_rows(f):
        if key < 0 or key != key_seen:
            texts = (names[dsts] + tails.of(ids)).tolist()
            key_seen = key
        items = texts if drop < 0 else texts[:drop] + texts[drop + 1 :]
        if items:
            yield src, items


def _indent(text: str, spaces: int) -> str:
    return text.replace("\n", "\n" + " " * spaces)


def _write_json(view: MatrixView, out: TextIO) -> None:
    """The same bytes as json.dumps(matrix_json(view), indent=2), with connections streamed."""
    head = matrix_json(view, with_connections=False)
    head["connections"] = []
    text = dumps_indent2(head)
    prefix, _, suffix = text.rpartition('"connections": []')
    out.write(prefix + '"connections": [')
    first = True
    if view.by_workload:
        for e in view.sorted_edges():
            item = e.to_json()
            out.write(("\n    " if first else ",\n    ") + _indent(json.dumps(item, indent=2), 4))
            first = False
    else:
        rows = view.rows()
        jnames = [json.dumps(n) for n in rows.names]

        def tail(cs: ConnectionSet, mark: L7Mark | None) -> str:  # the item's text after "dst": its fields
            fields: dict[str, object] = {"conn": cs.to_json(), "text": cs.render()}
            if mark is not None:
                fields["l7"] = mark.to_json()
            body = json.dumps(fields, indent=2)
            return ",\n    " + _indent(body[2:-2], 4) + "\n    }"

        tails = _Tails(rows.table, tail)
        for src, items in _row_items(rows, view.row_filter(), np.array(jnames, dtype=object), tails):
            head_item = '{\n      "src": ' + jnames[src] + ',\n      "dst": '
            between = ",\n    " + head_item  # every item but the document's first starts with it
            lead = ("\n    " + head_item) if first else between
            out.write(lead + between.join(items))
            first = False
    out.write("]" if first else "\n  ]")
    out.write(suffix + "\n")


def write_compact(view: MatrixView, out: TextIO, probe: tuple[str, int] | None = None) -> None:
    """`-o json --compact`: the whole matrix by equivalence class (netpol/readout/compact.py documents the form)."""
    from netpol.readout.compact import write_compact as write_doc

    if view.namespaces or view.focus or view.direction or view.by_workload:
        raise UsageError("--compact writes the whole matrix: drop -n, --focus, --direction and --by workload")
    write_doc(view.analysis.reachability, matrix_json(view, with_connections=False), out, probe)


def matrix_json(view: MatrixView, *, with_connections: bool = True) -> dict[str, object]:
    a = view.analysis
    idx = view.pod_indexes()
    pods = [a.pods[i] for i in idx]
    doc: dict[str, object] = {
        "pods": [
            {
                "name": p.key,
                "namespace": p.namespace,
                "pod": p.name,
                "node": p.node_name or None,
                "ip": p.pod_ip or None,
                "ips": list(p.pod_ips),  # status.podIPs: one address per family (dual-stack), primary first
                "owner": p.owner.render() if p.owner else None,
                "labels": p.labels.to_dict(),
            }
            for p in pods
        ],
        "pending": [
            {"name": p.key, "reason": p.reason}
            for p in a.pending
            if not view.namespaces or p.namespace in view.namespaces
        ],
        "external": [atom.render() for atom in a.reachability.atoms] if view.include_external else [],
    }
    if with_connections:
        doc["connections"] = [e.to_json() for e in view.sorted_edges()]
    return doc


def probe_pairs(view: MatrixView, protocol: str, port: int, *, loopback: bool = True) -> list[tuple[str, str]]:
    """Every ordered pod pair where the probe passes; a pod and itself (loopback is always allowed) only with
    `loopback` (the truth table's diagonal; listings leave self pairs out, as the whole matrix does)."""
    rows = view.rows()
    names = rows.names
    focus = view.pod_focus()
    pairs = [
        (names[s], names[d])
        for s, dsts in rows.probe_rows(view.chosen_mask(), protocol, port, view.direction, focus)
        for d in dsts.tolist()
        if loopback or d != s
    ]
    if view.by_workload:
        return sorted({(view.label(s), view.label(d)) for s, d in pairs if view._focused(s, d)})
    return pairs


def _marked(rows: Rows, s: int, dsts: np.ndarray, probe: tuple[str, int]) -> list[tuple[int, L7Mark]]:
    """(position in dsts, mark) of the probed pod pairs from s that pass only through a layer-7 filter."""
    if not rows.l7 or not dsts.size:
        return []
    maybe = np.flatnonzero(rows.filtered_cells(int(rows.pc[s]), probe)[rows.pc[dsts]])
    return [(k, m) for k in maybe.tolist() if (m := rows.probe_mark(s, int(dsts[k]), probe)) is not None]


def probe_marks(view: MatrixView, protocol: str, port: int) -> dict[tuple[str, str], L7Mark]:
    """The pairs of `probe_pairs` where the probe passes only through a layer-7 filter, with the filters (by
    workload: a pair of workloads some replica pair of which is filtered, every filter met)."""
    rows = view.rows()
    if not rows.l7:
        return {}
    names = rows.names
    out: dict[tuple[str, str], L7Mark] = {}
    for s, dsts in rows.probe_rows(view.chosen_mask(), protocol, port, view.direction, view.pod_focus()):
        for k, mark in _marked(rows, s, dsts, (protocol, port)):
            key = (names[s], names[int(dsts[k])])
            if view.by_workload:
                if not view._focused(*key):
                    continue
                key = (view.label(key[0]), view.label(key[1]))
            out[key] = mark.union(out.get(key))
    return out


def render_probe(view: MatrixView, fmt: str, protocol: str, port: int) -> str:
    buf = io.StringIO()
    write_probe(view, fmt, protocol, port, buf)
    return buf.getvalue()


def _filters_json(marks: dict[tuple[str, str], L7Mark]) -> list[dict[str, object]]:
    return [{"src": s, "dst": d, "filters": list(m.texts)} for (s, d), m in sorted(marks.items())]


def write_probe(view: MatrixView, fmt: str, protocol: str, port: int, out: TextIO) -> None:
    """The pairs one port passes between. A pair that passes only through layer-7 filters says so: `txt` after
    the port, csv and md in an `l7` column (present when some policy has a layer-7 rule), json in an `l7` list
    (present when some pair is filtered), the grid as `f`."""
    if fmt == "json" and not view.by_workload:
        _write_probe_json(view, protocol, port, out)
        return
    if fmt == "grid" and not view.by_workload and view.focus is None and view.direction is None:
        out.write(fast_grid(view, view.pod_names(), f"{protocol}/{port}", (protocol, port)))
        return
    if fmt in ("txt", "csv", "md") and not view.by_workload:
        _write_probe_lines(view, fmt, protocol, port, out)
        return
    marks = probe_marks(view, protocol, port)
    one = ConnectionSet.of([(protocol, port, port)])
    if fmt == "grid":
        cells = dict.fromkeys(probe_pairs(view, protocol, port), ".")
        cells.update(dict.fromkeys(marks, "f"))
        legend = PROBE_LEGEND + (L7_LEGEND if view.rows().l7 else "")
        out.write(grid(view, cells, f"{protocol}/{port}", legend))
        return
    pairs = probe_pairs(view, protocol, port, loopback=False)
    if fmt in ("dot", "graphml"):
        from netpol.readout.graph import dot, graphml  # networkx is imported only for these formats

        edges = [Edge(s, d, one, marks.get((s, d))) for s, d in pairs]
        out.write(dot(view, edges) if fmt == "dot" else graphml(view, edges))
        return
    l7 = view.rows().l7

    def filters(s: str, d: str) -> str:
        mark = marks.get((s, d))
        return "; ".join(mark.texts) if mark is not None else ""

    match fmt:
        case "json":
            doc: dict[str, object] = {"port": port, "protocol": protocol, "allowed": [list(p) for p in pairs]}
            listed = set(pairs)
            if any(p in listed for p in marks):
                doc["l7"] = _filters_json({p: m for p, m in marks.items() if p in listed})
            out.write(json.dumps(doc, indent=2) + "\n")
        case "csv":
            out.write("src,dst,l7\n" if l7 else "src,dst\n")
            tail = (lambda s, d: "," + _csv_field(filters(s, d))) if l7 else (lambda s, d: "")
            out.writelines(f"{_csv_field(s)},{_csv_field(d)}{tail(s, d)}\n" for s, d in pairs)
        case "md":
            out.write("| src | dst | l7 |\n|-----|-----|----|\n" if l7 else "| src | dst |\n|-----|-----|\n")
            cell = (lambda s, d: f" {md_safe(filters(s, d))} |") if l7 else (lambda s, d: "")
            out.writelines(f"| {md_safe(s)} | {md_safe(d)} |{cell(s, d)}\n" for s, d in pairs)
        case "txt":
            out.writelines(
                f"{text_safe(s)} => {text_safe(d)} : {text_safe(l7_render(one, marks.get((s, d))))}\n" for s, d in pairs
            )
        case _:
            raise ValueError(fmt)


def _write_probe_lines(view: MatrixView, fmt: str, protocol: str, port: int, out: TextIO) -> None:
    """txt, csv and md of a probe, streamed per source: a line is head + name + tail (a pair through a layer-7
    filter: its own tail, `: TCP 80 (L7 filter: …)`, or the filters in the `l7` column)."""
    rows = view.rows()
    one = ConnectionSet.of([(protocol, port, port)])
    if fmt == "csv":
        out.write("src,dst,l7\n" if rows.l7 else "src,dst\n")
        names = [_csv_field(n) for n in rows.names]
        sep, tail = ",", ",\n" if rows.l7 else "\n"

        def marked(m: L7Mark) -> str:
            return "," + _csv_field("; ".join(m.texts)) + "\n"
    elif fmt == "md":
        out.write("| src | dst | l7 |\n|-----|-----|----|\n" if rows.l7 else "| src | dst |\n|-----|-----|\n")
        names = [md_safe(n) for n in rows.names]
        sep, tail = " | ", " |  |\n" if rows.l7 else " |\n"

        def marked(m: L7Mark) -> str:
            return " | " + md_safe("; ".join(m.texts)) + " |\n"
    else:
        names = [text_safe(n) for n in rows.names]
        sep, tail = " => ", f" : {protocol} {port}\n"

        def marked(m: L7Mark) -> str:
            return " : " + text_safe(l7_render(one, m)) + "\n"

    start = "| " if fmt == "md" else ""
    name_tails = np.array([n + tail for n in names], dtype=object)
    for s, dsts in rows.probe_rows(view.chosen_mask(), protocol, port, view.direction, view.focus_ids()):
        dsts = dsts[dsts != s]  # a pod reaching itself is always allowed and not listed
        if not dsts.size:
            continue
        head = start + names[s] + sep
        items = name_tails[dsts].tolist()
        for k, mark in _marked(rows, s, dsts, (protocol, port)):
            items[k] = names[int(dsts[k])] + marked(mark)
        out.write(head + head.join(items))


def _write_probe_json(view: MatrixView, protocol: str, port: int, out: TextIO) -> None:
    """The same bytes as json.dumps({"port", "protocol", "allowed"[, "l7"]}, indent=2), streamed per source; `l7`
    (the pairs the port passes only through layer-7 filters) when there are some."""
    rows = view.rows()
    jnames = ["\n      " + json.dumps(n) for n in rows.names]
    pair_tails = np.array([n + "\n    ]" for n in jnames], dtype=object)
    out.write("{\n" + f'  "port": {json.dumps(port)},\n  "protocol": {json.dumps(protocol)},\n  "allowed": [')
    first = True
    marks: dict[tuple[str, str], L7Mark] = {}
    for s, dsts in rows.probe_rows(view.chosen_mask(), protocol, port, view.direction, view.focus_ids()):
        dsts = dsts[dsts != s]  # a pod reaching itself is always allowed and not listed
        if not dsts.size:
            continue
        between = ",\n    [" + jnames[s] + ","  # every item but the document's first starts with it
        lead = ("\n    [" + jnames[s] + ",") if first else between
        out.write(lead + between.join(pair_tails[dsts].tolist()))
        first = False
        for k, mark in _marked(rows, s, dsts, (protocol, port)):
            marks[(rows.names[s], rows.names[int(dsts[k])])] = mark
    out.write("]" if first else "\n  ]")
    if marks:
        out.write(',\n  "l7": ' + _indent(json.dumps(_filters_json(marks), indent=2), 2))
    out.write("\n}\n")
