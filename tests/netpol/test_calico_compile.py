"""The Calico compiler's output (netpol/engine/compile/calico.py) checked directly: masks, tiers, precedence,
notes. Expected values are derived by hand from the cited Calico pages; random selectors are checked against
the one-map evaluation of the selector module (a different code path: per map, not per distinct value)."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from netpol.engine.compile.calico import ClassColumns, tier_of
from netpol.engine.tiers import ADMIN_TIER, BASELINE_TIER, DEFAULT_TIER
from netpol.model.calico import CalicoTier
from netpol.model.calico_selector import parse_selector
from tests.netpol.calico_cases import base, cnp, gnp, service, tier
from tests.netpol.calico_harness import compile_objects
from tests.netpol.calico_random import _selector


@pytest.mark.parametrize("seed", range(20))
def test_vectorised_selectors_equal_one_map_evaluation(seed: int) -> None:
    """Each primitive is evaluated once per distinct value and spread over the classes; the result must equal
    evaluating the selector on each label map (absent keys included: `!=`, `not in` hold on them)."""
    rng = random.Random(seed)
    maps = []
    for _ in range(30):
        m = {}
        if rng.random() < 0.8:
            m["app"] = rng.choice(("web", "db", "api", "cache", "we"))
        if rng.random() < 0.5:
            m["role"] = rng.choice(("front", "back", "fr"))
        maps.append(m)
    cols = ClassColumns(maps)
    for _ in range(30):
        sel = parse_selector(_selector(rng))
        want = np.array([sel.matches(m) for m in maps])
        assert np.array_equal(cols.match(sel.root), want), sel.text


def test_well_known_tiers_are_the_shared_ones() -> None:
    """docs.tigera.io "Tiered network policy": kube-admin (1,000), default (1,000,000), kube-baseline
    (10,000,000) are the tiers Kubernetes' own policies live in: the same Tier values, not copies."""
    assert tier_of(CalicoTier("default", 1_000_000.0)) is DEFAULT_TIER
    assert tier_of(CalicoTier("kube-admin", 1000.0, "Pass")) is ADMIN_TIER
    assert tier_of(CalicoTier("kube-baseline", 1e7, "Pass")) is BASELINE_TIER
    t = tier_of(CalicoTier("security", None, "Pass"))
    assert (t.name, math.isinf(t.order), t.end) == ("security", True, "Pass")


def test_precedence_and_keys() -> None:
    """Order (omitted = infinite) then the policy name (NetworkPolicy reference, spec.order)."""
    c = compile_objects(
        [
            *base(),
            tier("security", 50),
            cnp("a", "p", {"order": 10, "ingress": [{"action": "Allow"}]}),
            gnp("g", {"tier": "security", "ingress": [{"action": "Deny"}]}),
        ]
    )
    got = {p.key: (p.tier.name, p.precedence[0], p.precedence_text) for p in c.policies}
    assert got == {
        "Calico a/p": ("default", 10.0, "order 10"),
        "GNP g": ("security", math.inf, "no order (after every ordered policy)"),
    }


def test_subject_and_peer_masks() -> None:
    """NetworkPolicy selects in its namespace only; a rule's selector is limited to it too (entity rule)."""
    c = compile_objects(
        [
            *base(),
            cnp(
                "a",
                "p",
                {
                    "selector": "has(app)",
                    "ingress": [{"action": "Allow", "source": {"selector": "app == 'client' || app == 'web'"}}],
                },
            ),
        ]
    )
    u = c.universe
    (pol,) = c.policies
    names = lambda mask: sorted(f"{u.classes[i].namespace}:{u.classes[i].labels['app']}" for i in np.flatnonzero(mask))  # noqa: E731
    assert names(pol.selected) == ["a:db", "a:web"]
    (peer,) = pol.ingress[0].peers
    assert names(peer.classes) == ["a:web"]  # b/client is not in namespace a
    assert not peer.atoms.any()  # a selector holds no external address
    assert peer.text == "source: selector app == 'client' || app == 'web'"


def test_rules_outside_the_port_aware_answer_say_so() -> None:
    """ICMP and other protocols hold no TCP/UDP/SCTP port; source ports are not modelled (Rule reference)."""
    c = compile_objects(
        [
            *base(),
            cnp(
                "a",
                "p",
                {
                    "ingress": [
                        {"action": "Deny", "protocol": "ICMP", "icmp": {"type": 8}},
                        {"action": "Allow", "protocol": "TCP", "source": {"ports": [1234]}},
                    ]
                },
            ),
            cnp(
                "b",
                "q",
                {
                    "types": ["Egress"],
                    "egress": [{"action": "Allow", "destination": {"services": {"name": "nope", "namespace": "a"}}}],
                },
            ),
        ]
    )
    by_key = {p.key: p for p in c.policies}
    icmp, src_ports = by_key["Calico a/p"].ingress
    assert not icmp.static_bits.any() and "ICMP is not TCP, UDP or SCTP" in icmp.note
    assert "source ports are not modelled" in src_ports.note
    (svc_rule,) = by_key["Calico b/q"].egress
    assert "Service a/nope is not in the input" in svc_rule.peers[0].note and not svc_rule.peers[0].classes.any()


def test_service_destination_holds_its_pods_on_its_target_ports() -> None:
    c = compile_objects(
        [
            *base(),
            service("a", "web", {"app": "web"}, [{"port": 80, "targetPort": 8080}]),
            cnp(
                "b",
                "q",
                {
                    "types": ["Egress"],
                    "egress": [{"action": "Allow", "destination": {"services": {"name": "web", "namespace": "a"}}}],
                },
            ),
        ]
    )
    (pol,) = c.policies
    (rule,) = pol.egress
    assert c.ports.to_set(rule.static_bits).render() == "TCP 8080"


def test_a_rule_restricting_the_policys_own_endpoint_is_its_own_part() -> None:
    """An ingress rule's destination selector keeps only some of the policy's endpoints (Entity rule
    reference). Until the tiered form has a rule-level subject, the compiler splits the policy into parts that
    sort right after one another; only the first isolates."""
    c = compile_objects(
        [
            *base(),
            cnp(
                "a",
                "p",
                {
                    "selector": "all()",
                    "ingress": [{"action": "Deny", "destination": {"selector": "app == 'db'"}}, {"action": "Allow"}],
                },
            ),
        ]
    )
    parts = sorted(c.policies, key=lambda p: p.precedence)
    assert [(p.key, [r.index for r in p.ingress], bool(p.isolates)) for p in parts] == [
        ("Calico a/p", [], True),
        ("Calico a/p (ingress rule 1)", [0], False),
        ("Calico a/p (ingress rule 2)", [1], False),
    ]
    u = c.universe
    assert [u.classes[i].labels["app"] for i in np.flatnonzero(parts[1].selected)] == ["db"]
