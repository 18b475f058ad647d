"""What every view shares: a title line, the `/` filter and `:` command prompt, the footer, export, help."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from textual import events
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Input, Label, Static

from tui.messages import GoBack, RunCommand, UndoEdit
from tui.widgets.keybar import KeyBar
from tui.widgets.vtable import Column

if TYPE_CHECKING:
    from tui.model import ViewModel
    from tui.state import AppState


class PromptInput(Input):
    """The `/`, `:`, `p` prompt line.

    Enter submits in key order: Input's own `enter` is a binding, run only once the key has bubbled up to the
    app, so a key typed in the same burst after it (tmux `send-keys ':nodes' Enter P`, a paste) was inserted
    first and the command ran as `:nodesp`. Here Enter hands the line to the screen at once, and the keys that
    follow it in the burst (forwarded to this prompt before it closed) are handed back to the app in order, as
    if typed after the command ran: `:nodes⏎P` opens Nodes and sorts it by pods.
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, select_on_focus=False)
        self.open = False

    async def _on_key(self, event: events.Key) -> None:
        if not self.open:  # typed after Enter (or Esc) closed the prompt: the key belongs to what comes next
            event.stop()
            event.prevent_default()
            self.app.post_message(events.Key(event.key, event.character))
            return
        if event.key in ("enter", "escape"):  # closed here, at once: the keys after it are not typed into it
            event.stop()
            event.prevent_default()
            self.open = False
            screen = self.screen
            if isinstance(screen, ReachScreen):
                if event.key == "enter":
                    screen.submit_line(self.value)
                else:
                    screen.action_back()
            return
        await super()._on_key(event)

    def _on_paste(self, event: events.Paste) -> None:
        super()._on_paste(event)
        event.prevent_default()  # Textual would call Input's handler again (handlers run down the class hierarchy)
        extra = [line for line in event.text.splitlines()[1:] if line.strip()]
        if extra:  # Input keeps the first line only: say what was left out, never run it
            self.notify(
                f"pasted {len(extra) + 1} lines: only the first is in the prompt; "
                f"{len(extra)} not run ({_quote(extra[0])}{', …' if len(extra) > 1 else ''})",
                severity="warning",
            )


def _quote(line: str, width: int = 30) -> str:
    line = line.strip()
    return repr(line if len(line) <= width else line[: width - 1] + "…")


def _count_said(lines: tuple[str, ...]) -> str:
    """`2 warnings, 1 note`: what the last load said, counted for the title."""
    warnings = sum(1 for line in lines if line.startswith("warning:"))
    notes = len(lines) - warnings
    words = [f"{n} {what}{'s' if n != 1 else ''}" for n, what in ((warnings, "warning"), (notes, "note")) if n]
    return ", ".join(words)


@dataclass(frozen=True, slots=True)
class PromptSpec:
    label: str  # before the caret
    placeholder: str  # inside the line while it is empty
    hint: str  # at the right end, always


PROMPTS = {
    "filter": PromptSpec("/", "name  ns/  ns/name  label=value", "enter keep · esc clear"),
    "port": PromptSpec("port ", "80  80/TCP  53/UDP  (empty: every port)", "enter apply · esc cancel"),
    "deny": PromptSpec("default-deny: ", "ingress | egress | both", "enter add · esc cancel"),
    "command": PromptSpec(
        ":", "pods nodes policies audit matrix ns web  pod ns/name  help quit", "enter run · esc cancel"
    ),
}


