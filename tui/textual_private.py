"""The private Textual calls the UI makes, in one place, each behind a feature check with a fallback.

The first three only make the first visit of a view faster (compose and lay it out ahead, off screen: see
`ReachApp.warm_up`); without them every view still works, composed and laid out when first shown. The fourth,
`event_clock`, reads the clock events are stamped with, so that a dialog can tell the keys typed while it was
up (`tui.screens.modals.Dialog`). When
upgrading Textual, run `python3 benchmarks/bench_tui.py` (first-visit and key latencies) and the snapshot
tests; `tests/tui/test_textual_private.py` says whether each call is still found.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from textual import events
from textual.app import App
from textual.geometry import Size
from textual.screen import Screen

try:  # textual/_time.py: the clock Textual stamps events with (`Message.time`): monotonic, perf_counter on Windows
    from textual._time import get_time as _event_clock
except ImportError:  # pragma: no cover - an older or newer layout: monotonic, as Textual uses on Linux and macOS
    _event_clock = time.monotonic

event_clock: Callable[[], float] = _event_clock

try:  # textual/_xterm_parser.py: the parser the terminal drivers' input thread feeds each read to
    from textual._xterm_parser import XTermParser
except ImportError:  # pragma: no cover - another layout: keys keep the times their parser gives them
    XTermParser = None  # type: ignore[assignment,misc]

# textual/app.py: `_register(parent, *widgets)` is what `push_screen` uses to mount a screen (`_get_screen`).
HAS_REGISTER = callable(getattr(App, "_register", None))
# textual/screen.py: `_refresh_layout(size)` lays the screen out for a size; `_size` is the size it last had.
HAS_LAYOUT = callable(getattr(Screen, "_refresh_layout", None))


def stamp_keys_per_read() -> bool:
    """Give every key parsed from one terminal read the time of that read; False when this Textual has no parser
    to wrap. The input thread stamps a key as it parses it, interleaved with handing the keys over: on a loaded
    machine the app could answer and close a dialog between two keys of one paste or tmux send-keys, and the
    last keys then looked typed after it (`tui.screens.modals.Dialog.typed_while_open`). Pilot's keys do not go
    through the parser."""
    if XTermParser is None:
        return False
    if getattr(XTermParser.feed, "stamped_per_read", False):
        return True
    original = XTermParser.feed

    def feed(self: XTermParser, data: str) -> Iterable[object]:
        now = _event_clock()
        for message in original(self, data):
            if isinstance(message, events.Key):
                message.time = now
            yield message

    feed.stamped_per_read = True  # type: ignore[attr-defined]
    XTermParser.feed = feed  # type: ignore[method-assign,assignment]
    return True


def mount_off_screen(app: App, screen: Screen) -> bool:
    """Compose and mount `screen` without showing it; False when this Textual cannot (it is composed on its
    first visit instead)."""
    if not HAS_REGISTER:
        return False
    try:
        app._register(app, screen)
    except Exception:  # noqa: BLE001 - an optimisation only: never let it break the UI
        return False
    return True


def needs_layout(screen: Screen, size: Size) -> bool:
    """Whether `screen` was laid out for another size than `size` (False when this Textual cannot tell)."""
    return HAS_LAYOUT and getattr(screen, "_size", size) != size


def lay_out(screen: Screen, size: Size) -> bool:
    """Lay the hidden `screen` out for `size`, as showing it would; False when that failed or is unavailable."""
    if not HAS_LAYOUT:
        return False
    try:
        screen._refresh_layout(size)
    except Exception:  # noqa: BLE001 - private API, an optimisation only
        return False
    return True
