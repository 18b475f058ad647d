"""DefaultPreemption: upstream pkg/scheduler/framework/preemption/preemption.go (Evaluator.Preempt,
DryRunPreemption, SelectCandidate, pickOneNodeForPreemption) and
pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go (PodEligibleToPreemptOthers,
SelectVictimsOnNode, filterPodsWithPDBViolation). Each tie-break rule of pickOneNodeForPreemption has a test
in which it alone decides."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from sched_helpers import cluster, node, pod, sel

from netpol.model.objects import OwnerRef, PodDisruptionBudget, PriorityClass, Taint
from scheduling import schedule
from scheduling.podinfo import PodInfo, pod_info
from scheduling.preemption import (
    NO_VICTIMS,
    NOT_ELIGIBLE_NEVER,
    NOT_HELPFUL,
    Candidate,
    pick_one,
)

RS = OwnerRef("ReplicaSet", "batch")


def running(name: str, node_name: str, priority: int, cpu: int = 1000, **kw) -> object:
    return pod(name, node_name=node_name, priority=priority, cpu=cpu, phase="Running", owner=RS, **kw)


def outcome(c):
    r = schedule(c)
    pods = {p.name: p for p in r.cluster.pods}
    return r, pods


# ---------------------------------------------------------------------------------------------- the whole path


def test_high_priority_pod_preempts_the_lower_priority_pod_and_the_victim_is_recreated() -> None:
    c = cluster(
        [node("a", cpu=2000)],
        [running("low", "a", 0, cpu=1500), pod("high", cpu=1000, priority=100, order=1)],
    )
    r, pods = outcome(c)
    assert pods["high"].node_name == "a" and pods["high"].phase == "Running"
    assert "low" not in pods  # evicted...
    (p,) = r.preemptions
    assert (p.pod, p.node, p.victims) == ("default/high", "a", ("default/low",))
    (replacement,) = p.replacements
    assert replacement is not None and pods[replacement.split("/")[1]].phase == "Pending"  # ...and recreated
    assert pods[replacement.split("/")[1]].reason == (
        f"0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 {NO_VICTIMS}."
    )
    assert r.traces["default/high"].preempted == ("default/low",)


def test_preemption_policy_never_is_not_eligible() -> None:
    """PodEligibleToPreemptOthers: "not eligible due to preemptionPolicy=Never."; FitError.Error appends the
    PostFilter message after a space, so the sentence ends with its own period."""
    never = replace(pod("high", cpu=1000, priority=100, order=1), preemption_policy="Never")
    r, pods = outcome(cluster([node("a", cpu=2000)], [running("low", "a", 0, cpu=1500), never]))
    assert pods["high"].phase == "Pending" and pods["low"].phase == "Running"
    assert pods["high"].reason == f"0/1 nodes are available: 1 Insufficient cpu. preemption: {NOT_ELIGIBLE_NEVER}"
    assert r.preemptions == ()


def test_unresolvable_nodes_are_not_helpful_for_preemption() -> None:
    """nodesWherePreemptionMightHelp skips UnschedulableAndUnresolvable nodes (taints, node affinity)."""
    c = cluster(
        [node("a", cpu=2000), node("t", taints=(Taint("k", "v", "NoSchedule"),))],
        [running("low", "a", 0, cpu=1500), running("mid", "a", 50, cpu=500)],
    )
    c2 = cluster(list(c.nodes), list(c.pods) + [pod("p", cpu=1600, priority=50, order=2)])
    _, pods = outcome(c2)
    assert pods["p"].reason == (
        "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {k: v}. "
        f"preemption: 0/2 nodes are available: 1 Insufficient cpu, 1 {NOT_HELPFUL}."
    )  # on a, removing every lower-priority pod (low) is still not enough: mid (equal priority) stays


def test_priority_class_and_global_default_set_priorities() -> None:
    """Priority admission: priorityClassName gives the class's value; a pod naming none gets the globalDefault."""
    classes = (PriorityClass("low", 10, global_default=True), PriorityClass("high", 1000))

    victim = replace(running("v", "a", 0, cpu=1500), priority=0)
    high = replace(pod("h", cpu=1000, order=1), priority_class_name="high")
    r, pods = outcome(cluster([node("a", cpu=2000)], [victim, high], priority_classes=classes))
    assert pods["h"].priority == 1000 and pods["h"].node_name == "a"
    assert r.preemptions[0].victims == ("default/v",)
    unknown = replace(pod("u"), priority_class_name="nope")
    _, pods = outcome(cluster([node("a")], [unknown], priority_classes=classes))
    assert pods["u"].reason == 'pods "u" is forbidden: no PriorityClass with name nope was found'


# ---------------------------------------------------------------------------------------------- victims on a node


def test_victims_are_the_minimal_set_reprieving_the_most_important_first() -> None:
    """SelectVictimsOnNode: all lower-priority pods removed, then added back highest priority first while the
    pod still fits; only what cannot come back is a victim."""
    c = cluster(
        [node("a", cpu=3000)],
        [
            running("p5", "a", 5),
            running("p1", "a", 1),
            running("p3", "a", 3),
            pod("new", cpu=1000, priority=9, order=9),
        ],
    )
    r, pods = outcome(c)
    assert r.preemptions[0].victims == ("default/p1",)
    assert {pods["p5"].node_name, pods["p3"].node_name} == {"a"}


