"""The footer: the current screen's shown bindings on one line, drawn by one widget.

Textual's Footer mounts a widget per key and recomposes them on every focus change and screen switch;
at a 60 ms budget per key press that was a third of a screen switch here. This draws the same line as
text and maps a click back to its key, as the Footer does.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import events
from textual.screen import Screen
from textual.widget import Widget


@dataclass(frozen=True, slots=True)
class KeyItem:
    key: str  # the key to simulate on click
    display: str  # how the key is written, e.g. "esc", "^p"
    description: str
    enabled: bool


class KeyBar(Widget):
    COMPONENT_CLASSES = {"keybar--key", "keybar--description", "keybar--disabled"}

    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        background: $footer-background;
        color: $footer-foreground;
    }
    KeyBar > .keybar--key { color: $footer-key-foreground; background: $footer-key-background; text-style: bold; }
    KeyBar > .keybar--description { color: $footer-description-foreground; }
    KeyBar > .keybar--disabled { color: $text-disabled; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._spans: list[tuple[int, int, str]] = []  # (start, end, key) of each item in the last render

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen) -> None:
        if self.is_attached and screen is self.screen:
            self.refresh()

    def items(self) -> tuple[list[KeyItem], KeyItem | None]:
        """(the shown bindings, one per action in binding order; the command palette's, drawn on the right)."""
        app = self.app
        active = self.screen.active_bindings
        seen: set[str] = set()
        items: list[KeyItem] = []
        for _node, binding, enabled, _tooltip in active.values():
            if not binding.show or binding.action in seen:
                continue
            seen.add(binding.action)
            items.append(KeyItem(binding.key, app.get_key_display(binding), binding.description, enabled))
        palette = None
        if app.ENABLE_COMMAND_PALETTE and app.COMMAND_PALETTE_BINDING in active:
            _node, binding, enabled, _tooltip = active[app.COMMAND_PALETTE_BINDING]
            palette = KeyItem(binding.key, app.get_key_display(binding), binding.description, enabled)
        return items, palette

    def render(self) -> Text:
        width = self.size.width
        key_style = self.get_component_rich_style("keybar--key", partial=True)
        desc_style = self.get_component_rich_style("keybar--description", partial=True)
        off_style = self.get_component_rich_style("keybar--disabled", partial=True)
        items, palette = self.items()
        tail = Text()
        if palette is not None:
            tail.append(f" {palette.display} ", key_style if palette.enabled else off_style)
            tail.append(f"{palette.description} ", desc_style if palette.enabled else off_style)
        room = max(0, width - tail.cell_len - 1)
        text = Text(no_wrap=True, overflow="ellipsis")
        spans: list[tuple[int, int, str]] = []
        for item in items:
            piece = Text()
            piece.append(f" {item.display} ", key_style if item.enabled else off_style)
            piece.append(f"{item.description} ", desc_style if item.enabled else off_style)
            if text.cell_len + piece.cell_len > room:
                break
            spans.append((text.cell_len, text.cell_len + piece.cell_len, item.key))
            text.append_text(piece)
        if palette is not None:
            gap = max(1, width - text.cell_len - tail.cell_len)
            text.append(" " * gap)
            spans.append((text.cell_len, text.cell_len + tail.cell_len, palette.key))
            text.append_text(tail)
        self._spans = spans
        return text

    def on_click(self, event: events.Click) -> None:
        for start, end, key in self._spans:
            if start <= event.x < end:
                event.stop()
                self.app.simulate_key(key)
                return
