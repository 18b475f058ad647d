"""The exposure analysis (netpol.exposure) for the UI, once per view model, in its two parts.

- The doors and their paths (`doors_of`) are what the Pods view's marks, a pod's page and the Exposure view
  show. They are the first engine's verdicts unless a proxy is missing from the input (then a small second
  engine with its stand-in), so they are computed when first shown, on the UI thread, like the views' rows.
- What the pods admit and reach beyond the input needs a second engine with one pod per class: seconds at
  100,000 pods, so it is computed by the audit worker (NP092 needs it; `exposure_of` gives the audit both
  parts), never on the UI thread. A pod's page shows it once computed (and says nothing of it before).

Both are stored by one assignment, so the UI thread reads a finished value or none. No Textual import.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Protocol
from weakref import WeakKeyDictionary

from netpol.exposure import (
    Beyond,
    Doors,
    Exposure,
    PodBeyond,
    analyze_beyond,
    analyze_doors,
    door_words,
)
from netpol.pipeline import Analysis


class ViewModel(Protocol):
    """What the exposure views read of the UI's model (tui.model.ViewModel): typed here so that this module, which
    tui.findings (and so tui.model) imports, does not import the model back."""

    @property
    def analysis(self) -> Analysis: ...

# Pods some door lets a client outside the cluster reach carry this mark before their name in the Pods view.
EXPOSED_MARK = "↗"


@dataclass
class State:
    doors: Doors | None = None
    beyond: Beyond | None = None
    beyond_of: dict[str, PodBeyond] = field(default_factory=dict)  # pod key → what it admits beyond the input
    error: str | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)


_states: WeakKeyDictionary[Any, State] = WeakKeyDictionary()
_states_lock = threading.Lock()


def state(model: ViewModel) -> State:
    with _states_lock:
        s = _states.get(model)
        if s is None:
            s = _states[model] = State()
        return s


def doors_of(model: ViewModel) -> Doors:
    """The model's doors and paths, computed on first call (any thread; concurrent callers share one result)."""
    s = state(model)
    with s.lock:
        if s.doors is None:
            try:
                s.doors = analyze_doors(model.analysis)
            except Exception as exc:  # a bug: said on screen, not an empty list
                s.error = f"{type(exc).__name__}: {exc}"
                raise
        return s.doors


def exposure_of(model: ViewModel) -> Exposure:
    """Both parts, for the audit worker (NP090-NP092): the beyond-the-input part is computed here."""
    doors = doors_of(model)
    s = state(model)
    with s.lock:
        if s.beyond is None:
            beyond = analyze_beyond(model.analysis)
            s.beyond_of = {b.pod: b for b in beyond.of(sorted(beyond.rep_of))}
            s.beyond = beyond
        return Exposure(doors, s.beyond, frozenset(p.key for p in model.analysis.reachability.pods))


def exposed_pods(model: ViewModel) -> frozenset[str]:
    try:
        return doors_of(model).exposed
    except Exception:  # noqa: BLE001 - the error is kept in the state and said by the Exposure view
        return frozenset()


def pod_lines(model: ViewModel, key: str) -> list[str]:
    """A pod's page, in two lines at most: the doors that lead to it (:exposure has the hops), and what its
    policies admit or reach beyond the input."""
    try:
        paths = [p for p in doors_of(model).paths if p.pod == key]
    except Exception:  # noqa: BLE001
        return [f"from outside: the exposure analysis failed ({state(model).error})"]
    if paths:
        shown = "; ".join(f"{p.verdict} via {door_words(p.door)}" for p in paths[:2])
        more = f"; {len(paths) - 2} more" if len(paths) > 2 else ""
        lines = [f"from outside ({len(paths)} path{'s' if len(paths) != 1 else ''}, :exposure): {shown}{more}"]
    else:
        lines = ["from outside: no door leads here"]
    s = state(model)
    if s.beyond is None:  # the audit computes it: shown from then on (nothing meanwhile, never a changing line)
        return lines
    b = s.beyond_of.get(key)
    kept = [a for a in b.admissions if a.isolated] if b is not None else []
    if kept:
        words = "; ".join(
            f"{'admits' if a.direction == 'ingress' else 'reaches'} {a.peer} ({a.conn.render()})" for a in kept[:2]
        )
        more = f"; {len(kept) - 2} more" if len(kept) > 2 else ""
        lines.append(f"beyond the input: {words}{more}")
    return lines
