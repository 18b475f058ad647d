"""InterPodAffinity (upstream plugins/interpodaffinity).

Filter, in upstream's order:
1. required affinity: every term needs a matching pod in the node's topology domain, and the node must
   carry every term's topologyKey. Counted pods must match *all* terms (updateWithAffinityTerms). If no pod
   anywhere matches and the pod matches its own terms, it may go anywhere with the keys: the first pod of a
   self-affine group must be able to start (satisfyPodAffinity);
2. required anti-affinity: no matching pod in the node's domain of any term;
3. existing pods' required anti-affinity is symmetric: a node in the domain of a pod whose anti-affinity
   term matches the incoming pod is rejected.
Score: weights of preferred terms (incoming pod's, and existing pods' terms matching it; existing pods'
required affinity counts with hardPodAffinityWeight 1), summed per topology domain, min-max normalised.
"""

from __future__ import annotations

import numpy as np

from scheduling.framework import MAX_NODE_SCORE, Code, CycleState, NodeVerdicts
from scheduling.podinfo import AffinityTerm, PodInfo
from scheduling.snapshot import Snapshot

NAME = "InterPodAffinity"
WEIGHT = 2
HARD_POD_AFFINITY_WEIGHT = 1  # InterPodAffinityArgs default
ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't satisfy existing pods anti-affinity rules"
ERR_REASON_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod affinity rules"
ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod anti-affinity rules"


def domain_totals(snap: Snapshot, key: str, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(has key, per-node total of `counts` over the node's topology domain); 0 where the key is missing."""
    topo = snap.topology(key)
    has = topo.has
    if not has.any():
        return has, np.zeros(snap.n, dtype=np.int64)
    ids = topo.ids[has]
    dom = np.bincount(ids, weights=counts[has], minlength=len(topo.values))
    out = np.zeros(snap.n, dtype=np.int64)
    out[has] = dom[ids].astype(np.int64)
    return has, out


def matches_all_own_terms(pod: PodInfo, snap: Snapshot, terms: tuple[AffinityTerm, ...]) -> bool:
    labels = snap.pod_index.namespace_labels(pod.pod.namespace)
    return all(t.query.matches(pod.pod, labels) for t in terms)


class InterPodAffinity:
    name = NAME
    weight = WEIGHT

    def filter(self, state: CycleState, pod: PodInfo, snap: Snapshot) -> NodeVerdicts | None:
        index = snap.pod_index
        n = snap.n
        fail_affinity = np.zeros(n, dtype=bool)
        if pod.required_affinity:
            counts = index.count(tuple(t.query for t in pod.required_affinity))
            all_keys = np.ones(n, dtype=bool)
            pods_exist = np.ones(n, dtype=bool)
            anywhere = False
            for t in pod.required_affinity:
                has, tot = domain_totals(snap, t.topology_key, counts)
                all_keys &= has
                pods_exist &= tot > 0
                anywhere = anywhere or bool(counts[has].any())
            if not anywhere and matches_all_own_terms(pod, snap, pod.required_affinity):
                fail_affinity = ~all_keys
            else:
                fail_affinity = ~(all_keys & pods_exist)
        fail_anti = np.zeros(n, dtype=bool)
        for t in pod.required_anti_affinity:
            has, tot = domain_totals(snap, t.topology_key, index.count((t.query,)))
            fail_anti |= has & (tot > 0)
        fail_existing = np.zeros(n, dtype=bool)
        if index.with_required_anti:
            ns_labels = index.namespace_labels(pod.pod.namespace)
            for (kind, term, _), carried in index.carried.items():
                if kind == "req_anti" and carried.any() and term.query.matches(pod.pod, ns_labels):
                    has, tot = domain_totals(snap, term.topology_key, carried)
                    fail_existing |= has & (tot > 0)
        if not (fail_affinity.any() or fail_anti.any() or fail_existing.any()):
            return None
        reason = np.where(fail_affinity, 0, np.where(fail_anti, 1, 2))
        ok = ~(fail_affinity | fail_anti | fail_existing)
        return NodeVerdicts(
            ok,
            (
                (ERR_REASON_AFFINITY_RULES_NOT_MATCH,),
                (ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,),
                (ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,),
            ),
            (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.UNSCHEDULABLE, Code.UNSCHEDULABLE),
            reason,
        )

    def score(self, state: CycleState, pod: PodInfo, snap: Snapshot, nodes: np.ndarray) -> np.ndarray | None:
        index = snap.pod_index
        total = np.zeros(snap.n, dtype=np.int64)
        touched = False

        def add(key: str, counts: np.ndarray, weight: int) -> None:
            nonlocal touched
            if weight and counts.any():
                _, tot = domain_totals(snap, key, counts)
                total[:] += weight * tot
                touched = True

        for w in pod.preferred_affinity:
            add(w.term.topology_key, index.count((w.term.query,)), w.weight)
        for w in pod.preferred_anti_affinity:
            add(w.term.topology_key, index.count((w.term.query,)), -w.weight)
        ns_labels = index.namespace_labels(pod.pod.namespace)
        for (kind, term, weight), carried in index.carried.items():
            if kind == "req_anti" or not carried.any() or not term.query.matches(pod.pod, ns_labels):
                continue
            if kind == "req_aff":
                add(term.topology_key, carried, HARD_POD_AFFINITY_WEIGHT)
            elif kind == "pref_aff":
                add(term.topology_key, carried, weight)
            else:
                add(term.topology_key, carried, -weight)
        if not touched:
            return None
        return total[nodes]

    def normalize(self, state: CycleState, raw: np.ndarray) -> np.ndarray:
        lo, hi = int(raw.min()), int(raw.max())
        if hi - lo <= 0:
            return np.zeros(raw.shape, dtype=np.int64)
        return (MAX_NODE_SCORE * ((raw - lo) / (hi - lo))).astype(np.int64)
