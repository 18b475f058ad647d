"""`netpol matrix -o grid`: the upstream e2e truth table (rows sources, columns destinations), laid out like the
terminal UI's matrix so that it stays legible past a screenful. One legend with the UI and the HTML report:
`.` every port allowed, `~` some ports, `X` denied (with --port: `.` the probe passes, `X` it does not), and,
when some policy has a layer-7 rule (Cilium's HTTP/Kafka/DNS rules), `f`: some allowed port (or the probe)
goes only through a layer-7 filter — the connection is open, the proxy filters its requests.

Columns are numbered and each is as wide as the largest number plus a space, so numbers never run together
(`98 99 100 101` at 102 columns, not `100101`). Above the numbers, a legend line names the columns by workload
(`0 adservice  1 cartservice …`) and a band per namespace spans that namespace's columns. Row labels longer
than `LABEL_MAX` are cut in the middle (`default/productcata…ice-4pnczbgcsc-wjz6k`): a pod's name starts with its namespace
and workload and ends with the hashes that tell replicas apart, so both ends carry meaning. Rows come in
the columns' order and the full names are listed below the table (`  0 = default/adservice-…`).
The layout helpers (`cell_width`, `middle_cut`, `band`) are the UI's too.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

import numpy as np

from netpol.readout.view import MatrixView
from netpol.targets import workload_of

LABEL_MAX = 40  # a row label is cut in the middle beyond this
# by state: 0 denied, 1 some ports, 2 every port, 3 some port only through a layer-7 filter (tui.model.GLYPHS,
# the report's legend)
GLYPHS = b"X~.f"
LEGEND = "# . every port   ~ some ports   X denied"
PROBE_LEGEND = "# . allowed   X denied"  # one port asked: it passes or not
L7_LEGEND = "   f through an L7 filter"  # after either legend, when some policy has a layer-7 rule
SHORT = 18  # a column's name in the legend line, cut in the middle beyond this


def cell_width(columns: int) -> int:
    """Room for the largest column number and a space beside it (at least 3: ` 9 10 11`)."""
    return max(3, len(str(max(columns - 1, 0))) + 1)


def middle_cut(text: str, width: int) -> str:
    """`text` in `width` cells, cut in the middle (`cartser…-5k59p`): a pod's name starts with its workload and
    ends with the hashes that tell replicas apart, so both ends carry meaning."""
    if len(text) <= width:
        return text
    if width <= 1:
        return "…"[:width]
    head = max(1, (width - 1) // 2)  # keep the first character: `c…`, not `…h`
    return text[:head] + "…" + text[len(text) - (width - 1 - head) :]


def band(name: str, span: int) -> str:
    """A namespace written over its columns: `web ─────`, cut with … when the span is narrow."""
    if span <= 0:
        return ""
    if len(name) + 1 >= span:
        return middle_cut(name, span - 1).ljust(span) if span > 1 else "…"
    return name + " " + "─" * (span - len(name) - 2) + " "


def short_names(view: MatrixView, names: list[str]) -> list[str]:
    """Column names for the legend line: a pod's workload (`cartservice`) when no other column has the same
    one, else the pod's name; a workload row's name without namespace and kind; cut in the middle."""
    if view.by_workload:
        return [middle_cut(n.partition("/")[2].rpartition("[")[0] or n, SHORT) for n in names]
    pods = view.analysis.pods
    shown = [pods[i] for i in view.pod_indexes()]
    owners = [workload_of(p)[1] for p in shown]
    seen = Counter(owners)
    return [middle_cut(o if seen[o] == 1 else p.name, SHORT) for o, p in zip(owners, shown, strict=True)]


def _head(view: MatrixView, names: list[str], title: str, legend: str = LEGEND) -> tuple[list[str], int, int]:
    """The lines above the rows (title, legend, namespace bands, column numbers), the label width, the cell."""
    n = len(names)
    cell = cell_width(n)
    label = min(max((len(x) for x in names), default=4), LABEL_MAX)
    out = [f"# {title}"] if title else []
    out.append(legend)
    out.append("# columns: " + "  ".join(f"{i} {s}" for i, s in enumerate(short_names(view, names))))
    spans: list[list] = []  # [namespace, columns]
    for x in names:
        ns = x.partition("/")[0]
        if spans and spans[-1][0] == ns:
            spans[-1][1] += 1
        else:
            spans.append([ns, 1])
    out.append((" " * (label + 1) + "".join(band(ns, k * cell) for ns, k in spans)).rstrip())
    out.append((" " * (label + 1) + "".join(f"{i:>{cell - 1}} " for i in range(n))).rstrip())
    return out, label, cell


def _legend(names: list[str]) -> list[str]:
    digits = len(str(max(len(names) - 1, 0)))
    return ["", *(f"{i:>{max(digits, 2)}} = {x}" for i, x in enumerate(names))]


def grid(
    view: MatrixView,
    cells: Mapping[tuple[str, str], str] | set[tuple[str, str]] | None = None,
    title: str = "",
    legend: str | None = None,
) -> str:
    """Truth table: rows sources, columns destinations; column headers by index to stay narrow. `cells`: the
    pairs a one-port probe passes (a set: all `.`), or each pair's glyph (`.`/`~`, a port range's probe);
    without it each pair's glyph says whether every port or some are open."""
    names = view.pod_names()
    if cells is None and not view.by_workload and view.focus is None and view.direction is None:
        return fast_grid(view, names, title)
    glyph: dict[tuple[str, str], str]
    if cells is None:
        glyph = {(e.src, e.dst): "f" if e.l7 is not None else "." if e.conn.is_all else "~" for e in view.edges()}
        legend = legend or LEGEND + (L7_LEGEND if view.rows().l7 else "")
    elif isinstance(cells, set):
        glyph = dict.fromkeys(cells, ".")
        legend = legend or PROBE_LEGEND
    else:
        glyph = dict(cells)
    glyph.update({(n, n): "." for n in names})  # a pod reaches itself on every port
    focus = view.focus_set()
    if focus is not None:  # the rows of workloads a focused pod belongs to are focused too
        focus = focus | {view.label(n) for n in focus}

    def shown(n: str, m: str) -> bool:
        """With --focus only the pairs involving it are computed; the others are left blank, not denied."""
        if focus is None:
            return True
        if view.direction == "ingress":
            return m in focus
        if view.direction == "egress":
            return n in focus
        return n in focus or m in focus

    out, label, cell = _head(view, names, title, legend or LEGEND)
    for n in names:
        row = "".join(f"{glyph.get((n, m), 'X') if shown(n, m) else '':>{cell - 1}} " for m in names)
        out.append(f"{middle_cut(n, label):<{label}} {row}".rstrip())
    out.extend(_legend(names))
    return "\n".join(out) + "\n"


def fast_grid(view: MatrixView, names: list[str], title: str, probe: tuple[str, int] | None = None) -> str:
    """The same table from the class matrix, one numpy row per source (10,000 pods: seconds, not minutes)."""
    r = view.analysis.reachability
    rows = view.rows()
    idx = np.array(view.pod_indexes(), dtype=np.int64)
    pc = rows.pc
    legend = (PROBE_LEGEND if probe is not None else LEGEND) + (L7_LEGEND if rows.l7 else "")
    out, label, cell = _head(view, names, title, legend)
    table = np.frombuffer(GLYPHS, dtype=np.uint8)
    for pos, s in enumerate(idx.tolist()):
        m = rows.class_states(int(pc[s]), probe)[pc[idx]]
        over, bits = r.pod_overrides(s)  # loopback and node-local traffic: the engine's ports, no policy decides
        m[over[idx]] = rows.bit_states(bits[None, :], probe)[0]
        buf = np.full(max(cell * len(idx) - 1, 0), ord(" "), dtype=np.uint8)
        buf[cell - 2 :: cell] = table[m]
        out.append(f"{middle_cut(names[pos], label):<{label}} " + buf.tobytes().decode())
    out.extend(_legend(names))
    return "\n".join(out) + "\n"
