"""What-if edits recomputed incrementally (netpol/whatif.py, `Reachability.with_policies`) give exactly the
analysis a from-scratch recompute of the edited policy set gives (`whatif.recompute`): every pod pair's
ConnectionSet, every external range both ways (`netpol diff` between the two is empty), isolation, and the
edited cluster's policies. And `changed_sides` covers every pair an edit changes. Seeded random clusters
(the engine-vs-reference generator), the seed lab, and a cluster with AdminNetworkPolicies."""

from __future__ import annotations

import argparse
import random

import numpy as np
import pytest

from netpol.commands.context import Context
from netpol.diff import diff
from netpol.manifests import load_paths
from netpol.pipeline import Analysis, analyze
from netpol.whatif import (
    AddDefaultDeny,
    DisablePolicy,
    Edit,
    RemoveRule,
    apply_edits,
    changed_sides,
    changes,
    edited_policies,
    policies_yaml,
    recompute,
)
from tests.conftest import REAL_APPS, ROOT
from tests.helpers import analyze_objects
from tests.netpol import reference as ref
from tests.netpol.test_engine_vs_reference import random_cluster


def load(path: str) -> Analysis:
    ctx = Context(argparse.Namespace(paths=[path]))
    return ctx.analyze(ctx.load())


def random_edits(rng: random.Random, a: Analysis) -> list[Edit]:
    edits: list[Edit] = []
    policies = list(a.cluster.policies)
    for _ in range(rng.randint(1, 4)):
        kind = rng.random()
        if kind < 0.35 and policies:
            edits.append(DisablePolicy(rng.choice(policies).key))
        elif kind < 0.7 and any(p.ingress or p.egress for p in policies):
            p = rng.choice([p for p in policies if p.ingress or p.egress])
            direction = rng.choice([d for d in ("ingress", "egress") if getattr(p, d)])
            edits.append(RemoveRule(p.key, direction, rng.randrange(len(getattr(p, direction)))))
        else:
            ns = rng.choice(sorted({p.namespace for p in a.pods}))
            edits.append(AddDefaultDeny(ns, rng.choice(["ingress", "egress", "both"])))
    return list(dict.fromkeys(edits))  # the UI toggles a repeated edit off; here it is dropped


def ranges(cs) -> ref.Ranges:  # noqa: ANN001 - ConnectionSet
    return ref.normalize(cs.items())


def assert_same(incremental: Analysis, full: Analysis) -> None:
    ri, rf = incremental.reachability, full.reachability
    assert [p.key for p in ri.pods] == [p.key for p in rf.pods]
    n = len(ri.pods)
    for s in range(n):
        for d in range(n):
            assert ranges(ri.connection(s, d)) == ranges(rf.connection(s, d)), (ri.pods[s].key, ri.pods[d].key)
    for side in ("isolated_ingress", "isolated_egress"):
        got = getattr(ri, side)[ri.universe.pod_class]
        want = getattr(rf, side)[rf.universe.pod_class]
        assert np.array_equal(got, want), side
    report = diff(full, incremental)  # external ranges compared on the common refinement of both IP spaces
    assert report.empty, [f"{c.src} -> {c.dst}: {c.old.render()} / {c.new.render()}" for c in report.changes[:5]]
    assert [p.key for p in incremental.cluster.policies] == [p.key for p in full.cluster.policies]
    assert [(len(p.ingress), len(p.egress)) for p in incremental.cluster.policies] == [
        (len(p.ingress), len(p.egress)) for p in full.cluster.policies
    ]
    assert [cp.key for cp in ri.policies] == [cp.key for cp in rf.policies]
    # the masks over policies (`without`/`only`: the redundancy audit) number the kept policies anew
    assert [ri.changes_without(k) for k in range(len(ri.policies))] == [
        rf.changes_without(k) for k in range(len(rf.policies))
    ]
    for direction in ("ingress", "egress"):  # cached masks over policies are the edited policies' own
        assert np.array_equal(ri.isolates_mask(direction), rf.isolates_mask(direction)), direction
        got = ri.isolation(direction, only=~ri.isolates_mask(direction))[ri.universe.pod_class]
        assert not got.any(), direction


