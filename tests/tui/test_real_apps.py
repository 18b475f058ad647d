"""Every third-party app of tests/data/real-apps through every view of the UI: a crash, an empty view
where the core has data, or a view that disagrees with the core is a bug."""

from __future__ import annotations

import argparse

import pytest

from netpol.commands.context import Context
from netpol.targets import workload_label
from tests.conftest import REAL_APPS
from tests.tui.conftest import audited, loaded
from tui.app import ReachApp
from tui.screens.audit import AuditScreen
from tui.screens.detail import ExplainScreen, PodDetailScreen
from tui.screens.matrix import MatrixScreen
from tui.screens.nodes import NodesScreen
from tui.screens.policies import PoliciesScreen
from tui.widgets.vtable import VirtualTable

APPS = sorted(p.name for p in REAL_APPS.iterdir() if p.is_dir()) if REAL_APPS.is_dir() else []


def _loader(app: str):  # noqa: ANN202
    def load():  # noqa: ANN202
        ctx = Context(argparse.Namespace(paths=[str(REAL_APPS / app)]))
        return ctx.analyze(ctx.load())

    return load


@pytest.mark.parametrize("app", APPS)
async def test_every_view_of_a_real_app(app: str, tmp_path) -> None:
    ui = ReachApp(_loader(app), export_dir=tmp_path)
    async with ui.run_test(size=(120, 36)) as pilot:
        await loaded(pilot)
        model = ui.model
        assert model is not None
        pods = ui.screen.query_one("#pods", VirtualTable)
        assert pods.count == len(model.all_pods)

        if model.n:  # the first running pod: its lists agree with the model's row and column
            await pilot.press("enter")
            assert isinstance(ui.screen, PodDetailScreen)
            index = model.index_of[ui.screen.key]
            assert ui.screen.query_one("#sources", VirtualTable).count == len(model.sources(index))
            assert ui.screen.query_one("#targets", VirtualTable).count == len(model.targets(index))
            await pilot.press("escape")

        ui.goto("matrix")  # commands go direct: typing them is the journeys' business
        await pilot.pause()
        matrix = ui.screen
        assert isinstance(matrix, MatrixScreen) and len(matrix.names) == model.n
        if model.n:
            await pilot.press("down", "right", "enter")
            assert isinstance(ui.screen, ExplainScreen)
            assert "=>" in str(ui.screen.query_one("#explain").render())
            await pilot.press("escape", "w")  # by workload
            assert matrix.by_workload and set(matrix.names) == {workload_label(p) for p in model.pods}  # CLI names
            matrix.apply_port("53/udp")
            assert matrix.probe == ("UDP", 53)

        ui.goto("audit")
        await pilot.pause()
        assert isinstance(ui.screen, AuditScreen)
        await audited(pilot)
        assert ui.screen.query_one("#findings", VirtualTable).count == len(model.findings)

        ui.goto("nodes")
        await pilot.pause()
        assert isinstance(ui.screen, NodesScreen)
        assert ui.screen.query_one("#pending", VirtualTable).count == len(model.pending)

        ui.goto("policies")
        await pilot.pause()
        assert isinstance(ui.screen, PoliciesScreen)
        assert ui.screen.query_one("#policies", VirtualTable).count == len(model.policies)
        if model.policies:
            assert f"kind: {model.policies[0].kind}" in str(ui.screen.query_one("#policy-yaml").render())
