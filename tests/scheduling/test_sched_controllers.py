"""Controllers around the scheduler: admission defaults, DaemonSets, kubelet admission, StatefulSets, drain."""

from __future__ import annotations

import pytest
from sched_helpers import cluster, node, placements, pod, sel

from netpol.errors import UsageError
from netpol.model.objects import OwnerRef, PodDisruptionBudget, Taint, Toleration, Workload
from scheduling import DrainOptions, schedule
from scheduling.controllers import daemonset_pods, with_default_tolerations
from scheduling.drain import DAEMONSET_FATAL, LOCAL_STORAGE_FATAL, UNMANAGED_FATAL

CP = Taint("node-role.kubernetes.io/control-plane", "", "NoSchedule")
RS = OwnerRef("ReplicaSet", "web-1")


def test_api_server_adds_300s_not_ready_and_unreachable_tolerations() -> None:
    tols = with_default_tolerations(pod("p")).tolerations
    assert [(t.key, t.effect, t.toleration_seconds) for t in tols] == [
        ("node.kubernetes.io/not-ready", "NoExecute", 300),
        ("node.kubernetes.io/unreachable", "NoExecute", 300),
    ]
    assert with_default_tolerations(pod("p", tolerations=(Toleration("", "Exists"),))).tolerations == (
        Toleration("", "Exists"),
    )


def test_daemonset_skips_the_control_plane_unless_tolerated_and_pins_by_match_fields() -> None:
    nodes = [node("master", taints=(CP,)), node("w1"), node("w2")]
    ds = Workload(
        "DaemonSet", "kube-system", "agent", pod("t", ns="kube-system", labels={"app": "agent"}), 0, sel(app="agent")
    )
    pods = daemonset_pods(ds, nodes)
    assert [p.affinity.node_affinity.required[0].match_fields[0].values for p in pods] == [("w1",), ("w2",)]
    keys = {(t.key, t.effect) for t in pods[0].tolerations}
    assert ("node.kubernetes.io/unschedulable", "NoSchedule") in keys and (
        "node.kubernetes.io/not-ready",
        "NoExecute",
    ) in keys
    tolerant = Workload(
        "DaemonSet", "kube-system", "agent", pod("t", ns="kube-system", tolerations=(Toleration(CP.key, "Exists"),))
    )
    assert len(daemonset_pods(tolerant, nodes)) == 3


def test_daemonset_pods_run_on_cordoned_nodes() -> None:
    ds = Workload("DaemonSet", "default", "agent", pod("t", labels={"app": "agent"}))
    r = schedule(cluster([node("a"), node("b")], [], workloads=(ds,)), cordon=("a",))
    assert sorted(p.node_name for p in r.cluster.pods) == ["a", "b"]


def test_node_name_bypasses_taints_but_not_the_kubelet() -> None:
    c = cluster(
        [node("m", taints=(CP,), cpu=1000)],
        [
            pod("ok", node_name="m"),
            pod("big", node_name="m", cpu=2000, order=1),
            pod("sel", node_name="m", node_selector={"disk": "ssd"}, order=2),
            pod("ghost", node_name="nowhere", order=3),
        ],
    )
    r = schedule(c)
    got = {p.name: (p.phase, p.reason) for p in r.cluster.pods}
    assert got == {
        "ok": ("Running", ""),
        "big": ("Failed", "OutOfcpu"),
        "sel": ("Failed", "NodeAffinity"),
        "ghost": ("Pending", 'node "nowhere" not found'),
    }
    assert r.traces["default/big"].message.startswith(
        "Pod was rejected: Node didn't have enough resource: cpu, requested: 2000"
    )


def test_kubelet_rejects_untolerated_no_execute() -> None:
    c = cluster([node("a", taints=(Taint("k", "v", "NoExecute"),))], [pod("p", node_name="a")])
    assert schedule(c).cluster.pods[0].reason == "TaintToleration"


def test_no_execute_evicts_after_toleration_seconds_and_recreates_workload_pods() -> None:
    nodes = [node("a", taints=(Taint("maint", "", "NoExecute"),)), node("b")]
    p = pod(
        "web-1-abcde",
        node_name="a",
        phase="Running",
        owner=RS,
        tolerations=(Toleration("maint", "Exists", "", "NoExecute", 60),),
    )
    r = schedule(cluster(nodes, [p]))
    (ev,) = r.evictions
    assert (ev.pod, ev.taint, ev.after_seconds) == ("default/web-1-abcde", "maint:NoExecute", 60)
    # The replacement tolerates the taint for 60 s too, so "a" is feasible again; it is scheduled once and
    # not re-evicted (the simulator reports one round of taint-based eviction).
    assert [(q.key, q.phase) for q in r.cluster.pods] == [(ev.replacement, "Running")]


