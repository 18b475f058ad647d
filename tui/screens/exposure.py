"""The Exposure view: every path from outside the cluster to a pod (netpol exposure), its verdict, and the hops
of the highlighted one with the rules deciding them; Enter opens the pod."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from netpol.exposure import ExposureReport, Path, ProxyPods, path_lines
from tui import exposure as ui_exposure
from tui.messages import OpenObject, RowHighlighted, RowSelected
from tui.model import ViewModel
from tui.screens.base import ReachScreen
from tui.widgets.vtable import Column, VirtualTable

VERDICT_STYLE = {
    "allowed": "vtable--bad",
    "restricted": "vtable--warn",
    "blocked": "vtable--good",
    "not-routed": "vtable--dim",
}
COLUMNS = {"VERDICT": (10, 10), "DOOR": (0, 16), "POD": (0, 12), "PORT": (9, 7)}  # (width, min)
SORTS = {"VERDICT": "V", "DOOR": "D", "POD": "P"}
ORDER = {"allowed": 0, "restricted": 1, "blocked": 2, "not-routed": 3}
SORT_KEY = {
    "VERDICT": lambda p: ORDER[p.verdict],
    "DOOR": lambda p: (p.door.object, p.door.entry),
    "POD": lambda p: p.pod,
}


def door_cell(p: Path) -> str:
    kind, _, key = p.door.object.partition(" ")
    what = f"{p.door.kind} {key}" if kind == "Service" else p.door.object
    return f"{what} ({p.door.entry})" + (f" → {p.proxy}" if p.proxy else "")


class ExposureScreen(ReachScreen):
    VIEW = "exposure"
    HELP = (
        "Every path from outside the cluster through a door (LoadBalancer, NodePort, externalIPs, Ingress, Gateway "
        "route, OpenShift Route) to a pod, with its verdict: allowed, restricted (some clients or nodes only), "
        f"blocked, not routed. The panel shows each hop and the rules deciding it; Enter opens the pod. Pods marked "
        f"{ui_exposure.EXPOSED_MARK} in the Pods view are reachable from outside. Sort (shift+letter, again to reverse): "
        + "  ".join(f"{k} {t.lower()}" for t, k in SORTS.items())
    )
    BINDINGS = [Binding(k, f"sort('{t}')", show=False) for t, k in SORTS.items()]

    def __init__(self) -> None:
        super().__init__()
        self.paths: list[Path] = []
        self.proxies: dict[str, ProxyPods] = {}
        self.shown: ViewModel | None = None

    def compose_body(self) -> ComposeResult:
        yield VirtualTable(
            self._columns(), empty_text="no door: nothing leads here from outside the cluster", id="paths"
        )
        with VerticalScroll(id="path-box", classes="panel"):
            yield Static("", markup=False, id="path")

    def main_widget(self) -> VirtualTable:
        return self.query_one("#paths", VirtualTable)

    def _columns(self) -> list[Column]:
        return self.sorted_columns(COLUMNS)

    def title_text(self) -> str:
        model = self.model
        if model is None:
            return "exposure"
        if ui_exposure.state(model).error is not None:
            return "exposure · failed (see the panel)"
        counts: dict[str, int] = {}
        for p in self.paths:
            counts[p.verdict] = counts.get(p.verdict, 0) + 1
        words = ", ".join(f"{counts[v]} {v}" for v in ORDER if v in counts) or "no door"
        return f"exposure · {len(self.paths)} path{'s' if len(self.paths) != 1 else ''}: {words}"

    def show(self, model: ViewModel) -> None:
        table = self.main_widget()
        keep = self._key(table.cursor)
        self.shown = model
        try:
            doors = ui_exposure.doors_of(model)
        except Exception:  # noqa: BLE001 - said in the panel and the title
            self.paths, self.proxies = [], {}
        else:
            ns = self.reach.namespace
            paths = [p for p in doors.paths if ns is None or p.door.namespace == ns or p.pod.split("/", 1)[0] == ns]
            if self.sort is not None:
                column, descending = self.sort
                paths = sorted(paths, key=SORT_KEY[column], reverse=descending)
            self.paths, self.proxies = paths, dict(doors.proxies)
        table.set_columns(self._columns())
        cursor = next((k for k, p in enumerate(self.paths) if self._path_key(p) == keep), 0)

        def row(k: int) -> list:
            p = self.paths[k]
            return [(p.verdict, VERDICT_STYLE[p.verdict]), door_cell(p), p.pod or "-", p.target or "-"]

        table.set_source(len(self.paths), row, cursor)
        self._detail(table.cursor)
        self.update_title()
        self.focus_main()

    @staticmethod
    def _path_key(p: Path) -> tuple[str, str, str, str]:
        return (p.door.object, p.door.entry, p.pod, p.proxy)

    def _key(self, k: int) -> tuple[str, str, str, str] | None:
        return self._path_key(self.paths[k]) if k < len(self.paths) else None

    def on_row_highlighted(self, event: RowHighlighted) -> None:
        self._detail(event.row)

    def _detail(self, k: int) -> None:
        box = self.query_one("#path", Static)
        model = self.shown
        error = ui_exposure.state(model).error if model is not None else None
        if error is not None:
            box.update(f"The exposure analysis failed: {error}")
        elif not self.paths:
            box.update(self.HELP)
        else:
            box.update("\n".join(path_lines(self.paths[k], self.proxies)))

    def on_row_selected(self, event: RowSelected) -> None:
        if event.row < len(self.paths) and self.paths[event.row].pod:
            self.tell(OpenObject(f"pod:{self.paths[event.row].pod}"))

    def export_text(self) -> tuple[str, str]:
        report = ExposureReport(tuple(self.paths), (), self.proxies, "node")
        return self.VIEW, report.render("txt")
