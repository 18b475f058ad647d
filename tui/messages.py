"""Every message the UI posts, as dataclasses (Textual calls `__post_init__` for them)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
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
    reference: ViewModel | None = None  # OLD, with `netpol tui OLD --against NEW`


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
