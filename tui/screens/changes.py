"""`:changes`: the connections the what-if edits change, as `netpol diff LOADED EDITED` lists them."""

from __future__ import annotations

from textual.app import ComposeResult

from netpol.diff import Change, render
from tui.messages import ExplainConnection, RowSelected
from tui.model import ViewModel
from tui.screens.base import ReachScreen
from tui.widgets.vtable import Column, VirtualTable

MARKS = {"added": ("+", "vtable--good"), "removed": ("−", "vtable--bad"), "changed": ("~", "vtable--warn")}


def _text(change: Change, new: bool) -> str:
    """The connection as `netpol diff` writes it, its layer-7 filter included (a filter change is a change)."""
    cs = change.new if new else change.old
    return (change.new_text if new else change.old_text) if not cs.is_empty else "-"


class ChangesScreen(ReachScreen):
    VIEW = "changes"
    HELP = (
        "Connections the what-if edits change: + gained (was denied), − lost (now denied), ~ ports changed; "
        "OLD is the loaded cluster, NEW the edited one. Enter explains the connection as it is now; u undoes."
    )

    def __init__(self) -> None:
        super().__init__()
        self.changes: list[Change] = []

    def compose_body(self) -> ComposeResult:
        yield VirtualTable(
            [
                Column("", 1, 1),
                Column("SOURCE", 0, 12),
                Column("DESTINATION", 0, 12),
                Column("OLD", 14),
                Column("NEW", 14),
            ],
            empty_text="the edits change no connection",
            id="changes",
        )

    def main_widget(self) -> VirtualTable:
        return self.query_one("#changes", VirtualTable)

    def title_text(self) -> str:
        return f"changes ({len(self.changes)})"

    def show(self, model: ViewModel) -> None:
        report = self.reach.changes
        self.changes = list(report.changes) if report is not None else []
        table = self.main_widget()

        def row(k: int) -> list:
            c = self.changes[k]
            return [MARKS[c.kind], c.src, c.dst, _text(c, False), _text(c, True)]

        table.set_source(len(self.changes), row, table.cursor)
        self.update_title()
        self.focus_main()

    def on_row_selected(self, event: RowSelected) -> None:
        if event.row < len(self.changes):
            c = self.changes[event.row]
            self.tell(ExplainConnection(c.src, c.dst, f"(what-if: was {_text(c, False)}, now {_text(c, True)})"))

    def export_text(self) -> tuple[str, str]:
        report = self.reach.changes
        return self.VIEW, render(report, "txt") if report is not None else ""
