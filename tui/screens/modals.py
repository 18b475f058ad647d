"""The dialogs: help (`?`), a text sheet (`d`, `y`), the confirmation asked before a file is written (`e`, `W`)
and before unsaved what-if edits are dropped (`q`)."""

from __future__ import annotations

from pathlib import Path
from typing import Generic, TypeVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from tui.textual_private import event_clock

T = TypeVar("T")


class Dialog(ModalScreen[T], Generic[T]):
    """A dialog answered once: the first answer closes it, and the other keys of the same burst are dropped.

    Keys arrive in bursts (a fast typist, tmux send-keys): Textual's app hands each key to the screen on top as
    it arrives (textual/app.py `on_event`), so a dialog may be handed several before it handles the first, and
    `Screen.dismiss` pops whatever screen is on top (textual/screen.py). So the second of
    two keys that each closed the dialog once dismissed it again: `ScreenStackError: Can't pop screen` over the
    first view, or, from a deeper view, the view underneath popped. Here the first answer is the only one.

    The keys typed while the dialog was up belong to it: those that reach it after the answer are dropped, and
    so are those the app receives once it is closed but that were typed before (`typed_while_open`, which the
    app asks; a burst reaches the app over several turns of its loop), so they never run as bindings of the
    view underneath (`:nodes⏎` sent over the export dialog would otherwise run `d`escribe and `e`xport there).
    """

    def __init__(self) -> None:
        super().__init__()
        self.answered = False
        self.closed_at: float | None = None

    def answer(self, result: T | None) -> None:
        """Close the dialog with `result`, once: later answers (keys queued behind the first) do nothing."""
        if self.answered:
            return
        self.answered = True
        self.app.call_later(self._close, result)

    def _close(self, result: T | None) -> None:
        self.closed_at = event_clock()
        if self.app.screen is self:  # never pop another screen (an app closing, a screen pushed meanwhile)
            self.dismiss(result)

    def typed_while_open(self, key: events.Key) -> bool:
        """Whether `key`, which reaches the app only now that this dialog is gone, was typed while it was up."""
        return self.answered and self.closed_at is not None and key.time <= self.closed_at

    def on_key(self, event: events.Key) -> None:
        """Textual calls this after a subclass's own `on_key` (handlers run down the class hierarchy)."""
        if self.answered:  # the burst that answered: the dialog's, dropped (never a binding of the view below)
            event.stop()
            event.prevent_default()


GLOBAL_HELP = """\
Keys (every view)
  /       filter: name  ns/  ns/name  label=value  (terms ANDed)
  :       command: :pods (:po) :nodes (:no) :policies (:np) :audit :matrix
          :ns picks a namespace (:ns web; :ns 0 or :ns all: every one)
          :pod web/web1  :port 80/TCP  :export PATH  :help  :quit
          :warnings  what loading said (warnings, notes), kept here
          While a prompt is open every key goes to it; Enter runs, Esc cancels.
          Keys typed after Enter go to the view it opens; a pasted line
          fills the prompt (one command at a time).
  Enter   open the highlighted row    Esc     close prompt / clear filter / back
  d       describe (facts + computed: isolation, policies, peers)
  y       YAML of the object under the cursor
  S-key   sort by a column (the view's help lists them); again reverses
  Tab     next list or panel          r       reload (or retry a failed load)
  e       export view (asks: y writes, Enter cancels; :export PATH)
What-if (nothing on disk changes until W)
  space   disable / enable the policy (Policies view)
  n       add a default-deny (ingress, egress or both) to the namespace
          under the cursor (Pods and Policies views)
  :changes  the connections the edits change (+ gained, − lost, ~ ports)
  u       undo the last edit
  W       write the edited policies to a new file: every policy of the
          input with the edits applied, to use in place of its policies
  Matrix cells the edits changed read +. or −X
  ?       this help                   ctrl+p  command palette
  q       quit (asks when what-if edits are not written; :q! does not)

Glyphs: . every port allowed  ~ some ports  X denied
(colour only repeats the glyph)
Isolated: some policy selects the pod for that direction;
open: no policy does, so everything is allowed that way."""