def test_pdb_protected_pods_are_reprieved_first() -> None:
    """filterPodsWithPDBViolation + reprievePod: pods whose eviction would violate a PDB are added back before
    the others, so an unprotected pod of higher priority becomes the victim instead."""
    pdb = PodDisruptionBudget("default", "keep", sel(app="db"), min_available=1)
    c = cluster(
        [node("a", cpu=2000)],
        [
            running("db", "a", 1, labels={"app": "db"}),
            running("cache", "a", 5),
            pod("new", cpu=1000, priority=9, order=9),
        ],
        pdbs=(pdb,),
    )
    r, _ = outcome(c)
    assert r.preemptions[0].victims == ("default/cache",)


# ---------------------------------------------------------------------------------------------- picking the node


STARTS: dict[str, str] = {}  # victim key -> status.startTime


def cand(name: str, *victims: tuple[int, str], violations: int = 0) -> Candidate:
    """A candidate node whose victims are (priority, start time), most important first."""
    infos = tuple(pod_info(pod(f"{name}-{k}", priority=p)) for k, (p, _) in enumerate(victims))
    STARTS.update({f"default/{name}-{k}": t for k, (_, t) in enumerate(victims)})
    return Candidate(0, name, infos, violations)


def start(info: PodInfo) -> tuple[str, int]:
    return (STARTS[info.key], 0)


T0, T1 = "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"


def test_pick_fewest_pdb_violations_first() -> None:
    """pickOneNodeForPreemption rule 1 (minNumPDBViolatingScoreFunc) beats a lower victim priority."""
    assert pick_one([cand("a", (1, T0), violations=1), cand("b", (50, T0))], start).name == "b"


def test_pick_lowest_highest_victim_priority() -> None:
    """Rule 2 (minHighestPriorityScoreFunc)."""
    assert pick_one([cand("a", (20, T0)), cand("b", (10, T0), (10, T0))], start).name == "b"


def test_pick_smallest_sum_of_priorities() -> None:
    """Rule 3 (minSumPrioritiesScoreFunc, each priority offset by MaxInt32+1): same highest, same count."""
    assert pick_one([cand("a", (10, T0), (9, T0)), cand("b", (10, T0), (1, T0))], start).name == "b"


def test_pick_fewest_victims() -> None:
    """Rule 4 (minNumPodsScoreFunc) decides only when the offset sums tie: 0 vs 0 + (-2^31)."""
    a = cand("a", (0, T0), (-(2**31), T0))
    b = cand("b", (0, T0))
    assert pick_one([a, b], start).name == "b"


def test_pick_latest_start_of_the_highest_priority_victims() -> None:
    """Rule 5 (latestStartTimeScoreFunc with GetEarliestPodStartTime)."""
    assert pick_one([cand("a", (10, T0)), cand("b", (10, T1))], start).name == "b"


def test_pick_first_node_by_name_when_everything_ties() -> None:
    """Rule 6: upstream takes the first of a map (random); here the first by name, deterministically."""
    assert pick_one([cand("b", (10, T0)), cand("a", (10, T0))], start).name == "a"


@pytest.mark.parametrize("seed", range(12))
def test_preemption_invariants_on_random_clusters(seed: int) -> None:
    """Whatever the mix: no node ends over its allocatable CPU, every victim had a lower priority than the pod
    that preempted it, the preemptor runs on the node it was nominated to, and a pod is preempted at most once."""
    rng = random.Random(seed)
    nodes = [node(f"n{i}", cpu=rng.choice((2000, 3000, 4000))) for i in range(rng.randint(2, 5))]
    pods, used = [], {n.name: 0 for n in nodes}
    for k in range(rng.randint(3, 12)):
        n = rng.choice(nodes)
        cpu = rng.choice((500, 1000, 1500))
        if used[n.name] + cpu <= n.allocatable["cpu"]:
            used[n.name] += cpu
            pods.append(running(f"old{k}", n.name, rng.randint(0, 3), cpu=cpu))
    pods += [
        pod(f"new{k}", cpu=rng.choice((500, 1000, 2000)), priority=rng.randint(0, 5), order=100 + k) for k in range(6)
    ]
    r = schedule(cluster(nodes, pods))
    load: dict[str, int] = {}
    for p in r.cluster.pods:
        if p.phase == "Running":
            load[p.node_name] = load.get(p.node_name, 0) + sum(c.requests.get("cpu", 0) for c in p.containers)
    assert all(load.get(n.name, 0) <= n.allocatable["cpu"] for n in nodes)
    final = {p.key: p for p in r.cluster.pods}
    priority = {p.key: p.priority for p in pods}
    victims = [v for pre in r.preemptions for v in pre.victims]
    assert len(victims) == len(set(victims))
    for pre in r.preemptions:
        assert all(priority.get(v, -1) < final[pre.pod].priority for v in pre.victims if v in priority)
        assert final[pre.pod].node_name == pre.node and final[pre.pod].phase == "Running"
