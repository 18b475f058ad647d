"""The reachability grid (Line API): rows sources, columns destinations, namespaces grouped.

Only the cells on screen are computed (one vectorised class-matrix read per visible line). Glyphs carry
the meaning (`.` every port, `~` some ports, `X` denied, `f` through a layer-7 filter) and colours repeat it; the row label column and
two header lines (a band per namespace, the column numbers) stay in place while the cells scroll. Cells
are as wide as the largest column number plus a space, so numbers never run together; row labels are cut
in the middle (`cart…-5k59p`), where pod names carry the least.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence

import numpy as np
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from netpol.readout.grid import band, cell_width, middle_cut
from tui.messages import CellHighlighted, CellSelected
from tui.model import ALLOWED, DENIED, FILTERED, GLYPHS, PARTIAL

HEADER = 2
# What-if marks: a state function may return `state + MARK_STEP * mark`; the cell then reads `+.` (gained:
# more is allowed than in the loaded cluster) or `−X` (lost), the colour repeating the mark.
MARK_STEP, GAINED, LOST = 4, 1, 2  # MARK_STEP: one more than the last state (tui.model.FILTERED)
MARKS = {0: "", GAINED: "+", LOST: "−"}

StateFn = Callable[[int, np.ndarray], np.ndarray]


def _glyphs(cell: int) -> dict[int, str]:
    """Cell text per state code, right-aligned in `cell` columns: `  .`, and with a what-if mark ` +.`."""
    return {st + MARK_STEP * mark: f"{MARKS[mark] + glyph:>{cell}}" for st, glyph in GLYPHS.items() for mark in MARKS}


class MatrixGrid(ScrollView, can_focus=True):
    COMPONENT_CLASSES = {
        "grid--header",
        "grid--allowed",
        "grid--partial",
        "grid--filtered",
        "grid--denied",
        "grid--cursor",
        "grid--label",
        "grid--sep",
        "grid--gained",
        "grid--lost",
    }

    DEFAULT_CSS = """
    MatrixGrid { height: 1fr; }
    MatrixGrid > .grid--header { color: $text-muted; text-style: bold; }
    MatrixGrid > .grid--allowed { color: $success; }
    MatrixGrid > .grid--partial { color: $warning; text-style: bold; }
    MatrixGrid > .grid--filtered { color: $accent; text-style: bold; }
    MatrixGrid > .grid--denied { color: $error; }
    MatrixGrid > .grid--cursor { text-style: reverse bold; }
    MatrixGrid > .grid--label { color: $text; }
    MatrixGrid > .grid--sep { color: $text-muted; }
    MatrixGrid > .grid--gained { color: $success; text-style: bold underline; }
    MatrixGrid > .grid--lost { color: $error; text-style: bold underline; }
    """

    BINDINGS = [
        Binding("up,k", "move(-1, 0)", "Up", show=False),
        Binding("down,j", "move(1, 0)", "Down", show=False),
        Binding("left,h", "move(0, -1)", "Left", show=False),
        Binding("right,l", "move(0, 1)", "Right", show=False),
        Binding("pageup", "move(-10, 0)", show=False),
        Binding("pagedown", "move(10, 0)", show=False),
        Binding("enter", "select", "Explain", show=True),
    ]

    row: reactive[int] = reactive(0, always_update=True)
    col: reactive[int] = reactive(0, always_update=True)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.labels: list[str] = []
        self.namespaces: list[str] = []
        self._state: StateFn = lambda r, cols: np.zeros(len(cols), dtype=np.int8)
        self._cx = np.zeros(0, dtype=np.int64)  # content x of each column
        self._cx_list: list[int] = []
        self._content_width = 0
        self.label_width = 12
        self.cell = 3  # width of a column (cell_width)
        self._glyphs = _glyphs(3)
        self._states: dict[tuple[int, int, int], list[int]] = {}  # (row, first col, last col) → states
        self._drawn: tuple[int, int, int, int] | None = None  # (row, col, scroll x, scroll y) last painted

    @property
    def view_size(self) -> Size:
        """The area rows are drawn in: the widget less its scrollbars (a visible scrollbar covers the last
        columns or lines otherwise)."""
        return self.scrollable_content_region.size

    # ------------------------------------------------------------------------------------ data

    def set_source(self, labels: Sequence[str], namespaces: Sequence[str], state: StateFn) -> None:
        self.labels = list(labels)
        self.namespaces = list(namespaces)
        self._state = state
        self._states.clear()
        self._drawn = None
        self.cell = cell_width(len(labels))
        self._glyphs = _glyphs(self.cell)
        seps = np.zeros(len(labels), dtype=np.int64)
        for k in range(1, len(namespaces)):
            seps[k] = seps[k - 1] + (namespaces[k] != namespaces[k - 1])
        self._cx = np.arange(len(labels), dtype=np.int64) * self.cell + seps
        self._cx_list = self._cx.tolist()
        self._content_width = int(self._cx[-1] + self.cell) if len(labels) else 0
        self._layout()
        self.row = min(self.row, max(0, len(labels) - 1))
        self.col = min(self.col, max(0, len(labels) - 1))
        self.refresh()

    def _layout(self) -> None:
        """Labels as wide as the cells leave room for (whole names when the grid fits), at least a third of
        the width when it does not, never more than half."""
        longest = max((len(x) for x in self.labels), default=4)
        width = self.view_size.width or 80
        room = width - 1 - self._content_width
        self.label_width = max(8, min(longest, max(width // 3, min(room, width // 2))))
        self.virtual_size = Size(self.label_width + 1 + self._content_width, len(self.labels) + HEADER)

    def on_resize(self, event: events.Resize) -> None:
        self._layout()
        if self.labels:  # what is on screen changed: the screen's column legend follows
            self.post_message(CellHighlighted(self, self.row, self.col))

    # ------------------------------------------------------------------------------------ render

    def visible_columns(self) -> tuple[int, int]:
        """(first, end) of the columns on screen."""
        return self._visible_cols()

    def _visible_cols(self) -> tuple[int, int]:
        left = int(self.scroll_offset.x)
        room = max(0, self.view_size.width - self.label_width - 1)
        first = bisect.bisect_left(self._cx_list, left) if len(self._cx) else 0
        last = bisect.bisect_right(self._cx_list, left + room - self.cell) if len(self._cx) else 0
        return first, max(first, last)

    def render_line(self, y: int) -> Strip:
        width = self.view_size.width
        base = self.rich_style
        n = len(self.labels)
        if not n:
            return Strip([Segment("(no pods)".ljust(width), base)]) if y == 0 else Strip.blank(width, base)
        lw = self.label_width
        first, last = self._visible_cols()
        left = int(self.scroll_offset.x)
        header = base + self.get_component_rich_style("grid--header")
        cursor = self.get_component_rich_style("grid--cursor")
        sep = base + self.get_component_rich_style("grid--sep")
        segs: list[Segment] = []
        if y < HEADER:
            segs.append(Segment(("from\\to" if y == 1 else "").ljust(lw)[:lw] + " ", header))
            pos = left
            k = first
            while k < last:
                cx = int(self._cx[k])
                if cx > pos:
                    segs.append(Segment("│" if y == 1 else " " * (cx - pos), sep))
                    pos = cx
                if y == 0:  # the namespace, written over its span
                    ns = self.namespaces[k]
                    end = k
                    while end < last and self.namespaces[end] == ns:
                        end += 1
                    span = int(self._cx[end - 1]) + self.cell - cx
                    segs.append(Segment(band(ns, span), header))
                    pos = cx + span
                    k = end
                    continue
                style = header + cursor if k == self.col else header
                segs.append(Segment(f"{k:>{self.cell}}", style))
                pos = cx + self.cell
                k += 1
            return Strip(segs).adjust_cell_length(width, base)
        r = int(self.scroll_offset.y) + y - HEADER
        if r >= n:
            return Strip.blank(width, base)
        label_style = base + self.get_component_rich_style("grid--label")
        if r == self.row:
            label_style += cursor
        segs.append(Segment(middle_cut(self.labels[r], lw).ljust(lw), label_style))
        segs.append(Segment(" ", base))
        styles = {
            ALLOWED: base + self.get_component_rich_style("grid--allowed"),
            PARTIAL: base + self.get_component_rich_style("grid--partial"),
            DENIED: base + self.get_component_rich_style("grid--denied"),
            FILTERED: base + self.get_component_rich_style("grid--filtered"),
        }
        for mark, cls in ((GAINED, "grid--gained"), (LOST, "grid--lost")):
            for st in (ALLOWED, PARTIAL, DENIED, FILTERED):
                styles[st + MARK_STEP * mark] = base + self.get_component_rich_style(cls)
        # Runs of equal cells are written as one segment as they are read: fewer segments for Textual
        # to crop, filter and diff, and no per-cell Segment to build.
        run_text: list[str] = []
        run_style: Style | None = None
        cursor_col = self.col if r == self.row else -1
        cx_list = self._cx_list
        pos = left
        for k, st in enumerate(self._row_states(r, first, last), start=first):
            cx = cx_list[k]
            piece = "│" if cx > pos else ""  # a namespace boundary
            cell_style = styles[st] + cursor if k == cursor_col else styles[st]
            if piece:
                if run_text:
                    segs.append(Segment("".join(run_text), run_style))
                segs.append(Segment(piece, sep))
                run_text, run_style = [], None
            if cell_style is not run_style and run_text:
                segs.append(Segment("".join(run_text), run_style))
                run_text = []
            run_style = cell_style
            run_text.append(self._glyphs[st])
            pos = cx + self.cell
        if run_text:
            segs.append(Segment("".join(run_text), run_style))
        return Strip(segs).adjust_cell_length(width, base)

    def _row_states(self, r: int, first: int, last: int) -> list[int]:
        """States of row r for the visible columns, cached: a cursor move repaints lines, not the numbers."""
        key = (r, first, last)
        hit = self._states.get(key)
        if hit is None:
            hit = self._state(r, np.arange(first, last)).tolist() if last > first else []
            if len(self._states) > 2000:
                self._states.clear()
            self._states[key] = hit
        return hit

    # ------------------------------------------------------------------------------------ cursor

    def validate_row(self, v: int) -> int:
        return max(0, min(v, len(self.labels) - 1)) if self.labels else 0

    validate_col = validate_row

    def watch_row(self) -> None:
        self._follow()

    def watch_col(self) -> None:
        self._follow()

    def _follow(self) -> None:
        if not self.labels:
            return
        h = max(1, self.view_size.height - HEADER)
        top = int(self.scroll_offset.y)
        y = top
        if self.row < top:
            y = self.row
        elif self.row >= top + h:
            y = self.row - h + 1
        room = max(self.cell, self.view_size.width - self.label_width - 1)
        left = int(self.scroll_offset.x)
        cx = int(self._cx[self.col])
        x = left
        if cx < left:
            x = cx
        elif cx + self.cell > left + room:
            x = cx + self.cell - room
        if (x, y) != (left, top):
            self.scroll_to(x=x, y=y, animate=False, immediate=True)
        self._repaint_cursor()
        self.post_message(CellHighlighted(self, self.row, self.col))

    def _repaint_cursor(self) -> None:
        """Repaint what the cursor move changed: the old and new rows and the column header, or everything
        if the view scrolled."""
        now = (self.row, self.col, int(self.scroll_offset.x), int(self.scroll_offset.y))
        before, self._drawn = self._drawn, now
        if before is None or before[2:] != now[2:]:
            self.refresh()
            return
        width = self.view_size.width
        top = now[3]
        self.refresh(Region(0, 1, width, 1))  # the column numbers (the cursor's column is highlighted)
        for r in {before[0], now[0]}:
            y = r - top + HEADER
            if HEADER <= y < self.view_size.height:
                self.refresh(Region(0, y, width, 1))

    def action_move(self, dr: int, dc: int) -> None:
        if dr:
            self.row += dr
        if dc:
            self.col += dc

    def action_select(self) -> None:
        if self.labels:
            self.post_message(CellSelected(self, self.row, self.col))

    def on_click(self, event: events.Click) -> None:
        if not self.labels or event.y < HEADER:
            return
        r = int(self.scroll_offset.y) + event.y - HEADER
        x = int(self.scroll_offset.x) + event.x - self.label_width - 1
        if x < 0 or r >= len(self.labels):
            return
        k = max(0, bisect.bisect_right(self._cx_list, x) - 1)
        again = (r, k) == (self.row, self.col)
        self.row, self.col = r, k
        if again or event.chain >= 2:
            self.post_message(CellSelected(self, r, k))
