"""PodTopologySpread (upstream plugins/podtopologyspread: filtering.go, scoring.go, common.go).

Filter (DoNotSchedule constraints): for the node's domain, matching pods + 1 if the pod matches its own
selector - the global minimum over eligible domains must be <= maxSkew. Eligible nodes carry every
constraint's key and pass nodeAffinityPolicy (Honor by default: the pod's nodeSelector/required affinity)
and nodeTaintsPolicy (Ignore by default). With fewer eligible domains than minDomains the minimum is 0.
A node without the key is rejected as unresolvable.

Score (ScheduleAnyway constraints, or the system default constraints for pods selected by a Service,
ReplicaSet/Deployment or StatefulSet: zone maxSkew 5, hostname maxSkew 3): per constraint
count * log(domains + 2) + (maxSkew - 1), then reversed min-max normalisation (fewer matching pods wins).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from netpol.model.labels import LabelSelector, LabelSelectorRequirement
from netpol.model.objects import TopologySpreadConstraint
from scheduling.framework import MAX_NODE_SCORE, Code, CycleState, NodeVerdicts, StateKey
from scheduling.plugins.node_affinity import required_node_mask
from scheduling.plugins.taint_toleration import DO_NOT_SCHEDULE
from scheduling.podinfo import PodInfo, TermQuery
from scheduling.snapshot import LABEL_HOSTNAME, LABEL_ZONE, Snapshot

NAME = "PodTopologySpread"
WEIGHT = 2
ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"
SYSTEM_DEFAULT_CONSTRAINTS = (  # plugins/podtopologyspread/plugin.go systemDefaultConstraints
    (LABEL_HOSTNAME, 3),
    (LABEL_ZONE, 5),
)
BIG = np.int64(2**31 - 1)  # math.MaxInt32: critical-path minimum when no domain is eligible
IGNORED_KEY: StateKey[np.ndarray] = StateKey(f"{NAME}/ignored")  # Score → NormalizeScore: nodes not counted


@dataclass(frozen=True, slots=True)
class Constraint:
    """A constraint with its selector resolved (matchLabelKeys folded in) and pods counted in the pod's namespace."""

    max_skew: int
    topology_key: str
    selector: LabelSelector | None
    min_domains: int | None
    honor_affinity: bool
    honor_taints: bool

    def query(self, namespace: str) -> tuple[TermQuery, ...]:
        return (TermQuery(frozenset({namespace}), None, self.selector),)


def resolve(c: TopologySpreadConstraint, pod: PodInfo) -> Constraint:
    sel = c.label_selector
    if sel is not None and c.match_label_keys:
        extra = tuple(
            LabelSelectorRequirement(k, "In", (pod.pod.labels[k],)) for k in c.match_label_keys if k in pod.pod.labels
        )
        sel = LabelSelector(sel.match_labels, sel.match_expressions + extra)
    return Constraint(
        c.max_skew,
        c.topology_key,
        sel,
        c.min_domains,
        c.node_affinity_policy != "Ignore",
        c.node_taints_policy == "Honor",
    )


def eligible_nodes(
    state: CycleState, pod: PodInfo, snap: Snapshot, cons: list[Constraint], require_all: bool
) -> list[np.ndarray]:
    """Per constraint: nodes whose pods count (all keys present, inclusion policies honoured)."""
    base = np.ones(snap.n, dtype=bool)
    if require_all:
        for c in cons:
            base &= snap.topology(c.topology_key).has
    out = []
    for c in cons:
        m = base.copy()
        if c.honor_affinity:
            req = required_node_mask(state, pod, snap)
            if req is not None:
                m &= req
        if c.honor_taints:
            ok, _ = snap.taint_mask(pod.pod.tolerations, DO_NOT_SCHEDULE)
            m &= ok
        out.append(m)
    return out


