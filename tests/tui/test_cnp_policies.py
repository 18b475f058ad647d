"""ClusterNetworkPolicies in the UI (issue 21, scope 4): the Policies view lists them with kind, tier and
priority; space disables one (what-if) and every view follows; `y` shows one as read. On user story 3 of
samples/cluster-network-policy (README there: nothing reaches bar-ns-1/internal; the Admin Deny of priority 30
does that)."""

from __future__ import annotations

import argparse

import yaml

from netpol.commands.context import Context
from netpol.pipeline import Analysis
from tests.tui.conftest import ROOT, loaded, settle
from tui.app import ReachApp
from tui.screens.modals import TextScreen
from tui.widgets.vtable import VirtualTable

SAMPLE = ROOT / "samples" / "cluster-network-policy"


def story_3() -> Analysis:
    ctx = Context(argparse.Namespace(paths=[str(SAMPLE / "cluster.yaml"), str(SAMPLE / "user-story-3")]))
    return ctx.analyze(ctx.load())


def rows(app: ReachApp) -> list[list[str]]:
    t = app.screen.query_one("#policies", VirtualTable)
    return [[c.strip() for c in t.row_text(k)] for k in range(t.count)]


def allowed(app: ReachApp, src: str, dst: str) -> str:
    model = app.model
    assert model is not None
    r = model.r
    return r.connection(r.pod_index[src], r.pod_index[dst]).render()


async def test_policies_list_kind_tier_priority_and_a_cnp_can_be_disabled(tmp_path) -> None:
    app = ReachApp(story_3, export_dir=tmp_path)
    async with app.run_test(size=(160, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("colon", *"np", "enter")
        table = app.screen.query_one("#policies", VirtualTable)
        assert [c.title.rstrip("↑↓") for c in table.columns] == ["POLICY", "KIND", "TIER", "TYPES", "SELECTS"]
        assert [r[:4] for r in rows(app)] == [
            ["CNP bar-ns-1-admin-deny", "ClusterNetworkPolicy", "kube-admin (priority 30)", "Egress"],
            ["CNP pub-svc-delegate-example", "ClusterNetworkPolicy", "kube-admin (priority 20)", "Egress"],
            ["foo-ns-1/allow-svc-pub-http", "NetworkPolicy", "default", "Egress"],
        ]
        # `y`: the object as read.
        await pilot.press("y")
        assert isinstance(app.screen, TextScreen)
        doc = yaml.safe_load(str(app.screen.query_one("#text-body").render()))
        assert doc["kind"] == "ClusterNetworkPolicy" and doc["spec"]["priority"] == 30
        await pilot.press("escape")
        # space: disable the Admin Deny; foo-ns-2 then reaches bar-ns-1/internal (nothing else decides there).
        assert allowed(app, "foo-ns-2/client", "bar-ns-1/internal") == "No Connections"
        await pilot.press("space")
        await app.workers.wait_for_complete()
        await settle(pilot)
        assert rows(app)[0][0] == "CNP bar-ns-1-admin-deny (disabled)"
        assert allowed(app, "foo-ns-2/client", "bar-ns-1/internal") == "All Connections"
