"""The Policies view: each NetworkPolicy as written, what it selects and admits; what-if edits start here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.highlight import highlight
from textual.widgets import Static

from netpol.engine import CompiledPolicy
from netpol.model.objects import NetworkPolicy
from netpol.whatif import AddDefaultDeny, DisablePolicy, RemoveRule, parse_deny_direction, toggle
from tui.describe import describe_policy
from tui.messages import RowHighlighted, RowSelected, SetEdits
from tui.model import ViewModel
from tui.screens.base import ReachScreen
from tui.screens.names import pod_names_text
from tui.screens.rules import RulesScreen
from tui.widgets.vtable import Column, VirtualTable

POLICY_SORTS = {"POLICY": "P", "TYPES": "T", "SELECTS": "S", "KIND": "K", "TIER": "O"}


@dataclass(frozen=True, slots=True)
class Entry:
    """A row: policy `k` of `model` (the loaded model; the edited one for added policies and policies with
    rules removed, so their YAML and peers are the edited ones) and its what-if state."""

    model: ViewModel
    k: int
    state: str  # "", "disabled", "added", "rules removed"

    @property
    def key(self) -> str:
        return self.model.policies[self.k].key


def tier_text(cp: CompiledPolicy) -> str:
    """Where a policy sits in the evaluation: its tier, and its order or priority in it ("security (order 10)")."""
    return f"{cp.tier.name} ({cp.precedence_text})" if cp.precedence_text else cp.tier.name


def tier_sort_key(cp: CompiledPolicy) -> str:
    """Evaluation order as a string key (tiers by order, then precedence inside), for the TIER column's sort."""
    return f"{cp.tier.order:024.3f}\0{cp.tier.name}\0{cp.precedence[0]:024.3f}\0{cp.precedence[1]}"


