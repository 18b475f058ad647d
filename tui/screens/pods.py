"""Pods: every pod by namespace (node, IP, phase, isolation), filtered as you type."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding

from netpol.whatif import AddDefaultDeny, parse_deny_direction, toggle
from tui import exposure as ui_exposure
from tui.describe import describe_pod, pod_yaml
from tui.filtering import PodFilter
from tui.messages import OpenPod, RowSelected, SetEdits
from tui.model import ViewModel, iso_word
from tui.screens.base import ReachScreen
from tui.widgets.vtable import Column, VirtualTable

COLUMNS = [
    Column("NAMESPACE", 10),
    Column("NAME", 0, 12),
    Column("NODE", 12),
    Column("IP", 12),
    Column("PHASE", 7),
    Column("INGRESS", 8),
    Column("EGRESS", 8),
    Column("↗", 1, 1),  # a door lets clients outside the cluster reach the pod (tui.exposure)
]


def sized_columns(model: ViewModel) -> list[Column]:
    """COLUMNS with namespace, node and IP as wide as their longest value (within bounds): pod names get
    what is left, which matters most at 80 columns."""
    ns, node, ip = model.pod_field_widths
    return [
        Column("NAMESPACE", max(9, min(ns, 16))),
        COLUMNS[1],
        Column("NODE", max(4, min(node, 20))),
        Column("IP", max(2, min(ip, 15))),
        *COLUMNS[4:],
    ]


# k9s: shift + the column's initial sorts by it (the next letter when the initial is taken); again reverses.
SORT_KEYS = {
    "NAMESPACE": "S",
    "NAME": "N",
    "NODE": "O",
    "IP": "I",
    "PHASE": "P",
    "INGRESS": "R",  # G is the table's "last row" (vi)
    "EGRESS": "E",
}


def _ip_key(ip: str) -> tuple[int, ...]:
    try:
        return tuple(int(x) for x in ip.split("."))
    except ValueError:
        return (1 << 16,)  # no IP (Pending) or IPv6: after every IPv4 address


class PodsScreen(ReachScreen):
    VIEW = "pods"
    FILTERABLE = True
    HELP = (
        f"Enter opens the pod: who can reach it, what it can reach, and why. {ui_exposure.EXPOSED_MARK} in the last column: "
        "a door lets clients outside the cluster reach it (:exposure). What-if: n adds a default-deny "
        "(ingress, egress or both) to the highlighted pod's namespace; u undoes. Sort (shift+letter, again to "
        "reverse): " + "  ".join(f"{k} {t.lower()}" for t, k in SORT_KEYS.items())
    )
    BINDINGS = [
        Binding("n", "prompt('deny')", "Default-deny", show=False, priority=True),  # see ReachScreen.BINDINGS
        *(Binding(k, f"sort('{t}')", show=False) for t, k in SORT_KEYS.items()),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[int] = []
        self.shown: ViewModel | None = None
        self.exposed: frozenset[str] = frozenset()  # pods reachable from outside (tui.exposure), marked

    def compose_body(self) -> ComposeResult:
        yield VirtualTable(COLUMNS, empty_text="no pod matches", id="pods")

    def main_widget(self) -> VirtualTable:
        return self.query_one("#pods", VirtualTable)

    def title_text(self) -> str:
        model = self.model
        if model is None:
            return "pods"
        shown = f"{len(self.rows)}/" if len(self.rows) != len(model.all_pods) else ""
        return f"pods ({shown}{len(model.all_pods)}) · {model.summary}"

    def show(self, model: ViewModel) -> None:
        table = self.main_widget()
        current = self.selected_key()
        self.rows = self._sorted(model, model.filter_pods(PodFilter(self.filter_text), self.reach.namespace))
        self.shown = model
        table.set_columns([Column(self.sort_title(c.title), c.width, c.min_width) for c in sized_columns(model)])
        cursor = 0
        if current is not None:
            i = model.index_of.get(current)
            if i is not None and i in self.rows:
                cursor = self.rows.index(i)
        self.exposed = ui_exposure.exposed_pods(model)
        table.set_source(len(self.rows), self._row, cursor)
        self.update_title()
        self.focus_main()

    def _sorted(self, model: ViewModel, rows: list[int]) -> list[int]:
        """The rows in the chosen order (stable: ties keep namespace/name order)."""
        if self.sort is None:
            return rows
        column, descending = self.sort
        pods = model.all_pods
        match column:
            case "NAMESPACE":
                return sorted(rows, key=lambda i: pods[i].namespace, reverse=descending)
            case "NAME":
                return sorted(rows, key=lambda i: pods[i].name, reverse=descending)
            case "NODE":
                return sorted(rows, key=lambda i: pods[i].node_name, reverse=descending)
            case "IP":
                return sorted(rows, key=lambda i: _ip_key(pods[i].pod_ip), reverse=descending)
            case "PHASE":
                return sorted(rows, key=lambda i: model.pod_row(i).phase, reverse=descending)
            case "INGRESS":
                return sorted(rows, key=lambda i: iso_word(model.pod_row(i).isolated_in), reverse=descending)
            case "EGRESS":
                return sorted(rows, key=lambda i: iso_word(model.pod_row(i).isolated_out), reverse=descending)
        return rows

    def selected_key(self) -> str | None:
        """The pod under the cursor, by key (read against the model the rows were built from)."""
        model = self.shown
        table = self.main_widget()
        if model is None or not self.rows or table.cursor >= len(self.rows):
            return None
        return model.all_pods[self.rows[table.cursor]].key

    def _row(self, k: int) -> list:
        model = self.shown
        assert model is not None
        i = self.rows[k]
        row = model.pod_row(i)
        first = k == 0 or model.all_pods[self.rows[k - 1]].namespace != row.namespace or self.sort is not None
        iso = {True: ("isolated", "vtable--good"), False: ("open", "vtable--warn"), None: ("-", "vtable--dim")}
        phase_cls = "vtable--bad" if row.phase == "Pending" else ""
        key = model.all_pods[i].key
        return [
            (row.namespace, "vtable--ns" if first else "vtable--dim"),
            row.name,
            row.node or "-",
            row.ip or "-",
            (row.phase, phase_cls) if phase_cls else row.phase,
            iso[row.isolated_in] if row.isolated_in is not None else ("-", "vtable--dim"),
            iso[row.isolated_out] if row.isolated_out is not None else ("-", "vtable--dim"),
            (ui_exposure.EXPOSED_MARK, "vtable--warn") if key in self.exposed else "",
        ]

    def _cursor_pod(self) -> int | None:
        table = self.main_widget()
        return self.rows[table.cursor] if self.shown is not None and table.cursor < len(self.rows) else None

    def describe_text(self) -> tuple[str, str] | None:
        i, model = self._cursor_pod(), self.shown
        return None if i is None or model is None else (f"describe pod {model.all_pods[i].key}", describe_pod(model, i))

    def yaml_text(self) -> tuple[str, str] | None:
        i, model = self._cursor_pod(), self.shown
        return None if i is None or model is None else (f"pod {model.all_pods[i].key}", pod_yaml(model, i))

    def prompt_label(self, mode: str) -> str | None:
        """`n`: the prompt names the namespace the default-deny goes to (the highlighted pod's)."""
        i = self._cursor_pod()
        if mode != "deny" or i is None or self.shown is None:
            return None
        return f"default-deny in namespace {self.shown.all_pods[i].namespace}: "

    def submit_prompt(self, mode: str, value: str) -> None:
        i = self._cursor_pod()
        if mode != "deny" or i is None or self.shown is None:
            return
        word = parse_deny_direction(value)
        if word is None:
            self.notify(f"default-deny: ingress, egress or both, not {value!r}", severity="error")
            return
        self.tell(SetEdits(toggle(self.reach.edits, AddDefaultDeny(self.shown.all_pods[i].namespace, word))))

    def apply_filter(self, text: str) -> None:
        if self.model is not None:
            self.show(self.model)

    def on_row_selected(self, event: RowSelected) -> None:
        if self.model is not None and event.row < len(self.rows):
            self.tell(OpenPod(self.rows[event.row]))

    def export_text(self) -> tuple[str, str]:
        model = self.model
        if model is None:
            return self.VIEW, ""
        lines = ["NAMESPACE\tNAME\tNODE\tIP\tPHASE\tINGRESS\tEGRESS"]
        for i in self.rows:
            r = model.pod_row(i)
            lines.append(
                "\t".join(
                    [
                        r.namespace,
                        r.name,
                        r.node or "-",
                        r.ip or "-",
                        r.phase,
                        iso_word(r.isolated_in),
                        iso_word(r.isolated_out),
                    ]
                )
            )
        return self.VIEW, "\n".join(lines) + "\n"
