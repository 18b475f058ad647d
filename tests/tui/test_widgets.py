"""The virtual table and the matrix grid draw inside their scrollbars: a visible scrollbar never covers
text, and text cut at the edge says so with …."""

from __future__ import annotations

import numpy as np
from textual.app import App, ComposeResult

from tui.widgets.matrix import MatrixGrid
from tui.widgets.vtable import Column, VirtualTable

LONG = "a message long enough to be cut at forty columns, whatever the font"


class TableApp(App[None]):
    def compose(self) -> ComposeResult:
        yield VirtualTable([Column("ID", 4), Column("MESSAGE", 0, 8)], id="t")


async def test_rows_are_cut_with_an_ellipsis_inside_the_vertical_scrollbar() -> None:
    app = TableApp()
    async with app.run_test(size=(40, 8)) as pilot:
        table = app.query_one(VirtualTable)
        table.set_source(50, lambda i: [str(i), LONG])  # more rows than lines: a vertical scrollbar
        await pilot.pause()
        assert table.show_vertical_scrollbar
        inner = table.scrollable_content_region.width
        assert inner < table.size.width
        line = table.render_line(1)
        assert line.cell_length == inner
        assert line.text.rstrip().endswith("…")


class GridApp(App[None]):
    def compose(self) -> ComposeResult:
        yield MatrixGrid(id="g")


async def test_matrix_cursor_stays_clear_of_the_scrollbars() -> None:
    app = GridApp()
    async with app.run_test(size=(30, 10)) as pilot:
        grid = app.query_one(MatrixGrid)
        names = [f"ns/pod-{i}" for i in range(60)]
        grid.set_source(names, ["ns"] * 60, lambda r, cols: np.full(len(cols), 2, dtype=np.int8))
        await pilot.pause()
        grid.row, grid.col = 59, 59  # the last cell: scrolled so that it is drawn, not under a scrollbar
        await pilot.pause()
        view = grid.scrollable_content_region
        assert view.width < grid.size.width and view.height < grid.size.height  # both scrollbars show
        bottom = grid.render_line(view.height - 1).text
        assert bottom.startswith("…") or bottom.startswith("ns/pod-59")
        assert grid.render_line(view.height - 1).cell_length == view.width
