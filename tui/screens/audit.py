"""The Audit view (findings by severity) and the object picker a finding opens."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from tui.describe import describe_finding, finding_yaml
from tui.findings import SEVERITIES, Finding
from tui.messages import AuditWanted, OpenObject, RowHighlighted, RowSelected
from tui.model import ViewModel
from tui.screens.base import ReachScreen
from tui.screens.names import names_text
from tui.widgets.vtable import Column, VirtualTable

SEVERITY_STYLE = {
    "critical": "vtable--bad",
    "high": "vtable--bad",
    "medium": "vtable--warn",
    "low": "",
    "info": "vtable--dim",
}
# k9s: shift + the column's initial sorts by it; again reverses (the header shows ↑/↓). Unsorted, the list is
# by severity, then namespace and id (tui.findings.sort_findings).
AUDIT_SORTS = {"SEVERITY": "S", "ID": "I", "NAMESPACE": "N", "MESSAGE": "M"}
RANK = {s: i for i, s in enumerate(SEVERITIES)}
SORT_KEY = {
    "SEVERITY": lambda f: RANK.get(f.severity, len(RANK)),
    "ID": lambda f: f.id,
    "NAMESPACE": lambda f: f.namespace,
    "MESSAGE": lambda f: f.message,
}
COLUMNS = {"SEVERITY": (8, 8), "ID": (10, 8), "NAMESPACE": (10, 8), "MESSAGE": (0, 12)}  # (width, min)
AUDITING = "auditing…"  # the checks run in a worker after the UI opens (ReachApp.start_audit): pending, not clean
NO_FINDINGS = "no findings"
FAILED = "the audit failed"


class AuditScreen(ReachScreen):
    VIEW = "audit"
    HELP = (
        "Findings by severity (the text says the severity; colour repeats it). Enter jumps to the objects. "
        "Sort (shift+letter, again to reverse): " + "  ".join(f"{k} {t.lower()}" for t, k in AUDIT_SORTS.items())
    )
    BINDINGS = [Binding(k, f"sort('{t}')", show=False) for t, k in AUDIT_SORTS.items()]

    def __init__(self) -> None:
        super().__init__()
        self.shown: ViewModel | None = None
        self.findings: list[Finding] = []  # as listed (the model's list grows when NP060 is done)
        self.notes: list[str] = []

    def compose_body(self) -> ComposeResult:
        yield VirtualTable(
            self._columns(),
            empty_text=AUDITING,
            id="findings",
        )
        with VerticalScroll(id="finding-box", classes="panel"):
            yield Static("", markup=False, id="finding")

    def main_widget(self) -> VirtualTable:
        return self.query_one("#findings", VirtualTable)

    def _columns(self) -> list[Column]:
        return self.sorted_columns(COLUMNS)

    def title_text(self) -> str:
        model = self.model
        if model is None:
            return "audit"
        if not model.base_ready:
            return "audit · " + ("failed (see the message)" if model.audit_error else AUDITING)
        counts: dict[str, int] = {}
        for f in model.findings:
            counts[f.severity] = counts.get(f.severity, 0) + 1
        title = "audit · " + (", ".join(f"{n} {s}" for s, n in counts.items()) or "no findings")
        if model.audit_error:
            title += " · the redundant-policy check failed (see the message)"
        elif not model.redundancy_ready:
            title += " · checking for redundant policies…"
        return title

    def show(self, model: ViewModel) -> None:
        table = self.main_widget()
        keep = None
        if table.cursor < len(self.findings):
            f = self.findings[table.cursor]
            keep = (f.id, f.namespace, f.objects)
        self.shown = model
        findings = model.findings
        if self.sort is not None:
            column, descending = self.sort
            findings = sorted(findings, key=SORT_KEY[column], reverse=descending)  # stable: ties keep severity order
        self.findings = findings
        table.set_columns(self._columns())
        table.empty_text = NO_FINDINGS if model.base_ready else (FAILED if model.audit_error else AUDITING)
        self.notes = model.redundancy_notes
        cursor = next((k for k, f in enumerate(findings) if (f.id, f.namespace, f.objects) == keep), 0)

        def row(k: int) -> list:
            f = findings[k]
            return [(f.severity, SEVERITY_STYLE.get(f.severity, "")), f.id, f.namespace or "-", f.message]

        table.set_source(len(findings), row, cursor)
        self._detail(table.cursor)
        self.update_title()
        self.focus_main()
        if self.is_current:  # not when rendered ahead, hidden: the audit is seconds of CPU
            self.tell(AuditWanted(model))  # each part joins the list when done (ReachApp.on_audit_progress)

    def on_screen_resume(self) -> None:
        super().on_screen_resume()
        if self.model is not None:
            self.tell(AuditWanted(self.model))

    def on_row_highlighted(self, event: RowHighlighted) -> None:
        self._detail(event.row)

    def _detail(self, k: int) -> None:
        box = self.query_one("#finding", Static)
        notes = "".join(f"\n\nnote: {n}" for n in self.notes)
        if not self.findings:
            model = self.shown
            if model is not None and model.audit_error:
                text = f"The audit failed: {model.audit_error}"
            elif model is not None and not model.base_ready:
                text = "Auditing: the findings are listed here when the checks are done."
            else:
                text = "No findings."
            box.update(text + notes)
            return
        f = self.findings[k]
        box.update(
            f"[{f.severity}] {f.id}  {f.namespace}\n{f.message}\nfix: {f.fix or '-'}\nobjects (Enter to open):\n"
            + names_text(list(f.objects))
            + notes
        )

    def on_row_selected(self, event: RowSelected) -> None:
        if event.row >= len(self.findings):
            return
        f = self.findings[event.row]
        if len(f.objects) == 1:
            self.tell(OpenObject(f.objects[0]))
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
        model = self.shown
        if model is not None and model.audit_error:
            lines.insert(0, f"note: the audit failed: {model.audit_error}")
        elif model is not None and not model.base_ready:
            lines.insert(0, "note: the audit is still running: no finding is listed yet")
        elif model is not None and not model.redundancy_ready:
            lines.append("note: the redundant-policy check (NP060) is still running: its findings are not listed")
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
        self.tell(OpenObject(self.objects[event.row]))

    def export_text(self) -> tuple[str, str]:
        return "objects", "\n".join(self.objects) + "\n"
