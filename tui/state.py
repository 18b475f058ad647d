"""What a screen may read of the app: the app's state as a Protocol, so that screens need not import the app.

Screens read the state here and ask for changes by posting `tui.messages` requests (`OpenPod`, `SetEdits`, …),
which the app handles: the app imports the screens, never the other way round (Textual's way: data down,
messages up). `tui.app` checks that `ReachApp` satisfies this Protocol.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from netpol.diff import Change, DiffReport
    from netpol.whatif import Edit
    from tui.model import ViewModel


class AppState(Protocol):
    """The app as screens see it: read-only by convention (changes go through `tui.messages`)."""

    @property
    def model(self) -> ViewModel | None:
        """The model on screen: the loaded cluster with the what-if edits applied (None until the first load)."""

    @property
    def loaded(self) -> ViewModel | None:
        """The model as loaded, before what-if edits."""

    @property
    def base(self) -> ViewModel | None:
        """The reference changes are marked against: `loaded`, or OLD with `--against` / `--old`."""

    @property
    def namespace(self) -> str | None:
        """The namespace every view is scoped to (None: every namespace)."""

    @property
    def edits(self) -> tuple[Edit, ...]:
        """The what-if edits, in order (they may run ahead of `model` while it is recomputed)."""

    @property
    def status(self) -> str:
        """What the app is doing when it is not idle (`loading…`, `what-if: recomputing…`); empty when idle."""

    @property
    def load_error(self) -> str | None:
        """Why the last load failed (kept on screen until a load succeeds); None when it did not."""

    @property
    def origin(self) -> str:
        """Where the data comes from, when the title must say it: `live CONTEXT`, `new B · old A`; else empty."""

    @property
    def load_notes(self) -> tuple[str, ...]:
        """What the last good load said besides its result: its warnings and notes as the CLI prints them on
        stderr (`warning: …`, `note: …`), which the screen would otherwise hide."""

    @property
    def comparing(self) -> bool:
        """Changes are marked: there are what-if edits, or the app compares with OLD."""

    @property
    def changes(self) -> DiffReport | None:
        """What the edits (and OLD) change, as `netpol diff` reports it; None when nothing is compared."""

    def pod_changes(self, key: str) -> list[Change]:
        """The changes involving one pod."""
        ...