class PodTopologySpread:
    name = NAME
    weight = WEIGHT

    def __init__(self, default_selector=None) -> None:
        # default_selector(pod) -> LabelSelector | None: helper.DefaultSelector over Services/RS/SS.
        self.default_selector = default_selector

    def filter(self, state: CycleState, pod: PodInfo, snap: Snapshot) -> NodeVerdicts | None:
        cons = [resolve(c, pod) for c in pod.pod.topology_spread_constraints if c.when_unsatisfiable == "DoNotSchedule"]
        if not cons:
            return None
        eligible = eligible_nodes(state, pod, snap, cons, require_all=True)
        n = snap.n
        reason = np.full(n, -1, dtype=np.int64)
        for c, elig in zip(cons, eligible, strict=True):
            topo = snap.topology(c.topology_key)
            counts = snap.pod_index.count(c.query(pod.pod.namespace))
            ids = topo.ids[elig]
            dom = np.bincount(ids, weights=counts[elig], minlength=len(topo.values)).astype(np.int64)
            present = np.zeros(len(topo.values), dtype=bool)
            present[ids] = True
            domains = int(present.sum())
            min_match = int(dom[present].min()) if domains else int(BIG)
            if c.min_domains is not None and domains < c.min_domains:
                min_match = 0
            self_match = 1 if c.selector is not None and c.selector.matches(pod.pod.labels) else 0
            has = topo.has
            match = np.zeros(n, dtype=np.int64)
            hi = np.flatnonzero(has)
            match[hi] = np.where(present[topo.ids[hi]], dom[topo.ids[hi]], 0)
            skew_bad = has & (match + self_match - min_match > c.max_skew)
            reason = np.where((reason < 0) & ~has, 1, reason)
            reason = np.where((reason < 0) & skew_bad, 0, reason)
        if (reason < 0).all():
            return None
        return NodeVerdicts(
            reason < 0,
            ((ERR_REASON_CONSTRAINTS_NOT_MATCH,), (ERR_REASON_NODE_LABEL_NOT_MATCH,)),
            (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE),
            np.maximum(reason, 0),
        )

    def scoring_constraints(self, pod: PodInfo) -> tuple[list[Constraint], bool]:
        """(constraints, system_defaulted)."""
        if pod.pod.topology_spread_constraints:
            cons = [
                resolve(c, pod) for c in pod.pod.topology_spread_constraints if c.when_unsatisfiable == "ScheduleAnyway"
            ]
            return cons, False
        sel = self.default_selector(pod.pod) if self.default_selector else None
        if sel is None or sel.is_empty:
            return [], True
        return [Constraint(skew, key, sel, None, True, False) for key, skew in SYSTEM_DEFAULT_CONSTRAINTS], True

    def score(self, state: CycleState, pod: PodInfo, snap: Snapshot, nodes: np.ndarray) -> np.ndarray | None:
        cons, defaulted = self.scoring_constraints(pod)
        if not cons:
            return None
        require_all = not defaulted
        feasible = np.zeros(snap.n, dtype=bool)
        feasible[nodes] = True
        all_keys = np.ones(snap.n, dtype=bool)
        for c in cons:
            all_keys &= snap.topology(c.topology_key).has
        ignored = feasible & ~all_keys if require_all else np.zeros(snap.n, dtype=bool)
        considered = feasible & ~ignored
        eligible = eligible_nodes(state, pod, snap, cons, require_all)
        raw = np.zeros(snap.n, dtype=np.float64)
        for c, elig in zip(cons, eligible, strict=True):
            topo = snap.topology(c.topology_key)
            counts = snap.pod_index.count(c.query(pod.pod.namespace))
            if c.topology_key == LABEL_HOSTNAME:
                size = int(considered.sum())
                per_node = counts
            else:
                # Domains of the considered nodes; a node lacking the key forms the "" domain (upstream pairs
                # it with an empty value), which only widens the domain count.
                nvals = len(topo.values)
                cons_ids = np.where(topo.has, topo.ids, nvals)[considered]
                present = np.zeros(nvals + 1, dtype=bool)
                present[cons_ids] = True
                size = int(present.sum())
                ids = np.where(topo.has, topo.ids, nvals)
                dom = np.bincount(ids[elig], weights=counts[elig], minlength=nvals + 1)
                dom = np.where(present, dom, 0)
                per_node = dom[ids]
            weight = math.log(size + 2)
            raw += np.where(topo.has, per_node * weight + (c.max_skew - 1), 0.0)
        scores = np.floor(raw[nodes] + 0.5).astype(np.int64)  # math.Round (half away from zero; raw >= 0)
        state.write(IGNORED_KEY, ignored[nodes])
        return scores

    def normalize(self, state: CycleState, raw: np.ndarray) -> np.ndarray:
        ignored = state.read(IGNORED_KEY) if state.has(IGNORED_KEY) else np.zeros(raw.shape, dtype=bool)
        valid = ~ignored
        if not valid.any():
            return np.zeros(raw.shape, dtype=np.int64)
        lo = int(raw[valid].min())
        hi = int(raw[valid].max())
        if hi == 0:
            out = np.full(raw.shape, MAX_NODE_SCORE, dtype=np.int64)
        else:
            out = MAX_NODE_SCORE * (hi + lo - raw) // hi
        return np.where(valid, out, 0)
