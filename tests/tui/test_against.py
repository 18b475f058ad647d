"""`netpol tui OLD --against NEW` opens NEW with OLD's differences marked through the what-if code: `:changes`
says what `netpol diff OLD NEW` says, on real applications."""

from __future__ import annotations

import numpy as np
import pytest

from netpol.cli import build_parser
from netpol.commands.context import Context
from netpol.commands.tui import build_app
from tests.conftest import REAL_APPS
from tests.helpers import run_cli
from tests.tui.conftest import loaded
from tui.screens.changes import ChangesScreen
from tui.screens.matrix import MatrixScreen
from tui.widgets.matrix import LOST, MARK_STEP, MatrixGrid

PAIRS = [("npg-onlineboutique", "npg-new-online-boutique"), ("online-boutique", "npg-onlineboutique-workloads")]


@pytest.mark.parametrize(("old", "new"), PAIRS)
async def test_against_shows_what_netpol_diff_shows(old: str, new: str) -> None:
    old_path, new_path = str(REAL_APPS / old), str(REAL_APPS / new)
    args = build_parser("tui").parse_args(["tui", old_path, "--against", new_path])
    app = build_app(args, Context(args))
    async with app.run_test(size=(120, 36)) as pilot:
        await loaded(pilot)
        assert f"netpol · new {new_path} · old {old_path} · pods" in str(app.screen.query_one("#title").render())
        assert {p.key for p in app.model.pods} == {
            p.key for p in Context(args).analyze(Context(args).load([new_path])).pods
        }
        await pilot.press("colon", *"changes", "enter")
        assert isinstance(app.screen, ChangesScreen)
        ours = app.screen.export_text()[1]
        listed = app.screen.query_one("#changes").count
        report = app.changes
        # A lost connection between two pods both versions have is marked in the matrix.
        lost = next(
            (
                c
                for c in report.changes
                if c.kind == "removed"
                and c.src in app.base.index_of
                and c.dst in app.model.index_of
                and c.src in app.model.index_of
                and c.dst in app.base.index_of
            ),
            None,
        )
        assert lost is not None or old == "npg-onlineboutique"  # that pair only gains or changes between shared pods
        if lost is not None:
            await pilot.press("colon", *"matrix", "enter")
            screen = app.screen
            assert isinstance(screen, MatrixScreen)
            grid = screen.query_one(MatrixGrid)
            r, c = screen.names.index(lost.src), screen.names.index(lost.dst)
            assert grid._state(r, np.array([c]))[0] >= MARK_STEP * LOST
    cli = run_cli("diff", old_path, new_path)
    assert cli.returncode in (0, 1), cli.stderr
    assert ours == cli.stdout
    assert listed == len(report.changes) > 0
