"""The graph formats and the engine's one "why": allowed connections as edges, with the rules that allow them.

(Was a test of `graph.build_graph` and its `who_can_reach`/`can_reach`, dead code only tests used; the
same facts are now asserted on the GraphML graph the CLI writes and on `netpol.engine.provenance`.)
"""

from __future__ import annotations

from pathlib import Path

from netpol.engine import Endpoint, Exception_, verdict
from netpol.manifests import load_paths
from netpol.pipeline import analyze
from netpol.readout.export import MatrixView
from netpol.readout.graph import to_networkx
from tests.helpers import analyze_objects, pod, policy

SEED = Path(__file__).resolve().parents[2] / "samples" / "seed-lab"


def test_edges_carry_connections_and_the_rules_that_allowed_them() -> None:
    a = analyze(load_paths([str(SEED)]))
    g = to_networkx(MatrixView(a))
    assert sorted((s, g.edges[s, "web/web1"]["conn"]) for s in g.predecessors("web/web1")) == [("web/test", "TCP 80")]
    r = a.reachability
    v = verdict(r, Endpoint(pod=r.pod_index["web/test"]), Endpoint(pod=r.pod_index["web/web1"]))
    assert [h.label for h in v.ingress.allowing] == ["web/web1-allow-test ingress rule #1"]
    assert not v.egress.isolated
    assert g.nodes["0.0.0.0-255.255.255.255"]["kind"] == "external"
    assert ("web/web2", "All Connections") in [(d, g.edges["web/web1", d]["conn"]) for d in g.successors("web/web1")]
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
    g = to_networkx(MatrixView(a))
    assert g.edges["x/agent", "x/web"]["conn"] == "All Connections"
    r = a.reachability
    v = verdict(r, Endpoint(pod=r.pod_index["x/agent"]), Endpoint(pod=r.pod_index["x/web"]))
    assert v.exception is Exception_.NODE_LOCAL
    assert not g.has_edge("x/agent", "x/far")
