"""Matrix: the truth table over pods (or workloads), namespaces grouped, port filter, Enter explains."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from netpol.model.objects import PROTOCOLS
from netpol.readout.grid import middle_cut
from netpol.targets import workload_of
from tui.filtering import PodFilter
from tui.messages import CellHighlighted, CellSelected, ExplainConnection
from tui.model import GLYPHS, OPENNESS, STATE_WORDS, ViewModel, WorkloadGroup
from tui.screens.base import ReachScreen
from tui.widgets.matrix import GAINED, LOST, MARK_STEP, MatrixGrid

LEGEND = "legend: . all ports  ~ some ports  X denied  f through an L7 filter   (row → column)"
SHORT = 18  # a column's name in the legend line, cut in the middle beyond this


def legend_line(short: Sequence[str], first: int, end: int, cursor: int, width: int) -> str:
    """The line above the grid: columns `first`..`end` (those on screen) by number and name, as many as fit in
    `width`, always the cursor's column (in brackets, `[3 frontend]`) and then its neighbours, one to the right
    and one to the left in turn; `…` says that columns on screen were left out on that side."""
    if not short:
        return ""
    end = max(end, first + 1)
    cursor = min(max(cursor, first), end - 1)

    def item(k: int) -> str:
        return f"[{k} {short[k]}]" if k == cursor else f"{k} {short[k]}"

    def text(lo: int, hi: int) -> str:
        return ("… " if lo > first else "") + "  ".join(item(k) for k in range(lo, hi)) + (" …" if hi < end else "")

    lo, hi = cursor, cursor + 1
    grew = True
    while grew:
        grew = False
        for lo2, hi2 in ((lo, hi + 1), (lo - 1, hi)):
            if first <= lo2 and hi2 <= end and (lo2, hi2) != (lo, hi) and len(text(lo2, hi2)) <= width:
                lo, hi, grew = lo2, hi2, True
    line = text(lo, hi)
    return line if len(line) <= width else item(cursor)[:width]


def parse_port(text: str) -> tuple[str, int] | None:
    """`80`, `80/TCP`, `udp/53`, `53/udp` → (protocol, port); empty → None. ValueError when malformed."""
    text = text.strip()
    if not text:
        return None
    parts = [p for p in text.replace(" ", "/").split("/") if p]
    proto, port = "TCP", None
    for p in parts:
        if p.isdigit():
            port = int(p)
        elif p.upper() in PROTOCOLS:
            proto = p.upper()
        else:
            raise ValueError(f"not a port or protocol: {p!r}")
    if port is None or not 1 <= port <= 65535:
        raise ValueError("a port in 1..65535 is needed, e.g. 80 or 53/UDP")
    return proto, port


class MatrixScreen(ReachScreen):
    VIEW = "matrix"
    FILTERABLE = True
    HELP = (
        "Rows are sources, columns destinations: numbered, the namespace written above its columns, and the line "
        "above the grid names the columns on screen; the line below names the cell under the cursor in full. "
        "Arrows move, Enter explains the cell, w toggles pods/workloads, p filters on one port (80, 53/UDP). " + LEGEND
    )
    BINDINGS = [
        Binding("w", "toggle_workloads", "Workloads"),
        Binding("p", "prompt('port')", "Port", priority=True),  # priority: see ReachScreen.BINDINGS
    ]

    def __init__(self) -> None:
        super().__init__()
        self.by_workload = False
        self.probe: tuple[str, int] | None = None
        self.entries: list[list[int]] = []  # per row/column: the member pods
        self.groups: list[WorkloadGroup] = []  # by workload: the same, with their classes
        self.names: list[str] = []
        self.short: list[str] = []  # per column: its name in the legend line
        self.was_groups: list[WorkloadGroup | None] = []  # by workload, comparing: each group in the reference
        self.shown: ViewModel | None = None

    def compose_body(self) -> ComposeResult:
        yield Static(LEGEND, markup=False, id="legend")
        yield MatrixGrid(id="grid")
        yield Static("", markup=False, id="cell")

    def main_widget(self) -> MatrixGrid:
        return self.query_one("#grid", MatrixGrid)

    def title_text(self) -> str:
        mode = "workloads" if self.by_workload else "pods"
        port = f"{self.probe[1]}/{self.probe[0]}" if self.probe else "all ports"
        return f"matrix · {len(self.names)} {mode} · {port}"

    def show(self, model: ViewModel) -> None:
        grid = self.main_widget()
        keep = self._cursor_names()
        self.shown = model
        ns = self.reach.namespace
        flt = PodFilter(self.filter_text)
        pods = [i for i, p in enumerate(model.pods) if (not ns or p.namespace == ns) and flt.matches(p)]
        if self.by_workload:
            self.groups = model.workloads(pods)
            self.entries = [list(g.pods) for g in self.groups]
            self.names = [g.name for g in self.groups]
        else:
            self.groups = []
            self.entries = [[i] for i in pods]
            self.names = [model.pods[i].key for i in pods]
        namespaces = [model.pods[m[0]].namespace for m in self.entries]
        self.short = self._short_names(model)
        # One namespace: the rows need not repeat it (the band above the columns says it).
        labels = self.names if len(set(namespaces)) > 1 else [n.partition("/")[2] or n for n in self.names]
        base = self.reach.base if self.reach.comparing else None
        self.was_groups = []
        if self.by_workload and base is None:
            grid.set_source(labels, namespaces, self._group_states)
        elif self.by_workload:  # what-if / --old: the same marks as by pod, workloads matched by name
            assert base is not None
            in_base = [i for i, p in enumerate(base.pods) if (not ns or p.namespace == ns) and flt.matches(p)]
            by_name = {g.name: g for g in base.workloads(in_base)}
            self.was_groups = [by_name.get(name) for name in self.names]
            grid.set_source(labels, namespaces, self._marked_group_states)
        else:
            index = np.asarray(pods, dtype=np.int64)
            if base is None:
                grid.set_source(
                    labels, namespaces, lambda r, cols: model.row_states(int(index[r]), index[cols], self.probe)
                )
            else:  # what-if / --against: mark what changed; pods matched by key (OLD may lack some: denied)
                old = np.array(
                    [base.index_of.get(model.pods[i].key, base.n) for i in pods], dtype=np.int64
                )  # base.n: "not a running pod there"
                old[old >= base.n] = -1

                def marked(r: int, cols: np.ndarray) -> np.ndarray:
                    now = model.row_states(int(index[r]), index[cols], self.probe)
                    was = np.zeros_like(now)  # DENIED
                    if old[r] >= 0:
                        there = old[cols] >= 0
                        if there.any():
                            was[there] = base.row_states(int(old[r]), old[cols][there], self.probe)
                    more, less = OPENNESS[now] > OPENNESS[was], OPENNESS[now] < OPENNESS[was]
                    return now + MARK_STEP * np.where(more, GAINED, np.where(less, LOST, 0))

                grid.set_source(labels, namespaces, marked)
        if keep is not None:
            pos = {n: k for k, n in enumerate(self.names)}
            grid.row = pos.get(keep[0], grid.row)
            grid.col = pos.get(keep[1], grid.col)
        self.update_title()
        self._describe(grid.row, grid.col)
        self.focus_main()

    def _short_names(self, model: ViewModel) -> list[str]:
        """Column names for the legend line: a pod's workload (`cartservice`) when no other column has the same
        one, else the pod's name cut in the middle; a workload's name without namespace and kind."""
        if self.by_workload:
            return [middle_cut(g.name.partition("/")[2].rpartition("[")[0] or g.name, SHORT) for g in self.groups]
        owners = [workload_of(model.pods[m[0]])[1] for m in self.entries]
        seen = Counter(owners)
        return [
            middle_cut(owner if seen[owner] == 1 else model.pods[m[0]].name, SHORT)
            for owner, m in zip(owners, self.entries, strict=True)
        ]

    def _group_states(self, r: int, cols: np.ndarray) -> np.ndarray:
        model = self.shown
        assert model is not None
        return model.group_states(self.groups[r], [self.groups[c] for c in cols.tolist()], self.probe)

    def _was_group_states(self, r: int, cols: np.ndarray) -> np.ndarray:
        """The reference's states of workload r towards `cols` (a workload it lacks: denied, as by pod)."""
        base = self.reach.base
        was = np.zeros(len(cols), dtype=np.int8)  # DENIED
        src = self.was_groups[r]
        if base is None or src is None:
            return was
        there = [k for k, c in enumerate(cols.tolist()) if self.was_groups[c] is not None]
        if there:
            dsts = [self.was_groups[int(cols[k])] for k in there]
            was[there] = base.group_states(src, [g for g in dsts if g is not None], self.probe)
        return was

    def _marked_group_states(self, r: int, cols: np.ndarray) -> np.ndarray:
        now = self._group_states(r, cols)
        was = self._was_group_states(r, cols)
        more, less = OPENNESS[now] > OPENNESS[was], OPENNESS[now] < OPENNESS[was]
        return now + MARK_STEP * np.where(more, GAINED, np.where(less, LOST, 0))

    def _cursor_names(self) -> tuple[str, str] | None:
        if not self.names:
            return None
        grid = self.main_widget()
        if grid.row < len(self.names) and grid.col < len(self.names):
            return self.names[grid.row], self.names[grid.col]
        return None

    def on_cell_highlighted(self, event: CellHighlighted) -> None:
        self._describe(event.row, event.col)

    def _describe(self, row: int, col: int) -> None:
        self._legend()
        model = self.shown
        cell = self.query_one("#cell", Static)
        if model is None or not self.names:
            cell.update("no pods to show")
            return
        src, dst = self.entries[row], self.entries[col]
        if self.by_workload:
            st = int(model.group_states(self.groups[row], [self.groups[col]], self.probe)[0])
            was = ""
            if self.was_groups:
                then = int(self._was_group_states(row, np.asarray([col]))[0])
                if then != st:
                    was = f"  (was {STATE_WORDS[then]})"
            cell.update(
                f"[{GLYPHS[st]}] {self.names[row]} => {self.names[col]} : {STATE_WORDS[st]}{was}  (Enter: explain)"
            )
            return
        cs = model.connection(src[0], dst[0])
        text = model.connection_text(src[0], dst[0])  # with its layer-7 filter, when some of it goes through one
        st = model.cell_state(src[0], dst[0], self.probe)
        was = ""
        base = self.reach.base if self.reach.comparing else None
        if base is not None:
            s_old = base.index_of.get(model.pods[src[0]].key, base.n)
            d_old = base.index_of.get(model.pods[dst[0]].key, base.n)
            old = base.connection(s_old, d_old) if s_old < base.n and d_old < base.n else None
            if old is None or old != cs:
                was = f"  (was {old.render() if old is not None else 'no such pod'})"
        cell.update(f"[{GLYPHS[st]}] {self.names[row]} => {self.names[col]} : {text}{was}  (Enter: explain)")

    def _legend(self) -> None:
        """The columns on screen by number and name (`[0 adservice]  1 cartservice`), the cursor's column always
        among them: the header has room only for numbers."""
        grid = self.main_widget()
        legend = self.query_one("#legend", Static)
        if not self.names:
            legend.update(LEGEND)
            return
        first, last = grid.visible_columns()
        width = legend.size.width or self.app.size.width - legend.styles.gutter.width  # content, less padding
        legend.update(legend_line(self.short, first, last, grid.col, max(1, width)))

    def on_cell_selected(self, event: CellSelected) -> None:
        model = self.shown
        if model is None or not self.names:
            return
        src, dst = self.entries[event.row], self.entries[event.col]
        note = ""
        if self.by_workload:
            note = f"(workload cell {self.names[event.row]} => {self.names[event.col]}: explained for its first pods)"
        self.tell(ExplainConnection(model.pods[src[0]].key, model.pods[dst[0]].key, note))

    def action_toggle_workloads(self) -> None:
        self.by_workload = not self.by_workload
        if self.shown is not None:
            self.show(self.shown)

    def apply_port(self, text: str) -> None:
        try:
            self.probe = parse_port(text)
        except ValueError as exc:
            self.notify(str(exc), severity="error")
            return
        if self.shown is not None:
            self.show(self.shown)

    def apply_filter(self, text: str) -> None:
        if self.shown is not None:
            self.show(self.shown)

    def export_text(self) -> tuple[str, str]:
        """The grid as shown (the CLI's `grid` layout, with `~` for partial cells)."""
        model = self.shown
        if model is None:
            return self.VIEW, ""
        n = len(self.names)
        width = max((len(x) for x in self.names), default=4)
        out = [f"# {self.title_text()}", LEGEND, " " * width + " " + " ".join(f"{i:>2}" for i in range(n))]
        grid = self.main_widget()
        for r in range(n):
            states = grid._state(r, np.arange(n))
            out.append(f"{self.names[r]:<{width}} " + " ".join(f"{GLYPHS[int(s) % MARK_STEP]:>2}" for s in states))
        out.append("")
        out.extend(f"{i:>2} = {name}" for i, name in enumerate(self.names))
        return self.VIEW, "\n".join(out) + "\n"
