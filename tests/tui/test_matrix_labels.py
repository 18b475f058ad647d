"""Matrix labels stay readable: names cut in the middle, column numbers never run together, namespace bands."""

from __future__ import annotations

import pytest

from netpol.readout.grid import band, cell_width, middle_cut
from tests.tui.conftest import loaded, real_app_loader
from tui.app import ReachApp
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
        assert legend.startswith("0 adservice  1 cartservice  2 checkoutservice")
        await pilot.press("down", "right")
        cell = str(screen.query_one("#cell").render())
        assert "default/cartservice-" in cell and "=> default/cartservice-" in cell  # named in full
