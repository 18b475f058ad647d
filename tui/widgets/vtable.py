"""A virtual table (Line API): rows are produced on demand by a callback, only for the lines on screen.

DataTable materialises every cell (and measures it) when rows are added; at 10,000 pods × 10,000 possible
sources that is the difference between instant and seconds. Here the table knows only a row count and a
`row(i) -> cells` function; a bounded cache keeps scrolling cheap.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.messages import RowHighlighted, RowSelected

Cell = str | tuple[str, str]  # text, or (text, component class name for its style)


@dataclass(frozen=True, slots=True)
class Column:
    title: str
    width: int  # 0: flexible (takes what is left; several share it)
    min_width: int = 8


def _fit(text: str, width: int) -> str:
    if width <= 0:
        return ""
    if len(text) <= width:
        return text.ljust(width)
    return text[: max(0, width - 1)] + "…"


class VirtualTable(ScrollView, can_focus=True):
    """Columns of text; cursor row; Enter posts RowSelected, moving posts RowHighlighted."""

    COMPONENT_CLASSES = {
        "vtable--header",
        "vtable--cursor",
        "vtable--good",
        "vtable--bad",
        "vtable--warn",
        "vtable--dim",
        "vtable--ns",
    }

    DEFAULT_CSS = """
    VirtualTable { height: 1fr; overflow-x: hidden; }
    VirtualTable > .vtable--header { text-style: bold; background: $panel; }
    VirtualTable > .vtable--cursor { background: $surface-lighten-2; }
    VirtualTable:focus > .vtable--cursor { background: $accent 40%; text-style: bold; }
    VirtualTable > .vtable--good { color: $success; }
    VirtualTable > .vtable--bad { color: $error; }
    VirtualTable > .vtable--warn { color: $warning; }
    VirtualTable > .vtable--dim { color: $text-muted; }
    VirtualTable > .vtable--ns { color: $secondary; }
    """

    BINDINGS = [
        Binding("up,k", "cursor(-1)", "Up", show=False),
        Binding("down,j", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home,g", "jump(0)", "First", show=False),
        Binding("end,G", "jump(-1)", "Last", show=False),
        Binding("enter", "select", "Open", show=True),
    ]

    cursor: reactive[int] = reactive(0, always_update=True)

    def __init__(
        self,
        columns: Sequence[Column],
        *,
        empty_text: str = "(nothing)",
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.columns = list(columns)
        self.empty_text = empty_text
        self.count = 0
        self._row_fn: Callable[[int], Sequence[Cell]] = lambda i: ()
        self._cache: OrderedDict[int, Sequence[Cell]] = OrderedDict()

    @property
    def view_size(self) -> Size:
        """The area rows are drawn in: the widget less its scrollbars (a visible scrollbar covers the last
        columns or lines otherwise)."""
        return self.scrollable_content_region.size

    # ------------------------------------------------------------------------------------ data

    def set_columns(self, columns: Sequence[Column]) -> None:
        if list(columns) != self.columns:
            self.columns = list(columns)
            self._cache.clear()
            self.refresh()

    def set_source(self, count: int, row_fn: Callable[[int], Sequence[Cell]], cursor: int = 0) -> None:
        self.count = count
        self._row_fn = row_fn
        self._cache.clear()
        self.virtual_size = Size(self.view_size.width, count + 1)
        self.cursor = max(0, min(cursor, count - 1)) if count else 0
        self.refresh()

    def row(self, i: int) -> Sequence[Cell]:
        hit = self._cache.get(i)
        if hit is None:
            hit = self._row_fn(i)
            self._cache[i] = hit
            if len(self._cache) > 4000:
                self._cache.popitem(last=False)
        return hit

    def row_text(self, i: int) -> list[str]:
        return [c if isinstance(c, str) else c[0] for c in self.row(i)]

    def visible_rows(self) -> list[int]:
        top = int(self.scroll_offset.y)
        return [i for i in range(top, min(self.count, top + max(0, self.view_size.height - 1)))]

    # ------------------------------------------------------------------------------------ layout

    def _widths(self, total: int) -> list[int]:
        gaps = len(self.columns) - 1
        fixed = sum(c.width for c in self.columns if c.width)
        flex = [c for c in self.columns if not c.width]
        left = max(0, total - fixed - gaps)
        widths = []
        for c in self.columns:
            if c.width:
                widths.append(c.width)
            else:
                widths.append(max(c.min_width, left // len(flex)))
        return widths

    def on_resize(self, event: events.Resize) -> None:
        self.virtual_size = Size(event.size.width, self.count + 1)

    def _line(self, cells: Sequence[Cell], widths: list[int], base: Style) -> list[Segment]:
        segs: list[Segment] = []
        for k, w in enumerate(widths):
            cell = cells[k] if k < len(cells) else ""
            text, cls = (cell, "") if isinstance(cell, str) else cell
            style = base + self.get_component_rich_style(cls, partial=True) if cls else base
            segs.append(Segment(_fit(text, w), style))
            if k < len(widths) - 1:
                segs.append(Segment(" ", base))
        return segs

    def render_line(self, y: int) -> Strip:
        width = self.view_size.width
        widths = self._widths(width)
        base = self.rich_style
        if y == 0:
            header = self.get_component_rich_style("vtable--header")
            return Strip(self._line([c.title for c in self.columns], widths, base + header)).adjust_cell_length(
                width, base + header
            )
        i = int(self.scroll_offset.y) + y - 1
        if not self.count:
            text = self.empty_text if y == 1 else ""
            return Strip([Segment(_fit(text, width), base + self.get_component_rich_style("vtable--dim"))])
        if i >= self.count:
            return Strip.blank(width, base)
        style = base + self.get_component_rich_style("vtable--cursor") if i == self.cursor else base
        return Strip(self._line(self.row(i), widths, style)).adjust_cell_length(width, style)

    # ------------------------------------------------------------------------------------ cursor

    def validate_cursor(self, value: int) -> int:
        return max(0, min(value, self.count - 1)) if self.count else 0

    def watch_cursor(self, old: int, new: int) -> None:
        self._scroll_cursor_into_view()
        self.refresh()
        if self.count:
            self.post_message(RowHighlighted(self, new))

    def _scroll_cursor_into_view(self) -> None:
        height = max(1, self.view_size.height - 1)
        top = int(self.scroll_offset.y)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False, immediate=True)

    def action_cursor(self, delta: int) -> None:
        self.cursor += delta

    def action_page(self, direction: int) -> None:
        self.cursor += direction * max(1, self.view_size.height - 2)

    def action_jump(self, where: int) -> None:
        self.cursor = 0 if where == 0 else self.count - 1

    def action_select(self) -> None:
        if self.count:
            self.post_message(RowSelected(self, self.cursor))

    def on_click(self, event: events.Click) -> None:
        if event.y == 0:
            return
        i = int(self.scroll_offset.y) + event.y - 1
        if 0 <= i < self.count:
            again = i == self.cursor
            self.cursor = i
            if again or event.chain >= 2:
                self.post_message(RowSelected(self, i))
