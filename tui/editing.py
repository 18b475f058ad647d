"""The app's what-if part: the edit list, the edited model computed in a worker, the changes it makes against
the reference (`netpol.whatif` does the computing; this part keeps the state and tells the views)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import work
from textual.app import App

from netpol.diff import Change, DiffReport, diff
from netpol.whatif import Edit, apply_edits, policies_yaml
from netpol.whatif import changes as whatif_changes
from tui.messages import SetEdits, UndoEdit, WhatIfReady
from tui.model import ViewModel
from tui.screens.base import ReachScreen

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path


class Editing(App[None]):
    """Mixed into ReachApp; the attributes are set by ReachApp.__init__."""

    model: ViewModel | None
    loaded: ViewModel | None
    base: ViewModel | None
    edits: tuple[Edit, ...]
    _model_edits: tuple[Edit, ...]
    _changes: tuple[ViewModel, DiffReport] | None
    _written: tuple[Edit, ...]
    status: str
    export_dir: Path

    if TYPE_CHECKING:

        def _refresh_titles(self) -> None: ...

        def _schedule_warm_up(self) -> None: ...

        def showing_model(self) -> None: ...

        def confirm_write(
            self, path: Path, what: str, write: Callable[[], object], note: str = "", elsewhere: str = ""
        ) -> None: ...

    def edit(self, edits: tuple[Edit, ...]) -> None:
        """Show the cluster with `edits` applied (recomputed in a worker; every view follows)."""
        if self.loaded is None:
            return
        self.edits = edits
        self.status = "what-if: recomputing…"
        self._refresh_titles()
        self._whatif(self.loaded, edits)

    def on_set_edits(self, message: SetEdits) -> None:
        self.edit(message.edits)

    def on_undo_edit(self, message: UndoEdit) -> None:
        self.undo()

    def undo(self) -> None:
        if not self.edits:
            self.notify("nothing to undo", severity="warning")
            return
        self.notify(f"undone: {self.edits[-1].describe()}")
        self.edit(self.edits[:-1])

    @work(thread=True, exclusive=True, group="whatif")
    def _whatif(self, base: ViewModel, edits: tuple[Edit, ...]) -> None:
        model = ViewModel(apply_edits(base.analysis, edits), like=base) if edits else base
        self.post_message(WhatIfReady(model, edits))

    def on_what_if_ready(self, message: WhatIfReady) -> None:
        if message.edits != self.edits:  # a later edit is on its way
            return
        self.model = message.model
        self._model_edits = message.edits
        self.showing_model()
        self.status = ""
        for screen in self.screen_stack:
            if isinstance(screen, ReachScreen) and screen.is_mounted:
                screen.refresh_view()
        self._schedule_warm_up()

    def action_write_edits(self) -> None:
        """`W`: the edited cluster's NetworkPolicies as YAML in a new file (never over the input), once confirmed."""
        if not self.edits or self.loaded is None:
            self.notify("no what-if edits to write", severity="warning")
            return
        k = 1
        while (path := self.export_dir / f"netpol-whatif-{k}.yaml").exists():
            k += 1
        edits = self.edits
        text = policies_yaml(self.loaded.analysis, edits)
        n = len(edits)
        note = (
            f"The file holds NetworkPolicies only: every policy of the input with the {n} edit"
            f"{'s' if n != 1 else ''} applied, to use in place of the input's policies (a disabled policy is left "
            "out, so applying the file alone does not delete it). Pods and the rest of the input are not in it."
        )

        def write() -> None:
            path.write_text(text, encoding="utf-8")
            self._written = edits

        what = f"the policies with {n} what-if edit{'s' if n != 1 else ''}"
        self.confirm_write(path, what, write, note, elsewhere="")

    @property
    def comparing(self) -> bool:
        """Changes are marked: there are what-if edits, or the app compares with OLD (--against)."""
        return self.base is not None and self.model is not None and self.base is not self.model

    @property
    def changes(self) -> DiffReport | None:
        """What the edits (and --against) change, as `netpol diff BASE SHOWN` reports it; None when nothing is
        compared."""
        if not self.comparing:
            return None
        assert self.base is not None and self.model is not None
        if self._changes is None or self._changes[0] is not self.model:
            edits = self._model_edits
            if self.base is self.loaded and edits:  # what-if alone: read only where the edits reach
                report = whatif_changes(self.base.analysis, self.model.analysis, edits)
            else:  # --against: two clusters, the whole diff
                report = diff(self.base.analysis, self.model.analysis)
            self._changes = (self.model, report)
        return self._changes[1]

    def pod_changes(self, key: str) -> list[Change]:
        """The changes involving one pod (its page's what-if line), without the whole list when what-if alone."""
        if not self.comparing:
            return []
        assert self.base is not None and self.model is not None
        edits = self._model_edits
        index = self.base.index_of.get(key)
        if self.base is self.loaded and edits and (self._changes is None or self._changes[0] is not self.model):
            if index is None or index >= self.base.n:
                return []
            return whatif_changes(self.base.analysis, self.model.analysis, edits, pod=index).changes
        report = self.changes
        return [c for c in report.changes if key in (c.src, c.dst)] if report is not None else []
