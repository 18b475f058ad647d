"""Dual-stack reachability: a connection uses one address family at both ends.

kubernetes.io/docs/concepts/services-networking/dual-stack: a dual-stack pod has an IPv4 and an IPv6
address (status.podIPs); a single-stack pod only one. kubernetes.io/docs/concepts/services-networking/
network-policies ("ipBlock"): an ipBlock selects IP CIDR ranges; an address of the other family is never
inside it. So a connection src → dst is allowed on a port when, for some family both pods have, the
source's egress admits the destination's address of that family and the destination's ingress admits the
source's address of that family; pod and namespace selectors do not depend on the family.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import ROOT
from tests.helpers import allowed, analyze_objects, conn, namespace, policy, run_cli

SAMPLE = ROOT / "samples" / "dual-stack"


def _pod(name: str, *ips: str, labels: dict[str, str] | None = None) -> dict:
    status: dict = {"phase": "Running", "podIP": ips[0]}
    if len(ips) > 1:
        status["podIPs"] = [{"ip": ip} for ip in ips]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "ns", "labels": labels or {"app": name}},
        "spec": {"containers": [{"name": "c", "image": "img", "ports": [{"containerPort": 80}]}]},
        "status": status,
    }


def _ingress_from(target: str, cidr: str) -> dict:
    return policy(
        "ns",
        f"{target}-from-{cidr.replace('/', '-').replace(':', '-')}",
        {
            "podSelector": {"matchLabels": {"app": target}},
            "policyTypes": ["Ingress"],
            "ingress": [{"from": [{"ipBlock": {"cidr": cidr}}], "ports": [{"port": 80}]}],
        },
    )


def _egress_to(source: str, cidr: str) -> dict:
    return policy(
        "ns",
        f"{source}-to-{cidr.replace('/', '-').replace(':', '-')}",
        {
            "podSelector": {"matchLabels": {"app": source}},
            "policyTypes": ["Egress"],
            "egress": [{"to": [{"ipBlock": {"cidr": cidr}}], "ports": [{"port": 80}]}],
        },
    )


DUAL = "10.244.0.0/16,fd00:10:244::/56"
A = ("10.0.0.1", "fd00::1")
B = ("10.0.0.2", "fd00::2")


def test_an_ipblock_of_the_second_family_matches_a_dual_stack_pod() -> None:
    """The issue: status.podIPs was ignored, so an IPv6 ipBlock never matched a dual-stack pod."""
    a = analyze_objects(namespace("ns"), _pod("a", *A), _pod("b", *B), _ingress_from("b", "fd00::1/128"))
    assert allowed(a, "ns/a", "ns/b", 80)
    assert not allowed(a, "ns/a", "ns/b", 81)


def test_the_primary_family_does_not_matter_ipv6_first_pods_match_ipv4_blocks() -> None:
    a = analyze_objects(
        namespace("ns"),
        _pod("a", "fd00::1", "10.0.0.1"),
        _pod("b", "fd00::2", "10.0.0.2"),
        _ingress_from("b", "10.0.0.1/32"),
    )
    assert allowed(a, "ns/a", "ns/b", 80)


def test_egress_admitting_only_ipv4_and_ingress_only_ipv6_is_denied() -> None:
    """No family is admitted on both sides: over IPv4 the ingress refuses, over IPv6 the egress does."""
    a = analyze_objects(
        namespace("ns"),
        _pod("a", *A),
        _pod("b", *B),
        _egress_to("a", "10.0.0.2/32"),
        _ingress_from("b", "fd00::1/128"),
    )
    assert conn(a, "ns/a", "ns/b").is_empty


def test_both_sides_admitting_the_same_family_allow() -> None:
    a = analyze_objects(
        namespace("ns"),
        _pod("a", *A),
        _pod("b", *B),
        _egress_to("a", "fd00::2/128"),
        _ingress_from("b", "fd00::1/128"),
    )
    assert allowed(a, "ns/a", "ns/b", 80)


def test_a_single_stack_peer_cannot_reach_over_the_family_it_lacks() -> None:
    a = analyze_objects(
        namespace("ns"),
        _pod("v4", "10.0.0.3"),
        _pod("v6", "fd00::4"),
        _pod("b", *B),
        _ingress_from("b", "::/0"),  # b admits every IPv6 address on 80
    )
    assert not allowed(a, "ns/v4", "ns/b", 80)  # v4 has no IPv6 address
    assert allowed(a, "ns/v6", "ns/b", 80)
    # no policy between them, but no family in common either: nothing can be opened
    assert conn(a, "ns/v4", "ns/v6").is_empty and conn(a, "ns/v6", "ns/v4").is_empty
    assert conn(a, "ns/b", "ns/v4").render() == "All Connections"  # over IPv4, nothing isolates v4's ingress


def test_selector_peers_admit_whatever_the_family() -> None:
    sel = policy(
        "ns",
        "b-from-a",
        {
            "podSelector": {"matchLabels": {"app": "b"}},
            "ingress": [{"from": [{"podSelector": {"matchLabels": {"app": "v6"}}}], "ports": [{"port": 80}]}],
        },
    )
    a = analyze_objects(namespace("ns"), _pod("v6", "fd00::4"), _pod("b", *B), sel)
    assert allowed(a, "ns/v6", "ns/b", 80)


def test_external_addresses_reach_a_pod_only_over_its_families() -> None:
    a = analyze_objects(namespace("ns"), _pod("v4", "10.0.0.3"), _pod("b", *B), _ingress_from("b", "2001:db8::/64"))
    r = a.reachability
    v4 = r.pod_index["ns/v4"]
    for ai, atom in enumerate(r.atoms):
        into_v4 = r.ingress_from_atom(ai, v4)
        assert into_v4.is_empty == (atom.version == 6), atom.render()


def test_a_host_network_pod_speaks_with_every_address_of_its_node() -> None:
    """hostNetwork pods carry the node's addresses (one per family): an IPv6 ipBlock of the node's IPv6
    address admits them."""
    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "n1"},
        "status": {
            "addresses": [
                {"type": "InternalIP", "address": "192.168.0.11"},
                {"type": "InternalIP", "address": "2001:db8::11"},
            ]
        },
    }
    agent = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "agent", "namespace": "ns", "labels": {"app": "agent"}},
        "spec": {"hostNetwork": True, "nodeName": "n1", "containers": [{"name": "c", "image": "img"}]},
    }
    a = analyze_objects(
        namespace("ns"), node, agent, _pod("b", *B), _ingress_from("b", "2001:db8::11/128"), cluster_cidr=DUAL
    )
    assert a.pods[a.reachability.pod_index["ns/agent"]].pod_ips == ("192.168.0.11", "2001:db8::11")
    assert allowed(a, "ns/agent", "ns/b", 80)


@pytest.mark.parametrize("fmt", ["txt", "json"])
def test_explain_names_the_family_and_the_addresses_that_decided(fmt: str) -> None:
    r = run_cli("explain", "shop/worker", "shop/api", str(SAMPLE), "--port", "8080", "-o", fmt)
    assert r.returncode == 0, r.stderr
    text = r.stdout
    if fmt == "json":
        (e,) = json.loads(text)["explanations"]
        assert e["allowed"] is True
        assert [(f["family"], f["allowed"]) for f in e["via"]] == [("IPv4", False), ("IPv6", True)]
        assert e["via"][1]["src_address"] == "fd00:10:244:1::6"
        text = json.dumps(e)
    else:
        assert "via IPv6 (fd00:10:244:1::6 => fd00:10:244:2::7): ALLOWED TCP 8080" in text
        assert "ipBlock fd00:10:244:1::/64 is IPv6; this connection uses IPv4 (10.244.1.6)" in text
    assert "fd00:10:244:1::6" in text and "fd00:10:244:1::/64" in text
    assert "10.244.1.6 is outside ipBlock fd00" not in text  # never an IPv4 address against an IPv6 block


def test_explain_of_the_mixed_case_says_why_each_family_fails() -> None:
    r = run_cli("explain", "shop/web", "shop/api", str(SAMPLE), "--port", "8080")
    assert r.returncode == 1, r.stderr
    out = r.stdout
    assert out.startswith("DENIED")
    assert "via IPv4" in out and "via IPv6" in out
    assert "10.244.1.5 is outside ipBlock fd00" not in out and "fd00:10:244:1::5 is outside ipBlock 10." not in out


def test_explain_of_a_pair_without_a_common_family() -> None:
    r = run_cli("explain", "shop/legacy", "shop/v6only", str(SAMPLE))
    assert r.returncode == 1, r.stderr
    assert "no address family in common" in r.stdout
    assert "10.244.1.9" in r.stdout and "fd00:10:244:2::9" in r.stdout


def test_matrix_of_the_dual_stack_sample_through_the_cli() -> None:
    r = run_cli("matrix", str(SAMPLE))
    assert r.returncode == 0, r.stderr
    lines = set(r.stdout.splitlines())
    assert "shop/worker => shop/api : TCP 8080" in lines  # via IPv6, node-1's IPv6 range
    assert not any(line.startswith("shop/web => shop/api") for line in lines)  # mixed: denied
    assert not any(line.startswith("shop/legacy => shop/api") for line in lines)  # IPv4-only
    assert not any(line.startswith("shop/legacy => shop/v6only") for line in lines)  # no family in common
    assert "shop/api => shop/v6only : All Connections" in lines
    assert "fd00:10:244:1::-fd00:10:244:1:ffff:ffff:ffff:ffff => shop/api : TCP 8080" in lines
    assert not any(line.endswith("=> shop/legacy : All Connections") and line.startswith("fd00") for line in lines)


def test_matrix_json_lists_every_address_of_a_pod() -> None:
    r = run_cli("matrix", str(SAMPLE), "-o", "json")
    assert r.returncode == 0, r.stderr
    pods = {p["name"]: p for p in json.loads(r.stdout)["pods"]}
    assert pods["shop/api"]["ip"] == "10.244.2.7" and pods["shop/api"]["ips"] == ["10.244.2.7", "fd00:10:244:2::7"]
    assert pods["shop/v6only"]["ips"] == ["fd00:10:244:2::9"]


def test_who_can_reach_on_the_dual_stack_sample_through_the_cli() -> None:
    r = run_cli("who-can-reach", "shop/api", str(SAMPLE), "--port", "8080")
    assert r.returncode == 0, r.stderr
    sources = {line.split(" => ")[0] for line in r.stdout.splitlines() if " => shop/api" in line}
    assert "shop/worker" in sources and "shop/web" not in sources and "shop/legacy" not in sources
    assert "shop/worker => shop/api : TCP 8080 (via IPv6)" in r.stdout.splitlines()
    assert "node node-2 (192.168.0.12, 2001:db8::12) => shop/api" in r.stdout  # both node addresses
    out = run_cli("can-reach", "shop/worker", str(SAMPLE), "-o", "json")
    fams = {c["dst"]: c["families"] for c in json.loads(out.stdout)["connections"]}
    assert fams["shop/web"] == ["IPv4", "IPv6"] and fams["shop/legacy"] == ["IPv4"] and fams["shop/api"] == ["IPv6"]


# ------------------------------------------------------------------ properties over random dual-stack clusters


def _dual(seed: int):  # noqa: ANN202
    from tests.netpol.test_engine_vs_reference import random_cluster

    objs = random_cluster(seed, "dual")
    return objs, analyze_objects(*objs)


@pytest.mark.parametrize("seed", range(8))
def test_explain_per_family_equals_the_reference_and_the_matrix(seed: int) -> None:
    """explain's verdict is the matrix's (rows export), and each `via` family's connection is the reference
    evaluator's egress ∩ ingress over that family alone."""
    import netaddr
    import numpy as np

    from netpol.engine import Endpoint
    from netpol.explain import explain_pair
    from netpol.readout.rows import RowFilter, Rows
    from tests.netpol import reference as ref

    objs, a = _dual(seed)
    r = a.reachability
    rc = ref.ReferenceCluster(objs)
    rows = Rows(r)
    matrix = {}
    for s, dsts, ids in rows.rows(RowFilter(np.ones(len(r.pods), dtype=bool))):
        for d, c in zip(dsts.tolist(), ids.tolist(), strict=True):
            matrix[(s, d)] = rows.table.sets[c]
    n = len(r.pods)
    for s in range(n):
        for d in range(n):
            if s == d:
                continue
            e = explain_pair(a, Endpoint(pod=s), Endpoint(pod=d))
            assert e.allowed == ((s, d) in matrix) and (not e.allowed or e.connection == matrix[(s, d)])
            src, dst = rc.by_key[r.pods[s].key], rc.by_key[r.pods[d].key]
            common = sorted(src.families & dst.families)
            assert [f.family for f in e.via] == [f"IPv{v}" for v in common]
            for f, v in zip(e.via, common, strict=True):
                egress = rc._allowed(src, "Egress", dst, dst.address(v), dst, v)
                ingress = rc._allowed(dst, "Ingress", src, src.address(v), dst, v)
                assert ref.normalize(f.connection.items()) == ref.intersect(egress, ingress), (e.src, e.dst, v)
                assert (f.src_address, f.dst_address) == (src.address(v), dst.address(v))
            if not common:
                assert not e.allowed and "no address family in common" in e.notes[0]
    for ai, atom in enumerate(r.atoms):  # an external range is explained over its own family only
        ip = str(netaddr.IPAddress(atom.first, atom.version))
        for d in range(n):
            e = explain_pair(a, Endpoint(atom=ai), Endpoint(pod=d))
            assert ref.normalize(e.connection.items()) == rc.ingress_from_ip(ip, r.pods[d].key)
            assert all(f.family == f"IPv{atom.version}" for f in e.via)


