"""TaintToleration (upstream plugins/tainttoleration).

Filter: the first NoSchedule/NoExecute taint (in the node's order) that no toleration tolerates rejects
the node, named in the reason. Score: the number of PreferNoSchedule taints not tolerated, normalised in
reverse (fewer is better).
"""

from __future__ import annotations

import numpy as np

from scheduling.framework import Code, CycleState, NodeVerdicts
from scheduling.plugins.helper import default_normalize_score
from scheduling.podinfo import PodInfo
from scheduling.snapshot import Snapshot

NAME = "TaintToleration"
WEIGHT = 3
DO_NOT_SCHEDULE = ("NoSchedule", "NoExecute")


def untolerated_reason(key: str, value: str) -> str:
    return f"node(s) had untolerated taint {{{key}: {value}}}"


class TaintToleration:
    name = NAME
    weight = WEIGHT

    def filter(self, state: CycleState, pod: PodInfo, snap: Snapshot) -> NodeVerdicts | None:
        ok, firsts = snap.taint_mask(pod.pod.tolerations, DO_NOT_SCHEDULE)
        if ok.all():
            return None
        reasons = tuple((untolerated_reason(t.key, t.value),) if t else () for t in firsts)
        codes = tuple(Code.UNSCHEDULABLE_AND_UNRESOLVABLE for _ in firsts)
        return NodeVerdicts(ok, reasons, codes, snap.taint_group)

    def score(self, state: CycleState, pod: PodInfo, snap: Snapshot, nodes: np.ndarray) -> np.ndarray | None:
        tols = pod.pod.tolerations
        per_group = np.array(
            [
                sum(1 for t in ts if t.effect == "PreferNoSchedule" and not any(x.tolerates(t) for x in tols))
                for ts in snap.taint_sets
            ],
            dtype=np.int64,
        )
        return per_group[snap.taint_group[nodes]]

    def normalize(self, state: CycleState, raw: np.ndarray) -> np.ndarray:
        return default_normalize_score(raw, reverse=True)
