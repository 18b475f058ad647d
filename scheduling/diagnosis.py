"""Why a pod landed where it did, or why it is Pending: the FailedScheduling text and the per-pod trace.

`fit_error_message` mirrors framework.FitError.Error (v1.30): "0/N nodes are available: " then, for every
node, the reasons of the *first* plugin that rejected it, identical reasons counted, the "count reason"
strings sorted as strings (so "1 …" sorts before "2 …" and "10 …" before "2 …"), joined by ", ", ending
with ".". A PreFilter rejection replaces the histogram with its own message. Real clusters append a
"preemption: …" sentence from the DefaultPreemption PostFilter; the simulator does not model
preemption, so it stops at the filter histogram (the form the source material shows).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from scheduling.framework import Status

NO_NODE_AVAILABLE = "no nodes available to schedule pods"  # framework.ErrNoNodesAvailable


def prefilter_result_reason(plugins: list[str]) -> str:
    """schedule_one.go findNodesThatFitPod (v1.31+): nodes outside a PreFilterResult get UnschedulableAndUnresolvable
    "node(s) didn't satisfy plugin(s) [A B]" naming the plugins that narrowed the node set (Go's %v of a sorted
    string slice). v1.28–v1.30 said "node is filtered out by the prefilter result"."""
    return f"node(s) didn't satisfy plugin(s) [{' '.join(sorted(set(plugins)))}]"


def histogram_text(reasons: Counter[str]) -> str:
    return ", ".join(sorted(f"{count} {reason}" for reason, count in reasons.items()))


def fit_error_message(num_nodes: int, reasons: Counter[str], prefilter_message: str = "") -> str:
    msg = f"0/{num_nodes} nodes are available:"
    if prefilter_message:
        return f"{msg} {prefilter_message}."
    text = histogram_text(reasons)
    return f"{msg} {text}." if text else msg


@dataclass(frozen=True, slots=True)
class PluginScore:
    plugin: str
    raw: int
    normalized: int
    weight: int

    @property
    def weighted(self) -> int:
        return self.normalized * self.weight


@dataclass(frozen=True, slots=True)
class NodeTrace:
    """One node's story for one pod: the filters it passed, the one that rejected it, its scores."""

    node: str
    filters: tuple[Status, ...]  # every filter run, in order; the last one failed if the node was rejected
    scores: tuple[PluginScore, ...] = ()
    evaluated: bool = True  # False: feasible, but not among the nodes scored (percentageOfNodesToScore)

    @property
    def feasible(self) -> bool:
        return all(s.is_success for s in self.filters)

    @property
    def failure(self) -> Status | None:
        for s in self.filters:
            if not s.is_success:
                return s
        return None

    @property
    def total(self) -> int | None:
        return sum(s.weighted for s in self.scores) if self.scores else None


@dataclass(frozen=True, slots=True)
class PodTrace:
    """The scheduling story of one pod.

    `how` is one of: scheduled, unschedulable, bound (already running or spec.nodeName admitted by the
    kubelet), rejected (kubelet admission refused a spec.nodeName pod), orphaned (spec.nodeName names no
    node), waiting (StatefulSet OrderedReady: an earlier ordinal is not Running), skipped (another
    scheduler, or a finished pod).
    """

    pod: str
    how: str
    node: str | None = None
    reason: str = ""
    message: str = ""
    nodes: tuple[NodeTrace, ...] = ()
    feasible: int = 0
    evaluated: int = 0
    preempted: tuple[str, ...] = ()  # the victims evicted to make room (DefaultPreemption)

    @property
    def chosen(self) -> NodeTrace | None:
        for n in self.nodes:
            if n.node == self.node:
                return n
        return None


def render_trace(trace: PodTrace) -> str:
    """Plain-text explanation for `--explain`: filter verdicts per node, then the score table."""
    lines = [f"Pod {trace.pod}"]
    match trace.how:
        case "scheduled":
            lines.append(f"  scheduled on {trace.node} ({trace.feasible} feasible node(s), {trace.evaluated} scored)")
            if trace.preempted:
                lines.append(f"  preempted {', '.join(trace.preempted)} on {trace.node} (DefaultPreemption)")
        case "unschedulable":
            lines.append("  Pending: " + trace.reason)
        case "bound":
            lines.append(f"  bound to {trace.node} without the scheduler ({trace.message or 'spec.nodeName'})")
        case _:
            lines.append(f"  {trace.how}: {trace.reason}" + (f" ({trace.message})" if trace.message else ""))
    if not trace.nodes:
        return "\n".join(lines) + "\n"
    lines.append("  Filter:")
    width = max(len(n.node) for n in trace.nodes)
    for n in trace.nodes:
        fail = n.failure
        if fail is None:
            passed = "passed all filters" if n.filters else "passed (no filter applied)"
            lines.append(f"    {n.node:<{width}}  {passed}")
        else:
            ok = [s.plugin for s in n.filters if s.is_success]
            prefix = f"passed {', '.join(ok)}; " if ok else ""
            lines.append(
                f"    {n.node:<{width}}  {prefix}rejected by {fail.plugin or 'PreFilter'} "
                f"({fail.code.label}): {fail.message()}"
            )
    scored = [n for n in trace.nodes if n.scores]
    if scored:
        lines.append("  Score (raw -> normalized x weight = weighted):")
        for n in sorted(scored, key=lambda x: (-(x.total or 0), x.node)):
            mark = "  <- chosen" if n.node == trace.node else ""
            lines.append(f"    {n.node:<{width}}  total {n.total}{mark}")
            for s in n.scores:
                lines.append(f"      {s.plugin:<32} {s.raw:>6} -> {s.normalized:>3} x {s.weight} = {s.weighted:>4}")
    unevaluated = [n.node for n in trace.nodes if n.feasible and not n.evaluated]
    if unevaluated:
        lines.append(f"  Feasible but not scored (percentageOfNodesToScore): {len(unevaluated)} node(s)")
    return "\n".join(lines) + "\n"
