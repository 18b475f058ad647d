"""The three private Textual calls the UI makes, in one place, each behind a feature check with a fallback.

They only make the first visit of a view faster (compose and lay it out ahead, off screen: see
`ReachApp.warm_up`); without them every view still works, composed and laid out when first shown. When
upgrading Textual, run `python3 benchmarks/bench_tui.py` (first-visit and key latencies) and the snapshot
tests; `tests/tui/test_textual_private.py` says whether each call is still found.
"""

from __future__ import annotations

from textual.app import App
from textual.geometry import Size
from textual.screen import Screen

# textual/app.py: `_register(parent, *widgets)` is what `push_screen` uses to mount a screen (`_get_screen`).
HAS_REGISTER = callable(getattr(App, "_register", None))
# textual/screen.py: `_refresh_layout(size)` lays the screen out for a size; `_size` is the size it last had.
HAS_LAYOUT = callable(getattr(Screen, "_refresh_layout", None))


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
