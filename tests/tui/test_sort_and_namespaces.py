"""k9s sorting (shift + the column's letter, again reverses, the header shows it) and the `:ns` picker."""

from __future__ import annotations

from tests.tui.conftest import loaded
from tui.app import ReachApp
from tui.screens.namespaces import NamespacesScreen
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
