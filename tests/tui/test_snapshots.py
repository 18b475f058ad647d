"""SVG snapshots of every screen at 80×24 and 160×48 (pytest --snapshot-update tests/tui to regenerate)."""

from __future__ import annotations

import pytest

from tests.tui.conftest import audited, loaded, pending_loader, real_app_loader, seed_loader, settle
from tui.app import ReachApp

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((160, 48), id="160x48")]

# screen → (`:` command run directly, keys pressed after it); the Pilot journeys type the commands
JOURNEYS = {
    "pods": ("", []),
    "filter": ("", ["slash", *"web1"]),  # the prompt line under the title, the caret after `web1`
    "command": ("", ["colon", *"nod"]),
    "pod_detail": ("pod web/web1", []),
    "matrix": ("matrix", ["down", "right", "right"]),
    "explain": ("matrix", ["down", "right", "right", "enter"]),
    "audit": ("audit", []),
    "nodes": ("nodes", ["tab", "tab"]),
    "policies": ("policies", []),
    "help": ("", ["question_mark"]),
}


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("view", list(JOURNEYS))
def test_screen_snapshot(snap_compare, view: str, size: tuple[int, int], tmp_path) -> None:
    app = ReachApp(pending_loader if view == "nodes" else seed_loader, export_dir=tmp_path)

    async def before(pilot) -> None:  # noqa: ANN001
        await loaded(pilot)
        command, keys = JOURNEYS[view]
        if command:
            pilot.app.run_command_line(command)
            await pilot.pause()
        await pilot.press(*keys)
        if view == "audit":
            await audited(pilot)  # the audit runs in a worker once the view asks for it
        await pilot.app.workers.wait_for_complete()
        await settle(pilot)  # the key bar follows the focus

    assert snap_compare(app, terminal_size=size, run_before=before)


@pytest.mark.parametrize("view", ["pod_detail", "matrix"])
def test_light_theme_snapshot(snap_compare, view: str, tmp_path) -> None:
    """The same views in Textual's light theme: every colour comes from theme variables."""
    app = ReachApp(seed_loader, export_dir=tmp_path)

    async def before(pilot) -> None:  # noqa: ANN001
        pilot.app.theme = "textual-light"
        await loaded(pilot)
        command, keys = JOURNEYS[view]
        pilot.app.run_command_line(command)
        await pilot.pause()
        await pilot.press(*keys)
        await pilot.app.workers.wait_for_complete()
        await settle(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=before)


def test_matrix_of_online_boutique_is_readable_at_80x24(snap_compare, tmp_path) -> None:
    """Twelve pods: whole row names, column numbers apart, the legend line naming the columns by workload, the
    cell under the cursor named in full below the grid."""
    app = ReachApp(real_app_loader("online-boutique"), export_dir=tmp_path)

    async def before(pilot) -> None:  # noqa: ANN001
        await loaded(pilot)
        pilot.app.run_command_line("matrix")
        await pilot.press("down", "right", "right")
        await settle(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=before)
