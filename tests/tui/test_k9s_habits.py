"""k9s habits on every list view: `d` describe (facts and computed summary), `y` YAML of the object under the
cursor; a Pending pod's page says why it is Pending, as the Nodes view does."""

from __future__ import annotations

import pytest
import yaml

from tests.tui.conftest import audited, loaded, pending_loader
from tui.app import ReachApp
from tui.screens.detail import PodDetailScreen
from tui.screens.modals import TextScreen


def sheet(app: ReachApp) -> str:
    assert isinstance(app.screen, TextScreen)
    return str(app.screen.query_one("#text-body").render())


async def test_describe_a_pod_names_isolation_policies_and_peers(seed_app: ReachApp) -> None:
    async with seed_app.run_test(size=(100, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("slash", *"web1", "enter", "d")
        text = sheet(seed_app)
        assert "Ingress:   isolated" in text and "Egress:    open" in text
        assert "Selected by 1 policies:\n    web/web1-allow-test" in text
        assert "Can be reached by 1 peers:\n    web/test" in text
        await pilot.press("escape", "y")
        doc = yaml.safe_load(sheet(seed_app))
        assert doc["kind"] == "Pod" and doc["metadata"] == {
            "name": "web1",
            "namespace": "web",
            "labels": {"run": "web1"},
        }
        assert doc["spec"]["containers"][0]["ports"] == [{"name": "http", "containerPort": 80, "protocol": "TCP"}]


async def test_describe_and_yaml_of_a_policy(seed_app: ReachApp) -> None:
    async with seed_app.run_test(size=(100, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("colon", *"np", "enter", "d")
        text = sheet(seed_app)
        assert "Name:         web1-allow-test" in text and "Selects 1 pods" in text and "    web/web1" in text
        assert "Ingress rules admit 1 peers:\n    web/test" in text
        await pilot.press("escape", "y")
        doc = yaml.safe_load(sheet(seed_app))
        assert doc["kind"] == "NetworkPolicy" and doc["metadata"]["name"] == "web1-allow-test"


@pytest.mark.parametrize(("view", "keys", "expect"), [("nodes", [], "Name:          master30"), ("audit", [], "NP001")])
async def test_describe_on_nodes_and_audit(seed_app: ReachApp, view: str, keys: list[str], expect: str) -> None:
    async with seed_app.run_test(size=(100, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("colon", *view, "enter", *keys)
        await audited(pilot)  # the audit view lists its findings once the audit worker is done
        await pilot.press("d")
        assert expect in sheet(seed_app)
        await pilot.press("escape", "y")
        assert yaml.safe_load(sheet(seed_app))


async def test_a_pending_pod_page_says_why_as_the_nodes_view_does(tmp_path) -> None:
    app = ReachApp(pending_loader, export_dir=tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("colon", *"nodes", "enter", "tab")
        reason = app.model.pending[0].reason
        assert app.screen.query_one("#pending").row_text(0)[1] == (reason or "not scheduled")
        await pilot.press("enter")
        assert isinstance(app.screen, PodDetailScreen) and app.screen.key == "web/db"
        assert f"Pending: {reason or 'not scheduled'}" in str(app.screen.query_one("#explain").render())
        await pilot.press("d")
        assert f"Status:      Pending: {reason or 'not scheduled'}" in sheet(app)
