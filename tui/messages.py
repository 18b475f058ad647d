"""Every message the UI posts, as dataclasses (Textual calls `__post_init__` for them).

Two kinds: what widgets and workers tell their screen or the app (a row highlighted, an analysis ready), and
what screens ask of the app (open a pod, change the what-if edits, run a `:` command). Screens never call the
app: they post one of the requests below to it and read its state through `tui.state.AppState`, so no screen
imports `tui.app` (the app imports the screens; tests/tui/test_imports.py keeps it one way).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from netpol.whatif import Edit
    from tui.model import ViewModel


@dataclass
class RowHighlighted(Message):
    """The cursor of a VirtualTable moved to `row`."""

    table: Any
    row: int

    @property
    def control(self) -> Any:
        return self.table


@dataclass
class RowSelected(Message):
    """Enter (or a second click) on a VirtualTable row."""

    table: Any
    row: int

    @property
    def control(self) -> Any:
        return self.table


@dataclass
class CellHighlighted(Message):
    """The matrix cursor moved to (row, col)."""

    grid: Any
    row: int
    col: int

    @property
    def control(self) -> Any:
        return self.grid


@dataclass
class CellSelected(Message):
    """Enter on a matrix cell."""

    grid: Any
    row: int
    col: int

    @property
    def control(self) -> Any:
        return self.grid


@dataclass
class AnalysisReady(Message):
    """The loader worker finished: a fresh model (first load or reload)."""

    model: ViewModel
    seconds: float
    base: ViewModel | None = None  # the loaded model when `model` has what-if edits applied
    reference: ViewModel | None = None  # OLD, with `netpol tui --old OLD --new NEW`
    said: tuple[str, ...] = ()  # the warnings and notes of this load, as the CLI prints them on stderr


@dataclass
class WhatIfReady(Message):
    """The what-if worker recomputed the model for an edit list."""

    model: ViewModel
    edits: tuple[Any, ...]


@dataclass
class AuditProgress(Message):
    """The audit thread finished a part of `model`'s audit (the checks, or NP060)."""

    model: ViewModel


@dataclass
class LoadFailed(Message):
    """The loader worker failed with a user-facing error (bad manifest, --strict warning, …)."""

    error: str


# ------------------------------------------------------------------------------------ requests: screen → app


@dataclass
class RunCommand(Message):
    """A `:` command line was submitted (`nodes`, `pod web/web1`, `ns web`, …), without the colon."""

    line: str


@dataclass
class GoBack(Message):
    """Esc with nothing left to close on the view: back to the view underneath."""


@dataclass
class OpenPod(Message):
    """Open the page of pod `index` (an index into the model's `all_pods`)."""

    index: int


@dataclass
class OpenObject(Message):
    """Open an audit finding's object: `pod:ns/name`, `policy:ns/name`, `namespace:ns`, `node:name`."""

    ref: str


@dataclass
class ExplainConnection(Message):
    """Explain one connection (pod keys or external ranges as rendered); `note` is shown under it."""

    src: str
    dst: str
    note: str = ""


@dataclass
class SetNamespace(Message):
    """Scope every view to namespace `name` (None: every namespace)."""

    name: str | None


@dataclass
class SetEdits(Message):
    """Show the cluster with these what-if edits (the whole new list, in order)."""

    edits: tuple[Edit, ...]


@dataclass
class UndoEdit(Message):
    """Take back the last what-if edit."""


@dataclass
class AuditWanted(Message):
    """The Audit view is on screen for `model`: start its audit now if it is not done or under way."""

    model: ViewModel
