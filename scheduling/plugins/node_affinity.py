"""NodeAffinity (upstream plugins/nodeaffinity).

Required: spec.nodeSelector AND requiredDuringScheduling (terms ORed, expressions and fields ANDed).
PreFilter narrows the nodes when every term pins `metadata.name In [...]` (the DaemonSet controller's
pinning); the other nodes then read "node(s) didn't satisfy plugin(s) [NodeAffinity]" (schedule_one.go since
v1.31; v1.28–v1.30 said "node is filtered out by the prefilter result").
Score: the sum of weights of matching preferred terms, normalised to 0–100.
"""

from __future__ import annotations

import numpy as np

from scheduling.framework import (
    ALL_NODES,
    Code,
    CycleState,
    NodeVerdicts,
    PreFilterResult,
    StateKey,
    Status,
    uniform_verdicts,
)
from scheduling.plugins.helper import default_normalize_score
from scheduling.podinfo import PodInfo
from scheduling.snapshot import Snapshot

NAME = "NodeAffinity"
WEIGHT = 2
ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"
ERR_REASON_CONFLICT = "pod affinity terms conflict"
STATE_KEY: StateKey[np.ndarray | None] = StateKey("NodeAffinity/required")


def required_node_mask(state: CycleState, pod: PodInfo, snap: Snapshot) -> np.ndarray | None:
    """nodeaffinity.GetRequiredNodeAffinity(pod).Match for every node; None when the pod requires nothing."""
    if state.has(STATE_KEY):
        return state.read(STATE_KEY)
    p = pod.pod
    na = p.affinity.node_affinity if p.affinity else None
    mask: np.ndarray | None = None
    if p.node_selector:
        mask = snap.node_selector_mask(p.node_selector)
    if na is not None and na.required is not None:
        ored = np.zeros(snap.n, dtype=bool)
        for term in na.required:
            ored |= snap.term_mask(term)
        mask = ored if mask is None else mask & ored
    state.write(STATE_KEY, mask)
    return mask


class NodeAffinity:
    name = NAME
    weight = WEIGHT

    def pre_filter(self, state: CycleState, pod: PodInfo, snap: Snapshot) -> PreFilterResult:
        p = pod.pod
        na = p.affinity.node_affinity if p.affinity else None
        if na is None or not na.required:
            return ALL_NODES
        names: set[str] | None = None
        for term in na.required:
            term_names: set[str] | None = None
            for r in term.match_fields:
                if r.key == "metadata.name" and r.operator == "In":
                    term_names = set(r.values) if term_names is None else term_names & set(r.values)
            if term_names is None:
                return ALL_NODES  # a term without a name pin: any node may match (terms are ORed)
            names = term_names if names is None else names | term_names
        if not names:
            return PreFilterResult(Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_CONFLICT,), NAME))
        return PreFilterResult(nodes=np.isin(snap.names_arr, sorted(names)))

    def filter(self, state: CycleState, pod: PodInfo, snap: Snapshot) -> NodeVerdicts | None:
        mask = required_node_mask(state, pod, snap)
        if mask is None:
            return None
        return uniform_verdicts(mask, ERR_REASON_POD, Code.UNSCHEDULABLE_AND_UNRESOLVABLE)

    def score(self, state: CycleState, pod: PodInfo, snap: Snapshot, nodes: np.ndarray) -> np.ndarray | None:
        p = pod.pod
        na = p.affinity.node_affinity if p.affinity else None
        if na is None or not na.preferred:
            return None
        total = np.zeros(len(nodes), dtype=np.int64)
        for pref in na.preferred:
            if pref.weight:
                total += pref.weight * snap.term_mask(pref.preference)[nodes]
        return total

    def normalize(self, state: CycleState, raw: np.ndarray) -> np.ndarray:
        return default_normalize_score(raw, reverse=False)
