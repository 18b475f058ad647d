"""The audit with ClusterNetworkPolicies (issue 21, scope 4): a namespace an Admin or Baseline Deny of every
namespace covers counts as isolated; rules shadowed by an earlier rule of their tier (CNP010); equal priorities
that can decide one connection differently (CNP020, ambiguous by clusternetworkpolicy_types.go's Priority
documentation); an Admin Pass with no NetworkPolicy behind it (CNP030: "Pass … passes evaluation to the next
tier", and the NetworkPolicy tier decides only for pods a NetworkPolicy selects). Expectations derived by hand from
each input."""

from __future__ import annotations

from pathlib import Path

from netpol.audit import audit
from netpol.manifests import load_paths
from netpol.pipeline import analyze
from tests.helpers import analyze_objects, namespace, pod, policy, run_cli

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "samples" / "cluster-network-policy"
CNP_API = "policy.networking.k8s.io/v1alpha2"


def story(n: int):  # noqa: ANN201 - the Analysis
    return analyze(load_paths([str(SAMPLE / "cluster.yaml"), str(SAMPLE / f"user-story-{n}")]))


def cnp(name: str, priority: int, *, tier: str = "Admin", subject: dict | None = None, ingress=(), egress=()) -> dict:
    spec: dict = {"tier": tier, "priority": priority, "subject": subject or {"namespaces": {}}}
    if ingress:
        spec["ingress"] = list(ingress)
    if egress:
        spec["egress"] = list(egress)
    return {"apiVersion": CNP_API, "kind": "ClusterNetworkPolicy", "metadata": {"name": name}, "spec": spec}


def ns_is(name: str) -> dict:
    return {"matchLabels": {"kubernetes.io/metadata.name": name}}


BASE = [namespace("x"), namespace("y"), pod("x", "a", {"app": "a"}), pod("y", "b", {"app": "b"})]


def test_a_namespace_under_an_admin_deny_of_every_namespace_counts_as_isolated() -> None:
    """User story 1: the Admin Deny from every namespace into sensitive-ns is its default deny for ingress."""
    report = audit(story(1))
    ns = next(n for n in report.namespaces if n.name == "sensitive-ns")
    assert ns.default_deny_ingress == ["ClusterNetworkPolicy/cluster-wide-deny-example"]
    assert ns.unprotected_ingress == []
    assert not [f for f in report.findings if f.rule in ("NP001", "NP003") and f.namespace == "sensitive-ns"]
    # Its egress is not restricted: still reported.
    assert [f.rule for f in report.findings if f.namespace == "sensitive-ns" and f.rule in ("NP002", "NP004")] == [
        "NP002",
        "NP004",
    ]
    # Other namespaces are not covered by it.
    assert any(f.rule == "NP001" and f.namespace == "monitoring-ns" for f in report.findings)


def test_a_baseline_deny_of_every_namespace_isolates_every_namespace() -> None:
    """User story 5: the Baseline Deny of all ingress covers every namespace's pods."""
    report = audit(story(5))
    assert all(n.default_deny_ingress for n in report.namespaces)
    assert not [f for f in report.findings if f.rule in ("NP001", "NP003")]


def test_a_narrow_deny_does_not_count_as_isolation() -> None:
    """A Deny of one namespace, or of one port, leaves the rest open: not a default deny."""
    one_port = cnp(
        "p",
        1,
        subject={"namespaces": ns_is("x")},
        ingress=[
            {
                "action": "Deny",
                "from": [{"namespaces": {}}],
                "protocols": [{"tcp": {"destinationPort": {"number": 80}}}],
            }
        ],
    )
    one_ns = cnp(
        "q", 2, subject={"namespaces": ns_is("x")}, ingress=[{"action": "Deny", "from": [{"namespaces": ns_is("y")}]}]
    )
    report = audit(analyze_objects(*BASE, one_port, one_ns))
    assert any(f.rule == "NP003" and f.namespace == "x" for f in report.findings)


def test_a_rule_behind_a_broader_earlier_rule_is_shadowed() -> None:
    """Priority 5 denies y → x on every port; priority 9 accepting y → x on TCP 80 never decides. A rule written
    after a broader one of its own policy never decides either."""
    deny = cnp(
        "deny",
        5,
        subject={"namespaces": ns_is("x")},
        ingress=[{"action": "Deny", "from": [{"namespaces": ns_is("y")}]}],
    )
    accept = cnp(
        "accept",
        9,
        subject={"namespaces": ns_is("x")},
        ingress=[
            {
                "name": "web",
                "action": "Accept",
                "from": [{"namespaces": ns_is("y")}],
                "protocols": [{"tcp": {"destinationPort": {"number": 80}}}],
            }
        ],
    )
    own = cnp(
        "own",
        20,
        subject={"namespaces": ns_is("y")},
        egress=[
            {"action": "Accept", "to": [{"namespaces": {}}]},
            {"name": "late", "action": "Deny", "to": [{"namespaces": ns_is("x")}]},
        ],
    )
    found = [f for f in audit(analyze_objects(*BASE, deny, accept, own)).findings if f.rule == "CNP010"]
    assert sorted(f.message for f in found) == [
        "CNP accept (priority 9) ingress rule #1 'web' (Accept) never decides: CNP deny (priority 5) ingress rule #1 "
        "(Deny), earlier in the Admin tier, matches every connection it matches",
        "CNP own (priority 20) egress rule #2 'late' (Deny) never decides: CNP own (priority 20) egress rule #1 "
        "(Accept), earlier in the Admin tier, matches every connection it matches",
    ]


