"""The engine against an independent per-pair evaluator of the tiers (tests/netpol/reference_tiers.py) on seeded
random clusters mixing NetworkPolicy, v1alpha1 Admin/BaselineAdminNetworkPolicy and v1alpha2
ClusterNetworkPolicy (tests/netpol/random_tiers.py), for every ordered pod pair and every pod ↔ external address
atom, in single-stack ("mixed": IPv4 and a few IPv6-only pods) and dual-stack clusters. Issue 20 asks for it
("for random clusters with mixed NetworkPolicy and Admin/Baseline policies, every pair's verdict equals the
matrix's"); issue 21 for ClusterNetworkPolicy beside them.
"""

from __future__ import annotations

from collections import Counter

import netaddr
import numpy as np
import pytest

from netpol.engine import EngineOptions
from tests.helpers import analyze_objects
from tests.netpol import reference as ref
from tests.netpol.random_tiers import random_tiered_cluster
from tests.netpol.reference_tiers import TieredReference

SEEDS = range(25)


def assert_engine_equals_reference(objs: list[dict], label: str, *, ipblock_matches_pods: bool = True) -> None:
    a = analyze_objects(*objs, options=EngineOptions(ipblock_matches_pods=ipblock_matches_pods))
    r = a.reachability
    rc = TieredReference(objs, ipblock_matches_pods=ipblock_matches_pods)
    keys = [p.key for p in a.pods]
    assert sorted(keys) == sorted(p.key for p in rc.pods)
    for s in keys:
        for d in keys:
            got = ref.normalize(r.connection(r.pod_index[s], r.pod_index[d]).items())
            want = rc.connection(s, d)
            assert got == want, f"{label}: {s} -> {d}: engine {got} != reference {want}"
    for ai, atom in enumerate(r.atoms):
        ip = str(netaddr.IPAddress(atom.first, atom.version))
        for d in keys:
            got = ref.normalize(r.ingress_from_atom(ai, r.pod_index[d]).items())
            assert got == rc.ingress_from_ip(ip, d), f"{label}: {atom.render()} -> {d}"
            got = ref.normalize(r.egress_to_atom(r.pod_index[d], ai).items())
            assert got == rc.egress_to_ip(d, ip), f"{label}: {d} -> {atom.render()}"


@pytest.mark.parametrize("stack", ["mixed", "dual"])
@pytest.mark.parametrize("seed", SEEDS)
def test_networkpolicy_and_v1alpha1_tiers_equal_the_reference(seed: int, stack: str) -> None:
    assert_engine_equals_reference(random_tiered_cluster(seed, stack, v1alpha2=False), f"{stack} seed {seed}")


@pytest.mark.parametrize("stack", ["mixed", "dual"])
@pytest.mark.parametrize("seed", SEEDS)
def test_networkpolicy_and_both_api_versions_equal_the_reference(seed: int, stack: str) -> None:
    """NetworkPolicy, v1alpha1 and v1alpha2 in one cluster (Admin and Baseline ClusterNetworkPolicies beside the
    AdminNetworkPolicies, the BaselineAdminNetworkPolicy or Baseline ClusterNetworkPolicies)."""
    assert_engine_equals_reference(random_tiered_cluster(1000 + seed, stack), f"{stack} seed {1000 + seed}")


@pytest.mark.parametrize("seed", range(8))
def test_the_tiers_equal_the_reference_when_networks_do_not_match_pods(seed: int) -> None:
    """EngineOptions.ipblock_matches_pods off: `networks` (and ipBlocks) hold only host-network pods' addresses."""
    objs = random_tiered_cluster(100 + seed, "mixed")
    assert_engine_equals_reference(objs, f"seed {seed}", ipblock_matches_pods=False)


