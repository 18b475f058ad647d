"""The netpol terminal UI: receives a loader (→ Analysis) and never reads manifests itself.

Loading and analysis run in a worker thread; screens render from a `ViewModel` and are told to refresh
when a new one arrives (reload / --watch), each keeping its selection by key.
"""

from __future__ import annotations

import asyncio
import gc
import threading
import time
from collections.abc import Callable, Hashable
from pathlib import Path

from textual import events, work
from textual.binding import Binding
from textual.screen import Screen

from netpol.diff import DiffReport
from netpol.errors import NetpolError
from netpol.pipeline import Analysis
from netpol.readout.textsafe import text_safe
from netpol.whatif import Edit, apply_edits
from tui.editing import Editing
from tui.messages import AnalysisReady, AuditProgress, AuditWanted, LoadFailed
from tui.model import ViewModel
from tui.navigation import Navigation
from tui.screens.audit import AuditScreen
from tui.screens.base import ReachScreen
from tui.screens.detail import ExplainScreen, PodDetailScreen
from tui.screens.exposure import ExposureScreen
from tui.screens.matrix import MatrixScreen
from tui.screens.modals import ConfirmQuitScreen, Dialog, HelpScreen
from tui.screens.nodes import NodesScreen
from tui.screens.pods import PodsScreen
from tui.screens.policies import PoliciesScreen
from tui.state import AppState
from tui.textual_private import lay_out, mount_off_screen, needs_layout, stamp_keys_per_read

Loader = Callable[[], Analysis]
Stamp = Callable[[], Hashable]
# What a load said besides its result (the warnings and notes the CLI prints on stderr), read right after it.
Said = Callable[[], tuple[str, ...]]

VIEWS: dict[str, type[ReachScreen]] = {
    "matrix": MatrixScreen,
    "audit": AuditScreen,
    "nodes": NodesScreen,
    "policies": PoliciesScreen,
    "exposure": ExposureScreen,
}


def _settle_heap() -> None:
    """Collect once, then freeze what survives (the loaded cluster) out of the collector's reach.

    At 10,000 pods the analysis is millions of long-lived objects, and each full collection that Textual's
    allocations trigger walks all of them: 100-170 ms pauses at random key presses (benchmarks/bench_tui.py
    saw ten in one journey). Frozen objects are never scanned. Unfreezing first lets the previous model
    (after a reload) be collected here, once, instead of being frozen forever.
    """
    gc.unfreeze()
    gc.collect()
    gc.freeze()


