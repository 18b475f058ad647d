"""Provenance over several tiers (issue 20): for random clusters mixing NetworkPolicies with v1alpha1
AdminNetworkPolicies and a BaselineAdminNetworkPolicy,

- every pair's verdict (explain's bits) equals the matrix's (the streamed export rows);
- the rules and peers provenance names are enough: a cluster holding only them — each policy reduced to the
  rules that decided some port of the pair, each rule to the peers that held the other end, plus the policies
  whose isolation ended a tier — gives that side the same ports. A rule provenance forgot (or credited wrongly)
  changes the answer.

Semantics: network-policy-api v1alpha1 API reference (ANP: priority order, first matching rule per port,
Allow/Deny/Pass; then NetworkPolicies; then the BANP for traffic no NetworkPolicy isolates); the NetworkPolicy
concept page for the middle tier.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
import yaml

from netpol.engine import Endpoint, Reachability, build_reachability, side_verdict
from netpol.manifests import load_text
from netpol.model.admin import AdminNetworkPolicy
from netpol.model.objects import NetworkPolicy
from netpol.pipeline import Analysis, analyze
from tests.helpers import endpoint_of, matrix_bits
from tests.netpol.test_engine_vs_reference import random_cluster

ANP_API = "policy.networking.k8s.io/v1alpha1"


def _ns_selector(rng: random.Random, namespaces: list[str]) -> dict:
    if rng.random() < 0.3:
        return {}
    return {"matchLabels": {"kubernetes.io/metadata.name": rng.choice(namespaces)}}


def _admin_peer(rng: random.Random, namespaces: list[str], egress: bool) -> dict:
    kind = rng.choice(["namespaces", "pods", "networks"] if egress else ["namespaces", "pods"])
    if kind == "namespaces":
        return {"namespaces": _ns_selector(rng, namespaces)}
    if kind == "pods":
        sel = {"matchLabels": {"app": rng.choice(["a", "b", "c"])}} if rng.random() < 0.7 else {}
        return {"pods": {"namespaceSelector": _ns_selector(rng, namespaces), "podSelector": sel}}
    return {"networks": [rng.choice(["10.0.0.0/16", "10.1.0.0/16", "0.0.0.0/0", "10.0.1.0/24"])]}


def _admin_rule(rng: random.Random, namespaces: list[str], egress: bool, baseline: bool) -> dict:
    rule: dict = {
        "name": f"r{rng.randint(0, 999)}",
        "action": rng.choice(["Allow", "Deny"] if baseline else ["Allow", "Deny", "Pass"]),
        "to" if egress else "from": [_admin_peer(rng, namespaces, egress) for _ in range(rng.randint(1, 2))],
    }
    if rng.random() < 0.6:
        rule["ports"] = [
            {"portNumber": {"protocol": rng.choice(["TCP", "UDP"]), "port": rng.choice([53, 80, 443, 8080])}}
            if rng.random() < 0.7
            else {"portRange": {"protocol": "TCP", "start": 80, "end": rng.choice([90, 8080])}}
        ]
    return rule


def mixed_cluster(seed: int) -> list[dict]:
    """A random NetworkPolicy cluster (the reference-evaluator test's generator) plus random ANPs and a BANP."""
    objs = random_cluster(seed)
    rng = random.Random(seed * 7919)
    namespaces = [o["metadata"]["name"] for o in objs if o["kind"] == "Namespace"]
    for o in objs:  # give pods an `app` label the admin peers can select
        if o["kind"] == "Pod":
            o["metadata"]["labels"]["app"] = rng.choice(["a", "b", "c"])
    for k in range(rng.randint(1, 3)):
        spec: dict = {"priority": rng.randint(0, 20), "subject": {"namespaces": _ns_selector(rng, namespaces)}}
        if rng.random() < 0.8:
            spec["ingress"] = [_admin_rule(rng, namespaces, False, False) for _ in range(rng.randint(1, 3))]
        if rng.random() < 0.6:
            spec["egress"] = [_admin_rule(rng, namespaces, True, False) for _ in range(rng.randint(1, 3))]
        objs.append({"apiVersion": ANP_API, "kind": "AdminNetworkPolicy", "metadata": {"name": f"anp{k}"}, "spec": spec})
    if rng.random() < 0.8:
        spec = {"subject": {"namespaces": _ns_selector(rng, namespaces)}}
        spec["ingress"] = [_admin_rule(rng, namespaces, False, True) for _ in range(rng.randint(1, 2))]
        if rng.random() < 0.5:
            spec["egress"] = [_admin_rule(rng, namespaces, True, True) for _ in range(rng.randint(1, 2))]
        objs.append({"apiVersion": ANP_API, "kind": "BaselineAdminNetworkPolicy", "metadata": {"name": "default"}, "spec": spec})
    return objs


def _analysis(seed: int) -> Analysis:
    return analyze(load_text(yaml.safe_dump_all(mixed_cluster(seed))))



@pytest.mark.parametrize("seed", range(12))
def test_verdicts_equal_the_matrix_on_mixed_tier_clusters(seed: int) -> None:
    from netpol.engine import verdict

    a = _analysis(seed)
    r = a.reachability
    assert r.layered  # the admin tiers are in play
    matrix = matrix_bits(r)
    n = len(r.pods)
    for s in range(n + len(r.atoms)):
        for d in range(n + len(r.atoms)):
            if s == d or (s >= n and d >= n):
                continue
            got = r.ports.to_set(verdict(r, endpoint_of(r, s), endpoint_of(r, d)).bits)
            assert got == matrix.get((s, d), r.ports.to_set(r.ports.no_bits)), (seed, s, d)


def _kept_rules(written: tuple, direction: str, named: dict) -> tuple:  # noqa: ANN001
    """The rules of one direction provenance named, each with the peers it named (all, for a rule with none)."""
    return tuple(
        replace(rule, peers=tuple(rule.peers[j] for j in named[(direction, i)])) if rule.peers else rule
        for i, rule in enumerate(written)
        if (direction, i) in named
    )


def _reduced(a: Analysis, sv) -> tuple[tuple[NetworkPolicy, ...], tuple[AdminNetworkPolicy, ...]]:  # noqa: ANN001
    """The cluster's policies reduced to what one side's provenance names."""
    keep: dict[str, dict[tuple[str, int], tuple[int, ...]]] = {}  # policy key → (direction, rule index) → peers
    for h in sv.deciding:
        keep.setdefault(h.policy.key, {})[(h.rule.direction, h.rule.index)] = h.peers
    isolating = {k for e in sv.ends for k in e.policies}
    nps = tuple(
        replace(
            p,
            ingress=_kept_rules(p.ingress, "ingress", keep.get(p.key, {})),
            egress=_kept_rules(p.egress, "egress", keep.get(p.key, {})),
        )
        for p in a.cluster.policies
        if p.key in keep or p.key in isolating
    )
    admins = tuple(
        replace(
            p,
            ingress=_kept_rules(p.ingress, "ingress", keep[p.key]),
            egress=_kept_rules(p.egress, "egress", keep[p.key]),
        )
        for p in a.cluster.admin_policies
        if p.key in keep
    )
    return nps, admins


@pytest.mark.parametrize("seed", range(12))
def test_the_rules_and_peers_provenance_names_alone_give_the_same_side(seed: int) -> None:
    a = _analysis(seed)
    r = a.reachability
    n = len(r.pods)
    rng = random.Random(seed)
    ends = list(range(n + len(r.atoms)))
    pairs = [(s, d) for s in ends for d in ends if s != d and (s < n or d < n)]
    checked = 0
    for s, d in rng.sample(pairs, min(30, len(pairs))):
        src, dst = endpoint_of(r, s), endpoint_of(r, d)
        for direction in ("egress", "ingress"):
            sv = side_verdict(r, direction, src, dst)
            if not sv.applies:
                continue
            nps, admins = _reduced(a, sv)
            alone = build_reachability(replace(a.cluster, policies=nps, admin_policies=admins), a.options)
            s2 = Endpoint(pod=alone.pod_index[r.pods[s].key]) if s < n else _same_atom(alone, r, s - n)
            d2 = Endpoint(pod=alone.pod_index[r.pods[d].key]) if d < n else _same_atom(alone, r, d - n)
            if s2 is None or d2 is None:  # an IPv6 range only a dropped rule's block drew, and no IPv6 pod
                continue
            got = side_verdict(alone, direction, s2, d2)
            assert alone.ports.to_set(got.bits) == r.ports.to_set(sv.bits), (seed, direction, src, dst)
            checked += 1
    assert checked


def _same_atom(alone: Reachability, r: Reachability, atom: int) -> Endpoint | None:
    import netaddr

    a = r.atoms[atom]
    try:
        return Endpoint(atom=alone.ipspace.atom_index(netaddr.IPAddress(a.first, a.version)))
    except KeyError:
        return None
