"""The scheduling cycle: PreFilter → Filter → (feasible subset) → Score → NormalizeScore → weights → host → bind.

Mirrors pkg/scheduler/schedule_one.go (v1.30) with two deliberate differences, both for repeatable output:
nodes are visited in name order (upstream walks a zone-interleaved node tree), and ties between equally
scored nodes go to the first node by name unless a seed asks for upstream-like random tie-breaking
(upstream's selectHost samples ties uniformly at random).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from netpol.model.labels import LabelSelector, LabelSelectorRequirement
from netpol.model.objects import Pod, Service, Workload
from scheduling.diagnosis import (
    NO_NODE_AVAILABLE,
    NodeTrace,
    PluginScore,
    PodTrace,
    fit_error_message,
    prefilter_result_reason,
)
from scheduling.framework import Code, CycleState, NodeVerdicts, Profile, Status
from scheduling.plugins import (
    BalancedAllocation,
    ImageLocality,
    InterPodAffinity,
    NodeAffinity,
    NodeName,
    NodePorts,
    NodeResourcesFit,
    NodeUnschedulable,
    PodTopologySpread,
    TaintToleration,
)
from scheduling.podinfo import PodInfo
from scheduling.snapshot import Snapshot

MIN_FEASIBLE_NODES_TO_FIND = 100  # schedule_one.go minFeasibleNodesToFind
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5


def num_feasible_nodes_to_find(num_all_nodes: int, percentage: int = 0) -> int:
    """schedule_one.go numFeasibleNodesToFind: all nodes below 100, else an adaptive percentage (50 - n/125,
    at least 5%) but never fewer than 100."""
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return num_all_nodes
    if percentage == 0:
        percentage = max(50 - num_all_nodes // 125, MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)
    return max(num_all_nodes * percentage // 100, MIN_FEASIBLE_NODES_TO_FIND)


def default_selector_fn(
    services: tuple[Service, ...], workloads: tuple[Workload, ...]
) -> Callable[[Pod], LabelSelector | None]:
    """helper.DefaultSelector: the Services, ReplicaSets (here: Deployments/ReplicaSets) and StatefulSets
    selecting the pod, merged into one selector (Service selectors as labels, workload selectors ANDed)."""
    cache: dict[tuple[str, object], LabelSelector | None] = {}

    def selector(pod: Pod) -> LabelSelector | None:
        key = (pod.namespace, pod.labels)
        if key in cache:
            return cache[key]
        labels: dict[str, str] = {}
        exprs: list[LabelSelectorRequirement] = []
        for svc in services:
            if (
                svc.namespace == pod.namespace
                and svc.selector
                and all(pod.labels.get(k) == v for k, v in svc.selector.items())
            ):
                labels.update(svc.selector)
        for wl in workloads:
            if wl.kind not in ("Deployment", "ReplicaSet", "StatefulSet") or wl.namespace != pod.namespace:
                continue
            if wl.selector is None or wl.selector.is_empty or not wl.selector.matches(pod.labels):
                continue
            exprs += [LabelSelectorRequirement(k, "In", (v,)) for k, v in wl.selector.match_labels.items()]
            exprs += list(wl.selector.match_expressions)
        from netpol.model.labels import Labels

        sel = LabelSelector(Labels(labels), tuple(dict.fromkeys(exprs))) if labels or exprs else None
        cache[key] = sel
        return sel

    return selector


def default_profile(services: tuple[Service, ...] = (), workloads: tuple[Workload, ...] = ()) -> Profile:
    """The default-scheduler profile: upstream's plugin order for Filter and Score (default_plugins.go)."""
    na = NodeAffinity()
    tt = TaintToleration()
    fit = NodeResourcesFit()
    pts = PodTopologySpread(default_selector_fn(services, workloads))
    ipa = InterPodAffinity()
    return Profile(
        pre_filter=(na,),
        filter=(NodeUnschedulable(), NodeName(), tt, na, NodePorts(), fit, pts, ipa),
        score=(tt, na, fit, pts, ipa, BalancedAllocation(), ImageLocality()),
    )


@dataclass(frozen=True, slots=True)
class Failure:
    """Nodes a filter plugin rejected first, with its verdicts (to rebuild reasons per node)."""

    plugin: str
    nodes: np.ndarray
    verdicts: NodeVerdicts


