"""The `/`, `:` and `p` prompt: a visible line under the title with a caret and a hint; every key goes to it while
it is open; Esc cancels and clears the filter (k9s)."""

from __future__ import annotations

import pytest
from textual import events
from textual.notifications import Notify
from textual.widgets import Input

from tests.tui.conftest import loaded
from tui.app import ReachApp
from tui.screens.matrix import MatrixScreen
from tui.screens.nodes import NodesScreen
from tui.screens.pods import PodsScreen
from tui.widgets.keybar import KeyBar
from tui.widgets.vtable import VirtualTable

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((160, 48), id="160x48")]


def prompt_line(app: ReachApp) -> str:
    """The prompt line as drawn: label, typed text, hint."""
    bar = app.screen.query_one("#prompt-bar")
    return " ".join(str(w.render()) if not isinstance(w, Input) else w.value for w in bar.children)


@pytest.mark.parametrize("size", SIZES)
async def test_command_prompt_is_visible_above_the_key_bar_while_typing(seed_app: ReachApp, size) -> None:
    async with seed_app.run_test(size=size) as pilot:
        await loaded(pilot)
        await pilot.press("colon", *"nod")
        screen = seed_app.screen
        prompt = screen.query_one("#prompt", Input)
        bar = screen.query_one("#prompt-bar")
        keys = screen.query_one(KeyBar)
        assert bar.display and bar.region.height == 1
        assert not bar.region.overlaps(keys.region)  # the key bar no longer hides what is typed
        assert bar.region.y < screen.query_one("#pods", VirtualTable).region.y  # above the table (k9s)
        assert seed_app.focused is prompt and prompt.value == "nod"
        assert prompt.cursor_position == 3  # the caret after what was typed
        assert prompt_line(seed_app).startswith(": nod") and "esc cancel" in prompt_line(seed_app)
        await pilot.press("escape")
        assert not bar.display and isinstance(seed_app.screen, PodsScreen)
        assert seed_app.focused is screen.query_one("#pods", VirtualTable)


@pytest.mark.parametrize("size", SIZES)
async def test_escape_cancels_the_filter_prompt_and_clears_the_filter(seed_app: ReachApp, size) -> None:
    async with seed_app.run_test(size=size) as pilot:
        await loaded(pilot)
        pods = seed_app.screen.query_one("#pods", VirtualTable)
        await pilot.press("slash", *"web1")
        assert pods.count == 1 and "/web1" in prompt_line(seed_app).replace(" ", "")
        await pilot.press("escape")
        assert pods.count == 4 and seed_app.screen.filter_text == ""
        # A kept filter (Enter) is cleared by the next Esc, before Esc goes back.
        await pilot.press("slash", *"web", "enter")
        assert pods.count == 3 and not seed_app.screen.query_one("#prompt-bar").display
        await pilot.press("escape")
        assert pods.count == 4 and isinstance(seed_app.screen, PodsScreen)


async def test_every_key_goes_to_the_open_prompt(seed_app: ReachApp) -> None:
    """Bindings of the view (`e` export, `q` quit, `r` reload, `?` help) are text while the prompt is open."""
    async with seed_app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("colon", *"eqr?w")
        assert seed_app.screen.query_one("#prompt", Input).value == "eqr?w"
        assert isinstance(seed_app.screen, PodsScreen) and seed_app.loads == 1 and seed_app.is_running


async def test_a_burst_of_keys_runs_only_the_typed_command(seed_app: ReachApp, tmp_path) -> None:
    """`:nodes⏎` posted in one go (as a paste or tmux send-keys delivers it) opens the Nodes view and nothing
    else: before the fix, the prompt took focus a turn late and `e` + Enter exported the pods view."""
    async with seed_app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        for key, char in [("colon", ":"), *((c, c) for c in "nodes"), ("enter", "\r")]:
            event = events.Key(key, char)
            event.set_sender(seed_app)
            seed_app._driver.send_message(event)  # as the terminal driver delivers input: no pause between keys
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()
        assert isinstance(seed_app.screen, NodesScreen)
        assert list(tmp_path.iterdir()) == []


async def test_a_pasted_command_opens_the_prompt_with_its_first_line(seed_app: ReachApp, tmp_path) -> None:
    async with seed_app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        seed_app.screen.post_message(events.Paste(":matrix\ne\ny\n"))
        await pilot.pause()
        assert seed_app.screen.query_one("#prompt", Input).value == "matrix"
        await pilot.press("enter")
        assert isinstance(seed_app.screen, MatrixScreen)
        assert list(tmp_path.iterdir()) == []


async def test_port_prompt_on_the_matrix(seed_app: ReachApp) -> None:
    async with seed_app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("colon", *"matrix", "enter", "p", *"53/udp")
        assert prompt_line(seed_app).startswith("port  53/udp")
        await pilot.press("enter")
        assert seed_app.screen.probe == ("UDP", 53)


async def test_a_paste_into_the_open_prompt_keeps_its_first_line_and_says_what_it_left_out(seed_app: ReachApp) -> None:
    """Issue 25: the second of two pasted commands was dropped without a word (Input keeps a paste's first line,
    textual/widgets/_input.py `_on_paste`). The first line is typed in, once; the rest is named in a warning."""
    toasts: list[str] = []

    def hook(message) -> None:  # noqa: ANN001
        if isinstance(message, Notify):
            toasts.append(message.notification.message)

    async with seed_app.run_test(size=(80, 24), message_hook=hook) as pilot:
        await loaded(pilot)
        await pilot.press("colon")
        prompt = seed_app.screen.query_one("#prompt", Input)
        prompt.post_message(events.Paste("matrix\n:nodes\n"))
        await pilot.pause()
        assert prompt.value == "matrix"
        assert any(
            t.startswith("pasted 2 lines: only the first is in the prompt; 1 not run (':nodes')") for t in toasts
        )
        await pilot.press("enter")
        assert isinstance(seed_app.screen, MatrixScreen)