def assert_changes_as_netpol_diff_says(base: Analysis, edited: Analysis, edits: list[Edit]) -> None:
    """The incremental change list is `netpol diff`'s, all of it and per pod."""
    whole = diff(base, edited)
    assert changes(base, edited, edits).changes == whole.changes
    for p, pod in enumerate(base.pods):
        mine = [c for c in whole.changes if pod.key in (c.src, c.dst)]
        assert changes(base, edited, edits, pod=p).changes == mine, pod.key


def assert_sides_cover_changes(base: Analysis, edited: Analysis, edits: list[Edit]) -> None:
    ing, eg = changed_sides(base, edits)
    rb, re_ = base.reachability, edited.reachability
    pc = rb.universe.pod_class
    n = len(rb.pods)
    for s in range(n):
        for d in range(n):
            if rb.connection(s, d) != re_.connection(s, d):
                assert ing[pc[d]] or eg[pc[s]], (rb.pods[s].key, rb.pods[d].key, edits)
    for atom in range(rb.A):
        for p in range(n):
            if rb.ingress_from_atom(atom, p) != re_.ingress_from_atom(atom, p):
                assert ing[pc[p]]
            if rb.egress_to_atom(p, atom) != re_.egress_to_atom(p, atom):
                assert eg[pc[p]]


@pytest.mark.parametrize("seed", range(30))
def test_incremental_edits_equal_a_full_recompute_on_random_clusters(seed: int) -> None:
    base = analyze_objects(*random_cluster(seed))
    base.reachability.isolation("egress", only=base.reachability.isolates_mask("egress"))  # warm caches, as the UI has
    rng = random.Random(1000 + seed)
    for _ in range(3):
        edits = random_edits(rng, base)
        edited = apply_edits(base, edits)
        assert_same(edited, recompute(base, edits))
        assert_sides_cover_changes(base, edited, edits)
        assert_changes_as_netpol_diff_says(base, edited, edits)


def test_seed_lab_edits_equal_a_full_recompute_and_say_what_kubernetes_does() -> None:
    base = load(str(ROOT / "samples" / "seed-lab"))
    r = base.reachability
    web1, test, cyh = (r.pod_index[k] for k in ("web/web1", "web/test", "cyh/test"))
    # web1-allow-test's only ingress rule removed: web1 stays isolated and admits nobody (a default-deny)
    edits: list[Edit] = [RemoveRule("web/web1-allow-test", "ingress", 0)]
    edited = apply_edits(base, edits)
    assert_same(edited, recompute(base, edits))
    assert r.connection(test, web1).render() == "TCP 80"
    assert edited.reachability.connection(test, web1).is_empty
    assert edited.reachability.isolated_ingress[edited.reachability.pod_class(web1)]
    (policy,) = [p for p in edited_policies(base, edits) if p.name == "web1-allow-test"]
    assert policy.ingress == () and policy.raw["spec"]["ingress"] == []  # type: ignore[index]
    # disabled: web1 is no longer isolated; every pod reaches it on every port
    edits = [DisablePolicy("web/web1-allow-test")]
    edited = apply_edits(base, edits)
    assert_same(edited, recompute(base, edits))
    assert not edited.reachability.isolated_ingress[edited.reachability.pod_class(web1)]
    assert edited.reachability.connection(cyh, web1).render() == "All Connections"
    # a default-deny ingress in cyh, with the policy disabled: cyh/test admits nobody
    edits += [AddDefaultDeny("cyh", "ingress")]
    edited = apply_edits(base, edits)
    assert_same(edited, recompute(base, edits))
    assert all(edited.reachability.connection(s, cyh).is_empty for s in (web1, test))
    assert [p.key for p in edited.cluster.policies] == ["cyh/whatif-default-deny-ingress"]
    assert_sides_cover_changes(base, edited, edits)
    assert_changes_as_netpol_diff_says(base, edited, edits)
    assert {(c.src, c.dst) for c in changes(base, edited, edits).changes} >= {("cyh/test", "web/web1")}


