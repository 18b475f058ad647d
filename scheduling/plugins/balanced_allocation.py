"""NodeResourcesBalancedAllocation (upstream plugins/noderesources/balanced_allocation.go).

Favours nodes whose cpu and memory would be used in equal fractions: score = (1 - std) * 100 where std is
|f_cpu - f_mem| / 2 for two resources, fractions capped at 1. It uses the pods' real requests (no 100m/200Mi
defaults), and skips best-effort pods (upstream issue 129138, so they do not all pile onto one node).
"""

from __future__ import annotations

import numpy as np

from scheduling.framework import MAX_NODE_SCORE, CycleState
from scheduling.podinfo import PodInfo
from scheduling.snapshot import UNLIMITED, Snapshot

NAME = "NodeResourcesBalancedAllocation"
WEIGHT = 1
RESOURCES = ("cpu", "memory")


class BalancedAllocation:
    name = NAME
    weight = WEIGHT

    def score(self, state: CycleState, pod: PodInfo, snap: Snapshot, nodes: np.ndarray) -> np.ndarray | None:
        reqs = [pod.requests.get(r, 0) for r in RESOURCES]
        if not any(reqs):
            return None
        fractions = []
        counted = []
        for r, req in zip(RESOURCES, reqs, strict=True):
            alloc = snap.alloc_of(r)[nodes]
            ok = (alloc != 0) & (alloc != UNLIMITED)
            f = np.minimum((snap.requested_of(r)[nodes] + req) / np.where(ok, alloc, 1), 1.0)
            fractions.append(np.where(ok, f, 0.0))
            counted.append(ok)
        both = counted[0] & counted[1]
        std = np.where(both, np.abs(fractions[0] - fractions[1]) / 2, 0.0)
        return ((1 - std) * MAX_NODE_SCORE).astype(np.int64)

    def normalize(self, state: CycleState, raw: np.ndarray) -> np.ndarray:
        return raw
