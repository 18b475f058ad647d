"""The Policies view: each NetworkPolicy as written, what it selects and admits; what-if edits start here."""

from __future__ import annotations

from collections.abc import Callable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.highlight import highlight
from textual.widgets import Static

from netpol.whatif import AddDefaultDeny, DisablePolicy, parse_deny_direction, toggle
from tui.describe import describe_policy
from tui.messages import RowHighlighted, RowSelected
from tui.model import ViewModel
from tui.screens.base import ReachScreen
from tui.screens.names import pod_names_text
from tui.widgets.vtable import Column, VirtualTable

POLICY_SORTS = {"POLICY": "P", "TYPES": "T", "SELECTS": "S"}


class PoliciesScreen(ReachScreen):
    VIEW = "policies"
    FILTERABLE = True
    HELP = (
        "Each NetworkPolicy as written (YAML), the pods it selects, and the peers its rules admit. What-if: "
        "space disables (again: enables) the highlighted policy, n adds a default-deny (ingress, egress or "
        "both) to its namespace; every view follows, :changes lists what changed, u undoes. The list shows "
        "the loaded policies (disabled ones marked). Sort "
        "(shift+letter, again to reverse): " + "  ".join(f"{k} {t.lower()}" for t, k in POLICY_SORTS.items())
    )
    BINDINGS = [
        Binding("space", "toggle_policy", "Disable/enable"),
        Binding("n", "prompt('deny')", "Default-deny", priority=True),  # priority: see ReachScreen.BINDINGS
        *(Binding(k, f"sort('{t}')", show=False) for t, k in POLICY_SORTS.items()),
    ]

    def __init__(self, select: str | None = None) -> None:
        super().__init__()
        self.shown: ViewModel | None = None
        self.select = select
        self.rows: list[int] = []

    def select_policy(self, key: str) -> None:
        """Put the cursor on policy `key` (ns/name) now, or when next shown."""
        self.select = key
        if self.is_current and self.shown is not None:
            self.show(self.shown)
        else:
            self.invalidate()

    def compose_body(self) -> ComposeResult:
        yield VirtualTable(
            [Column("POLICY", 0, 16), Column("TYPES", 15), Column("SELECTS", 7)],
            empty_text="no NetworkPolicies",
            id="policies",
        )
        with VerticalScroll(id="policy-box", classes="panel"):
            yield Static("", markup=False, id="policy-yaml")
            yield Static("", markup=False, id="policy-pods")

    def main_widget(self) -> VirtualTable:
        return self.query_one("#policies", VirtualTable)

    def title_text(self) -> str:
        return f"policies ({len(self.rows)})"

    def show(self, model: ViewModel) -> None:
        model = self.reach.loaded or model  # the policies as loaded: a disabled one stays listed, to enable again
        table = self.main_widget()
        if self.select is None and self.shown is not None and self.rows and table.cursor < len(self.rows):
            self.select = self.shown.policies[self.rows[table.cursor]].policy.key
        self.shown = model
        disabled = {e.key for e in self.reach.edits if isinstance(e, DisablePolicy)}
        ns = self.reach.namespace
        text = self.filter_text.lower()
        self.rows = [
            k
            for k, cp in enumerate(model.policies)
            if (not ns or cp.policy.namespace == ns) and (not text or text in cp.policy.key.lower())
        ]
        if self.sort is not None:
            column, descending = self.sort
            keys: dict[str, Callable[[int], str | int]] = {
                "POLICY": lambda k: model.policies[k].policy.key,
                "TYPES": lambda k: ",".join(model.policies[k].policy.policy_types),
                "SELECTS": lambda k: len(model.policy_selected(k)),
            }
            self.rows.sort(key=keys[column], reverse=descending)
        table.set_columns(
            [
                Column(self.sort_title("POLICY"), 0, 16),
                Column(self.sort_title("TYPES"), 15),
                Column(self.sort_title("SELECTS"), len(self.sort_title("SELECTS"))),
            ]
        )
        cursor = 0
        if self.select is not None:
            k = model.policy_index(self.select)
            cursor = self.rows.index(k) if k in self.rows else 0
            self.select = None

        def row(i: int) -> list:
            cp = model.policies[self.rows[i]]
            key = cp.policy.key
            name = (key + " (disabled)", "vtable--dim") if key in disabled else key
            return [name, ",".join(cp.policy.policy_types), str(len(model.policy_selected(self.rows[i])))]

        table.set_source(len(self.rows), row, cursor)
        self._detail(table.cursor)
        self.update_title()
        self.focus_main()

    def on_row_highlighted(self, event: RowHighlighted) -> None:
        self._detail(event.row)

    def _detail(self, i: int) -> None:
        model = self.shown
        yaml_box = self.query_one("#policy-yaml", Static)
        pods_box = self.query_one("#policy-pods", Static)
        if model is None or not self.rows:
            yaml_box.update("No NetworkPolicies.")
            pods_box.update("")
            return
        k = self.rows[i]
        yaml_box.update(highlight(model.policy_yaml(k), language="yaml"))  # theme colours, light or dark
        # Only the names shown are built (a policy may select or admit thousands of pods).
        selected = model.policy_selected(k)
        admits, admit_ext = model.policy_admits(k)
        reaches, reach_ext = model.policy_reaches(k)
        cp = model.policies[k]
        parts = [f"selects ({len(selected)}):", pod_names_text(model, selected)]
        if cp.policy.affects_ingress:
            parts += [
                f"ingress rules admit ({len(admits) + len(admit_ext)}):",
                pod_names_text(model, admits, admit_ext),
            ]
        if cp.policy.affects_egress:
            total = len(reaches) + len(reach_ext)
            parts += [f"egress rules allow towards ({total}):", pod_names_text(model, reaches, reach_ext)]
        pods_box.update("\n".join(parts))

    def on_row_selected(self, event: RowSelected) -> None:
        self.query_one("#policy-box").focus()

    def action_toggle_policy(self) -> None:
        k = self._cursor_policy()
        if k is None or self.shown is None:
            return
        edit = DisablePolicy(self.shown.policies[k].policy.key)
        self.select = edit.key
        self.reach.edit(toggle(self.reach.edits, edit))

    def submit_prompt(self, mode: str, value: str) -> None:
        k = self._cursor_policy()
        if mode != "deny" or k is None or self.shown is None:
            return
        word = parse_deny_direction(value)
        if word is None:
            self.notify(f"default-deny: ingress, egress or both, not {value!r}", severity="error")
            return
        self.select = self.shown.policies[k].policy.key
        self.reach.edit(toggle(self.reach.edits, AddDefaultDeny(self.shown.policies[k].policy.namespace, word)))

    def _cursor_policy(self) -> int | None:
        table = self.main_widget()
        return self.rows[table.cursor] if self.shown is not None and table.cursor < len(self.rows) else None

    def describe_text(self) -> tuple[str, str] | None:
        k = self._cursor_policy()
        if k is None or self.shown is None:
            return None
        return f"describe networkpolicy {self.shown.policies[k].policy.key}", describe_policy(self.shown, k)

    def yaml_text(self) -> tuple[str, str] | None:
        k = self._cursor_policy()
        if k is None or self.shown is None:
            return None
        return f"networkpolicy {self.shown.policies[k].policy.key}", self.shown.policy_yaml(k)

    def apply_filter(self, text: str) -> None:
        if self.shown is not None:
            self.show(self.shown)

    def export_text(self) -> tuple[str, str]:
        model = self.shown
        if model is None:
            return self.VIEW, ""
        return self.VIEW, "---\n".join(model.policy_yaml(k) for k in self.rows)