class Scheduler:
    """One scheduling queue's worth of state: the snapshot, the profile, tie-breaking and the rotating start."""

    def __init__(
        self,
        snap: Snapshot,
        profile: Profile,
        *,
        seed: int | None = None,
        detail: Callable[[str], bool] = lambda key: True,
    ) -> None:
        self.snap = snap
        self.profile = profile
        self.rng = random.Random(seed) if seed is not None else None
        self.detail = detail
        self.next_start = 0
        # Each node's status code from the last failed cycle (Code values): what preemption reads to find the
        # nodes where it might help (upstream: Diagnosis.NodeToStatus).
        self.last_codes: np.ndarray | None = None

    def schedule_one(self, info: PodInfo, nominated: int | None = None) -> PodTrace:
        """Run one cycle; on success the pod is bound in the snapshot.

        `nominated`: the node preemption nominated; when it passes every filter it is taken without scoring
        (schedule_one.go evaluateNominatedNode)."""
        snap = self.snap
        key = info.key
        self.last_codes = None
        if snap.n == 0:
            return PodTrace(key, "unschedulable", reason=NO_NODE_AVAILABLE)
        state = CycleState()
        cand = np.ones(snap.n, dtype=bool)
        narrowing: list[str] = []  # plugins whose PreFilterResult restricted the nodes
        for pl in self.profile.pre_filter:
            r = pl.pre_filter(state, info, snap)
            if not r.status.is_success:
                self.last_codes = np.full(snap.n, int(r.status.code), dtype=np.int64)
                msg = fit_error_message(snap.n, Counter(), r.status.message())
                nodes = tuple(NodeTrace(name, (r.status,)) for name in snap.names) if self.detail(key) else ()
                return PodTrace(key, "unschedulable", reason=msg, nodes=nodes)
            if r.nodes is not None:
                narrowing.append(pl.name)
                cand &= r.nodes
        excluded = ~cand
        excluded_status = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (prefilter_result_reason(narrowing),), "")
        remaining = cand.copy()
        failures: list[Failure] = []
        ran: list[str] = []
        for fp in self.profile.filter:
            if not remaining.any():
                break
            v = fp.filter(state, info, snap)
            ran.append(fp.name)
            if v is None:
                continue
            newly = remaining & ~v.ok
            if newly.any():
                failures.append(Failure(fp.name, newly, v))
            remaining &= v.ok
        if not remaining.any():
            codes = np.full(snap.n, int(Code.UNSCHEDULABLE_AND_UNRESOLVABLE), dtype=np.int64)
            for f in failures:
                per_reason = np.array([int(c) for c in f.verdicts.codes], dtype=np.int64)
                codes[f.nodes] = per_reason[0] if f.verdicts.reason is None else per_reason[f.verdicts.reason[f.nodes]]
            self.last_codes = codes
            reasons: Counter[str] = Counter()
            if excluded.any():
                reasons[excluded_status.reasons[0]] += int(excluded.sum())
            for f in failures:
                ids = (
                    np.zeros(int(f.nodes.sum()), dtype=np.int64)
                    if f.verdicts.reason is None
                    else f.verdicts.reason[f.nodes]
                )
                for rid, cnt in enumerate(np.bincount(ids)):
                    if cnt:
                        for text in f.verdicts.reasons[rid]:
                            reasons[text] += int(cnt)
            msg = fit_error_message(snap.n, reasons)
            nodes = (
                self._node_traces(info, excluded_status, excluded, failures, ran, None, None, None)
                if self.detail(key)
                else ()
            )
            return PodTrace(key, "unschedulable", reason=msg, nodes=nodes)

        if nominated is not None and remaining[nominated]:
            snap.bind(info, nominated)
            nodes = (
                self._node_traces(info, excluded_status, excluded, failures, ran, remaining, np.array([nominated]), [])
                if self.detail(key)
                else ()
            )
            return PodTrace(key, "scheduled", node=snap.names[nominated], nodes=nodes, feasible=1, evaluated=1)

        # Only a share of the feasible nodes is scored in big clusters, starting where the last cycle stopped.
        cand_idx = np.flatnonzero(cand)
        m = len(cand_idx)
        to_find = num_feasible_nodes_to_find(m)
        start = self.next_start % m
        rotated = np.concatenate((cand_idx[start:], cand_idx[:start])) if start else cand_idx
        positions = np.flatnonzero(remaining[rotated])
        if len(positions) > to_find:
            chosen = rotated[positions[:to_find]]
            processed = int(positions[to_find - 1]) + 1
        else:
            chosen = rotated[positions]
            processed = m
        self.next_start = (self.next_start + processed) % m
        chosen = np.sort(chosen)

        scores: list[tuple[str, np.ndarray, np.ndarray, int]] = []
        if len(chosen) == 1:  # schedulePod: a single feasible node is taken without scoring
            best = int(chosen[0])
        else:
            total = np.zeros(len(chosen), dtype=np.int64)
            for sp in self.profile.score:
                raw = sp.score(state, info, snap, chosen)
                if raw is None:
                    raw = norm = np.zeros(len(chosen), dtype=np.int64)
                else:
                    norm = sp.normalize(state, raw)
                total += norm * sp.weight
                scores.append((sp.name, raw, norm, sp.weight))
            top = total.max()
            ties = chosen[total == top]
            best = int(ties[self.rng.randrange(len(ties))]) if self.rng is not None and len(ties) > 1 else int(ties[0])
        snap.bind(info, best)
        nodes = (
            self._node_traces(info, excluded_status, excluded, failures, ran, remaining, chosen, scores)
            if self.detail(key)
            else ()
        )
        return PodTrace(
            key, "scheduled", node=snap.names[best], nodes=nodes, feasible=int(remaining.sum()), evaluated=len(chosen)
        )

    def _node_traces(
        self,
        info: PodInfo,
        excluded_status: Status,
        excluded: np.ndarray,
        failures: list[Failure],
        ran: list[str],
        remaining: np.ndarray | None,
        chosen: np.ndarray | None,
        scores: list[tuple[str, np.ndarray, np.ndarray, int]] | None,
    ) -> tuple[NodeTrace, ...]:
        snap = self.snap
        failed_at: dict[int, Failure] = {}
        for failure in failures:
            for i in np.flatnonzero(failure.nodes):
                failed_at[int(i)] = failure
        position = {int(i): k for k, i in enumerate(chosen)} if chosen is not None else {}
        out = []
        for n, name in enumerate(snap.names):
            if excluded[n]:
                out.append(NodeTrace(name, (excluded_status,)))
                continue
            f = failed_at.get(n)
            statuses = []
            for plugin in ran:
                if f is not None and plugin == f.plugin:
                    statuses.append(f.verdicts.status_of(n, plugin))
                    break
                statuses.append(Status(plugin=plugin))
            node_scores: tuple[PluginScore, ...] = ()
            k = position.get(n)
            if k is not None and scores:
                node_scores = tuple(PluginScore(p, int(raw[k]), int(norm[k]), w) for p, raw, norm, w in scores)
            evaluated = f is not None or k is not None
            out.append(NodeTrace(name, tuple(statuses), node_scores, evaluated))
        return tuple(out)
