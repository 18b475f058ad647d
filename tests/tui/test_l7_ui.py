"""Cilium's layer-7 filters in the UI (issue 22 item 4): the matrix cell of a pair allowed only through a filter
reads `f` (the CLI grid's and the report's glyph), the line under the grid names the filter, the help's legend
says what `f` means, and the detail views' via column marks the rule `(L7)`. In Pilot and in a real terminal.

docs.cilium.io security/policy/layer7.rst: a toPorts entry with `rules` allows its port only through the
proxy's filter; beside a rule allowing the same port without one, the filter "will have no effect". The data:
tests/data/cilium-l7/shop.yaml (its comments, and tests/netpol/test_l7_outputs.py's docstring, derive each
pair) and Cilium's Star Wars demo (`l7`: TCP 80 into the Death Star through POST /v1/request-landing).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from netpol.commands.context import Context
from tests.conftest import REAL_APPS
from tests.tui.conftest import loaded
from tests.tui.test_terminal import Terminal, _flat
from tui.app import ReachApp
from tui.screens.detail import PodDetailScreen
from tui.screens.matrix import MatrixScreen
from tui.screens.modals import HelpScreen
from tui.widgets.matrix import HEADER, MatrixGrid
from tui.widgets.vtable import VirtualTable

ROOT = Path(__file__).resolve().parents[2]
SHOP = ROOT / "tests" / "data" / "cilium-l7"
DEMO = REAL_APPS / "cilium-starwars" / "l7"


def _loader(folder: Path):  # noqa: ANN202
    def load():  # noqa: ANN202
        ctx = Context(argparse.Namespace(paths=[str(folder)]))
        return ctx.analyze(ctx.load())

    return load


def _cell(app: ReachApp) -> str:
    return str(app.screen.query_one("#cell").render())


def _glyph(grid: MatrixGrid, row: int, col: int) -> str:
    """The glyph drawn for (row, col): the row's line as the terminal gets it, read under the column number."""
    line = grid.render_line(HEADER + row).text
    header = grid.render_line(1).text
    at = header.index(f" {col}" if col >= 10 else f"  {col}") + len(f" {col}" if col >= 10 else f"  {col}") - 1
    return line[at]


async def test_matrix_cells_and_cell_line_mark_the_filter(tmp_path: Path) -> None:
    app = ReachApp(_loader(SHOP), export_dir=tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await loaded(pilot)
        await pilot.press("colon", *"matrix", "enter")
        screen = app.screen
        assert isinstance(screen, MatrixScreen)
        names = screen.names
        assert names == ["kube-system/coredns", "shop/admin", "shop/api", "shop/client", "shop/viewer"]
        grid = screen.query_one(MatrixGrid)
        api = names.index("shop/api")
        want = {
            "shop/client": ("f", "TCP 80,8080 (2 L7 filters on TCP 80)"),
            "shop/viewer": ("f", "TCP 80,8080 (L7 filter on TCP 80: HTTP GET /health)"),
            "shop/admin": ("~", "TCP 80"),  # the plain allow of TCP 80 wins: no filter
        }
        for src, (glyph, text) in want.items():
            grid.row, grid.col = names.index(src), api
            await pilot.pause()
            assert _glyph(grid, grid.row, api) == glyph, src
            assert _cell(app).startswith(f"[{glyph}] {src} => shop/api : {text}  "), _cell(app)
        grid.row, grid.col = names.index("shop/client"), names.index("kube-system/coredns")
        await pilot.pause()
        assert _cell(app).startswith("[f] shop/client => kube-system/coredns : UDP 53 (L7 filter: DNS matchPattern *)")
        # one port asked: 8080 passes plainly, 80 only through the filters
        grid.row, grid.col = names.index("shop/viewer"), api
        await pilot.press("p", *"8080", "enter")
        assert _glyph(grid, grid.row, api) == "."
        await pilot.press("p", *"80", "enter")
        assert _glyph(grid, grid.row, api) == "f"
        # by workload: each pod is its own workload here, the same cells
        await pilot.press("p", "enter", "w")
        assert screen.by_workload
        row = np.asarray([names.index("shop/api")])
        assert screen._group_states(names.index("shop/client"), row).tolist() == [3]  # FILTERED
        await pilot.press("question_mark")
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        assert "f through an L7 filter" in help_screen.text


async def test_the_via_column_marks_rules_with_a_filter(tmp_path: Path) -> None:
    app = ReachApp(_loader(SHOP), export_dir=tmp_path)
    async with app.run_test(size=(160, 30)) as pilot:
        await loaded(pilot)
        app.run_command_line("pod shop/api")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, PodDetailScreen) and screen.key == "shop/api"
        sources = screen.query_one("#sources", VirtualTable)
        rows = {sources.row_text(k)[0]: sources.row_text(k) for k in range(sources.count)}
        # client's own egress rule #2 lets it out to the api; api-ingress rule #1 (GET /health), #3 (TCP 8080) and
        # api-submit rule #1 (POST /submit) admit it
        assert rows["shop/client"][2] == "out client-egress#2; in api-ingress#1(L7),api-ingress#3,api-submit#1(L7)"
        assert rows["shop/viewer"][2] == "in api-ingress#1(L7),api-ingress#3"
        # admin: rule #2 allows TCP 80 without a filter, so rule #1's filter has no effect (layer7.rst)
        assert rows["shop/admin"][2] == "in api-ingress#1,api-ingress#2"


def test_the_demo_matrix_in_a_real_terminal(tmp_path: Path) -> None:
    """`netpol tui` on the demo: the TIE fighter's row reads `f` under both Death Star replicas, and the line
    under the grid names the HTTP filter of the cell under the cursor."""
    term = Terminal(tmp_path, sys.executable, "-m", "netpol.cli", "tui", str(DEMO))
    try:
        term.wait_for(lambda s: "pods (" in s and "xwing" in s, "the loaded pods view")
        term.send(":matrix", "Enter")
        screen = term.wait_for(lambda s: "tiefighter" in s and "from\\to" in s, "the matrix view")
        row = next(line for line in screen.splitlines() if line.lstrip().startswith("tiefighter"))
        assert row.split()[1:] == ["f", "f", ".", "."], row  # columns: both replicas, tiefighter, xwing
        term.send("Down", "Down")  # the cursor from deathstar…526b7 → itself to tiefighter → deathstar…526b7
        flat = "(L7filter:HTTPPOST/v1/request-landing)"  # the cell line wraps at 80 columns
        screen = term.wait_for(lambda s: "[f]" in s and flat in _flat(s), "the cell line naming the filter")
        assert "[f]default/tiefighter=>default/deathstar-n5hhkggv2x-526b7:TCP80" + flat in _flat(screen)
    finally:
        term.close()
