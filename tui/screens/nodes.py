"""The Nodes view: requests against allocatable, taints, pods; below, Pending pods and the scheduler's reason."""

from __future__ import annotations

from collections.abc import Callable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Label, Static

from netpol.loading.live import node_usage
from tui.describe import describe_node, describe_pod, node_yaml, pod_yaml
from tui.messages import OpenPod, RowHighlighted, RowSelected
from tui.model import ViewModel
from tui.nodes import NodeInfo, bar, render_quantity
from tui.screens.base import ReachScreen
from tui.screens.names import names_text
from tui.widgets.vtable import Column, VirtualTable

# k9s: shift + the column's initial sorts the node list by it; again reverses (the header shows ↑/↓).
NODE_SORTS = {"NODE": "N", "PODS": "P", "CPU": "C", "MEMORY": "M", "TAINTS": "T"}


def _share(info: NodeInfo, resource: str) -> float:
    """Requested / allocatable, as the bar shows it (a node without that resource sorts first)."""
    total = info.node.allocatable.get(resource, 0)
    return info.requested.get(resource, 0) / total if total else 0.0


SORT_KEY = {
    "NODE": lambda info: info.name,
    "PODS": lambda info: len(info.pods),
    "CPU": lambda info: _share(info, "cpu"),
    "MEMORY": lambda info: _share(info, "memory"),
    "TAINTS": lambda info: len(info.node.taints),
}
COLUMNS = {"NODE": (0, 12), "PODS": (5, 8), "CPU": (15, 8), "MEMORY": (15, 8), "TAINTS": (6, 8)}  # (width, min)


def _columns(titles: Callable[[str], str]) -> list[Column]:
    """The node list's columns, each wide enough for its title with the sort arrow."""
    return [Column(titles(t), max(w, len(titles(t))) if w else 0, m) for t, (w, m) in COLUMNS.items()]


