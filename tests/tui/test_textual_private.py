"""The private Textual calls the UI relies on for speed are still there, and the UI works without them."""

from __future__ import annotations

from tests.tui.conftest import loaded
from tui import textual_private
from tui.app import ReachApp
from tui.screens.nodes import NodesScreen


def test_this_textual_still_has_the_private_calls() -> None:
    """Fails on a Textual upgrade that renamed them: the UI still works (see below), first visits are slower;
    check with benchmarks/bench_tui.py before raising the upper bound in pyproject.toml."""
    assert textual_private.HAS_REGISTER and textual_private.HAS_LAYOUT


async def test_views_work_without_the_private_calls(seed_app: ReachApp, monkeypatch) -> None:
    monkeypatch.setattr(textual_private, "HAS_REGISTER", False)
    monkeypatch.setattr(textual_private, "HAS_LAYOUT", False)
    async with seed_app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        assert not seed_app.views["nodes"].is_mounted  # nothing composed ahead
        await pilot.press("colon", *"nodes", "enter")
        assert isinstance(seed_app.screen, NodesScreen) and seed_app.screen.query_one("#nodes").count == 3


def test_the_keys_of_one_terminal_read_share_its_time() -> None:
    """A burst read at once (a paste, tmux send-keys) is one moment: its keys carry one time, so a dialog closed
    between two of them still owns the rest (tui.screens.modals.Dialog.typed_while_open). Fails on a Textual
    whose terminal parser moved."""
    from textual import events

    assert textual_private.stamp_keys_per_read()
    assert textual_private.stamp_keys_per_read()  # once only: the wrapper is not wrapped again
    parser = textual_private.XTermParser()
    keys = [e for e in parser.feed(":nodes\r") if isinstance(e, events.Key)]
    assert [k.key for k in keys] == ["colon", "n", "o", "d", "e", "s", "enter"]
    assert len({k.time for k in keys}) == 1
    later = [e for e in parser.feed("q") if isinstance(e, events.Key)]
    assert later[0].time > keys[0].time