def test_edits_under_admin_network_policies_equal_a_full_recompute() -> None:
    base = load(str(REAL_APPS / "npg-anp-demo"))
    assert base.cluster.admin_policies and base.cluster.policies
    rng = random.Random(7)
    for _ in range(6):
        edits = random_edits(rng, base)
        edited = apply_edits(base, edits)
        assert_same(edited, recompute(base, edits))
        assert_sides_cover_changes(base, edited, edits)
        assert_changes_as_netpol_diff_says(base, edited, edits)


def test_no_edit_is_the_loaded_analysis_itself() -> None:
    base = load(str(ROOT / "samples" / "seed-lab"))
    assert apply_edits(base, []) is base


def test_edits_of_cluster_network_policies_equal_a_full_recompute() -> None:
    """The UI's what-if on ClusterNetworkPolicies (issue 21): disabling one, removing one of its rules, on the
    engine's classes, equals compiling the edited cluster from scratch, and changes only what the edited
    policies decide."""
    story = ROOT / "samples" / "cluster-network-policy"
    for name in ("user-story-1", "user-story-2", "user-story-3", "user-story-5"):
        base = analyze(load_paths([str(story / "cluster.yaml"), str(story / name)]))
        cnps = base.cluster.cluster_network_policies
        assert cnps
        for cnp in cnps:
            rule_edits: list[Edit] = [
                RemoveRule(cnp.key, d, i) for d in ("ingress", "egress") for i in range(len(getattr(cnp, d)))
            ]
            for edits in (
                [DisablePolicy(cnp.key)],
                rule_edits[:1],
                [*rule_edits[:1], AddDefaultDeny("foo-ns-2", "both")],
            ):
                if not edits:
                    continue
                edited = apply_edits(base, edits)
                assert_same(edited, recompute(base, edits))
                assert_sides_cover_changes(base, edited, edits)
                assert_changes_as_netpol_diff_says(base, edited, edits)
    # Story 1 without its Admin Deny: monitoring reaches sensitive-ns (its NetworkPolicy admits monitoring).
    base = analyze(load_paths([str(story / "cluster.yaml"), str(story / "user-story-1")]))
    r = base.reachability
    m, db = r.pod_index["monitoring-ns/prometheus"], r.pod_index["sensitive-ns/db"]
    assert r.connection(m, db).is_empty
    edited = apply_edits(base, [DisablePolicy("CNP cluster-wide-deny-example")])
    assert edited.reachability.connection(m, db).is_all
    assert edited.cluster.cluster_network_policies == ()


def test_written_policies_keep_the_edited_cluster_network_policies(tmp_path) -> None:  # noqa: ANN001
    """`W` writes every policy of the edited cluster, ClusterNetworkPolicies included: read back in place of the
    input's policies, they give the edited matrix."""
    story = ROOT / "samples" / "cluster-network-policy"
    base = analyze(load_paths([str(story / "cluster.yaml"), str(story / "user-story-3")]))
    edits: list[Edit] = [
        DisablePolicy("CNP bar-ns-1-admin-deny"),
        RemoveRule("CNP pub-svc-delegate-example", "egress", 0),
    ]
    written = tmp_path / "policies.yaml"
    written.write_text(policies_yaml(base, edits))
    again = analyze(load_paths([str(story / "cluster.yaml"), str(written)]))
    assert [p.key for p in again.cluster.cluster_network_policies] == ["CNP pub-svc-delegate-example"]
    assert again.cluster.cluster_network_policies[0].egress == ()
    edited = apply_edits(base, edits).reachability
    r = again.reachability
    keys = [p.key for p in r.pods]
    for s in keys:
        for d in keys:
            assert r.connection(r.pod_index[s], r.pod_index[d]) == edited.connection(
                edited.pod_index[s], edited.pod_index[d]
            )
