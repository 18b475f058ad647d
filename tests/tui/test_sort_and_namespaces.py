"""k9s sorting (shift + the column's letter, again reverses, the header shows it) on every list view, the `:ns`
picker, and `:pod` with the CLI's pod grammar."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from tests.tui.conftest import audited, loaded
from tui.app import ReachApp
from tui.findings import SEVERITIES
from tui.screens.audit import AuditScreen
from tui.screens.detail import PodDetailScreen
from tui.screens.namespaces import NamespacesScreen
from tui.screens.nodes import NodesScreen
from tui.screens.pods import PodsScreen
from tui.widgets.vtable import VirtualTable


def names(app: ReachApp, sel: str = "#pods", column: int = 1) -> list[str]:
    t = app.screen.query_one(sel, VirtualTable)
    return [t.row_text(k)[column] for k in range(t.count)]


async def test_shift_letter_sorts_and_again_reverses(seed_app: ReachApp) -> None:
    async with seed_app.run_test(size=(100, 30)) as pilot:
        await loaded(pilot)
        assert names(seed_app) == ["test", "test", "web1", "web2"]  # namespace/name order
        await pilot.press("N")
        assert names(seed_app) == ["test", "test", "web1", "web2"]
        assert seed_app.screen.query_one("#pods", VirtualTable).columns[1].title == "NAME↑"
        await pilot.press("N")
        assert names(seed_app) == ["web2", "web1", "test", "test"]
        assert seed_app.screen.query_one("#pods", VirtualTable).columns[1].title == "NAME↓"
        await pilot.press("R")  # ingress, alphabetically: isolated before open
        assert names(seed_app, column=5)[0] == "isolated" and names(seed_app)[0] == "web1"
        await pilot.press("colon", *"np", "enter", "S")
        assert seed_app.screen.query_one("#policies", VirtualTable).columns[2].title == "SELECTS↑"


async def test_namespace_picker_scopes_every_view_and_zero_shows_all(seed_app: ReachApp) -> None:
    async with seed_app.run_test(size=(100, 30)) as pilot:
        await loaded(pilot)
        await pilot.press("colon", *"ns", "enter")
        assert isinstance(seed_app.screen, NamespacesScreen)
        assert names(seed_app, "#namespaces", 0) == ["all *", "cyh", "web"]
        await pilot.press("down", "down", "enter")
        assert isinstance(seed_app.screen, PodsScreen) and seed_app.namespace == "web"
        assert names(seed_app) == ["test", "web1", "web2"] and "ns web" in str(
            seed_app.screen.query_one("#title").render()
        )
        await pilot.press("colon", *"ns", "enter")
        assert names(seed_app, "#namespaces", 0)[2] == "web *"
        await pilot.press("0")
        assert seed_app.namespace is None and len(names(seed_app)) == 4
        await pilot.press("colon", *"ns web", "enter", "colon", *"ns 0", "enter")
        assert seed_app.namespace is None


def detail_text(app: ReachApp, sel: str) -> str:
    return str(app.screen.query_one(sel, Static).render())


async def test_nodes_sort_by_shift_letter_and_the_detail_follows_the_sorted_row(seed_app: ReachApp) -> None:
    async with seed_app.run_test(size=(120, 35)) as pilot:
        await loaded(pilot)
        await pilot.press("colon", *"nodes", "enter")
        assert isinstance(seed_app.screen, NodesScreen)
        model = seed_app.model
        assert model is not None
        pods = {info.name: len(info.pods) for info in model.node_infos}
        assert len(set(pods.values())) > 1, pods  # the seed lab's nodes carry different numbers of pods
        node_names = lambda: [n.split(" ")[0] for n in names(seed_app, "#nodes", 0)]  # noqa: E731
        unsorted = node_names()
        await pilot.press("P")
        assert [pods[n] for n in node_names()] == sorted(pods.values())
        assert seed_app.screen.query_one("#nodes", VirtualTable).columns[1].title == "PODS↑"
        await pilot.press("P")
        assert [pods[n] for n in node_names()] == sorted(pods.values(), reverse=True)
        assert seed_app.screen.query_one("#nodes", VirtualTable).columns[1].title == "PODS↓"
        # the cursor stays on the node it was on, wherever the sort put it; the panel and `d` follow the row
        table = seed_app.screen.query_one("#nodes", VirtualTable)
        assert table.cursor == node_names().index(unsorted[0])
        await pilot.press("down")
        here = node_names()[table.cursor]
        assert detail_text(seed_app, "#node-detail").startswith(here + " ")
        await pilot.press("d")
        assert f"Name:          {here}" in str(seed_app.screen.query_one("#text-body").render())
        await pilot.press("escape", "N")
        assert node_names() == sorted(unsorted)
        await pilot.press("N")
        assert node_names() == sorted(unsorted, reverse=True)
        assert seed_app.screen.query_one("#nodes", VirtualTable).columns[0].title == "NODE↓"


async def test_audit_sorts_by_id_and_back_to_severity(seed_app: ReachApp) -> None:
    async with seed_app.run_test(size=(120, 35)) as pilot:
        await loaded(pilot)
        await pilot.press("colon", *"audit", "enter")
        await audited(pilot)
        assert isinstance(seed_app.screen, AuditScreen)
        ids = lambda: names(seed_app, "#findings", 1)  # noqa: E731
        by_severity = ids()
        assert by_severity != sorted(by_severity)  # NP001 NP001 NP003 NP003 NP002 …: medium before low
        await pilot.press("I")
        assert ids() == sorted(by_severity)
        assert seed_app.screen.query_one("#findings", VirtualTable).columns[1].title == "ID↑"
        await pilot.press("I")
        assert ids() == sorted(by_severity, reverse=True)
        table = seed_app.screen.query_one("#findings", VirtualTable)
        await pilot.press("home")
        # the sorted row: NP090 (the seed lab's NodePort Services, web2's medium before web1's low: a stable sort)
        assert table.cursor == 0 and detail_text(seed_app, "#finding").startswith("[medium] NP090")
        await pilot.press("S")
        severities = names(seed_app, "#findings", 0)
        assert severities == sorted(severities, key=lambda s: SEVERITIES.index(s))
        assert seed_app.screen.query_one("#findings", VirtualTable).columns[0].title == "SEVERITY↑"


async def test_pod_command_uses_the_cli_grammar_and_says_did_you_mean(
    seed_app: ReachApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    said: list[str] = []
    async with seed_app.run_test(size=(120, 35)) as pilot:
        await loaded(pilot)
        monkeypatch.setattr(seed_app, "notify", lambda message, **kw: said.append(str(message)))
        await pilot.press("colon", *"pod wbe1", "enter")
        assert isinstance(seed_app.screen, PodsScreen)
        assert said[-1] == "no pod named 'wbe1'; did you mean web/web1?"
        await pilot.press("colon", *"pod web/web3", "enter")
        assert said[-1] == 'pods "web/web3" not found; did you mean web/web2, web/web1 or web/test?'
        await pilot.press("colon", *"pod test", "enter")
        assert said[-1].startswith("'test' is ambiguous: cyh/test, web/test")
        await pilot.press("colon", *"po pod/web/web2", "enter")  # kubectl's kind/ form, as the CLI reads it
        assert isinstance(seed_app.screen, PodDetailScreen) and seed_app.screen.key == "web/web2"
        await pilot.press("escape", "colon", *"pod web1", "enter")  # a bare name unique across namespaces
        assert isinstance(seed_app.screen, PodDetailScreen) and seed_app.screen.key == "web/web1"
