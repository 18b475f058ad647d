"""NodeResourcesFit (upstream plugins/noderesources/fit.go, least_allocated.go).

Filter: the pod's requests (max of the container sum and the largest init container, plus overhead) must
fit in allocatable minus what bound pods request, for every resource it asks for, and the node must have a
free pod slot. Every missing resource is reported ("Insufficient cpu", "Insufficient memory", ...), each
counted on its own in the FailedScheduling text. Score (LeastAllocated, cpu and memory weight 1):
(allocatable - requested) * 100 / allocatable per resource, averaged; here requests count containers that
omit a request as 100m CPU / 200Mi memory (schedutil.GetNonzeroRequests).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scheduling.framework import Code, CycleState, NodeVerdicts
from scheduling.podinfo import PodInfo
from scheduling.snapshot import UNLIMITED, Snapshot

NAME = "NodeResourcesFit"
WEIGHT = 1
REASON_TOO_MANY_PODS = "Too many pods"
SCORING_RESOURCES = (("cpu", 1), ("memory", 1))  # NodeResourcesFitArgs.ScoringStrategy default


def insufficient_reason(resource: str) -> str:
    return f"Insufficient {resource}"


@dataclass(frozen=True, slots=True)
class InsufficientResource:
    """noderesources.InsufficientResource: what the kubelet's OutOf<resource> message is built from."""

    resource: str
    reason: str
    requested: int
    used: int
    capacity: int
    unresolvable: bool


def _resource_order(requests: dict[str, int]) -> list[str]:
    core = [r for r in ("cpu", "memory", "ephemeral-storage") if requests.get(r, 0) > 0]
    return core + sorted(
        r for r in requests if r not in ("cpu", "memory", "ephemeral-storage", "pods") and requests[r] > 0
    )


def fits(pod: PodInfo, snap: Snapshot, i: int) -> list[InsufficientResource]:
    """noderesources.Fits for one node, in upstream's order (pods, cpu, memory, ephemeral-storage, scalars)."""
    out = []
    if snap.pod_count[i] + 1 > snap.max_pods[i]:
        out.append(
            InsufficientResource("pods", REASON_TOO_MANY_PODS, 1, int(snap.pod_count[i]), int(snap.max_pods[i]), False)
        )
    for r in _resource_order(pod.requests):
        req = pod.requests[r]
        alloc = int(snap.alloc_of(r)[i])
        used = int(snap.requested_of(r)[i])
        if req > alloc - used:
            out.append(InsufficientResource(r, insufficient_reason(r), req, used, alloc, req > alloc))
    return out


class NodeResourcesFit:
    name = NAME
    weight = WEIGHT

    def filter(self, state: CycleState, pod: PodInfo, snap: Snapshot) -> NodeVerdicts | None:
        checks: list[tuple[str, np.ndarray, np.ndarray]] = [
            (REASON_TOO_MANY_PODS, snap.pod_count + 1 > snap.max_pods, np.zeros(snap.n, dtype=bool))
        ]
        for r in _resource_order(pod.requests):
            req = pod.requests[r]
            alloc = snap.alloc_of(r)
            checks.append((insufficient_reason(r), req > alloc - snap.requested_of(r), req > alloc))
        bits = np.zeros(snap.n, dtype=np.int64)
        unresolvable = np.zeros(snap.n, dtype=bool)
        for b, (_, bad, unres) in enumerate(checks):
            bits |= bad.astype(np.int64) << b
            unresolvable |= bad & unres
        if not bits.any():
            return None
        # One reason tuple per distinct combination of missing resources (few), indexed per node.
        combos, inverse = np.unique(bits * 2 + unresolvable, return_inverse=True)
        reasons = []
        codes = []
        for c in combos:
            c = int(c)
            reasons.append(tuple(name for b, (name, _, _) in enumerate(checks) if (c >> 1) >> b & 1))
            codes.append(Code.UNSCHEDULABLE_AND_UNRESOLVABLE if c & 1 else Code.UNSCHEDULABLE)
        return NodeVerdicts(bits == 0, tuple(reasons), tuple(codes), inverse.reshape(-1))

    def score(self, state: CycleState, pod: PodInfo, snap: Snapshot, nodes: np.ndarray) -> np.ndarray | None:
        total = np.zeros(len(nodes), dtype=np.int64)
        weights = np.zeros(len(nodes), dtype=np.int64)
        for r, w in SCORING_RESOURCES:
            alloc = snap.alloc_of(r)[nodes]
            used = (snap.non_zero_cpu if r == "cpu" else snap.non_zero_memory)[nodes]
            req = used + (pod.non_zero_cpu if r == "cpu" else pod.non_zero_memory)
            counted = (alloc != 0) & (alloc != UNLIMITED)  # resourceAllocationScorer skips alloc == 0
            safe = np.where(counted, alloc, 1)
            free = np.maximum(alloc - req, 0)
            # (free * 100) // alloc without int64 overflow: exact below 2^63/100, by float above (capped quantities)
            big = free > (2**63 - 1) // 100
            exact = np.where(big, 0, free) * 100 // safe
            share = (np.minimum(np.where(big, free / safe, 0.0), 1.0) * 100).astype(np.int64)
            s = np.where(req > alloc, 0, np.where(big, share, exact))
            total += np.where(counted, s * w, 0)
            weights += np.where(counted, w, 0)
        return np.where(weights > 0, total // np.maximum(weights, 1), 0)

    def normalize(self, state: CycleState, raw: np.ndarray) -> np.ndarray:
        return raw
