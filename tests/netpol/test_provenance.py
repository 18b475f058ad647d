"""The engine's one "why" agrees with its verdicts, and the rules it names really allow what they are credited with.

Property over random generated clusters (benchmarks/generate_cluster.py, small sizes, several seeds):
- for every ordered endpoint pair, `explain`'s verdict and connection equal the matrix's (`netpol matrix`'s rows);
- for a sample of allowed pairs, each side is either not isolated or its allowing rules cover the side's ports,
  and every allowing rule, applied alone (its policy reduced to that one rule, no other policy), lets those
  ports through on its side for that very pair.
Also: node-local traffic both ways (the NetworkPolicy concept page: "traffic to and from the node where a Pod
is running is always allowed").
"""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest

from netpol.engine import Endpoint, Reachability, build_reachability, verdict
from netpol.explain import explain_pair
from netpol.manifests import load_text
from netpol.pipeline import analyze
from tests.helpers import analyze_objects, endpoint_of, generate_cluster_module, matrix_bits, pod, policy


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_explain_verdict_equals_the_matrix_and_named_rules_allow_alone(seed: int) -> None:
    text = generate_cluster_module().generate_yaml(70, 25, seed)
    a = analyze(load_text(text))
    r = a.reachability
    n = len(r.pods)
    matrix = matrix_bits(r)
    ends = list(range(n + len(r.atoms)))
    allowed_pairs = []
    for s in ends:
        for d in ends:
            if s == d or (s >= n and d >= n):
                continue
            e = explain_pair(a, endpoint_of(r, s), endpoint_of(r, d))
            want = matrix.get((s, d))
            assert e.allowed == (want is not None), (e.src, e.dst)
            if want is not None:
                assert e.connection == want, (e.src, e.dst)
                allowed_pairs.append((s, d))
    assert allowed_pairs
    rng = random.Random(seed)
    for s, d in rng.sample(allowed_pairs, min(40, len(allowed_pairs))):
        v = verdict(r, endpoint_of(r, s), endpoint_of(r, d))
        if v.exception:
            continue
        for side in (v.egress, v.ingress):
            if not side.applies or not side.isolated or r.layered:
                continue
            union = np.bitwise_or.reduce([h.bits for h in side.allowing]) if side.allowing else r.ports.no_bits
            assert np.array_equal(union & side.bits, side.bits)  # the named rules account for every port
            for hit in side.allowing:
                _assert_rule_alone_allows(a, r, hit.policy.source, hit.rule, side.direction, s, d, hit.bits)


def _assert_rule_alone_allows(a, r: Reachability, pol, rule, direction: str, s: int, d: int, bits: np.ndarray) -> None:  # noqa: ANN001
    alone = replace(
        pol,
        ingress=(rule.source,) if direction == "ingress" else (),
        egress=(rule.source,) if direction == "egress" else (),
        policy_types=("Ingress",) if direction == "ingress" else ("Egress",),
    )
    solo = build_reachability(replace(a.cluster, policies=(alone,), admin_policies=()), a.options)
    n = len(r.pods)
    src = Endpoint(pod=solo.pod_index[r.pods[s].key]) if s < n else _atom_in(solo, r, s - n)
    dst = Endpoint(pod=solo.pod_index[r.pods[d].key]) if d < n else _atom_in(solo, r, d - n)
    got = solo.side_block(direction, [solo.eid(src)], [solo.eid(dst)])[0, 0]
    want = r.ports.to_set(bits)
    assert want.intersection(solo.ports.to_set(got)) == want, (pol.key, rule.index, r.pods[s].key if s < n else s)


def _atom_in(solo: Reachability, r: Reachability, atom: int) -> Endpoint:
    a = r.atoms[atom]
    import netaddr

    return Endpoint(atom=solo.ipspace.atom_index(netaddr.IPAddress(a.first, a.version)))


def _node_local_cluster():  # noqa: ANN202
    deny_all = {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]}
    return analyze_objects(
        {
            **pod("default", "agent", host_network=None),
            "spec": {"hostNetwork": True, "nodeName": "n1", "containers": [{"name": "c"}]},
        },
        {**pod("default", "app", {"app": "web"}), "spec": {"nodeName": "n1", "containers": [{"name": "c"}]}},
        {**pod("default", "far", {"app": "web"}), "spec": {"nodeName": "n2", "containers": [{"name": "c"}]}},
        policy("default", "deny-all", deny_all),
    )


def test_a_pod_reaches_a_host_network_pod_of_its_own_node_under_deny_all() -> None:
    """https://kubernetes.io/docs/concepts/services-networking/network-policies/ : "traffic to and from the
    node where a Pod is running is always allowed, regardless of the IP address of the Pod or the node" —
    a hostNetwork pod speaks with its node's address, so app → agent (same node) is traffic to app's node."""
    a = _node_local_cluster()
    r = a.reachability
    app, agent, far = (r.pod_index[k] for k in ("default/app", "default/agent", "default/far"))
    assert r.connection(app, agent).is_all  # to the node (was DENIED)
    assert r.connection(agent, app).is_all  # from the node
    assert r.connection(far, agent).is_empty  # another node's pod: the deny-all applies
    e = explain_pair(a, Endpoint(pod=app), Endpoint(pod=agent))
    assert e.allowed and any("own node" in n for n in e.notes)
    matrix = matrix_bits(r)
    assert (app, agent) in matrix and (agent, app) in matrix and (far, agent) not in matrix


@pytest.mark.parametrize("seed", [1, 2])
def test_one_port_blocks_equal_the_port_bit_of_full_blocks(seed: int) -> None:
    """The bool path `--port` questions use (boxes without the port skipped) agrees with the port words."""
    r = analyze(load_text(generate_cluster_module().generate_yaml(120, 40, seed))).reachability
    full = r.class_block(range(r.C))
    for probe in (("TCP", 80), ("UDP", 53), ("TCP", 8080), ("SCTP", 1)):
        w, bit = r.probe_bit(*probe)
        assert np.array_equal(r.class_block(range(r.C), probe=probe), (full[..., w] & bit) != 0), probe
        streamed = np.concatenate([b for _, b in r.stream_class_blocks(probe)])
        assert np.array_equal(streamed, (full[..., w] & bit) != 0)