class ReachApp(Navigation, Editing):
    CSS_PATH = "app.tcss"
    TITLE = "netpol"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]
    BINDINGS = [Binding("ctrl+c", "quit", "Quit", show=False, priority=True)]

    def __init__(
        self,
        loader: Loader,
        *,
        stamp: Stamp | None = None,
        watch: bool = False,
        interval: float = 1.0,
        export_dir: Path | None = None,
        compare: Loader | None = None,
        compare_label: str = "",
        origin: str = "",
        said: Said | None = None,
    ) -> None:
        """`compare`: with `netpol tui --old OLD --new NEW` (or `OLD --against NEW`) `loader` reads NEW and
        `compare` OLD, the reference the changes are marked against through the same code as what-if edits;
        `compare_label` names OLD in its errors. `origin`: what the title says the data is (`live CONTEXT`,
        `new B · old A`). `said`: what the last load printed on stderr (default: its cluster's warnings)."""
        super().__init__()
        stamp_keys_per_read()  # the keys of one paste or burst: one time (tui.screens.modals.Dialog)
        self.compare = compare
        self.compare_label = compare_label
        self._origin = origin
        self.said = said
        self.loader = loader
        self.stamp = stamp
        self.watch_files = watch and stamp is not None
        self.interval = interval
        self.export_dir = export_dir or Path.cwd()
        self.model: ViewModel | None = None
        # What-if: the edits (netpol.whatif) and `loaded`, the model they apply to; `model` is the edited one and
        # `base` the reference its changes are marked against (`loaded`, or OLD with --against).
        self.edits: tuple[Edit, ...] = ()
        self._model_edits: tuple[Edit, ...] = ()  # the edits `model` shows (`edits` runs ahead while recomputing)
        self.loaded: ViewModel | None = None
        self.base: ViewModel | None = None
        self._changes: tuple[ViewModel, DiffReport] | None = None
        self.namespace: str | None = None
        self.status = "loading…"
        self.load_error: str | None = None  # why the last load failed, on screen until one succeeds
        self.load_notes: tuple[str, ...] = ()  # what the last good load said (warnings, notes)
        self._written: tuple[Edit, ...] = ()  # the edits last written with W (q does not ask about those)
        self._reloaded_at = ""  # --watch: when the last reload the user did not ask for came in
        self.loading_now = False
        self.loads = 0
        self._last_stamp: Hashable | None = None
        self._polling = False  # a --watch tick's worker is comparing the stamp
        self._last_input = 0.0
        self._auditing: set[int] = set()  # id() of the models an audit worker runs for
        self._dialog: Dialog | None = None  # the last dialog keys went to (keys typed while it was up are its)
        # Every view exists once, installed, and is switched to rather than built per visit; the pod
        # detail and explain screens are re-targeted. `warm_up` composes them while the cluster loads.
        self.views: dict[str, ReachScreen] = {name: cls() for name, cls in VIEWS.items()}
        self.detail = PodDetailScreen()
        self.explainer = ExplainScreen()
        self.help_screen = HelpScreen()
        self._cold: list[Screen] = [self.detail, *self.views.values(), self.explainer, self.help_screen]
        self._warming = False
        # Set when a model is shown (or the load failed) and the hidden views are ready; cleared when the user
        # asks for a reload (not by --watch, which may re-read every tick). What tests wait on.
        self.settled = asyncio.Event()
        # Set when the audit of the model on screen is finished (every check, NP060 included, or an error);
        # cleared when a model whose audit is not is shown. The audit runs in a worker (`start_audit`); tests wait on this.
        self.audited = asyncio.Event()
        self.user_reload = True  # the load under way was asked for by the user (or is the first)

    def get_default_screen(self) -> Screen:
        return PodsScreen()

    def on_mount(self) -> None:
        for name, screen in self.views.items():
            self.install_screen(screen, name)
        self.install_screen(self.detail, "pod")
        self.install_screen(self.explainer, "explain")
        self.install_screen(self.help_screen, "help")
        self.action_reload()
        self._schedule_warm_up()
        if self.watch_files:
            self.set_interval(self.interval, self._poll)

    def _schedule_warm_up(self) -> None:
        if not self._warming:
            self._warming = True
            self.set_timer(0.01, self.warm_up)

    def warm_up(self) -> None:
        """One step of preparing the hidden views, one per turn of the event loop: compose and mount the
        next installed view off screen, then render each from the current model.

        A first visit otherwise spends ~100 ms composing, styling and mounting its widgets, and up to
        ~25 ms (the matrix at 10,000 pods) on its own rows. Textual has no public call to mount a screen
        without showing it: `tui.textual_private` holds the private calls, each with a fallback.
        """
        if not self.is_running:  # shutting down: the views are being taken apart
            self._warming = False
            return
        if self._warm_step():
            self.set_timer(0.01, self.warm_up)
        else:
            self._warming = False
            gc.freeze()  # the views' widgets and rows are long-lived too (see _settle_heap)
            if self.model is not None and not (self.loading_now and self.user_reload):
                self.settled.set()

    def _warm_step(self) -> bool:
        while self._cold:
            screen = self._cold.pop(0)
            if screen.is_running:
                continue
            if not mount_off_screen(self, screen):
                self._cold.clear()  # composed on first visit instead
            return True
        if self.model is None:
            return False
        for view in self.views.values():
            if view.is_mounted and view.is_attached and view not in self.screen_stack and view.stale:
                view.refresh_view()
                return True
        for screen in (*self.views.values(), self.detail, self.explainer, self.help_screen):
            if (
                screen.is_mounted
                and screen.is_attached
                and screen not in self.screen_stack
                and needs_layout(screen, self.size)
            ):
                # Lay the hidden screen out for the terminal's size, as showing it would (Textual paints
                # only the current screen): a first visit then costs a frame, not a layout too.
                return lay_out(screen, self.size)
        return False

    # ------------------------------------------------------------------------------------ loading

    def action_reload(self, user: bool = True) -> None:
        if self.loading_now or not self.is_running:  # a --watch tick may land while the app shuts down
            return
        self.loading_now = True
        self.user_reload = user
        if user:
            self.settled.clear()
        self.status = "loading…" if self.model is None else "reloading…"
        self._refresh_titles()
        self._load()

    @work(thread=True, exclusive=True, group="load")
    def _load(self) -> None:
        start = time.perf_counter()
        stamp = self.stamp() if self.stamp else None
        try:
            analysis = self.loader()
            said = self.said() if self.said is not None else _warnings_of(analysis)
        except NetpolError as exc:  # the user's input is wrong: say so on screen, keep the old model
            self._last_stamp = stamp  # --watch tries again when the files change again, not at every tick
            self.post_message(LoadFailed(str(exc)))
            return
        try:
            reference = ViewModel(self.compare()) if self.compare is not None else None
        except NetpolError as exc:
            self._last_stamp = stamp
            self.post_message(LoadFailed(f"{self.compare_label}: {exc}"))
            return
        loaded = ViewModel(analysis)
        edits = self.edits
        model = ViewModel(apply_edits(analysis, edits), like=loaded) if edits else loaded
        self._last_stamp = stamp  # the audit is not awaited here: it runs after the UI shows the model
        self.post_message(AnalysisReady(model, time.perf_counter() - start, loaded, reference, said))

    def on_analysis_ready(self, message: AnalysisReady) -> None:
        first = self.model is None
        self.model = message.model
        self._model_edits = self.edits  # the loader applied the edits of the moment
        self.loaded = message.base or message.model
        self.base = message.reference or self.loaded
        self.showing_model()
        _settle_heap()
        self.loads += 1
        self.loading_now = False
        self.status = ""
        self.load_error = None
        self.load_notes = message.said
        if self.namespace and self.namespace not in self.model.namespaces:
            self.namespace = None
        if not first and not self.user_reload:  # --watch: said in the title, not a toast per change
            self._reloaded_at = time.strftime("%H:%M:%S")
        for screen in self.screen_stack:
            if isinstance(screen, ReachScreen) and screen.is_mounted:
                screen.refresh_view()
        if not first and self.user_reload:
            self.notify(f"reloaded: {self.model.summary}")
        self._last_input = max(self._last_input, time.monotonic())  # the user is about to look at the new data
        self._schedule_warm_up()
        self._idle_audit(self.model)

    # The audit is seconds of CPU at 100,000 pods (the checks), and the redundant-policy check (NP060)
    # recomputes reachability per policy: 0.4 s at 10,000 pods and 2,000 policies, seconds with
    # AdminNetworkPolicies (whole matrices). A worker thread computing them right after the load would compete
    # for the GIL with the first key presses and with the views' warm-up. So after a load it starts once the
    # views are ready and the user has left the keyboard alone for IDLE_BEFORE_AUDIT seconds, or as soon as the
    # Audit screen is opened (what-if models: only then).
    IDLE_BEFORE_AUDIT = 0.5

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key | events.MouseDown):
            self._last_input = time.monotonic()
        if isinstance(event, events.Key) and not event.is_forwarded and self._typed_into_a_dialog(event):
            return  # typed while a dialog was up: the dialog's, not the view's (tui.screens.modals.Dialog)
        await super().on_event(event)

    def _typed_into_a_dialog(self, key: events.Key) -> bool:
        if isinstance(self.screen, Dialog):
            self._dialog = self.screen  # the dialog drops what comes after its answer itself
            return False
        return self._dialog is not None and self._dialog.typed_while_open(key)

    def _idle_audit(self, model: ViewModel) -> None:
        if model is not self.model or model.audit_finished:
            return
        quiet = time.monotonic() - self._last_input
        if quiet < self.IDLE_BEFORE_AUDIT or not self.settled.is_set():
            self.set_timer(max(0.0, self.IDLE_BEFORE_AUDIT - quiet) + 0.05, lambda: self._idle_audit(model))
            return
        self.start_audit(model)

    def showing_model(self) -> None:
        """`self.model` was just replaced (load, reload, what-if): `audited` follows its audit."""
        if self.model is not None and self.model.audit_finished:
            self.audited.set()
        else:
            self.audited.clear()

    def start_audit(self, model: ViewModel) -> None:
        """Start the audit thread for `model` unless its audit is done or under way.

        A daemon thread, not a Textual thread worker: those run on asyncio's default executor, which the
        interpreter joins at exit, so quitting while NP060 ran waited for it (9 s at 10,000 pods, minutes at
        100,000). Nothing is lost by dropping it: the audit only reads the model and posts messages."""
        if model.audit_finished or id(model) in self._auditing:
            return
        self._auditing.add(id(model))
        threading.Thread(target=self._audit, args=(model,), name="netpol-audit", daemon=True).start()

    def _audit(self, model: ViewModel) -> None:
        """The checks, shown when done; then NP060, which joins the list. A model no longer on screen (or an app
        closed) is not checked for NP060 (`start_audit` resumes it if it comes back, e.g. what-if undone)."""
        try:
            model.run_base_audit()
            self.post_message(AuditProgress(model))  # thread-safe; dropped once the app is closed
            if model is self.model and self.is_running:
                model.run_redundancy()
                self.post_message(AuditProgress(model))
        except Exception as exc:  # a bug in a check: said on screen, not "auditing…" for ever
            model.audit_error = f"{type(exc).__name__}: {exc}"
            self.post_message(AuditProgress(model))
        finally:
            self._auditing.discard(id(model))

    def on_audit_progress(self, message: AuditProgress) -> None:
        """A part of a model's audit is done: the Audit view shows it (now if on screen, else when next shown)."""
        model = message.model
        if model.audit_error is not None:
            self.notify(model.audit_error, title="the audit failed", severity="error", timeout=30)
        if model is not self.model:
            return
        audit = self.views["audit"]
        if audit.is_current:
            audit.refresh_view()
        else:
            audit.invalidate()
            self._schedule_warm_up()  # rendered ahead, hidden, as after a load
        if model.audit_finished:
            self.audited.set()

    def on_audit_wanted(self, message: AuditWanted) -> None:
        self.start_audit(message.model)

    def on_load_failed(self, message: LoadFailed) -> None:
        """The reason stays on every view until a load succeeds (`ReachScreen` shows `load_error`): the spinner
        stops, r tries again, q quits. A toast only when the reason is new (--watch retries every tick)."""
        self.loading_now = False
        self.status = "load failed"
        new = message.error != self.load_error
        self.load_error = message.error
        for screen in self.screen_stack:
            if isinstance(screen, ReachScreen) and screen.is_mounted:
                screen.show_load_state()  # the reason and the spinner; the last good model stays as drawn
        if new and self.model is not None:  # a reload failed: the banner is one line, a toast draws the eye to it
            self.notify(message.error, title="reload failed", severity="error", timeout=10)
        self.settled.set()

    @property
    def origin(self) -> str:
        """What the title says the data is: `live CONTEXT`, `new B · old A`; with --watch, when it last changed."""
        parts = [self._origin] if self._origin else []
        if self.watch_files:
            parts.append(f"watching · reloaded {self._reloaded_at}" if self._reloaded_at else "watching")
        return " · ".join(parts)

    # ------------------------------------------------------------------------------------ quitting

    def action_quit_asking(self) -> None:
        """`q`: quit, unless what-if edits would be lost unwritten: then ask (y quits, W writes first)."""
        if not self.edits or self.edits == self._written:
            self.exit()
            return
        if isinstance(self.screen, ConfirmQuitScreen):
            return

        def answered(choice: str | None) -> None:
            match choice:
                case "quit":
                    self.exit()
                case "write":
                    self.action_write_edits()
                case _:
                    self.notify("still here: the what-if edits are kept")

        self.push_screen(ConfirmQuitScreen(len(self.edits)), answered)

    @work(thread=True, exclusive=True, group="watch")
    def _poll_worker(self) -> None:
        try:
            assert self.stamp is not None
            now = self.stamp()
            if self._last_stamp is not None and now != self._last_stamp and not self.loading_now:
                self.call_from_thread(self.action_reload, False)
        finally:
            self._polling = False

    def _poll(self) -> None:
        """A --watch tick: compare the stamp in a worker, unless the last tick's is still at it (on a busy
        machine a tick's worker may outlast the interval: it finishes, rather than being cancelled by the next)."""
        if not self.loading_now and not self._polling:
            self._polling = True
            self._poll_worker()

    def _refresh_titles(self) -> None:
        for screen in self.screen_stack:
            if isinstance(screen, ReachScreen) and screen.is_mounted:
                screen.update_title()


def _warnings_of(analysis: Analysis) -> tuple[str, ...]:
    """The warnings the CLI would print for this analysis, when the loader does not say them itself."""
    return tuple(f"warning: {text_safe(w.render())}" for w in analysis.warnings)


def _satisfies_app_state(app: ReachApp) -> AppState:
    """Never called: mypy checks here that ReachApp is what screens read it as (`tui.state.AppState`)."""
    return app