class NodesScreen(ReachScreen):
    active: VirtualTable | None = None  # the list the detail panel follows

    VIEW = "nodes"
    HELP = (
        "Nodes with requests against allocatable (numbers and bars), taints and pods; below, Pending pods with "
        "the scheduler's reason. Tab switches lists; Enter on a Pending pod opens it (and its per-node trace). "
        "Sort the nodes (shift+letter, again to reverse): "
        + "  ".join(f"{k} {t.lower()}" for t, k in NODE_SORTS.items())
    )
    BINDINGS = [Binding(k, f"sort('{t}')", show=False) for t, k in NODE_SORTS.items()]

    def __init__(self) -> None:
        super().__init__()
        self.shown: ViewModel | None = None
        self.order: list[int] = []  # node_infos indexes as listed

    def compose_body(self) -> ComposeResult:
        yield VirtualTable(
            _columns(str),
            empty_text="no Node objects in the input",
            id="nodes",
        )
        yield Label("Pending pods", id="pending-label", classes="section")
        yield VirtualTable([Column("POD", 0, 12), Column("REASON", 0, 20)], empty_text="no Pending pods", id="pending")
        with VerticalScroll(id="node-box", classes="panel"):
            yield Static("", markup=False, id="node-detail")

    def main_widget(self) -> VirtualTable:
        return self.query_one("#nodes", VirtualTable)

    def title_text(self) -> str:
        model = self.model
        if model is None:
            return "nodes"
        return f"nodes ({len(model.node_infos)}) · pending pods ({len(model.pending)})"

    def show(self, model: ViewModel) -> None:
        nodes = self.main_widget()
        at = self._cursor_object() if self.active is nodes else None
        keep = self.shown.node_infos[at[1]].name if at is not None and self.shown is not None else None
        self.shown = model
        infos = model.node_infos
        self.order = list(range(len(infos)))
        if self.sort is not None:
            column, descending = self.sort
            self.order.sort(key=lambda k: SORT_KEY[column](infos[k]), reverse=descending)
        nodes.set_columns(_columns(self.sort_title))
        unread = model.nodes_unread
        nodes.empty_text = f"Nodes could not be read: {unread}" if unread else "no Node objects in the input"
        cursor = nodes.cursor
        if keep is not None:
            cursor = next((r for r, k in enumerate(self.order) if infos[k].name == keep), cursor)

        def node_row(r: int) -> list:
            info = infos[self.order[r]]
            alloc = info.node.allocatable
            return [
                info.name + (" (cordoned)" if info.node.unschedulable else ""),
                str(len(info.pods)),
                bar(info.requested.get("cpu", 0), alloc.get("cpu", 0), 8),
                bar(info.requested.get("memory", 0), alloc.get("memory", 0), 8),
                str(len(info.node.taints)),
            ]

        nodes.set_source(len(infos), node_row, cursor)
        pending = self.query_one("#pending", VirtualTable)
        pend = model.pending
        pending.set_source(
            len(pend), lambda k: [pend[k].key, (pend[k].reason or "not scheduled", "vtable--bad")], pending.cursor
        )
        self.query_one("#pending-label", Label).update(f"Pending pods ({len(pend)})")
        if self.active is None:
            self.active = nodes if infos or not pend else pending
            if not self.prompt_mode:
                self.active.focus()
        if self.active is not None:
            self._detail(self.active)

    def on_row_highlighted(self, event: RowHighlighted) -> None:
        if event.table is self.active and self.active is not None:  # set_source moves the other list's cursor too
            self._detail(self.active)

    def on_descendant_focus(self) -> None:
        if isinstance(self.focused, VirtualTable) and self.focused is not self.active:
            self.active = self.focused
            self._detail(self.focused)

    def _detail(self, table: VirtualTable) -> None:
        model = self.shown
        box = self.query_one("#node-detail", Static)
        if model is None:
            return
        if table.id == "pending":
            if not model.pending:
                box.update("No Pending pods.")
                return
            pod = model.pending[table.cursor]
            trace = model.trace_lines(pod)
            text = f"{pod.key} is Pending\nreason: {pod.reason or 'not scheduled'}"
            text += "\n\nper-node trace:\n" + (
                "\n".join(f"  {t}" for t in trace) if trace else "  (no trace: the scheduler did not run)"
            )
            box.update(text)
            return
        infos = model.node_infos
        if not infos:
            unread = model.nodes_unread
            box.update(
                f"Nodes could not be read: {unread}."
                if unread
                else "No Node objects in the input: pods run where the input binds them."
            )
            return
        info = infos[self.order[table.cursor]]
        node = info.node
        lines = [f"{node.name}   internal IP {node.internal_ip or '-'}   pod CIDR {node.pod_cidr or '-'}"]
        lines.append("requests / allocatable:")
        for res in sorted(set(node.allocatable) | set(info.requested)):
            used, total = info.requested.get(res, 0), node.allocatable.get(res, 0)
            lines.append(
                f"  {res:<18} {bar(used, total)}  {render_quantity(res, used)} / {render_quantity(res, total)}"
            )
        lines += _usage_lines(model, node)
        lines.append("taints: " + (", ".join(t.render() for t in node.taints) or "none"))
        lines.append("labels: " + (", ".join(f"{k}={v}" for k, v in node.labels.items()) or "none"))
        lines.append(f"pods ({len(info.pods)}):")
        lines.append(names_text([p.key for p in info.pods]))
        box.update("\n".join(lines))

    def on_row_selected(self, event: RowSelected) -> None:
        model = self.shown
        if model is None:
            return
        if event.table.id == "pending":
            self.tell(OpenPod(model.index_of[model.pending[event.row].key]))
        else:
            self.query_one("#node-box").focus()

    def _cursor_object(self) -> tuple[str, int] | None:
        """("node", index into node_infos) or ("pod", index into all_pods) under the active list's cursor."""
        model, table = self.shown, self.active
        if model is None or table is None:
            return None
        if table.id == "pending":
            return (
                ("pod", model.index_of[model.pending[table.cursor].key]) if table.cursor < len(model.pending) else None
            )
        return ("node", self.order[table.cursor]) if table.cursor < len(self.order) else None

    def describe_text(self) -> tuple[str, str] | None:
        obj, model = self._cursor_object(), self.shown
        if obj is None or model is None:
            return None
        if obj[0] == "pod":
            return f"describe pod {model.all_pods[obj[1]].key}", describe_pod(model, obj[1])
        info = model.node_infos[obj[1]]
        return f"describe node {info.name}", describe_node(info)

    def yaml_text(self) -> tuple[str, str] | None:
        obj, model = self._cursor_object(), self.shown
        if obj is None or model is None:
            return None
        if obj[0] == "pod":
            return f"pod {model.all_pods[obj[1]].key}", pod_yaml(model, obj[1])
        info = model.node_infos[obj[1]]
        return f"node {info.name}", node_yaml(info)

    def export_text(self) -> tuple[str, str]:
        model = self.shown
        if model is None:
            return self.VIEW, ""
        lines = ["NODE\tPODS\tCPU\tMEMORY\tTAINTS"]
        for info in (model.node_infos[k] for k in self.order):
            a = info.node.allocatable
            lines.append(
                f"{info.name}\t{len(info.pods)}\t{render_quantity('cpu', info.requested.get('cpu', 0))}/{render_quantity('cpu', a.get('cpu', 0))}"
                f"\t{render_quantity('memory', info.requested.get('memory', 0))}/{render_quantity('memory', a.get('memory', 0))}"
                f"\t{','.join(t.render() for t in info.node.taints)}"
            )
        lines += ["", "PENDING\tREASON"] + [f"{p.key}\t{p.reason}" for p in model.pending]
        return self.VIEW, "\n".join(lines) + "\n"


def _usage_lines(model: ViewModel, node) -> list[str]:  # noqa: ANN001 - netpol.model.objects.Node
    """A live cluster's metrics.k8s.io usage, like `kubectl top node` (nothing for manifests)."""
    usage = node_usage(model.analysis.cluster)
    if usage is None:
        return []
    if usage.unavailable or node.name not in usage.cpu_millis:
        return [f"usage: metrics not available ({usage.unavailable or 'none reported for this node'})"]
    lines = ["usage / allocatable (metrics.k8s.io, like kubectl top node):"]
    for res, used, text in (
        ("cpu", usage.cpu_millis[node.name], f"{usage.cpu_millis[node.name]}m"),
        ("memory", usage.memory_bytes.get(node.name, 0), f"{usage.memory_bytes.get(node.name, 0) // 2**20}Mi"),
    ):
        total = node.allocatable.get(res, 0)
        lines.append(f"  {res:<18} {bar(used, total)}  {text} / {render_quantity(res, total)}")
    return lines
