"""Help (`?`) and export (`e`) dialogs."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

GLOBAL_HELP = """\
Keys (every view)
  /       filter: name  ns/  ns/name  label=value  (terms ANDed)
  :       command: :pods :nodes :policies :audit :matrix
          :ns web (:ns clears)  :pod web/web1  :port 80/TCP  :quit
  Enter   open the highlighted row    Esc     back / close prompt
  Tab     next list or panel          r       reload from disk
  e       export view to a file       ?       this help
  ctrl+p  command palette             q       quit

Glyphs: . every port allowed  ~ some ports  X denied
(colour only repeats the glyph)
Isolated: some policy selects the pod for that direction;
open: no policy does, so everything is allowed that way."""


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,question_mark,q", "dismiss", "Close")]

    def __init__(self, view: str = "", text: str = "") -> None:
        super().__init__()
        self.view, self.text = view, text

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box", classes="dialog"):
            yield Label(f"Help · {self.view}", id="help-title", classes="section")
            yield Static(self.text + "\n", markup=False, id="help-view", classes="" if self.text else "hidden")
            yield Static(GLOBAL_HELP, markup=False)

    def set_view(self, view: str, text: str) -> None:
        """Reuse this dialog for another view (it is composed once, ahead of time)."""
        self.view, self.text = view, text
        if self.is_mounted:
            self.query_one("#help-title", Label).update(f"Help · {view}")
            body = self.query_one("#help-view", Static)
            body.update(text + "\n")
            body.set_class(not text, "hidden")
            self.query_one("#help-box", VerticalScroll).scroll_home(animate=False)

    def action_dismiss(self) -> None:  # type: ignore[override]
        self.dismiss(None)


class ExportScreen(ModalScreen[Path | None]):
    """Asks for a file name; returns the chosen path (the app writes)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, default: Path) -> None:
        super().__init__()
        self.default = default

    def compose(self) -> ComposeResult:
        with Vertical(id="export-box", classes="dialog"):
            yield Label("Export this view to (Enter to write, Esc to cancel):")
            yield Input(str(self.default), id="export-path")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        value = event.value.strip()
        self.dismiss(Path(value) if value else None)

    def action_cancel(self) -> None:
        self.dismiss(None)
