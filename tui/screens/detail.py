"""Pod detail: "can reach this pod" and "this pod can reach", each with ports and deciding policies, and an
explain panel for the highlighted connection. Lists are one class-matrix column/row, texts computed per
visible row."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from textual.app import ComposeResult
from textual.containers import Container, Vertical, VerticalScroll
from textual.widgets import Label, Static

from tui import exposure as ui_exposure
from tui.describe import describe_pod, pod_yaml
from tui.messages import RowHighlighted, RowSelected
from tui.model import ViewModel
from tui.screens.base import ReachScreen
from tui.widgets.vtable import Column, VirtualTable


@dataclass(frozen=True, slots=True)
class Visit:
    """A pod seen earlier in the detail screen, and where its lists' cursors were."""

    key: str
    src_cursor: int
    dst_cursor: int
    on_targets: bool


LIST_COLUMNS = [Column("PEER", 0, 14), Column("PORTS", 12), Column("DECIDED BY", 0, 10)]


class PodDetailScreen(ReachScreen):
    VIEW = "pod"
    FILTERABLE = True
    HELP = (
        "Top list: who can reach this pod; bottom list: what it can reach (Tab switches). "
        "Enter on a peer opens that pod; Esc goes back. The explain panel says why the highlighted "
        "connection is allowed: the egress side (source) and the ingress side (destination)."
    )

    def __init__(self, key: str = "") -> None:
        super().__init__()
        self.key = key
        self.shown: ViewModel | None = None
        self.index: int | None = None
        self.src_rows = np.zeros(0, dtype=np.int64)
        self.dst_rows = np.zeros(0, dtype=np.int64)
        self.active: VirtualTable | None = None  # the list the explain panel follows
        # Pods visited before this one, Enter on a peer after Enter on a peer: Esc walks back through them
        # in this one screen (switching screens costs a frame more than re-rendering two lists).
        self.history: list[Visit] = []
        self._restore: Visit | None = None

    def start(self, key: str) -> None:
        """Show `key` with no history (the screen is being opened afresh)."""
        self.history.clear()
        self.active = None  # a fresh visit starts on "can reach this pod"
        self._retarget(key, None)

    def follow(self, key: str) -> None:
        """Go on to the peer `key`, remembering where we were."""
        self.history.append(self._visit())
        self._retarget(key, None)
        self.refresh_view()

    def _visit(self) -> Visit:
        sources = self.query_one("#sources", VirtualTable)
        targets = self.query_one("#targets", VirtualTable)
        return Visit(self.key, sources.cursor, targets.cursor, self.active is targets)

    def _retarget(self, key: str, restore: Visit | None) -> None:
        self.key = key
        self.shown = None  # the cursors belong to the previous pod: do not look them up by name
        self.src_rows = self.dst_rows = np.zeros(0, dtype=np.int64)
        self.filter_text = ""
        self._restore = restore
        self.invalidate()

    def action_back(self) -> None:
        if self.prompt_mode or not self.history:
            super().action_back()
            return
        visit = self.history.pop()
        self._retarget(visit.key, visit)
        self.refresh_view()

    def compose_body(self) -> ComposeResult:
        yield Static("", markup=False, id="pod-info")
        with Container(id="lists"):
            with Vertical(classes="half"):
                yield Label("Can reach this pod", id="src-label", classes="section")
                yield VirtualTable(LIST_COLUMNS, empty_text="nothing can reach this pod", id="sources")
            with Vertical(classes="half"):
                yield Label("This pod can reach", id="dst-label", classes="section")
                yield VirtualTable(LIST_COLUMNS, empty_text="this pod reaches nothing", id="targets")
        with VerticalScroll(id="explain-box"):
            yield Static("", markup=False, id="explain")

    def main_widget(self) -> VirtualTable:
        return self.query_one("#sources", VirtualTable)

    def title_text(self) -> str:
        return f"pod {self.key}"

    def describe_text(self) -> tuple[str, str] | None:
        model = self.shown
        if model is None or self.index is None:
            return None
        return f"describe pod {self.key}", describe_pod(model, self.index)

    def yaml_text(self) -> tuple[str, str] | None:
        model = self.shown
        if model is None or self.index is None:
            return None
        return f"pod {self.key}", pod_yaml(model, self.index)

    def show(self, model: ViewModel) -> None:
        old = self.shown
        keep_src = self._peer_key(old, self.src_rows, "#sources")
        keep_dst = self._peer_key(old, self.dst_rows, "#targets")
        self.shown = model
        self.index = model.index_of.get(self.key)
        info = self.query_one("#pod-info", Static)
        sources = self.query_one("#sources", VirtualTable)
        targets = self.query_one("#targets", VirtualTable)
        if self.index is None:  # deleted since it was opened (--watch, r): nothing of it may stay on screen
            info.update(f"{self.key} is no longer in the input (it was deleted since this page opened)\nEsc goes back")
            self.src_rows = self.dst_rows = np.zeros(0, dtype=np.int64)
            sources.empty_text = targets.empty_text = "the pod is gone"
            sources.set_source(0, lambda i: ())
            targets.set_source(0, lambda i: ())
            self.query_one("#src-label", Label).update("Can reach this pod")
            self.query_one("#dst-label", Label).update("This pod can reach")
            self.query_one("#explain", Static).update(f"{self.key} is gone: nothing to explain.")
            return
        pod = model.all_pods[self.index]
        info.update(self._info(model))
        if not model.is_running(self.index):
            self.src_rows = self.dst_rows = np.zeros(0, dtype=np.int64)
            sources.empty_text = targets.empty_text = "Pending: this pod takes no part in traffic"
            sources.set_source(0, lambda i: ())
            targets.set_source(0, lambda i: ())
            self.query_one("#src-label", Label).update("Can reach this pod")
            self.query_one("#dst-label", Label).update("This pod can reach")
            trace = model.trace_lines(pod)
            text = f"Pending: {pod.reason or 'not scheduled'}"
            if trace:
                text += "\n\nScheduler trace (per node):\n" + "\n".join(trace)
            self.query_one("#explain", Static).update(text)
            return
        self.src_rows = self._filtered(model, model.sources(self.index))
        self.dst_rows = self._filtered(model, model.targets(self.index))
        me = self.index
        src_cursor, dst_cursor = self._find(keep_src, self.src_rows), self._find(keep_dst, self.dst_rows)
        restore, self._restore = self._restore, None
        if restore is not None:
            src_cursor, dst_cursor = restore.src_cursor, restore.dst_cursor
            self.active = targets if restore.on_targets else sources
        sources.empty_text = "nothing can reach this pod"
        targets.empty_text = "this pod reaches nothing"
        sources.set_source(len(self.src_rows), lambda k: self._row(self.src_rows[k], me, True), src_cursor)
        targets.set_source(len(self.dst_rows), lambda k: self._row(self.dst_rows[k], me, False), dst_cursor)
        self.query_one("#src-label", Label).update(f"Can reach this pod ({len(self.src_rows)})")
        self.query_one("#dst-label", Label).update(f"This pod can reach ({len(self.dst_rows)})")
        if self.active is None:
            self.active = sources
        if not self.prompt_mode:
            self.active.focus()
        self._explain_from(self.active)

    def _filtered(self, model: ViewModel, rows: np.ndarray) -> np.ndarray:
        if not self.filter_text:
            return rows
        from tui.filtering import PodFilter

        flt = PodFilter(self.filter_text)
        keep = [
            e
            for e in rows.tolist()
            if (e < model.n and flt.matches(model.pods[e]))
            or (e >= model.n and self.filter_text in model.endpoint_name(e))
        ]
        return np.asarray(keep, dtype=np.int64)

    def _peer_key(self, model: ViewModel | None, rows: np.ndarray, sel: str) -> str | None:
        if model is None or not len(rows):
            return None
        cur = self.query_one(sel, VirtualTable).cursor
        return model.endpoint_name(int(rows[cur])) if cur < len(rows) else None

    def _find(self, key: str | None, rows: np.ndarray) -> int:
        model = self.shown
        if key is None or model is None:
            return 0
        for k, e in enumerate(rows.tolist()):
            if model.endpoint_name(e) == key:
                return k
        return 0

    def _info(self, model: ViewModel) -> str:
        assert self.index is not None
        row = model.pod_row(self.index)
        pod = model.all_pods[self.index]
        iso = {True: "isolated", False: "open (no policy selects it)", None: "-"}
        parts = [
            f"node {row.node or '-'}   ip {row.ip or '-'}   phase {row.phase}"
            + (f"   owner {pod.owner.render()}" if pod.owner else ""),
            f"labels {pod.labels.render() or '-'}",
            # A Pending pod takes no part in traffic: its line says why it is Pending instead (as `d` does).
            f"ingress {iso[row.isolated_in]}   egress {iso[row.isolated_out]}"
            if model.is_running(self.index)
            else f"Pending: {pod.reason or 'not scheduled'}",
        ]
        whatif = self._whatif_line(pod.key)
        if whatif:
            parts.append(whatif)
        if model.is_running(self.index):
            parts += ui_exposure.pod_lines(model, pod.key)
        return "\n".join(parts)

    def _whatif_line(self, key: str) -> str:
        """With what-if edits: the peers this pod gained and lost, either way (`+web/test → …`)."""
        if not self.reach.comparing:
            return ""
        mine = self.reach.pod_changes(key)
        if not mine:
            return "what-if: no change for this pod"

        def peer(c) -> str:  # noqa: ANN001 - netpol.diff.Change
            return f"{c.src} →" if c.dst == key else f"→ {c.dst}"

        gained = [peer(c) for c in mine if c.kind == "added"]
        lost = [peer(c) for c in mine if c.kind == "removed"]
        changed = [peer(c) for c in mine if c.kind == "changed"]
        words = [
            f"{sign}{len(xs)} {what} ({', '.join(xs[:3])}{', …' if len(xs) > 3 else ''})"
            for sign, what, xs in (("+", "gained", gained), ("−", "lost", lost), ("~", "ports changed", changed))
            if xs
        ]
        return "what-if: " + "; ".join(words)

    def _row(self, e: int, me: int, incoming: bool) -> list:
        model = self.shown
        assert model is not None
        s, d = (int(e), me) if incoming else (me, int(e))
        cs = model.connection(s, d)
        name = model.endpoint_name(int(e))
        ports = "all" if cs.is_all else cs.render()
        return [(name, "vtable--ns") if e >= model.n else name, ports, model.via(s, d)]

    def on_row_highlighted(self, event: RowHighlighted) -> None:
        if event.table is self.active and self.active is not None:  # set_source on the other list moves its cursor too
            self._explain_from(self.active)

    def on_descendant_focus(self) -> None:
        if isinstance(self.focused, VirtualTable) and self.focused is not self.active:
            self.active = self.focused
            self._explain_from(self.focused)

    def _explain_from(self, table: VirtualTable) -> None:
        model = self.shown
        if model is None or self.index is None or not model.is_running(self.index):
            return
        incoming = table.id == "sources"
        rows = self.src_rows if incoming else self.dst_rows
        box = self.query_one("#explain", Static)
        if not len(rows) or table.cursor >= len(rows):
            box.update("No connection selected." if len(rows) else "Nothing to explain: the list is empty.")
            return
        e = int(rows[table.cursor])
        s, d = (e, self.index) if incoming else (self.index, e)
        box.update(model.explain(s, d))

    def on_row_selected(self, event: RowSelected) -> None:
        model = self.shown
        if model is None:
            return
        rows = self.src_rows if event.table.id == "sources" else self.dst_rows
        if event.row >= len(rows):
            return
        e = int(rows[event.row])
        if e >= model.n:
            self.notify(f"{model.endpoint_name(e)} is an external range, not a pod")
            return
        self.follow(model.all_pods[e].key)

    def apply_filter(self, text: str) -> None:
        if self.shown is not None:
            self.show(self.shown)

    def export_text(self) -> tuple[str, str]:
        model = self.shown
        name = self.key.replace("/", "_")
        if model is None or self.index is None:
            return f"pod-{name}", ""
        lines = [f"# {self.key}", str(self.query_one("#pod-info", Static).render()), "", "## can reach this pod"]
        for e in self.src_rows.tolist():
            lines.append(
                f"{model.endpoint_name(e)} => {self.key} : {model.connection(e, self.index).render()}  [{model.via(e, self.index)}]"
            )
        lines += ["", "## this pod can reach"]
        for e in self.dst_rows.tolist():
            lines.append(
                f"{self.key} => {model.endpoint_name(e)} : {model.connection(self.index, e).render()}  [{model.via(self.index, e)}]"
            )
        lines += ["", "## explain", str(self.query_one("#explain", Static).render())]
        return f"pod-{name}", "\n".join(lines) + "\n"


