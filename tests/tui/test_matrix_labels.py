"""Matrix labels stay readable: names cut in the middle, column numbers never run together, namespace bands."""

from __future__ import annotations

import pytest

from netpol.readout.grid import band, cell_width, middle_cut
from tests.tui.conftest import loaded, real_app_loader
from tui.app import ReachApp
from tui.screens.matrix import legend_line
from tui.widgets.matrix import MatrixGrid


@pytest.mark.parametrize(
    ("text", "width", "cut"),
    [
        ("cartservice-gnm8fzcqx6-5k59p", 14, "cartse…6-5k59p"),
        ("checkoutservice-nsf42vjwb7-d8kd9", 14, "checko…7-d8kd9"),
        ("web1", 14, "web1"),
        ("abcdef", 1, "…"),
    ],
)
def test_row_labels_are_cut_in_the_middle(text: str, width: int, cut: str) -> None:
    assert middle_cut(text, width) == cut and len(middle_cut(text, width)) <= width


def test_cells_are_wide_enough_for_the_largest_column_number() -> None:
    assert [cell_width(n) for n in (1, 10, 11, 100, 101, 10_000)] == [3, 3, 3, 3, 4, 5]


def test_a_namespace_band_names_it_over_its_columns() -> None:
    assert band("web", 9) == "web ──── "  # nine cells: the name, a space, the rule, a space before the next band
    assert len(band("online-boutique", 6)) == 6 and "…" in band("online-boutique", 6)


async def test_header_numbers_are_separated_past_ten_columns(tmp_path) -> None:
    app = ReachApp(real_app_loader("online-boutique"), export_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        app.run_command_line("matrix")
        await pilot.pause()
        screen = app.screen
        grid = screen.query_one(MatrixGrid)
        assert len(screen.names) == 12
        numbers = grid.render_line(1).text.split()
        assert numbers[1:] == [str(k) for k in range(12)]  # `from\to`, then 0 … 11, each apart
        assert grid.render_line(0).text.strip().startswith("default ─")
        # One namespace: rows are pod names, whole at 80 columns; the legend names columns by workload.
        assert grid.render_line(2 + 1).text.startswith("cartservice-")
        legend = str(screen.query_one("#legend").render())
        assert legend.startswith("[0 adservice]  1 cartservice  2 checkoutservice")  # the cursor's column in []
        await pilot.press("down", "right")
        cell = str(screen.query_one("#cell").render())
        assert "default/cartservice-" in cell and "=> default/cartservice-" in cell  # named in full


async def test_the_column_legend_fits_the_screen_and_follows_the_cursor(tmp_path) -> None:
    """Issue 25: the legend was the columns on screen from the first, cut at the screen's edge, so the name of
    the cursor's column was often cut off. Twelve columns of online-boutique at 80×24: the grid shows all twelve
    numbers, but their names (up to 18 characters each) need ~190 characters, so the line is a window around the
    cursor's column, whole names only, `…` where it leaves columns out."""
    app = ReachApp(real_app_loader("online-boutique"), export_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        app.run_command_line("matrix")
        await pilot.pause()
        screen = app.screen
        legend = screen.query_one("#legend")
        room = legend.size.width  # 80 less the line's padding of one on each side
        assert room == 78
        await pilot.press(*["right"] * 11)  # the last column: shippingservice
        line = str(legend.render())
        assert line.endswith("[11 shippingservice]") and line.startswith("… ") and len(line) <= room, line
        await pilot.press(*["left"] * 6)  # column 5, frontend: neighbours on both sides, cut on both sides
        line = str(legend.render())
        assert "[5 frontend]" in line and line.startswith("… ") and line.endswith(" …") and len(line) <= room, line


@pytest.mark.parametrize(
    ("cursor", "width", "line"),
    [
        # every name fits: all of them, the cursor's in brackets
        (1, 40, "0 a  [1 bb]  2 ccc  3 dddd"),
        # 16: right first, "… [1 bb]  2 ccc …" is 17, too long; left, "0 a  [1 bb] …" is 13; then nothing more fits
        (1, 16, "0 a  [1 bb] …"),
        # the cursor at the end: neighbours to its left only ("… " 2 + "2 ccc" 5 + "  " 2 + "[3 dddd]" 8 = 17)
        (3, 17, "… 2 ccc  [3 dddd]"),
        (3, 16, "… [3 dddd]"),
        # no room even for the marks: the cursor's column alone ("… [2 ccc] …" is 11)
        (2, 8, "[2 ccc]"),
    ],
)
def test_legend_line_keeps_the_cursors_column_and_what_fits(cursor: int, width: int, line: str) -> None:
    assert legend_line(["a", "bb", "ccc", "dddd"], 0, 4, cursor, width) == line