class HelpScreen(Dialog[None]):
    BINDINGS = [Binding("escape,question_mark,q", "close", "Close")]

    def __init__(self, view: str = "", text: str = "") -> None:
        super().__init__()
        self.view, self.text = view, text

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box", classes="dialog"):
            yield Label(f"Help · {self.view}", id="help-title", classes="section")
            yield Static(self.text + "\n", markup=False, id="help-view", classes="" if self.text else "hidden")
            yield Static(GLOBAL_HELP, markup=False)

    def set_view(self, view: str, text: str) -> None:
        """Reuse this dialog for another view (it is composed once, ahead of time, and shown again)."""
        self.view, self.text = view, text
        self.answered = False
        if self.is_mounted:
            self.query_one("#help-title", Label).update(f"Help · {view}")
            body = self.query_one("#help-view", Static)
            body.update(text + "\n")
            body.set_class(not text, "hidden")
            self.query_one("#help-box", VerticalScroll).scroll_home(animate=False)

    def action_close(self) -> None:
        self.answer(None)


class TextScreen(Dialog[None]):
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
        self.answer(None)


class ConfirmWriteScreen(Dialog[bool]):
    """Asks before a file is written, showing the path (and `note`, what the file is for); only `y` writes,
    every other key cancels.

    Enter cancels too: the default does nothing, so keys typed ahead (a paste, a burst) can never write a file.
    """

    BINDINGS = [Binding("y", "answer(True)", "Write"), Binding("n,escape,enter", "answer(False)", "Cancel")]

    def __init__(self, path: Path, what: str, note: str = "", elsewhere: str = ":export PATH writes elsewhere") -> None:
        super().__init__()
        self.path, self.what, self.note, self.elsewhere = path, what, note, elsewhere

    def compose(self) -> ComposeResult:
        exists = self.path.exists()
        with Vertical(id="export-box", classes="dialog"):
            yield Label(f"Write {self.what} to", id="export-title")
            yield Static(str(self.path), markup=False, id="export-path")
            if self.note:
                yield Static(self.note, markup=False, id="export-note")
            yield Label(
                ("The file exists and would be replaced. " if exists else "")
                + "y write · any other key cancels"
                + (f" ({self.elsewhere})" if self.elsewhere else ""),
                id="export-keys",
            )

    def on_key(self, event: events.Key) -> None:
        """Any key that is not a binding cancels rather than being dropped silently (Dialog.on_key runs next)."""
        if not self.answered and event.key not in ("y", "n", "escape", "enter"):
            event.stop()
            event.prevent_default()
            self.answer(False)

    def action_answer(self, yes: bool) -> None:
        self.answer(yes)


class ConfirmQuitScreen(Dialog[str]):
    """`q` with what-if edits not written: quit and drop them, write them first (`W`), or stay.

    Only `y` quits; every other key stays (the safe default, as for writing a file)."""

    BINDINGS = [
        Binding("y", "answer('quit')", "Quit"),
        Binding("W", "answer('write')", "Write first"),
        Binding("n,escape,enter,q", "answer('stay')", "Stay"),
    ]

    def __init__(self, edits: int) -> None:
        super().__init__()
        self.edits = edits

    def compose(self) -> ComposeResult:
        n = self.edits
        with Vertical(id="quit-box", classes="dialog"):
            yield Label(f"Quit and drop {n} what-if edit{'s' if n != 1 else ''}?", id="quit-title")
            yield Static(
                "They are not written anywhere: W writes the edited policies to a new file first.",
                markup=False,
                id="quit-note",
            )
            yield Label("y quit · W write first · any other key stays", id="quit-keys")

    def on_key(self, event: events.Key) -> None:
        if not self.answered and event.key not in ("y", "W", "n", "escape", "enter", "q"):
            event.stop()
            event.prevent_default()
            self.answer("stay")

    def action_answer(self, choice: str) -> None:
        self.answer(choice)