@pytest.mark.parametrize("seed", range(6))
def test_changes_without_equals_recomputing_without_the_policy_on_dual_stack_clusters(seed: int) -> None:
    """NP060's question (would removing this policy change any connection?) answered per family equals the
    matrices of the cluster rebuilt without the policy (pods, and external ranges at their first address)."""
    from dataclasses import replace

    import netaddr

    from netpol.engine import Reachability, build_reachability

    _, a = _dual(seed)
    r = a.reachability
    c = a.cluster
    n = len(r.pods)

    def snapshot(x: Reachability) -> tuple[object, ...]:
        pods = tuple(x.connection(x.pod_index[p.key], x.pod_index[q.key]).render() for p in r.pods for q in r.pods)
        ext = []
        for atom in r.atoms:
            k = x.ipspace.atom_index(netaddr.IPAddress(atom.first, atom.version))
            for p in r.pods:
                ext.append(x.ingress_from_atom(k, x.pod_index[p.key]).render())
                ext.append(x.egress_to_atom(x.pod_index[p.key], k).render())
        return pods, tuple(ext)

    whole = snapshot(r)
    for k, cp in enumerate(r.policies):
        rest = tuple(q for q in c.policies if q is not cp.source)
        without = build_reachability(replace(c, policies=rest), a.options)
        changed = snapshot(without) != whole
        assert r.changes_without(k) == changed, (seed, cp.key, n)
