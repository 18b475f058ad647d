"""DefaultPreemption: the PostFilter that makes room for a pod that fits nowhere by evicting lower-priority pods.

Mirrors pkg/scheduler/framework/preemption/preemption.go (Evaluator.Preempt, findCandidates, DryRunPreemption,
SelectCandidate, pickOneNodeForPreemption) and plugins/defaultpreemption/default_preemption.go
(PodEligibleToPreemptOthers, SelectVictimsOnNode, filterPodsWithPDBViolation):

1. a pod with `preemptionPolicy: Never` is not eligible;
2. only nodes whose filter status is Unschedulable (not UnschedulableAndUnresolvable) are potential;
3. on each, every pod of lower priority is removed; if the pod still does not fit, the node is no candidate;
   otherwise pods are reprieved (added back) one by one, most important first, PDB-violating ones before the
   others, and those that cannot stay are the victims (a minimal set, greedily);
4. the candidate node is picked by: fewest PDB violations, then the lowest highest-victim priority, then the
   smallest sum of victim priorities, then the fewest victims, then the latest start among the
   highest-priority victims, then the first node.

Deterministic where upstream is random: candidates are searched from the first node by name (upstream starts
at a random offset) and a remaining tie goes to the first node by name (upstream: map order).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from netpol.model.objects import Pod, PodDisruptionBudget
from scheduling.diagnosis import fit_error_message
from scheduling.framework import Code, CycleState, Profile, Status
from scheduling.podinfo import PodInfo
from scheduling.snapshot import Snapshot

PREEMPT_NEVER = "Never"
NOT_ELIGIBLE_NEVER = "not eligible due to preemptionPolicy=Never."
NO_VICTIMS = "No preemption victims found for incoming pod"
NOT_HELPFUL = "Preemption is not helpful for scheduling"
MIN_CANDIDATE_NODES_PERCENTAGE = 10  # DefaultPreemptionArgs defaults
MIN_CANDIDATE_NODES_ABSOLUTE = 100
MAX_INT32 = 2**31 - 1
NOT_STARTED = "~"  # sorts after every RFC 3339 time: a pod without status.startTime started in this simulation


@dataclass(frozen=True, slots=True)
class Candidate:
    """A node where evicting `victims` (most important first) lets the pod fit."""

    node: int
    name: str
    victims: tuple[PodInfo, ...]
    pdb_violations: int


@dataclass(frozen=True, slots=True)
class Preemption:
    """What the scheduler did: `pod` nominated to `node`, `victims` evicted (and what replaced them)."""

    pod: str
    node: str
    victims: tuple[str, ...]
    replacements: tuple[str | None, ...] = ()

    def message(self) -> str:
        """The victims' event (prepareCandidate): "Preempted by pod <uid> on node <node>", named here by pod."""
        return f"Preempted by {self.pod} on node {self.node}"


def eligible(pod: Pod) -> str | None:
    """PodEligibleToPreemptOthers: the reason a pod may not preempt, or None."""
    if pod.preemption_policy == PREEMPT_NEVER:
        return NOT_ELIGIBLE_NEVER
    return None