def test_random_tiered_clusters_exercise_every_feature() -> None:
    """The generator guards only what it draws: count the features over the seeds the tests use."""
    seen: Counter[str] = Counter()
    for seed in SEEDS:
        for stack in ("mixed", "dual"):
            for o in random_tiered_cluster(1000 + seed, stack):
                kind = o["kind"]
                seen[kind] += 1
                if kind == "Pod" and o["spec"].get("hostNetwork"):
                    seen["hostNetwork"] += 1
                if kind not in ("AdminNetworkPolicy", "BaselineAdminNetworkPolicy", "ClusterNetworkPolicy"):
                    continue
                spec = o["spec"]
                seen[f"{kind}:{spec.get('tier', '')}"] += 1
                seen["subject:" + next(iter(spec["subject"]))] += 1
                for d, pk in (("ingress", "from"), ("egress", "to")):
                    for rule in spec.get(d) or []:
                        seen[f"{kind}:{rule['action']}:{spec.get('tier', '')}"] += 1
                        seen.update(f"peer:{next(iter(p))}" for p in rule[pk])
                        for p in rule.get("ports") or []:
                            seen[f"v1alpha1:{next(iter(p))}"] += 1
                        for p in rule.get("protocols") or []:
                            key = next(iter(p))
                            seen[
                                f"v1alpha2:{key if key == 'destinationNamedPort' else next(iter(p[key]['destinationPort']))}"
                            ] += 1
    wanted = [
        "hostNetwork",
        "NetworkPolicy",
        "Node",
        "subject:namespaces",
        "subject:pods",
        "AdminNetworkPolicy:Allow:",
        "AdminNetworkPolicy:Deny:",
        "AdminNetworkPolicy:Pass:",
        "BaselineAdminNetworkPolicy:Allow:",
        "BaselineAdminNetworkPolicy:Deny:",
        "ClusterNetworkPolicy:Accept:Admin",
        "ClusterNetworkPolicy:Deny:Admin",
        "ClusterNetworkPolicy:Pass:Admin",
        "ClusterNetworkPolicy:Accept:Baseline",
        "ClusterNetworkPolicy:Deny:Baseline",
        "ClusterNetworkPolicy:Pass:Baseline",
        "peer:namespaces",
        "peer:pods",
        "peer:nodes",
        "peer:networks",
        "peer:domainNames",
        "v1alpha1:portNumber",
        "v1alpha1:portRange",
        "v1alpha1:namedPort",
        "v1alpha2:number",
        "v1alpha2:range",
        "v1alpha2:destinationNamedPort",
    ]
    assert [w for w in wanted if not seen[w]] == []


def _manifest_rules(objs: list[dict]) -> dict[str, dict]:
    """Policy key as the engine names it → manifest (NetworkPolicy ns/name, ANP/BANP/CNP name)."""
    prefix = {"AdminNetworkPolicy": "ANP ", "BaselineAdminNetworkPolicy": "BANP ", "ClusterNetworkPolicy": "CNP "}
    out = {}
    for o in objs:
        meta = o["metadata"]
        if o["kind"] == "NetworkPolicy":
            out[f"{meta['namespace']}/{meta['name']}"] = o
        elif o["kind"] in prefix:
            out[prefix[o["kind"]] + meta["name"]] = o
    return out


@pytest.mark.parametrize("seed", range(12))
def test_provenance_names_rules_and_peers_that_alone_produce_the_verdict(seed: int) -> None:
    """Issue 20: the rules and peers provenance names, applied alone, produce the verdict. Per side of every pod
    pair of a mixed cluster: (1) the side's ports equal the reference's; (2) every rule named holds the pair by
    the reference (its policy selects the owner, each peer named holds the other end); (3) the ports the named
    Allow rules decided, plus those no Allow or Deny rule decided and no tier end denied, are exactly the side's
    ports."""
    from netpol.engine import Endpoint
    from netpol.engine.provenance import verdict

    objs = random_tiered_cluster(2000 + seed, "mixed")
    a = analyze_objects(*objs)
    r = a.reachability
    rc = TieredReference(objs)
    manifests = _manifest_rules(objs)
    keys = [p.key for p in a.pods]
    none = r.ports.no_bits
    for s in keys:
        for d in keys:
            src, dst = rc.by_key[s], rc.by_key[d]
            if s == d or rc.node_local(s, d) or not (src.families & dst.families):
                continue
            (family,) = src.families & dst.families
            v = verdict(r, Endpoint(pod=r.pod_index[s]), Endpoint(pod=r.pod_index[d]))
            for side in (v.egress, v.ingress):
                owner, other = (src, dst) if side.direction == "egress" else (dst, src)
                other_ip = other.address(family)
                assert other_ip is not None
                want = rc.side(owner, side.direction.capitalize(), other, other_ip, dst, family)
                assert ref.normalize(r.ports.to_set(side.bits).items()) == want, (s, d, side.direction)
                decided_any, allowed = none.copy(), none.copy()
                for h in side.hits:
                    if h.rule.action in ("Allow", "Deny"):  # a Pass hands its ports on: not final
                        decided_any |= h.decided
                    if h.rule.action == "Allow":
                        allowed |= h.decided
                    manifest = manifests[h.policy.key]
                    rule = manifest["spec"][side.direction][h.rule.index]
                    peers = rule.get("from" if side.direction == "ingress" else "to") or []
                    if manifest["kind"] == "NetworkPolicy":
                        assert rc.selecting(owner, side.direction.capitalize()).count(manifest) == 1
                        for i in h.peers:
                            if peers:
                                ns = manifest["metadata"]["namespace"]
                                assert rc.peer_matches_pod(peers[i], ns, other, family), (h.label, s, d)
                    else:
                        assert rc.subject_holds(manifest["spec"]["subject"], owner), (h.label, s, d)
                        for i in h.peers:
                            assert rc.tier_peer_holds(peers[i], other, other_ip, family), (h.label, s, d)
                denied = none.copy()
                for e in side.ends:
                    denied |= e.denied
                undecided = r.ports.all_bits & ~decided_any & ~denied
                assert np.array_equal(allowed | undecided, side.bits), (s, d, side.direction)
