"""AdminNetworkPolicy / BaselineAdminNetworkPolicy tiers (network-policy-api v1alpha1).

Facts about tests/data/real-apps/npg-anp-demo are derived by hand from its policies (ANP priorities 4, 5,
10, 15; one BANP; NetworkPolicies in ravenclaw and gryffindor), following the API's precedence rules:
ANPs by priority, first matching rule wins per port (Allow/Deny/Pass); then NetworkPolicies; then the
BANP for traffic no NetworkPolicy isolates; then allow.
"""

from __future__ import annotations

import pytest

from netpol.errors import InputError
from netpol.manifests import load_paths
from netpol.pipeline import analyze
from tests.helpers import analyze_objects, conn, namespace, pod, policy

ANP_API = "policy.networking.k8s.io/v1alpha1"


def anp(name: str, priority: int, subject_ns: dict, ingress=(), egress=()) -> dict:
    spec = {"priority": priority, "subject": {"namespaces": {"matchLabels": subject_ns}}}
    if ingress:
        spec["ingress"] = list(ingress)
    if egress:
        spec["egress"] = list(egress)
    return {"apiVersion": ANP_API, "kind": "AdminNetworkPolicy", "metadata": {"name": name}, "spec": spec}


def from_ns(ns: str) -> list[dict]:
    return [{"namespaces": {"matchLabels": {"kubernetes.io/metadata.name": ns}}}]


def test_anp_deny_overrides_a_networkpolicy_allow() -> None:
    a = analyze_objects(
        namespace("x"),
        namespace("y"),
        pod("x", "a"),
        pod("y", "b"),
        policy("x", "allow-all", {"podSelector": {}, "ingress": [{}]}),
        anp(
            "deny-y",
            1,
            {"kubernetes.io/metadata.name": "x"},
            ingress=[{"name": "d", "action": "Deny", "from": from_ns("y")}],
        ),
    )
    assert conn(a, "y/b", "x/a").is_empty


def test_anp_allow_overrides_a_networkpolicy_deny() -> None:
    a = analyze_objects(
        namespace("x"),
        namespace("y"),
        pod("x", "a"),
        pod("y", "b"),
        policy("x", "deny-all", {"podSelector": {}}),
        anp(
            "allow-y",
            1,
            {"kubernetes.io/metadata.name": "x"},
            ingress=[{"action": "Allow", "from": from_ns("y"), "ports": [{"portNumber": {"port": 80}}]}],
        ),
    )
    assert conn(a, "y/b", "x/a").render() == "TCP 80"


def test_lower_priority_number_wins() -> None:
    subject = {"kubernetes.io/metadata.name": "x"}
    a = analyze_objects(
        namespace("x"),
        namespace("y"),
        pod("x", "a"),
        pod("y", "b"),
        anp("second", 20, subject, ingress=[{"action": "Allow", "from": from_ns("y")}]),
        anp("first", 10, subject, ingress=[{"action": "Deny", "from": from_ns("y")}]),
    )
    assert conn(a, "y/b", "x/a").is_empty


def test_pass_delegates_to_networkpolicy_then_baseline() -> None:
    subject = {"kubernetes.io/metadata.name": "x"}
    banp = {
        "apiVersion": ANP_API,
        "kind": "BaselineAdminNetworkPolicy",
        "metadata": {"name": "default"},
        "spec": {"subject": {"namespaces": {}}, "ingress": [{"action": "Deny", "from": from_ns("y")}]},
    }
    objs = [namespace("x"), namespace("y"), pod("x", "a"), pod("y", "b")]
    passing = anp("pass", 1, subject, ingress=[{"action": "Pass", "from": from_ns("y")}])
    # No NetworkPolicy isolates x/a: the baseline decides, and it denies.
    assert conn(analyze_objects(*objs, passing, banp), "y/b", "x/a").is_empty
    # A NetworkPolicy selecting x/a takes precedence over the baseline.
    allow = policy("x", "allow", {"podSelector": {}, "ingress": [{"ports": [{"port": 443}]}]})
    assert conn(analyze_objects(*objs, passing, banp, allow), "y/b", "x/a").render() == "TCP 443"


def test_banp_must_be_named_default() -> None:
    bad = {
        "apiVersion": ANP_API,
        "kind": "BaselineAdminNetworkPolicy",
        "metadata": {"name": "other"},
        "spec": {"subject": {"namespaces": {}}},
    }
    with pytest.raises(InputError, match="metadata.name"):
        analyze_objects(bad)


def test_anp_demo_matches_the_precedence_rules(real_apps) -> None:
    a = analyze(load_paths([str(real_apps / "npg-anp-demo")]))
    g0, h0, r0, s0 = (
        "gryffindor/harry-potter-0",
        "hufflepuff/cedric-diggory-0",
        "ravenclaw/luna-lovegood-0",
        "slytherin/draco-malfoy-0",
    )
    # ANP 15 egress: Deny TCP 80 / UDP 53 / SCTP 9003 towards slytherin, nothing else matches.
    assert conn(a, g0, s0).render() == "TCP 1-79,81-65535,UDP 1-52,54-65535,SCTP 1-9002,9004-65535"
    # ANP 15 egress: Allow 8080/5353/9003 to hufflepuff, then Deny everything else.
    assert conn(a, g0, h0).render() == "TCP 8080,UDP 5353,SCTP 9003"
    # ANP 5 passes gryffindor to ravenclaw's NetworkPolicy, which admits UDP 52 only.
    assert conn(a, g0, r0).render() == "UDP 52"
    # ANP 10 passes slytherin before ANP 15 can deny; gryffindor's NetworkPolicy admits slytherin.
    assert conn(a, s0, g0).is_all
    # ANP 5 denies TCP 80 from slytherin; ravenclaw's NetworkPolicy admits the rest of TCP.
    assert conn(a, s0, r0).render() == "TCP 1-79,81-65535"
    # The BANP denies hufflepuff's ingress to every namespace no NetworkPolicy isolates.
    assert conn(a, h0, s0).is_empty
    assert conn(a, h0, "hufflepuff/cedric-diggory-1").is_empty
    # ravenclaw is egress-isolated with no egress rules.
    assert conn(a, r0, s0).is_empty
