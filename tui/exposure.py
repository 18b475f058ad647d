"""The exposure analysis (netpol.exposure) for the UI: computed once per view model, never on the UI thread.

It compiles a second engine (the cluster with stand-ins for what the input lacks), seconds at 100,000 pods,
so it runs in a daemon thread started once the UI is idle, or by the audit worker (NP080–NP082 need it, and
take it from here rather than computing it again), whichever comes first; both read one result. When it is
done the views that show it (Pods' marks, a pod's page, the Exposure view) are rendered again. No Textual
import: the app is passed in.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from netpol.exposure import Exposure, PodBeyond, admission_line, analyze_exposure, path_head

if TYPE_CHECKING:
    from tui.model import ViewModel

# Pods reachable from outside the cluster carry this mark before their name in the Pods view.
EXPOSED_MARK = "↗"
IDLE_BEFORE = 0.6  # seconds after a model is shown: the views' warm-up and the first keys go first
VIEWS_SHOWING = ("pods", "pod", "exposure")


@dataclass
class State:
    exposure: Exposure | None = None
    error: str | None = None
    started: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)
    exposed: frozenset[str] = frozenset()  # pod keys some door lets the internet reach (allowed or restricted)
    beyond: dict[str, PodBeyond] = field(default_factory=dict)  # pod key → what it admits beyond the input


_states: WeakKeyDictionary[Any, State] = WeakKeyDictionary()
_states_lock = threading.Lock()


def state(model: ViewModel) -> State:
    with _states_lock:
        s = _states.get(model)
        if s is None:
            s = _states[model] = State()
        return s


def exposure_of(model: ViewModel) -> Exposure:
    """The model's exposure, computed here on first call (any thread; concurrent callers wait for one result)."""
    s = state(model)
    with s.lock:
        if s.exposure is None:
            try:
                e = analyze_exposure(model.analysis)
            except Exception as exc:  # a bug: said on screen rather than "computing…" for ever
                s.error = f"{type(exc).__name__}: {exc}"
                raise
            s.exposed = frozenset(p.pod for p in e.paths if p.pod and p.verdict in ("allowed", "restricted"))
            s.beyond = {b.pod: b for b in e.beyond()}
            s.exposure = e
        return s.exposure


def refresh_views(app: Any, model: ViewModel) -> None:
    """On the UI thread, once `model`'s exposure is computed: the views showing it render again, now when on
    screen, else when next shown."""
    if model is not app.model:
        return
    for screen in (*app.screen_stack, *app.views.values(), app.detail):
        if getattr(screen, "VIEW", None) in VIEWS_SHOWING and screen.is_mounted:
            if screen.is_current:
                screen.refresh_view()
            else:
                screen.invalidate()


def ensure(app: Any, model: ViewModel, refresh: Callable[[Any, ViewModel], None] = refresh_views) -> None:
    """Start computing in the background once the app has been idle a moment (no-op once started); `refresh(app,
    model)` runs on the UI thread when it is done."""
    s = state(model)
    if s.started:
        return
    s.started = True

    def run() -> None:
        try:
            exposure_of(model)
        except Exception:  # noqa: BLE001 - kept in the state and shown by the views
            pass
        try:
            app.call_from_thread(refresh, app, model)
        except RuntimeError:  # the app closed meanwhile
            pass

    app.set_timer(IDLE_BEFORE, lambda: threading.Thread(target=run, name="netpol-exposure", daemon=True).start())


def exposed_pods(model: ViewModel) -> frozenset[str]:
    return state(model).exposed


def pod_lines(model: ViewModel, key: str) -> list[str]:
    """A pod's page: the doors that lead to it, and what its policies admit or reach beyond the input."""
    s = state(model)
    if s.error is not None:
        return [f"exposure: failed ({s.error})"]
    e = s.exposure
    if e is None:
        return ["from outside the cluster: computing…"]
    lines = []
    paths = [p for p in e.paths if p.pod == key]
    if paths:
        lines.append(f"from outside the cluster ({len(paths)} path{'s' if len(paths) != 1 else ''}, :exposure):")
        lines += [f"  {p.verdict.upper()}  {path_head(p)}" for p in paths]
    else:
        lines.append("from outside the cluster: no door leads here")
    b = s.beyond.get(key)
    if b is not None:
        kept = [a for a in b.admissions if a.isolated]
        if kept:
            lines.append("beyond the input (pods and namespaces the input lacks):")
            lines += [f"  {admission_line(key, a)}  ({'; '.join(a.rules)})" for a in kept]
    return lines
