"""Audit, Nodes, Policies, and the object picker audit findings open."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.highlight import highlight
from textual.widgets import Label, Static

from netpol.loading.live import node_usage
from tui.describe import (
    describe_finding,
    describe_node,
    describe_pod,
    describe_policy,
    finding_yaml,
    node_yaml,
    pod_yaml,
)
from tui.findings import Finding
from tui.messages import RowHighlighted, RowSelected
from tui.model import ViewModel
from tui.nodes import bar, render_quantity
from tui.screens.base import ReachScreen
from tui.whatif import TYPES, AddDefaultDeny, DisablePolicy, toggle
from tui.widgets.vtable import Column, VirtualTable

SEVERITY_STYLE = {
    "critical": "vtable--bad",
    "high": "vtable--bad",
    "medium": "vtable--warn",
    "low": "",
    "info": "vtable--dim",
}
MORE = 40  # names listed in a detail panel before "… and N more"


def _names(names: list[str], limit: int = MORE) -> str:
    if not names:
        return "  (none)"
    text = "\n".join(f"  {n}" for n in names[:limit])
    if len(names) > limit:
        text += f"\n  … and {len(names) - limit} more"
    return text


def _pod_names(model: ViewModel, pods: np.ndarray, external: Sequence[str] = (), limit: int = MORE) -> str:
    """`_names` of pod keys then external ranges, building only the names shown (plus one, for "… more")."""
    shown = [model.pods[j].key for j in pods[: limit + 1].tolist()]
    shown += list(external[: max(0, limit + 1 - len(shown))])
    text = _names(shown, limit)
    total = len(pods) + len(external)
    if total > limit:
        text = text.rsplit("\n", 1)[0] + f"\n  … and {total - limit} more"
    return text


# --------------------------------------------------------------------------------------------- audit


class AuditScreen(ReachScreen):
    VIEW = "audit"
    HELP = "Findings by severity (the text says the severity; colour repeats it). Enter jumps to the objects."

    def __init__(self) -> None:
        super().__init__()
        self.shown: ViewModel | None = None
        self.findings: list[Finding] = []  # as listed (the model's list grows when NP060 is done)
        self.notes: list[str] = []

    def compose_body(self) -> ComposeResult:
        yield VirtualTable(
            [Column("SEVERITY", 8), Column("ID", 10), Column("NAMESPACE", 10), Column("MESSAGE", 0, 12)],
            empty_text="no findings",
            id="findings",
        )
        with VerticalScroll(id="finding-box", classes="panel"):
            yield Static("", markup=False, id="finding")

    def main_widget(self) -> VirtualTable:
        return self.query_one("#findings", VirtualTable)

    def title_text(self) -> str:
        model = self.model
        if model is None:
            return "audit"
        counts: dict[str, int] = {}
        for f in model.findings:
            counts[f.severity] = counts.get(f.severity, 0) + 1
        title = "audit · " + (", ".join(f"{n} {s}" for s, n in counts.items()) or "no findings")
        if not model.redundancy_ready:
            title += " · checking for redundant policies…"
        return title

    def show(self, model: ViewModel) -> None:
        table = self.main_widget()
        keep = None
        if table.cursor < len(self.findings):
            f = self.findings[table.cursor]
            keep = (f.id, f.namespace, f.objects)
        self.shown = model
        self.findings = findings = model.findings
        self.notes = model.redundancy[1] if model.redundancy_ready else []
        cursor = next((k for k, f in enumerate(findings) if (f.id, f.namespace, f.objects) == keep), 0)

        def row(k: int) -> list:
            f = findings[k]
            return [(f.severity, SEVERITY_STYLE.get(f.severity, "")), f.id, f.namespace or "-", f.message]

        table.set_source(len(findings), row, cursor)
        self._detail(table.cursor)
        self.update_title()
        self.focus_main()
        if self.is_current:  # not when rendered ahead, hidden: the check is seconds of CPU
            self.reach.check_redundancy(model)  # joins the list when done (ReachApp._redundancy_ready)

    def on_screen_resume(self) -> None:
        super().on_screen_resume()
        if self.model is not None:
            self.reach.check_redundancy(self.model)

    def on_row_highlighted(self, event: RowHighlighted) -> None:
        self._detail(event.row)

    def _detail(self, k: int) -> None:
        box = self.query_one("#finding", Static)
        notes = "".join(f"\n\nnote: {n}" for n in self.notes)
        if not self.findings:
            box.update("No findings." + notes)
            return
        f = self.findings[k]
        box.update(
            f"[{f.severity}] {f.id}  {f.namespace}\n{f.message}\nfix: {f.fix or '-'}\nobjects (Enter to open):\n"
            + _names(list(f.objects))
            + notes
        )

    def on_row_selected(self, event: RowSelected) -> None:
        if event.row >= len(self.findings):
            return
        f = self.findings[event.row]
        if len(f.objects) == 1:
            self.reach.open_object(f.objects[0])
        elif f.objects:
            self.app.push_screen(ObjectsScreen(f"{f.id} {f.namespace}", list(f.objects)))

    def _cursor_finding(self) -> Finding | None:
        k = self.main_widget().cursor
        return self.findings[k] if k < len(self.findings) else None

    def describe_text(self) -> tuple[str, str] | None:
        f = self._cursor_finding()
        return None if f is None else (f"describe finding {f.id} {f.namespace}", describe_finding(f))

    def yaml_text(self) -> tuple[str, str] | None:
        f = self._cursor_finding()
        return None if f is None else (f"finding {f.id} {f.namespace}", finding_yaml(f))

    def export_text(self) -> tuple[str, str]:
        lines = [f.render() for f in self.findings] + [f"note: {n}" for n in self.notes]
        return self.VIEW, "".join(line + "\n" for line in lines)


class ObjectsScreen(ReachScreen):
    """The objects of one finding; Enter opens one."""

    VIEW = "objects"

    def __init__(self, title: str, objects: list[str]) -> None:
        super().__init__()
        self.heading, self.objects = title, objects

    def compose_body(self) -> ComposeResult:
        yield VirtualTable([Column("KIND", 10), Column("OBJECT", 0, 12)], id="objects")

    def main_widget(self) -> VirtualTable:
        return self.query_one("#objects", VirtualTable)

    def title_text(self) -> str:
        return f"objects of {self.heading}"

    def show(self, model: ViewModel) -> None:
        table = self.main_widget()
        table.set_source(len(self.objects), lambda k: list(self.objects[k].partition(":")[::2]), table.cursor)
        self.focus_main()

    def on_row_selected(self, event: RowSelected) -> None:
        self.reach.open_object(self.objects[event.row])

    def export_text(self) -> tuple[str, str]:
        return "objects", "\n".join(self.objects) + "\n"


# --------------------------------------------------------------------------------------------- nodes


class NodesScreen(ReachScreen):
    active: VirtualTable | None = None  # the list the detail panel follows

    VIEW = "nodes"
    HELP = (
        "Nodes with requests against allocatable (numbers and bars), taints and pods; below, Pending pods with "
        "the scheduler's reason. Tab switches lists; Enter on a Pending pod opens it (and its per-node trace)."
    )

    def __init__(self) -> None:
        super().__init__()
        self.shown: ViewModel | None = None

    def compose_body(self) -> ComposeResult:
        yield VirtualTable(
            [Column("NODE", 0, 12), Column("PODS", 5), Column("CPU", 15), Column("MEMORY", 15), Column("TAINTS", 6)],
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
        self.shown = model
        infos = model.node_infos
        nodes = self.main_widget()

        def node_row(k: int) -> list:
            info = infos[k]
            alloc = info.node.allocatable
            return [
                info.name + (" (cordoned)" if info.node.unschedulable else ""),
                str(len(info.pods)),
                bar(info.requested.get("cpu", 0), alloc.get("cpu", 0), 8),
                bar(info.requested.get("memory", 0), alloc.get("memory", 0), 8),
                str(len(info.node.taints)),
            ]

        nodes.set_source(len(infos), node_row, nodes.cursor)
        pending = self.query_one("#pending", VirtualTable)
        pend = model.pending
        pending.set_source(
            len(pend), lambda k: [pend[k].key, (pend[k].reason or "not scheduled", "vtable--bad")], pending.cursor
        )
        self.query_one("#pending-label", Label).update(f"Pending pods ({len(pend)})")
        if self.active is None:
            self.active = nodes if infos else pending
            if not self.prompt_mode:
                self.active.focus()
        self._detail(self.active)

    def on_row_highlighted(self, event: RowHighlighted) -> None:
        if event.table is self.active:  # set_source on the other list also moves its cursor: ignore that
            self._detail(event.table)

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
            box.update("No Node objects: pods run where the input binds them.")
            return
        info = infos[table.cursor]
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
        lines.append(_names([p.key for p in info.pods]))
        box.update("\n".join(lines))

    def on_row_selected(self, event: RowSelected) -> None:
        model = self.shown
        if model is None:
            return
        if event.table.id == "pending":
            self.reach.open_pod(model.index_of[model.pending[event.row].key])
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
        return ("node", table.cursor) if table.cursor < len(model.node_infos) else None

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
        for info in model.node_infos:
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


# --------------------------------------------------------------------------------------------- policies


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
            sort_key = {
                "POLICY": lambda k: model.policies[k].policy.key,
                "TYPES": lambda k: ",".join(model.policies[k].policy.policy_types),
                "SELECTS": lambda k: len(model.policy_selected(k)),
            }[column]
            self.rows.sort(key=sort_key, reverse=descending)
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
        parts = [f"selects ({len(selected)}):", _pod_names(model, selected)]
        if cp.policy.affects_ingress:
            parts += [f"ingress rules admit ({len(admits) + len(admit_ext)}):", _pod_names(model, admits, admit_ext)]
        if cp.policy.affects_egress:
            total = len(reaches) + len(reach_ext)
            parts += [f"egress rules allow towards ({total}):", _pod_names(model, reaches, reach_ext)]
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
        word = {"i": "ingress", "e": "egress", "b": "both", "": "both"}.get(value.lower(), value.lower())
        if word not in TYPES:
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