def test_a_rule_an_earlier_rule_only_partly_covers_is_not_shadowed() -> None:
    """Priority 5 denies TCP 80 only; priority 9 accepts every port: the other ports reach it."""
    deny80 = cnp(
        "deny80",
        5,
        ingress=[
            {
                "action": "Deny",
                "from": [{"namespaces": {}}],
                "protocols": [{"tcp": {"destinationPort": {"number": 80}}}],
            }
        ],
    )
    accept = cnp("accept", 9, ingress=[{"action": "Accept", "from": [{"namespaces": {}}]}])
    assert not [f for f in audit(analyze_objects(*BASE, deny80, accept)).findings if f.rule == "CNP010"]


def test_equal_priorities_are_reported_only_when_they_can_decide_one_connection_differently() -> None:
    deny = cnp("d", 7, subject={"namespaces": ns_is("x")}, ingress=[{"action": "Deny", "from": [{"namespaces": {}}]}])
    accept = cnp(
        "e", 7, subject={"namespaces": ns_is("x")}, ingress=[{"action": "Accept", "from": [{"namespaces": ns_is("y")}]}]
    )
    other_subject = cnp(
        "f", 7, subject={"namespaces": ns_is("y")}, ingress=[{"action": "Accept", "from": [{"namespaces": {}}]}]
    )
    same_action = cnp(
        "g", 7, subject={"namespaces": ns_is("x")}, ingress=[{"action": "Deny", "from": [{"namespaces": ns_is("y")}]}]
    )
    a = analyze_objects(*BASE, deny, accept, other_subject, same_action)
    ties = [f for f in audit(a).findings if f.rule == "CNP020"]
    # d/e overlap (x's pods, y's pods, every port) with Deny against Accept; e/g too (Accept against Deny); f
    # selects y only; d/g both deny.
    assert sorted(f.objects for f in ties) == [
        ("ClusterNetworkPolicy/e", "ClusterNetworkPolicy/d"),
        ("ClusterNetworkPolicy/g", "ClusterNetworkPolicy/e"),
    ]
    assert sorted(w.message.split(" share")[0] for w in a.warnings if w.code == "cnp-same-priority") == [
        "ClusterNetworkPolicies d and e",
        "ClusterNetworkPolicies e and g",
    ]


def test_an_admin_pass_without_a_networkpolicy_behind_it() -> None:
    """User story 3 passes egress to svc-pub; only foo-ns-1 has an egress NetworkPolicy, so the Pass hands the
    other seven pods' egress to the Baseline tier (empty here: allowed)."""
    (f,) = [f for f in audit(story(3)).findings if f.rule == "CNP030"]
    assert f.message.startswith(
        "CNP pub-svc-delegate-example (priority 20) egress rule #1 (Pass) passes the egress of 7 pod(s) no "
        "NetworkPolicy selects for egress"
    )
    assert "foo-ns-1/client" not in f.message and "foo-ns-2/client" in f.message
    # With a NetworkPolicy isolating every pod's egress, the Pass always lands on one: no finding.
    everyone = [
        policy(ns, "egress", {"podSelector": {}, "policyTypes": ["Egress"], "egress": [{}]}) for ns in ("x", "y")
    ]
    passing = cnp("p", 1, egress=[{"action": "Pass", "to": [{"namespaces": {}}]}])
    assert [f for f in audit(analyze_objects(*BASE, passing, *everyone)).findings if f.rule == "CNP030"] == []
    assert [f for f in audit(analyze_objects(*BASE, passing)).findings if f.rule == "CNP030"] != []


def test_audit_with_namespaces_keeps_the_cluster_policies_that_select_there() -> None:
    """`-n`: a cluster-wide policy's finding is kept when the policy selects a pod of an audited namespace."""
    sample = ROOT / "samples" / "expectations" / "audit" / "cnp010-rule-shadowed.yaml"
    res = run_cli("audit", str(sample), "-n", "t", cwd=ROOT)
    assert "CNP010 rule-shadowed: CNP allow-b (priority 10)" in res.stdout
    a = analyze(load_paths([str(sample)]))
    assert [f for f in audit(a, ["elsewhere"]).findings if f.rule == "CNP010"] == []