def num_candidates(potential: int) -> int:
    """GetOffsetAndNumCandidates: at least 10% of the potential nodes, at least 100, at most all of them."""
    n = max(potential * MIN_CANDIDATE_NODES_PERCENTAGE // 100, MIN_CANDIDATE_NODES_ABSOLUTE)
    return min(n, potential)


class Evaluator:
    """One preemption attempt for one pod: dry runs on the live snapshot, always restored afterwards."""

    def __init__(
        self,
        snap: Snapshot,
        profile: Profile,
        pdbs: Iterable[PodDisruptionBudget],
        disruptions_allowed: Callable[[PodDisruptionBudget], int],
    ) -> None:
        self.snap = snap
        self.profile = profile
        self.pdbs = tuple(p for p in pdbs if p.selector is not None and not p.selector.is_empty)
        self.allowed = disruptions_allowed

    # -- ordering

    def start_key(self, info: PodInfo) -> tuple[str, int]:
        return (info.pod.start_time or NOT_STARTED, self.snap.started.get(info.key, 0))

    def more_important_first(self, pods: Iterable[PodInfo]) -> list[PodInfo]:
        """util.MoreImportantPod: higher priority first; equal priority, the earlier start first."""
        return sorted(pods, key=lambda p: (-p.pod.priority, self.start_key(p), p.key))

    # -- one node

    def fits(self, info: PodInfo, i: int) -> Status:
        """RunFilterPluginsWithNominatedPods on node i, with the snapshot as it is now."""
        state = CycleState()  # PreFilter passed already: potential nodes lie inside its result
        for pl in self.profile.filter:
            v = pl.filter(state, info, self.snap)
            if v is not None and not v.ok[i]:
                return v.status_of(i, pl.name)
        return Status()

    def split_by_pdb(self, victims: list[PodInfo]) -> tuple[list[PodInfo], list[PodInfo]]:
        """filterPodsWithPDBViolation: walking the victims in order, each matching PDB spends one of its allowed
        disruptions; a pod that takes a PDB below zero would violate it."""
        allowed = {(p.namespace, p.name): self.allowed(p) for p in self.pdbs}
        violating: list[PodInfo] = []
        fine: list[PodInfo] = []
        for v in victims:
            bad = False
            for p in self.pdbs:
                if p.namespace == v.pod.namespace and p.selector is not None and p.selector.matches(v.pod.labels):
                    allowed[(p.namespace, p.name)] -= 1
                    if allowed[(p.namespace, p.name)] < 0:
                        bad = True
            (violating if bad else fine).append(v)
        return violating, fine

    def select_victims(self, info: PodInfo, i: int) -> tuple[Candidate | None, Status]:
        """SelectVictimsOnNode: remove every lower-priority pod, check the fit, reprieve as many as possible."""
        snap = self.snap
        lower = [p for p in snap.pods_on[i].values() if p.pod.priority < info.pod.priority]
        if not lower:
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (NO_VICTIMS,))
        for p in lower:
            snap.unbind(p.key)
        removed = {p.key for p in lower}
        try:
            status = self.fits(info, i)
            if not status.is_success:
                return None, status
            violating, fine = self.split_by_pdb(self.more_important_first(lower))
            victims: list[PodInfo] = []
            violations = 0
            for group, counts in ((violating, True), (fine, False)):
                for p in group:
                    snap.bind(p, i)
                    removed.discard(p.key)
                    if not self.fits(info, i).is_success:
                        snap.unbind(p.key)
                        removed.add(p.key)
                        victims.append(p)
                        violations += counts
            ordered = tuple(self.more_important_first(victims))
            return Candidate(i, snap.names[i], ordered, violations), Status()
        finally:
            for p in lower:
                if p.key in removed:
                    snap.bind(p, i)

    # -- all nodes

    def preempt(self, info: PodInfo, codes: np.ndarray) -> Candidate | str:
        """Evaluator.Preempt: the chosen candidate, or the `preemption: …` message when there is none."""
        reason = eligible(info.pod)
        if reason is not None:
            return reason
        n = self.snap.n
        potential = [int(i) for i in np.flatnonzero(codes == int(Code.UNSCHEDULABLE))]
        statuses: Counter[str] = Counter({NOT_HELPFUL: n - len(potential)} if n > len(potential) else {})
        lowest = self.snap.lowest_priority()
        if potential and (lowest is None or lowest >= info.pod.priority):  # no lower-priority pod anywhere
            statuses[NO_VICTIMS] += len(potential)
            potential = []
        wanted = num_candidates(len(potential)) if potential else 0
        clean: list[Candidate] = []
        violating: list[Candidate] = []
        for i in potential:
            cand, status = self.select_victims(info, i)
            if cand is None:
                statuses.update(status.reasons)
                continue
            (violating if cand.pdb_violations else clean).append(cand)
            if clean and len(clean) + len(violating) >= wanted:  # DryRunPreemption stops here
                break
        candidates = clean + violating
        if not candidates:
            return fit_error_message(n, statuses)
        return pick_one(candidates, self.start_key)


def pick_one(candidates: list[Candidate], start_key: Callable[[PodInfo], tuple[str, int]]) -> Candidate:
    """pickOneNodeForPreemption: each score function keeps the best-scoring nodes, in this order."""
    for c in candidates:
        if not c.victims:  # a node that needs no preemption after all
            return c

    def highest_victims_start(c: Candidate) -> tuple[str, int]:
        """GetEarliestPodStartTime: the earliest start among the victims of the highest priority."""
        top = c.victims[0].pod.priority
        return min(start_key(v) for v in c.victims if v.pod.priority == top)

    scores: list[Callable[[Candidate], object]] = [
        lambda c: -c.pdb_violations,  # minNumPDBViolatingScoreFunc
        lambda c: -c.victims[0].pod.priority,  # minHighestPriorityScoreFunc
        lambda c: -sum(v.pod.priority + MAX_INT32 + 1 for v in c.victims),  # minSumPrioritiesScoreFunc
        lambda c: -len(c.victims),  # minNumPodsScoreFunc
        highest_victims_start,  # latestStartTimeScoreFunc: the later, the better
    ]
    best = candidates
    for score in scores:
        values = [score(c) for c in best]
        top = max(values)  # type: ignore[type-var]
        best = [c for c, v in zip(best, values, strict=True) if v == top]
        if len(best) == 1:
            return best[0]
    return min(best, key=lambda c: c.name)
