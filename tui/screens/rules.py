"""`x` on a policy: its rules as loaded, one a row (`ingress #1` and the rule as written); Enter removes the
highlighted rule as a what-if edit, or restores it when it is removed already; Esc leaves it as it is."""

from __future__ import annotations

import yaml
from textual.app import ComposeResult

from netpol.model.objects import NetworkPolicy
from netpol.whatif import RemoveRule, RuleDirection, plain_data, toggle
from tui.messages import GoBack, RowSelected, SetEdits
from tui.model import ViewModel
from tui.screens.base import ReachScreen
from tui.widgets.vtable import Column, VirtualTable


def rule_text(policy: NetworkPolicy, direction: str, index: int) -> str:
    """The rule as written, on one line (`{from: [{podSelector: {…}}], ports: [{port: 80}]}`)."""
    spec = plain_data(policy.raw.get("spec")) if policy.raw else None
    rules = spec.get(direction) if isinstance(spec, dict) else None
    if isinstance(rules, list) and index < len(rules):
        return yaml.safe_dump(rules[index], default_flow_style=True, width=10**6).strip()
    return "(its manifest was not kept)"


class RulesScreen(ReachScreen):
    VIEW = "rules"
    HELP = (
        "The rules of one policy as loaded. Enter removes the highlighted rule (a what-if edit: every view "
        "follows; u undoes), or restores it when it is removed; Esc goes back without an edit."
    )

    def __init__(self, policy: NetworkPolicy) -> None:
        super().__init__()
        self.policy = policy
        self.rules: list[tuple[RuleDirection, int]] = [("ingress", i) for i in range(len(policy.ingress))]
        self.rules += [("egress", i) for i in range(len(policy.egress))]

    def compose_body(self) -> ComposeResult:
        yield VirtualTable([Column("RULE", 11), Column("WHAT-IF", 8), Column("AS WRITTEN", 0, 20)], id="rules")

    def main_widget(self) -> VirtualTable:
        return self.query_one("#rules", VirtualTable)

    def title_text(self) -> str:
        return f"rules of {self.policy.key} · enter removes (or restores) one"

    def _edit(self, k: int) -> RemoveRule:
        direction, index = self.rules[k]
        return RemoveRule(self.policy.key, direction, index)

    def show(self, model: ViewModel) -> None:
        table = self.main_widget()
        edits = set(self.reach.edits)

        def row(k: int) -> list:
            direction, index = self.rules[k]
            state = ("removed", "vtable--warn") if self._edit(k) in edits else ""
            return [f"{direction} #{index + 1}", state, rule_text(self.policy, direction, index)]

        table.set_source(len(self.rules), row, table.cursor)
        self.update_title()
        self.focus_main()

    def on_row_selected(self, event: RowSelected) -> None:
        if event.row >= len(self.rules):
            return
        edit = self._edit(event.row)
        self.tell(GoBack())
        self.tell(SetEdits(toggle(self.reach.edits, edit)))

    def export_text(self) -> tuple[str, str]:
        lines = [f"{d} #{i + 1}\t{rule_text(self.policy, d, i)}" for d, i in self.rules]
        return "rules", "\n".join(lines) + "\n"
