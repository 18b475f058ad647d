"""Cilium's policies in the UI: the policies view lists them with their kind and tier (columns shown only when
some policy is not a Kubernetes NetworkPolicy), in Pilot and in a real terminal."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from netpol.commands.context import Context
from tests.conftest import REAL_APPS
from tests.tui.conftest import loaded
from tests.tui.test_terminal import Terminal
from tui.app import ReachApp
from tui.screens.policies import PoliciesScreen
from tui.widgets.vtable import VirtualTable

DEMO = REAL_APPS / "cilium-starwars"


def _loader(folder: Path):  # noqa: ANN202
    def load():  # noqa: ANN202
        ctx = Context(argparse.Namespace(paths=[str(folder)]))
        return ctx.analyze(ctx.load())

    return load


async def test_policies_view_lists_cilium_policies_with_kind_and_tier(tmp_path: Path) -> None:
    ui = ReachApp(_loader(DEMO / "deny"), export_dir=tmp_path)
    async with ui.run_test(size=(140, 36)) as pilot:
        await loaded(pilot)
        ui.goto("policies")
        await pilot.pause()
        screen = ui.screen
        assert isinstance(screen, PoliciesScreen)
        table = screen.query_one("#policies", VirtualTable)
        titles = [c.title for c in table.columns]
        assert titles[:3] == ["POLICY", "KIND", "TIER"]
        assert [e.key for e in screen.rows] == ["cnp default/empire-default-deny"]
        model = ui.model
        assert model is not None
        cp = model.policies[screen.rows[0].k]
        assert (cp.kind, cp.tier.label) == ("CiliumNetworkPolicy", "NetworkPolicy tier")
        # it selects the two Death Star replicas and the TIE fighter (org: empire), and admits no one
        assert len(model.policy_selected(screen.rows[0].k)) == 3
        admits, external = model.policy_admits(screen.rows[0].k)
        assert len(admits) == 0 and external == []


def test_policies_view_in_a_real_terminal(tmp_path: Path) -> None:
    term = Terminal(tmp_path, sys.executable, "-m", "netpol.cli", "tui", str(DEMO / "l3-l4"))
    try:
        term.wait_for(lambda s: "pods (" in s and "xwing" in s, "the loaded pods view")
        term.send(":np", "Enter")
        screen = term.wait_for(lambda s: "cnp default/rule1" in s and "policies (" in s, "the policies view")
        assert "CiliumNetw" in screen and "KIND" in screen
    finally:
        term.close()