class ReachScreen(Screen):
    """A view over the current ViewModel. Subclasses compose a body and implement `show(model)`.

    It reads the app's state through `reach` (`tui.state.AppState`) and asks the app for changes by posting
    `tui.messages` requests (`tell`): it never imports or calls the app."""

    VIEW = "view"
    HELP = ""
    FILTERABLE = False

    BINDINGS = [
        Binding("escape", "back", "Back"),
        # Priority: the app runs these as the key arrives, before it hands the keys typed after them to the
        # focused widget, so a burst (`:nodes⏎` pasted or sent by tmux) lands in the prompt (see action_prompt).
        Binding("slash", "prompt('filter')", "Filter", priority=True),
        Binding("colon", "prompt('command')", "Cmd", priority=True),
        Binding("question_mark", "app.help", "Help"),
        Binding("d", "describe", "Describe", show=False),
        Binding("y", "yaml", "YAML", show=False),
        Binding("u", "undo", "Undo", show=False),
        Binding("W", "app.write_edits", "Write what-if", show=False),
        Binding("r", "app.reload", "Reload", show=False),
        Binding("e", "app.export", "Export", show=False),
        Binding("q", "app.quit_asking", "Quit", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.sort: tuple[str, bool] | None = None  # (column title, descending): k9s shift+letter sorting
        self.prompt_mode = ""
        self.filter_text = ""
        self._shown_for: tuple[object, str | None, str | None] | None = None  # (model, namespace, error) rendered

    @property
    def reach(self) -> AppState:
        """The app's state (read only: changes are asked for with `tell`)."""
        return cast("AppState", self.app)

    def tell(self, request: Message) -> None:
        """Ask the app for a change (a `tui.messages` request); it is handled after this handler returns."""
        self.app.post_message(request)

    @property
    def model(self) -> ViewModel | None:
        return self.reach.model

    def compose(self) -> ComposeResult:
        yield Static("", markup=False, id="title", classes="title")
        # The prompt line sits under the title, above the view (k9s): never under the key bar, which
        # docks to the bottom row and would hide what is being typed.
        with Horizontal(id="prompt-bar", classes="hidden"):
            yield Label("", id="prompt-label")
            prompt = PromptInput(id="prompt")
            prompt.can_focus = False  # only while open: never the screen's auto-focus target when hidden
            yield prompt
            yield Label("", id="prompt-hint")
        # Why the last load failed, until one succeeds (k9s keeps such a message on screen, not in a toast).
        yield Static("", markup=False, id="load-error", classes="hidden")
        yield from self.compose_body()
        yield KeyBar()

    def compose_body(self) -> ComposeResult:
        yield from ()

    def on_mount(self) -> None:
        # The app composes its views ahead of time, off screen (ReachApp.warm_up); those render when shown.
        if self.is_current:
            self.refresh_view()

    def on_screen_resume(self) -> None:
        if self.stale:
            self.refresh_view()

    def _state_key(self) -> tuple[object, str | None, str | None]:
        return (self.model, self.reach.namespace, self.reach.load_error)

    @property
    def stale(self) -> bool:
        """Rendered from another model, namespace or load error than the app's current ones (or never)."""
        return self._shown_for != self._state_key()

    def invalidate(self) -> None:
        """Render again when next shown (the screen's own state changed while it was hidden)."""
        self._shown_for = None

    def refresh_view(self) -> None:
        """Render from the current model (first show, or after a reload: keep the selection by key)."""
        model = self.model
        self.show_load_state()
        self._shown_for = self._state_key()
        if model is not None:
            self.show(model)

    def show_load_state(self) -> None:
        """The spinner, the load error and the title, without rendering the model again (a failed reload)."""
        model, error = self.model, self.reach.load_error
        # The spinner only while a load may still bring something: a failed first load stops it (the error
        # says why and what to do), as does any model.
        self.set_loading(model is None and error is None)
        self._show_error(error, model is None)
        self.update_title()
        if self._shown_for is not None and self._shown_for[:2] == self._state_key()[:2]:
            self._shown_for = self._state_key()  # the model as drawn is still the current one

    def _show_error(self, error: str | None, nothing_loaded: bool) -> None:
        box = self.query_one("#load-error", Static)
        box.set_class(error is None, "hidden")
        box.set_class(nothing_loaded, "-alone")
        if error is None:
            return
        if nothing_loaded:
            box.update(f"cannot load: {error}\n\nr tries again (after fixing the input) · q quits · ? help")
        else:
            box.update(f"reload failed: {error}\nshowing the last good load · r tries again")
        main = self.main_widget()
        if main is not None:
            main.set_class(nothing_loaded, "hidden")

    def set_loading(self, loading: bool) -> None:
        main = self.main_widget()
        if main is not None:
            main.loading = loading
            if not loading:
                main.remove_class("hidden")

    def main_widget(self):  # noqa: ANN201 - a widget or None
        return None

    def show(self, model: ViewModel) -> None:
        pass

    def focus_main(self) -> None:
        """Focus the main widget unless the prompt is being typed into."""
        main = self.main_widget()
        if main is not None and not self.prompt_mode:
            main.focus()

    def title_text(self) -> str:
        return self.VIEW

    def update_title(self) -> None:
        app = self.reach
        # What the user set (status, namespace, filter) comes before the view's own summary, which is the
        # part cut with … when the terminal is narrow.
        parts = ["netpol"]
        if app.origin:
            parts.append(app.origin)
        if app.status:
            parts.append(app.status)
        if app.namespace:
            parts.append(f"ns {app.namespace}")
        if app.edits:
            parts.append(f"what-if: {len(app.edits)} edit{'s' if len(app.edits) != 1 else ''}")
        said = _count_said(app.load_notes)
        if said:
            parts.append(f"{said} (:warnings)")
        if self.filter_text:
            parts.append(f"/{self.filter_text}")
        parts.append(self.title_text())
        self.query_one("#title", Static).update(" · ".join(parts))

    # ------------------------------------------------------------------------------------ prompt

    def prompt_label(self, mode: str) -> str | None:
        """The prompt's label when the view words it itself (e.g. naming the namespace); None: PROMPTS'."""
        return None

    def action_prompt(self, mode: str) -> None:
        if self.prompt_mode:  # the prompt is open: `/`, `:`, `p` are text (the key goes on to the Input)
            raise SkipAction()
        if mode == "filter" and not self.FILTERABLE:
            self.notify("no filter on this view; try :pods", severity="warning")
            return
        spec = PROMPTS.get(mode, PROMPTS["command"])
        label = self.prompt_label(mode)
        if label is None and mode == "deny":  # a default-deny needs a namespace: the view names it
            self.notify("no namespace here to add a default-deny to", severity="warning")
            return
        prompt = self.query_one("#prompt", PromptInput)
        self.prompt_mode = mode
        self.query_one("#prompt-label", Label).update(label or spec.label)
        self.query_one("#prompt-hint", Label).update(spec.hint)
        prompt.placeholder = spec.placeholder
        prompt.value = self.filter_text if mode == "filter" else ""
        prompt.cursor_position = len(prompt.value)
        prompt.open = True
        self.query_one("#prompt-bar").remove_class("hidden")
        prompt.can_focus = True
        # Focus now, not on the next turn of the event loop (`Widget.focus` defers): the keys typed in the same
        # burst as `:` (a paste, a fast typist, tmux send-keys) are forwarded to whatever is focused once this
        # returns, and must reach the prompt, not run as the view's bindings (`:nodes` once ran `e`xport).
        self.set_focus(prompt, scroll_visible=False)

    def hide_prompt(self) -> None:
        self.query_one("#prompt-bar").add_class("hidden")
        prompt = self.query_one("#prompt", PromptInput)
        prompt.can_focus = False
        prompt.open = False
        self.prompt_mode = ""
        main = self.main_widget()
        if main is not None:
            self.set_focus(main, scroll_visible=False)

    def on_paste(self, event: events.Paste) -> None:
        """A paste outside the prompt: `:cmd` or `/filter` text opens that prompt with its first line (Enter runs
        it); any other text is ignored (it must never run as key bindings), and what is left out is said."""
        event.stop()
        if self.prompt_mode or not event.text:
            return
        lines = [line for line in event.text.splitlines() if line.strip()]
        if not lines:
            return
        line = lines[0]
        mode = {":": "command", "/": "filter"}.get(line[:1])
        if mode is None or (mode == "filter" and not self.FILTERABLE):
            self.notify(f"pasted text is not a : command or / filter; not run ({_quote(line)})", severity="warning")
            return
        self.action_prompt(mode)
        prompt = self.query_one("#prompt", PromptInput)
        prompt.value = line[1:]
        prompt.cursor_position = len(prompt.value)
        if len(lines) > 1:
            self.notify(
                f"pasted {len(lines)} lines: the first is in the prompt (Enter runs it); "
                f"{len(lines) - 1} not run ({_quote(lines[1])}{', …' if len(lines) > 2 else ''})",
                severity="warning",
            )

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "prompt" and self.prompt_mode == "filter":
            self.filter_text = event.value.strip()
            self.apply_filter(self.filter_text)
            self.update_title()

    def submit_line(self, text: str) -> None:
        """Enter in the prompt (`PromptInput`): close it, then do what it asked."""
        mode, value = self.prompt_mode, text.strip()
        self.hide_prompt()
        if mode == "command":
            if value.strip().lstrip(":"):
                self.tell(RunCommand(value))
        elif mode == "port":
            self.apply_port(value)
        else:
            self.submit_prompt(mode, value)

    def submit_prompt(self, mode: str, value: str) -> None:
        """A view's own prompt (e.g. `n` on Policies) was submitted."""

    def apply_filter(self, text: str) -> None:
        pass

    def apply_port(self, text: str) -> None:
        pass

    def action_back(self) -> None:
        """Esc: close the prompt (and clear the filter), else clear the filter, else go back (k9s)."""
        if self.prompt_mode:
            if self.prompt_mode == "filter":
                self.clear_filter()
            self.hide_prompt()
            return
        if self.filter_text:
            self.clear_filter()
            return
        self.tell(GoBack())

    def clear_filter(self) -> None:
        self.filter_text = ""
        self.apply_filter("")
        self.update_title()

    def action_undo(self) -> None:
        self.tell(UndoEdit())

    # ------------------------------------------------------------------------------------ sorting

    def action_sort(self, column: str) -> None:
        """Sort by `column`; the same key again toggles the direction (k9s)."""
        descending = self.sort is not None and self.sort[0] == column and not self.sort[1]
        self.sort = (column, descending)
        if self.model is not None:
            self.show(self.model)
        self.update_title()

    def sort_title(self, title: str) -> str:
        """A column title with the sort direction when the list is sorted by it (`NAME↑`)."""
        if self.sort is None or self.sort[0] != title:
            return title
        return title + ("↓" if self.sort[1] else "↑")

    def sorted_columns(self, columns: Mapping[str, tuple[int, int]]) -> list[Column]:
        """Columns from {title: (width, min width)}, each fixed one wide enough for its title with the sort arrow."""
        titles = {t: self.sort_title(t) for t in columns}
        return [Column(titles[t], max(w, len(titles[t])) if w else 0, m) for t, (w, m) in columns.items()]

    # ------------------------------------------------------------------------------------ describe, YAML

    def describe_text(self) -> tuple[str, str] | None:
        """(title, text) of `d` describe for the object under the cursor; None when there is none."""
        return None

    def yaml_text(self) -> tuple[str, str] | None:
        """(title, text) of `y` YAML for the object under the cursor; None when there is none."""
        return None

    def action_describe(self) -> None:
        self._sheet(self.describe_text() if self.model is not None else None, "describe")

    def action_yaml(self) -> None:
        self._sheet(self.yaml_text() if self.model is not None else None, "YAML")

    def _sheet(self, sheet: tuple[str, str] | None, what: str) -> None:
        from tui.screens.modals import TextScreen

        if sheet is None:
            self.notify(f"nothing to {what} here", severity="warning")
            return
        self.app.push_screen(TextScreen(*sheet))

    # ------------------------------------------------------------------------------------ export

    def export_text(self) -> tuple[str, str]:
        """(file name stem, text) of what the view shows."""
        return self.VIEW, ""
