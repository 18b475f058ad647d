"""The ClusterNetworkPolicy compiler's output (netpol/engine/compile/cnp.py) in the tiered form: tier,
precedence, action, subject and peer masks over the classes and address atoms, ports, texts and notes, each
derived by hand from a small cluster and the v1alpha2 field documentation."""

from __future__ import annotations

import numpy as np

from netpol.engine.compile import compilers_for
from netpol.engine.compile.cnp import ClusterNetworkPolicyCompiler
from netpol.engine.tiers import ADMIN_TIER, BASELINE_TIER, CompiledPolicy
from tests.helpers import analyze_objects, namespace, pod

CNP_API = "policy.networking.k8s.io/v1alpha2"


def running(ns: str, name: str, ip: str, labels: dict | None = None, **spec: object) -> dict:
    return {**pod(ns, name, labels, **spec), "status": {"phase": "Running", "podIP": ip}}


OBJS = [
    namespace("x", {"team": "a"}),
    namespace("y"),
    {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "n1", "labels": {"role": "infra"}},
        "status": {"addresses": [{"type": "InternalIP", "address": "10.250.0.2"}]},
    },
    running("x", "a", "10.0.0.1", {"app": "a"}, nodeName="n1"),
    running("x", "host", "10.250.0.2", {"app": "a"}, nodeName="n1", hostNetwork=True),
    running("y", "b", "10.0.0.2", {"app": "b"}, ports=[{"name": "web", "containerPort": 8080}], nodeName="n1"),
    {
        "apiVersion": CNP_API,
        "kind": "ClusterNetworkPolicy",
        "metadata": {"name": "guard"},
        "spec": {
            "tier": "Baseline",
            "priority": 3,
            "subject": {"namespaces": {"matchLabels": {"team": "a"}}},
            "ingress": [
                {"name": "in", "action": "Accept", "from": [{"pods": {"podSelector": {"matchLabels": {"app": "b"}}}}]}
            ],
            "egress": [
                {
                    "action": "Pass",
                    "to": [{"nodes": {"matchLabels": {"role": "infra"}}}, {"networks": ["10.0.0.0/31"]}],
                    "protocols": [{"tcp": {"destinationPort": {"range": {"start": 8000, "end": 8080}}}}],
                },
                {"action": "Accept", "to": [{"domainNames": ["example.com"]}]},
                {"action": "Deny", "to": [{"namespaces": {}}], "protocols": [{"destinationNamedPort": "web"}]},
            ],
        },
    },
]


def compiled() -> tuple[CompiledPolicy, object]:
    a = analyze_objects(*OBJS)
    r = a.reachability
    (cp,) = [p for p in r.policies if p.kind == "ClusterNetworkPolicy"]
    return cp, r


def classes_of(r, mask: np.ndarray) -> set[str]:  # noqa: ANN001
    return {p.key for i, p in enumerate(r.pods) if mask[r.universe.pod_class[i]]}


def test_the_compiler_is_registered_for_the_clusters_policies() -> None:
    cluster = analyze_objects(*OBJS).cluster
    (cnp,) = [c for c in compilers_for(cluster) if isinstance(c, ClusterNetworkPolicyCompiler)]
    assert [p.name for p in cnp.policies] == ["guard"]
    assert sorted(cnp.label_keys()) == ["app"]  # only pod selectors' keys cut classes


def test_policy_tier_precedence_and_subject() -> None:
    cp, r = compiled()
    assert (cp.kind, cp.key, cp.tier, cp.precedence_text) == (
        "ClusterNetworkPolicy",
        "CNP guard",
        BASELINE_TIER,
        "priority 3",
    )
    assert cp.tier is not ADMIN_TIER and cp.precedence[0] == 3.0
    assert cp.isolates == frozenset()  # neither tier isolates
    # subject: namespaces team=a → x's pods, but never the host-network pod
    assert classes_of(r, cp.selected) == {"x/a"}


def test_rules_actions_peers_ports_and_notes() -> None:
    cp, r = compiled()
    (accept,) = cp.ingress
    assert (accept.action, accept.name, accept.ports_text, accept.index) == ("Allow", "in", "all ports", 0)
    assert np.array_equal(accept.static_bits, r.ports.all_bits)
    # pods with no namespaceSelector: every namespace; app=b → y/b only
    assert classes_of(r, accept.peers[0].classes) == {"y/b"} and not accept.peers[0].atoms.any()

    passing, domains, deny = cp.egress
    assert passing.action == "Pass" and passing.ports_text == "TCP 8000-8080"
    assert r.ports.to_set(passing.static_bits).render() == "TCP 8000-8080"
    nodes, nets = passing.peers
    # nodes role=infra: n1's address and the host-network pod on n1, not the other pods on n1
    assert classes_of(r, nodes.classes) == {"x/host"}
    assert [r.atoms[k].render() for k in np.flatnonzero(nodes.atoms)] == ["10.250.0.2-10.250.0.2"]
    # networks 10.0.0.0/31 holds 10.0.0.0-10.0.0.1: x/a's address, and the external atoms of that range
    assert classes_of(r, nets.classes) == {"x/a"}
    assert nets.text == "network 10.0.0.0/31"  # the v1alpha1 compiler's words for one CIDR
    # domainNames: nothing statically, and a note that says so
    (dn,) = domains.peers
    assert not dn.classes.any() and not dn.atoms.any() and "resolved by DNS" in dn.note
    # destinationNamedPort: resolved on the destination, whatever the protocol
    assert deny.named == (("web", ""),) and not deny.static_bits.any()
    assert deny.ports_text == "destinationNamedPort web"
    b = r.universe.pod_class[r.pod_index["y/b"]]
    assert r.ports.to_set(deny.bits_for(r.ports, r.universe.classes[b].named_ports)).render() == "TCP 8080"