class ExplainScreen(ReachScreen):
    """One connection, explained (from the matrix)."""

    VIEW = "explain"
    HELP = "Why the connection is allowed or denied: the source's egress side and the destination's ingress side."

    def __init__(self, src: str = "", dst: str = "", note: str = "") -> None:
        super().__init__()
        self.src, self.dst, self.note = src, dst, note

    def set_connection(self, src: str, dst: str, note: str = "") -> None:
        self.src, self.dst, self.note = src, dst, note
        self.invalidate()

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="explain-full"):
            yield Static("", markup=False, id="explain")

    def main_widget(self) -> VerticalScroll:
        return self.query_one("#explain-full", VerticalScroll)

    def title_text(self) -> str:
        return f"explain {self.src} => {self.dst}"

    def show(self, model: ViewModel) -> None:
        s = _endpoint_index(model, self.src)
        d = _endpoint_index(model, self.dst)
        if s is None or d is None:
            text = f"{self.src} or {self.dst} no longer exists in the input"
        else:
            text = model.explain(s, d)
        if self.note:
            text += "\n\n" + self.note
        self.query_one("#explain", Static).update(text)
        self.main_widget().focus()

    def export_text(self) -> tuple[str, str]:
        name = f"explain-{self.src}-{self.dst}".replace("/", "_")
        return name, str(self.query_one("#explain", Static).render()) + "\n"


def _endpoint_index(model: ViewModel, name: str) -> int | None:
    i = model.index_of.get(name)
    if i is not None:
        return i if model.is_running(i) else None
    for a, atom in enumerate(model.atoms):
        if atom.render() == name:
            return model.n + a
    return None