class PoliciesScreen(ReachScreen):
    VIEW = "policies"
    FILTERABLE = True
    HELP = (
        "Each NetworkPolicy as written (YAML), the pods it selects, and the peers its rules admit. What-if: "
        "space disables (again: enables) the highlighted policy, x picks one of its rules to remove (again: "
        "restore), n adds a default-deny (ingress, egress or both) to its namespace; added policies are listed "
        "and marked (space removes one); every view follows, :changes lists what changed, u undoes the last edit, "
        "W writes the edited policies. Sort (shift+letter, again to reverse): "
        + "  ".join(f"{k} {t.lower()}" for t, k in POLICY_SORTS.items())
    )
    BINDINGS = [
        Binding("space", "toggle_policy", "Disable/enable"),
        Binding("x", "remove_rule", "Remove rule"),
        Binding("n", "prompt('deny')", "Default-deny", priority=True),  # priority: see ReachScreen.BINDINGS
        *(Binding(k, f"sort('{t}')", show=False) for t, k in POLICY_SORTS.items()),
    ]

    def __init__(self, select: str | None = None) -> None:
        super().__init__()
        self.shown: ViewModel | None = None
        self.select = select
        self.rows: list[Entry] = []

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

    def _entries(self, loaded: ViewModel) -> list[Entry]:
        """The loaded policies (disabled ones stay listed, to enable again), then the added ones."""
        edits = self.reach.edits
        edited = self.reach.model or loaded
        disabled = {e.key for e in edits if isinstance(e, DisablePolicy)}
        cut = {e.key for e in edits if isinstance(e, RemoveRule)}
        added = {e.key for e in edits if isinstance(e, AddDefaultDeny)}
        out = []
        for k, cp in enumerate(loaded.policies):
            key = cp.key
            if key in disabled:
                out.append(Entry(loaded, k, "disabled"))
            elif key in cut and (j := edited.policy_index(key)) is not None and edited is not loaded:
                out.append(Entry(edited, j, "rules removed"))
            else:
                out.append(Entry(loaded, k, "rules removed" if key in cut else ""))
        if edited is not loaded:  # the edited model may still be on its way (a worker): shown once it is here
            out += [Entry(edited, k, "added") for k, cp in enumerate(edited.policies) if cp.key in added]
        return out

    def show(self, model: ViewModel) -> None:
        loaded = self.reach.loaded or model
        table = self.main_widget()
        if self.select is None and self.rows and table.cursor < len(self.rows):
            self.select = self.rows[table.cursor].key
        self.shown = loaded
        ns = self.reach.namespace
        text = self.filter_text.lower()
        self.rows = [
            e
            for e in self._entries(loaded)
            if (not ns or e.model.policies[e.k].namespace == ns) and (not text or text in e.key.lower())
        ]
        if self.sort is not None:
            column, descending = self.sort
            keys: dict[str, Callable[[Entry], str | int | tuple[float, str]]] = {
                "POLICY": lambda e: e.key,
                "TYPES": lambda e: e.model.policy_types(e.k),
                "SELECTS": lambda e: len(e.model.policy_selected(e.k)),
                "KIND": lambda e: e.model.policies[e.k].kind,
                "TIER": lambda e: tier_sort_key(e.model.policies[e.k]),
            }
            self.rows.sort(key=keys[column], reverse=descending)
        # KIND and TIER only when some policy is not a Kubernetes NetworkPolicy or has a tier or an order of its own
        # (NetworkPolicies alone all sit in one tier, unordered): their views look as they always did.
        tiered = any(
            cp.kind != "NetworkPolicy" or cp.precedence_text or cp.tier.name != "default" for cp in loaded.policies
        )
        table.set_columns(
            [
                Column(self.sort_title("POLICY"), 0, 16),
                *([Column(self.sort_title("KIND"), 12), Column(self.sort_title("TIER"), 22)] if tiered else []),
                Column(self.sort_title("TYPES"), 15),
                Column(self.sort_title("SELECTS"), len(self.sort_title("SELECTS"))),
            ]
        )
        cursor = 0
        if self.select is not None:
            cursor = next((i for i, e in enumerate(self.rows) if e.key == self.select), 0)
            self.select = None

        def row(i: int) -> list:
            e = self.rows[i]
            name: str | tuple[str, str] = e.key
            if e.state:
                name = (f"{e.key} ({e.state})", "vtable--dim" if e.state == "disabled" else "vtable--warn")
            cp = e.model.policies[e.k]
            tier = [cp.kind, tier_text(cp)] if tiered else []
            return [name, *tier, e.model.policy_types(e.k), str(len(e.model.policy_selected(e.k)))]

        table.set_source(len(self.rows), row, cursor)
        self._detail(table.cursor)
        self.update_title()
        self.focus_main()

    def on_row_highlighted(self, event: RowHighlighted) -> None:
        self._detail(event.row)

    def _detail(self, i: int) -> None:
        yaml_box = self.query_one("#policy-yaml", Static)
        pods_box = self.query_one("#policy-pods", Static)
        if not self.rows or i >= len(self.rows):
            yaml_box.update("No NetworkPolicies.")
            pods_box.update("")
            return
        e = self.rows[i]
        model, k = e.model, e.k
        yaml_box.update(highlight(model.policy_yaml(k), language="yaml"))  # theme colours, light or dark
        # Only the names shown are built (a policy may select or admit thousands of pods).
        selected = model.policy_selected(k)
        admits, admit_ext = model.policy_admits(k)
        reaches, reach_ext = model.policy_reaches(k)
        parts = [f"what-if: {e.state}"] if e.state else []
        parts += [f"selects ({len(selected)}):", pod_names_text(model, selected)]
        if "Ingress" in model.policy_types(k):
            parts += [
                f"ingress rules admit ({len(admits) + len(admit_ext)}):",
                pod_names_text(model, admits, admit_ext),
            ]
        if "Egress" in model.policy_types(k):
            total = len(reaches) + len(reach_ext)
            parts += [f"egress rules allow towards ({total}):", pod_names_text(model, reaches, reach_ext)]
        pods_box.update("\n".join(parts))

    def on_row_selected(self, event: RowSelected) -> None:
        self.query_one("#policy-box").focus()

    def _cursor_entry(self) -> Entry | None:
        table = self.main_widget()
        return self.rows[table.cursor] if table.cursor < len(self.rows) else None

    def action_toggle_policy(self) -> None:
        """space: disable/enable a loaded policy; on an added default-deny, take that edit back."""
        e = self._cursor_entry()
        if e is None:
            return
        if e.state == "added":
            gone = [x for x in self.reach.edits if isinstance(x, AddDefaultDeny) and x.key == e.key]
            self.tell(SetEdits(tuple(x for x in self.reach.edits if x not in gone)))
            return
        self.select = e.key
        self.tell(SetEdits(toggle(self.reach.edits, DisablePolicy(e.key))))

    def action_remove_rule(self) -> None:
        """x: pick one of the policy's rules (as loaded) to remove, or to restore when removed."""
        e = self._cursor_entry()
        if e is None:
            return
        loaded = self.reach.loaded
        k = loaded.policy_index(e.key) if loaded is not None else None
        if e.state == "added" or loaded is None or k is None:
            self.notify("an added default-deny has no rules (space removes it)", severity="warning")
            return
        if e.state == "disabled":
            self.notify(f"{e.key} is disabled: space enables it first", severity="warning")
            return
        policy = loaded.policies[k].source
        if not isinstance(policy, NetworkPolicy) or (not policy.ingress and not policy.egress):
            self.notify(f"{e.key} has no rules", severity="warning")
            return
        self.select = e.key
        self.app.push_screen(RulesScreen(policy))

    def prompt_label(self, mode: str) -> str | None:
        """`n`: the prompt names the namespace the default-deny goes to (the highlighted policy's)."""
        e = self._cursor_entry()
        namespace = e.model.policies[e.k].namespace if e is not None else ""
        if mode != "deny" or not namespace:  # none highlighted, or a cluster-wide policy (AdminNetworkPolicy)
            return None
        return f"default-deny in namespace {namespace}: "

    def submit_prompt(self, mode: str, value: str) -> None:
        e = self._cursor_entry()
        if mode != "deny" or e is None:
            return
        word = parse_deny_direction(value)
        if word is None:
            self.notify(f"default-deny: ingress, egress or both, not {value!r}", severity="error")
            return
        edit = AddDefaultDeny(e.model.policies[e.k].namespace, word)
        self.select = edit.key
        self.tell(SetEdits(toggle(self.reach.edits, edit)))

    def describe_text(self) -> tuple[str, str] | None:
        e = self._cursor_entry()
        if e is None:
            return None
        return f"describe networkpolicy {e.key}", describe_policy(e.model, e.k)

    def yaml_text(self) -> tuple[str, str] | None:
        e = self._cursor_entry()
        if e is None:
            return None
        return f"networkpolicy {e.key}", e.model.policy_yaml(e.k)

    def apply_filter(self, text: str) -> None:
        if self.shown is not None:
            self.show(self.shown)

    def export_text(self) -> tuple[str, str]:
        return self.VIEW, "---\n".join(e.model.policy_yaml(e.k) for e in self.rows)
