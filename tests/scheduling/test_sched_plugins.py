"""One test per plugin rule; ids cite the upstream test cases they mirror (pkg/scheduler/framework/plugins/*)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from sched_helpers import GI, MI, cluster, node, node_affinity, placements, pod, pod_affinity, sel, snapshot, term

from netpol.model.labels import Labels
from netpol.model.objects import (
    Affinity,
    Container,
    ContainerPort,
    Namespace,
    PreferredSchedulingTerm,
    Taint,
    Toleration,
    TopologySpreadConstraint,
    Workload,
)
from scheduling.diagnosis import fit_error_message
from scheduling.framework import CycleState
from scheduling.plugins import (
    BalancedAllocation,
    ImageLocality,
    NodeAffinity,
    NodePorts,
    NodeResourcesFit,
    PodTopologySpread,
    TaintToleration,
)
from scheduling.plugins.helper import default_normalize_score
from scheduling.podinfo import pod_info
from scheduling.scheduler import default_selector_fn, num_feasible_nodes_to_find

CP = Taint("node-role.kubernetes.io/control-plane", "", "NoSchedule")


# ---------------------------------------------------------------------------------------------- diagnosis


def test_fit_error_counts_identical_reasons_and_sorts_them_as_strings() -> None:
    reasons = Counter({"node(s) didn't match Pod's node affinity/selector": 10, "Insufficient cpu": 2})
    # sort.Strings on "count reason": "10 …" sorts before "2 …"
    assert fit_error_message(12, reasons) == (
        "0/12 nodes are available: 10 node(s) didn't match Pod's node affinity/selector, 2 Insufficient cpu."
    )


def test_fit_error_prefilter_message_replaces_the_histogram() -> None:
    assert fit_error_message(3, Counter({"x": 3}), "pod affinity terms conflict") == (
        "0/3 nodes are available: pod affinity terms conflict."
    )


@pytest.mark.parametrize(
    ("scores", "reverse", "want"),
    [
        ([0, 0], True, [100, 100]),
        ([0, 0], False, [0, 0]),
        ([1, 2, 4], False, [25, 50, 100]),
        ([1, 2, 4], True, [75, 50, 0]),
    ],
    ids=["all-zero-reversed", "all-zero", "scaled", "scaled-reversed"],
)
def test_default_normalize_score(scores, reverse, want) -> None:
    assert default_normalize_score(np.array(scores), reverse=reverse).tolist() == want


@pytest.mark.parametrize(("n", "want"), [(10, 10), (100, 100), (1000, 420), (5000, 500), (10000, 500), (20000, 1000)])
def test_num_feasible_nodes_to_find_mirrors_upstream_adaptive_percentage(n, want) -> None:
    assert num_feasible_nodes_to_find(n) == want


# ---------------------------------------------------------------------------------------------- taints


def test_untolerated_taint_reason_names_first_untolerated_taint_per_node() -> None:
    c = cluster(
        [node("a", taints=(Taint("CPU", "L1"),)), node("b", taints=(Taint("CPU", "L2"), CP))],
        [pod("p", tolerations=(Toleration("CPU", "Equal", "L3", "NoSchedule"),))],
    )
    assert placements(c)["p"] == (
        "Pending: 0/2 nodes are available: 1 node(s) had untolerated taint {CPU: L1}, "
        "1 node(s) had untolerated taint {CPU: L2}."
    )


@pytest.mark.parametrize(
    "tol",
    [
        Toleration("", "Exists"),  # empty key + Exists tolerates everything
        Toleration("CPU", "Exists"),
        Toleration("CPU", "Equal", "L1"),  # empty effect matches all effects
        Toleration("CPU", "", "L1", "NoSchedule"),  # default operator is Equal
    ],
    ids=["empty-key-exists", "key-exists", "empty-effect", "default-operator-equal"],
)
def test_tolerations_that_open_a_tainted_node(tol) -> None:
    c = cluster([node("a", taints=(Taint("CPU", "L1"),))], [pod("p", tolerations=(tol,))])
    assert placements(c)["p"] == "a"


def test_prefer_no_schedule_only_lowers_the_score() -> None:
    # TestTaintTolerationScore "Nodes with fewer taints not tolerated by the pod get a higher score"
    c = cluster([node("a", taints=(Taint("k", "v", "PreferNoSchedule"),)), node("b")], [pod("p")])
    assert placements(c)["p"] == "b"
    only = cluster([node("a", taints=(Taint("k", "v", "PreferNoSchedule"),))], [pod("p")])
    assert placements(only)["p"] == "a"


def test_taint_score_counts_intolerable_prefer_no_schedule_reversed() -> None:
    snap = snapshot(
        [
            node("a", taints=(Taint("x", "", "PreferNoSchedule"), Taint("y", "", "PreferNoSchedule"))),
            node("b", taints=(Taint("x", "", "PreferNoSchedule"),)),
            node("c"),
        ]
    )
    pl = TaintToleration()
    raw = pl.score(CycleState(), pod_info(pod("p")), snap, np.arange(3))
    assert raw.tolist() == [2, 1, 0]
    assert pl.normalize(CycleState(), raw).tolist() == [0, 50, 100]


# ---------------------------------------------------------------------------------------------- node affinity


def test_node_selector_and_required_terms_are_anded_and_terms_ored() -> None:
    nodes = [
        node("a", labels={"disk": "ssd", "CPU": "L1"}),
        node("b", labels={"disk": "hdd", "CPU": "L2"}),
        node("c", labels={"disk": "ssd", "CPU": "L3"}),
    ]
    aff = node_affinity(term("CPU", "In", "L1"), term("CPU", "In", "L3"))
    snap = snapshot(nodes)
    v = NodeAffinity().filter(CycleState(), pod_info(pod("p", node_selector={"disk": "ssd"}, affinity=aff)), snap)
    assert v.ok.tolist() == [True, False, True]
    v = NodeAffinity().filter(CycleState(), pod_info(pod("p", node_selector={"disk": "hdd"}, affinity=aff)), snap)
    assert v.ok.tolist() == [False, False, False]


@pytest.mark.parametrize(
    ("op", "values", "want"),
    [
        ("NotIn", ("a",), [False, True, True]),  # absent key matches NotIn
        ("DoesNotExist", (), [False, False, True]),
        ("Exists", (), [True, True, False]),
        ("Gt", ("5",), [False, True, False]),
        ("Lt", ("5",), [True, False, False]),
    ],
    ids=["NotIn-absent-key-matches", "DoesNotExist", "Exists", "Gt", "Lt"],
)
def test_node_selector_operators(op, values, want) -> None:
    snap = snapshot([node("n1", labels={"k": "a", "n": "3"}), node("n2", labels={"k": "b", "n": "7"}), node("n3")])
    key = "n" if op in ("Gt", "Lt") else "k"
    v = NodeAffinity().filter(CycleState(), pod_info(pod("p", affinity=node_affinity(term(key, op, *values)))), snap)
    assert v.ok.tolist() == want


def test_match_fields_metadata_name_prefilter_narrows_nodes() -> None:
    """pkg/scheduler/schedule_one.go findNodesThatFitPod (v1.31+): nodes outside the PreFilterResult get
    UnschedulableAndUnresolvable "node(s) didn't satisfy plugin(s) %v" with sets.List(unscheduledPlugins);
    the pre-v1.31 "node is filtered out by the prefilter result" is gone."""
    from netpol.model.labels import NodeSelectorRequirement, NodeSelectorTerm

    t = NodeSelectorTerm(match_fields=(NodeSelectorRequirement("metadata.name", "In", ("b",)),))
    c = cluster([node("a"), node("b", cpu=100), node("c")], [pod("p", cpu=500, affinity=node_affinity(t))])
    assert placements(c)["p"] == (
        "Pending: 0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]."
    )


def test_conflicting_match_fields_fail_at_prefilter() -> None:
    from netpol.model.labels import NodeSelectorRequirement, NodeSelectorTerm

    t = NodeSelectorTerm(
        match_fields=(
            NodeSelectorRequirement("metadata.name", "In", ("a",)),
            NodeSelectorRequirement("metadata.name", "In", ("b",)),
        )
    )
    c = cluster([node("a"), node("b")], [pod("p", affinity=node_affinity(t))])
    assert placements(c)["p"] == "Pending: 0/2 nodes are available: pod affinity terms conflict."


def test_preferred_node_affinity_weights_decide() -> None:
    prefs = (PreferredSchedulingTerm(10, term("MEM", "Exists")), PreferredSchedulingTerm(50, term("CPU", "In", "L2")))
    c = cluster(
        [node("a", labels={"MEM": "M1"}), node("b", labels={"CPU": "L2"})],
        [pod("p", affinity=Affinity(node_affinity=node_affinity().node_affinity.__class__(preferred=prefs)))],
    )
    assert placements(c)["p"] == "b"


# ---------------------------------------------------------------------------------------------- ports


@pytest.mark.parametrize(
    ("existing", "wanted", "conflict"),
    [
        (ContainerPort(80, "TCP", host_port=8080), ContainerPort(80, "TCP", host_port=8080), True),
        (ContainerPort(80, "TCP", host_port=8080), ContainerPort(80, "UDP", host_port=8080), False),
        (
            ContainerPort(80, "TCP", host_port=8080, host_ip="10.0.0.1"),
            ContainerPort(80, "TCP", host_port=8080, host_ip="10.0.0.2"),
            False,
        ),
        (ContainerPort(80, "TCP", host_port=8080, host_ip="10.0.0.1"), ContainerPort(80, "TCP", host_port=8080), True),
    ],
    ids=["same-port-protocol", "other-protocol", "other-host-ip", "wildcard-ip-conflicts"],
)
def test_host_port_conflicts(existing, wanted, conflict) -> None:
    snap = snapshot([node("a")], [pod("e", node_name="a", ports=(existing,))])
    v = NodePorts().filter(CycleState(), pod_info(pod("p", ports=(wanted,))), snap)
    assert (v is not None and not v.ok[0]) == conflict


def test_host_network_pods_claim_their_container_ports() -> None:
    c = cluster(
        [node("a")],
        [
            pod("e", host_network=True, ports=(ContainerPort(9100),)),
            pod("p", host_network=True, ports=(ContainerPort(9100),), order=1),
        ],
    )
    assert placements(c)["p"] == (
        "Pending: 0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod ports."
    )


# ---------------------------------------------------------------------------------------------- resources


def test_fit_lists_every_missing_resource() -> None:
    c = cluster(
        [node("a", cpu=1000, memory=1 * GI), node("b", cpu=1000, memory=8 * GI)], [pod("p", cpu=2000, memory=2 * GI)]
    )
    assert placements(c)["p"] == "Pending: 0/2 nodes are available: 1 Insufficient memory, 2 Insufficient cpu."


def test_fit_counts_pods_and_extended_resources() -> None:
    c = cluster([node("a", pods=1)], [pod("e", node_name="a"), pod("p", order=1)])
    assert placements(c)["p"] == "Pending: 0/1 nodes are available: 1 Too many pods."
    gpu = pod("g")
    gpu = gpu.__class__(
        **{
            **{f: getattr(gpu, f) for f in gpu.__slots__},
            "containers": (Container("c", requests={"nvidia.com/gpu": 1}),),
        }
    )
    assert (
        placements(cluster([node("a")], [gpu]))["g"]
        == "Pending: 0/1 nodes are available: 1 Insufficient nvidia.com/gpu."
    )


def test_init_containers_count_as_max_with_the_sum() -> None:
    init = (Container("init", requests={"cpu": 3000}),)
    c = cluster([node("a", cpu=2000)], [pod("p", cpu=500, init=init)])
    assert placements(c)["p"] == "Pending: 0/1 nodes are available: 1 Insufficient cpu."


def test_least_allocated_counts_missing_requests_as_100m_200mi() -> None:
    # TestLeastAllocatedScoringStrategy "nothing scheduled, nothing requested": pods without requests still score
    snap = snapshot([node("a", cpu=1000, memory=1000 * MI)])
    s = NodeResourcesFit().score(CycleState(), pod_info(pod("p")), snap, np.arange(1))
    assert s.tolist() == [(90 + 80) // 2]


def test_balanced_allocation_formula_and_best_effort_skip() -> None:
    snap = snapshot([node("a", cpu=4000, memory=4 * GI)])
    s = BalancedAllocation().score(CycleState(), pod_info(pod("p", cpu=2000, memory=1 * GI)), snap, np.arange(1))
    assert s.tolist() == [int((1 - abs(0.5 - 0.25) / 2) * 100)]
    assert BalancedAllocation().score(CycleState(), pod_info(pod("p")), snap, np.arange(1)) is None


def test_image_locality_prefers_the_node_with_the_image() -> None:
    big = ((("nginx:1.25",), 500 * MI),)
    snap = snapshot([node("a", images=big), node("b")])
    s = ImageLocality().score(CycleState(), pod_info(pod("p")), snap, np.arange(2))
    # 500Mi scaled by spread 1/2 = 250Mi, within [23Mi, 1000Mi]
    assert s.tolist() == [100 * (250 * MI - 23 * MI) // (1000 * MI - 23 * MI), 0]


# ---------------------------------------------------------------------------------------------- inter-pod affinity


def test_first_pod_of_a_self_affine_group_may_schedule() -> None:
    aff = pod_affinity("kubernetes.io/hostname", sel(app="db"))
    c = cluster(
        [node("a"), node("b")],
        [pod("db-0", labels={"app": "db"}, affinity=aff), pod("db-1", labels={"app": "db"}, affinity=aff, order=1)],
    )
    got = placements(c)
    assert got["db-0"] == got["db-1"]


def test_affinity_without_matching_pods_is_pending() -> None:
    c = cluster([node("a"), node("b")], [pod("p", affinity=pod_affinity("kubernetes.io/hostname", sel(app="db")))])
    assert placements(c)["p"] == "Pending: 0/2 nodes are available: 2 node(s) didn't match pod affinity rules."


def test_existing_pods_anti_affinity_is_symmetric() -> None:
    anti = pod_affinity("kubernetes.io/hostname", sel(app="web"), anti=True)
    c = cluster(
        [node("a"), node("b")], [pod("guard", node_name="a", affinity=anti), pod("web", labels={"app": "web"}, order=1)]
    )
    assert placements(c)["web"] == "b"
    c = cluster([node("a")], [pod("guard", node_name="a", affinity=anti), pod("web", labels={"app": "web"}, order=1)])
    assert placements(c)["web"] == (
        "Pending: 0/1 nodes are available: 1 node(s) didn't satisfy existing pods anti-affinity rules."
    )


def test_nodes_missing_the_topology_key_fail_required_affinity() -> None:
    aff = pod_affinity("zone", sel(app="db"))
    c = cluster(
        [node("a", labels={"zone": "z1"}), node("b")],
        [pod("db", labels={"app": "db"}, node_name="a"), pod("p", affinity=aff, order=1)],
    )
    assert placements(c)["p"] == "a"


def test_namespace_selector_widens_the_term() -> None:
    nss = (
        Namespace("default", Labels({"kubernetes.io/metadata.name": "default"})),
        Namespace("data", Labels({"kubernetes.io/metadata.name": "data", "team": "x"})),
    )
    aff = pod_affinity("kubernetes.io/hostname", sel(app="db"), namespace_selector=sel(team="x"))
    c = cluster(
        [node("a"), node("b")],
        [pod("db", ns="data", labels={"app": "db"}, node_name="b"), pod("p", affinity=aff, order=1)],
        namespaces=nss,
    )
    assert placements(c)["p"] == "b"
    plain = pod_affinity("kubernetes.io/hostname", sel(app="db"))  # own namespace only
    c = cluster(
        [node("a"), node("b")],
        [pod("db", ns="data", labels={"app": "db"}, node_name="b"), pod("p", affinity=plain, order=1)],
        namespaces=nss,
    )
    assert placements(c)["p"].startswith("Pending")


# ---------------------------------------------------------------------------------------------- topology spread


def spread(skew: int, key: str, when: str = "DoNotSchedule", **kw) -> TopologySpreadConstraint:
    return TopologySpreadConstraint(skew, key, when, sel(app="w"), **kw)


def test_max_skew_rejects_the_crowded_domain() -> None:
    nodes = [node("a", labels={"zone": "z1"}), node("b", labels={"zone": "z2"})]
    existing = [pod("e1", labels={"app": "w"}, node_name="a")]
    c = cluster(nodes, existing + [pod("p", labels={"app": "w"}, spread=(spread(1, "zone"),), order=1, cpu=10)])
    assert placements(c)["p"] == "b"


def test_spread_rejects_nodes_without_the_key() -> None:
    c = cluster([node("a")], [pod("p", labels={"app": "w"}, spread=(spread(1, "zone"),))])
    assert placements(c)["p"] == (
        "Pending: 0/1 nodes are available: 1 node(s) didn't match pod topology spread constraints (missing required label)."
    )


def test_min_domains_makes_the_global_minimum_zero() -> None:
    nodes = [node("a", labels={"zone": "z1"})]
    existing = [pod("e1", labels={"app": "w"}, node_name="a")]
    c = cluster(nodes, existing + [pod("p", labels={"app": "w"}, spread=(spread(1, "zone", min_domains=3),), order=1)])
    assert (
        placements(c)["p"]
        == "Pending: 0/1 nodes are available: 1 node(s) didn't match pod topology spread constraints."
    )


def test_system_default_spreading_applies_to_workload_pods() -> None:
    wl = Workload("Deployment", "default", "w", pod("t", labels={"app": "w"}), 2, sel(app="w"))
    select = default_selector_fn((), (wl,))
    snap = snapshot([node("a"), node("b")], [pod("e", labels={"app": "w"}, node_name="a")])
    pl = PodTopologySpread(select)
    state = CycleState()
    raw = pl.score(state, pod_info(pod("p", labels={"app": "w"})), snap, np.arange(2))
    assert pl.normalize(state, raw).tolist()[1] == 100 and raw[0] > raw[1]
    assert (
        PodTopologySpread(select).score(CycleState(), pod_info(pod("q", labels={"app": "other"})), snap, np.arange(2))
        is None
    )


def test_match_label_keys_fold_the_pods_value_into_the_selector() -> None:
    c1 = spread(1, "zone", match_label_keys=("rev",))
    nodes = [node("a", labels={"zone": "z1"}), node("b", labels={"zone": "z2"})]
    old = [pod(f"old{i}", labels={"app": "w", "rev": "1"}, node_name="a") for i in range(3)]
    c = cluster(
        nodes,
        old
        + [
            pod("p", labels={"app": "w", "rev": "2"}, spread=(c1,), order=5),
            pod("q", labels={"app": "w", "rev": "2"}, spread=(c1,), order=6),
        ],
    )
    got = placements(c)
    assert {got["p"], got["q"]} == {"a", "b"}
