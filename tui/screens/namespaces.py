"""`:ns` with no name: the namespace picker (k9s). Enter scopes every view to the highlighted namespace; `0` or
the `all` row shows every namespace again."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding

from tui.messages import GoBack, RowSelected, SetNamespace
from tui.model import ViewModel
from tui.screens.base import ReachScreen
from tui.widgets.vtable import Column, VirtualTable

ALL = "all"


class NamespacesScreen(ReachScreen):
    VIEW = "namespaces"
    FILTERABLE = True
    HELP = "Enter scopes every view to the namespace (the title says it); 0 or the `all` row: every namespace."
    BINDINGS = [Binding("0", "pick_all", "All namespaces")]

    def __init__(self) -> None:
        super().__init__()
        self.names: list[str] = []
        self.counts: dict[str, tuple[int, int]] = {}  # namespace → (pods, policies)

    def compose_body(self) -> ComposeResult:
        yield VirtualTable([Column("NAMESPACE", 0, 12), Column("PODS", 6), Column("POLICIES", 8)], id="namespaces")

    def main_widget(self) -> VirtualTable:
        return self.query_one("#namespaces", VirtualTable)

    def title_text(self) -> str:
        return f"namespaces ({max(0, len(self.names) - 1)})"

    def show(self, model: ViewModel) -> None:
        pods: dict[str, int] = {}
        for p in model.all_pods:
            pods[p.namespace] = pods.get(p.namespace, 0) + 1
        policies: dict[str, int] = {}
        for cp in model.policies:
            policies[cp.namespace] = policies.get(cp.namespace, 0) + 1
        text = self.filter_text.lower()
        self.names = [ALL] + [ns for ns in model.namespaces if text in ns.lower()]
        self.counts = {ns: (pods.get(ns, 0), policies.get(ns, 0)) for ns in model.namespaces}
        self.counts[ALL] = (len(model.all_pods), len(model.policies))
        current = self.reach.namespace or ALL
        table = self.main_widget()

        def row(k: int) -> list:
            ns = self.names[k]
            n_pods, n_policies = self.counts[ns]
            mark = " *" if ns == current else ""
            return [(ns + mark, "vtable--ns" if ns == ALL else ""), str(n_pods), str(n_policies)]

        table.set_source(len(self.names), row, self.names.index(current) if current in self.names else 0)
        self.update_title()
        self.focus_main()

    def apply_filter(self, text: str) -> None:
        if self.model is not None:
            self.show(self.model)

    def on_row_selected(self, event: RowSelected) -> None:
        if event.row < len(self.names):
            self._pick(self.names[event.row])

    def action_pick_all(self) -> None:
        self._pick(ALL)

    def _pick(self, ns: str) -> None:
        self.tell(GoBack())
        self.tell(SetNamespace(None if ns == ALL else ns))
