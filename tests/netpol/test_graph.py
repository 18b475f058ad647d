"""The networkx graph: pods and external ranges as nodes, allowed connections with their rules as edges."""

from __future__ import annotations

from pathlib import Path

from netpol.graph import build_graph, can_reach, who_can_reach
from netpol.manifests import load_paths
from netpol.pipeline import analyze
from tests.helpers import analyze_objects, pod, policy

SEED = Path(__file__).resolve().parents[2] / "samples" / "seed-lab"


def test_edges_carry_connections_and_the_rules_that_allowed_them() -> None:
    g = build_graph(analyze(load_paths([str(SEED)])))
    assert who_can_reach(g, "web/web1") == [("web/test", "TCP 80")]
    edge = g.edges["web/test", "web/web1"]
    assert edge["ingress_rules"] == ["web/web1-allow-test ingress rule #1"]
    assert edge["egress_rules"] == ["not isolated"]
    assert g.nodes["0.0.0.0-255.255.255.255"]["kind"] == "external"
    assert ("web/web2", "All Connections") in can_reach(g, "web/web1")
    assert not g.has_edge("web/web1", "web/web1")  # loopback is implied, not drawn


def test_host_network_pod_reaches_pods_on_its_node_through_the_node_rule() -> None:
    a = analyze_objects(
        {
            **pod("x", "agent", host_network=None),
            "spec": {"hostNetwork": True, "nodeName": "n1", "containers": [{"name": "c"}]},
        },
        {**pod("x", "web", {"app": "web"}), "spec": {"nodeName": "n1", "containers": [{"name": "c"}]}},
        {**pod("x", "far", {"app": "web"}), "spec": {"nodeName": "n2", "containers": [{"name": "c"}]}},
        policy("x", "deny", {"podSelector": {}}),
    )
    g = build_graph(a)
    assert g.edges["x/agent", "x/web"]["text"] == "All Connections"
    assert g.edges["x/agent", "x/web"]["ingress_rules"] == ["own node"]
    assert not g.has_edge("x/agent", "x/far")
