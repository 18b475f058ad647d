"""Help (`?`) and the confirmation asked before writing a file (`e` export)."""

from __future__ import annotations

from pathlib import Path

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

GLOBAL_HELP = """\
Keys (every view)
  /       filter: name  ns/  ns/name  label=value  (terms ANDed)
  :       command: :pods (:po) :nodes (:no) :policies (:np) :audit :matrix
          :ns picks a namespace (:ns web; :ns 0 or :ns all: every one)
          :pod web/web1  :port 80/TCP  :export PATH  :help  :quit
          While a prompt is open every key goes to it; Enter runs, Esc cancels.
  Enter   open the highlighted row    Esc     close prompt / clear filter / back
  d       describe (facts + computed: isolation, policies, peers)
  y       YAML of the object under the cursor
  S-key   sort by a column (the view's help lists them); again reverses
  Tab     next list or panel          r       reload from disk
  e       export view (asks: y writes, Enter cancels; :export PATH)
What-if (nothing on disk changes until W)
  space   disable / enable the policy (Policies view)
  n       add a default-deny (ingress, egress or both) to the namespace
          under the cursor (Pods and Policies views)
  :changes  the connections the edits change (+ gained, − lost, ~ ports)
  u       undo the last edit      W  write the edited policies (new file)
  Matrix cells the edits changed read +. or −X
  ?       this help                   ctrl+p  command palette
  q       quit

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


class TextScreen(ModalScreen[None]):
    """`d` describe and `y` YAML: one object's text, scrollable; Esc (or q, d, y) closes."""

    BINDINGS = [Binding("escape,q,d,y", "close", "Close")]

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.heading, self.text = title, text

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="text-box", classes="dialog"):
            yield Label(self.heading, id="text-title", classes="section")
            yield Static(self.text, markup=False, id="text-body")

    def action_close(self) -> None:
        self.dismiss(None)


class ConfirmWriteScreen(ModalScreen[bool]):
    """Asks before a file is written, showing the path; only `y` writes, every other key cancels.

    Enter cancels too: the default does nothing, so keys typed ahead (a paste, a burst) can never write a file.
    """

    BINDINGS = [Binding("y", "answer(True)", "Write"), Binding("n,escape,enter", "answer(False)", "Cancel")]

    def __init__(self, path: Path, what: str) -> None:
        super().__init__()
        self.path, self.what = path, what

    def compose(self) -> ComposeResult:
        exists = self.path.exists()
        with Vertical(id="export-box", classes="dialog"):
            yield Label(f"Write {self.what} to", id="export-title")
            yield Static(str(self.path), markup=False, id="export-path")
            yield Label(
                ("The file exists and would be replaced. " if exists else "")
                + "y write · n / Enter / Esc cancel (:export PATH writes elsewhere)",
                id="export-keys",
            )

    def on_key(self, event: events.Key) -> None:
        """Any key that is not a binding cancels rather than being dropped silently."""
        if event.key not in ("y", "n", "escape", "enter"):
            event.stop()
            self.dismiss(False)

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