def test_not_ready_nodes_are_tainted_and_avoided() -> None:
    c = cluster([node("a", ready=False), node("b")], [pod("p")])
    assert placements(c)["p"] == "b"


def test_statefulset_ordered_ready_stops_at_first_pending_ordinal_parallel_does_not() -> None:
    for policy, created in (("OrderedReady", {"s-0", "s-1"}), ("Parallel", {"s-0", "s-1", "s-2"})):
        wl = Workload("StatefulSet", "default", "s", pod("t"), 3, pod_management_policy=policy)
        owner = OwnerRef("StatefulSet", "s")
        pods = [pod(f"s-{i}", cpu=1500, owner=owner, order=i) for i in range(3)]
        r = schedule(cluster([node("a", cpu=2000)], pods, workloads=(wl,)))
        assert {p.name for p in r.cluster.pods} == created
        assert r.cluster.pods[1].phase == "Pending"


def test_queue_orders_by_priority_then_creation() -> None:
    c = cluster([node("a", cpu=1000)], [pod("low", cpu=800, order=0), pod("high", cpu=800, order=1, priority=100)])
    got = placements(c)
    assert got["high"] == "a" and got["low"].startswith("Pending")


def test_ties_go_to_the_first_node_by_name_unless_seeded() -> None:
    c = cluster([node(n) for n in ("c", "a", "b")], [pod("p")])
    assert placements(c)["p"] == "a"
    seen = {placements(c, seed=s)["p"] for s in range(20)}
    assert seen == {"a", "b", "c"}
    assert placements(c, seed=7) == placements(c, seed=7)


@pytest.mark.parametrize(
    ("victim", "opts", "error"),
    [
        (pod("ds-x", owner=OwnerRef("DaemonSet", "ds")), DrainOptions(), DAEMONSET_FATAL),
        (pod("cache", owner=RS, empty_dir=True), DrainOptions(), LOCAL_STORAGE_FATAL),
        (pod("bare"), DrainOptions(), UNMANAGED_FATAL),
    ],
    ids=["daemonset", "emptydir", "unmanaged"],
)
def test_drain_refuses_like_kubectl(victim, opts, error) -> None:
    c = cluster(
        [node("a"), node("b")],
        [victim.__class__(**{**{f: getattr(victim, f) for f in victim.__slots__}, "node_name": "a"})],
    )
    r = schedule(c, drain=("a",), drain_options=opts)
    assert r.drain.errors == (f"{error}: default/{victim.name}",)
    assert not r.drain.evicted
    assert r.cluster.nodes[0].unschedulable


def test_drain_flags_allow_what_kubectl_allows() -> None:
    pods = [
        pod("ds-x", owner=OwnerRef("DaemonSet", "ds"), node_name="a"),
        pod("cache", owner=RS, empty_dir=True, node_name="a"),
        pod("bare", node_name="a"),
    ]
    r = schedule(
        cluster([node("a"), node("b")], pods),
        drain=("a",),
        drain_options=DrainOptions(ignore_daemonsets=True, delete_emptydir_data=True, force=True),
    )
    assert {e.pod for e in r.drain.evicted} == {"default/cache", "default/bare"}
    assert {p.name: p.node_name for p in r.cluster.pods}["ds-x"] == "a"


def test_pdb_refuses_an_eviction_that_breaks_the_budget() -> None:
    pdb = PodDisruptionBudget("default", "pdb", sel(app="q"), min_available=2)
    pods = [pod(f"q-{i}", labels={"app": "q"}, owner=RS, node_name=n) for i, n in enumerate("ab")]
    r = schedule(cluster([node("a"), node("b")], pods, pdbs=(pdb,)), drain=("a",))
    (b,) = r.drain.blocked
    assert b.reason == (
        "Cannot evict pod as it would violate the pod's disruption budget. "
        "The disruption budget pdb needs 2 healthy pods and has 2 currently"
    )


def test_unknown_node_names_are_usage_errors() -> None:
    with pytest.raises(UsageError, match='nodes "x" not found'):
        schedule(cluster([node("a")], []), cordon=("x",))
