"""The readers that expand class blocks to pods (the grid, the probe rows, the UI's matrix row) take the pairs no
class block gives — loopback and node-local traffic — and their ports from the engine (`pod_overrides`), never
from a rule of their own (issue 20). Pinned against the engine's per-pair read-out (`endpoint_bits`) on a
cluster where the exceptions matter: a deny-all everywhere, and a hostNetwork agent sharing a node with a pod.

Kubernetes (concepts/services-networking/network-policies): "traffic to and from the node where a Pod is running
is always allowed, regardless of the IP address of the node"; a hostNetwork pod speaks with its node's address.
"""

from __future__ import annotations

import numpy as np
import pytest

from netpol.engine import Endpoint, Exception_
from netpol.readout.grid import fast_grid
from netpol.readout.view import MatrixView
from tests.helpers import analyze_objects, grid_cells, namespace, policy
from tui.model import ALLOWED, DENIED, PARTIAL, ViewModel


def _pod(ns: str, name: str, ip: str, node: str, *, host: bool = False) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": ns, "labels": {"app": name}},
        "spec": {
            "nodeName": node,
            "hostNetwork": host,
            "containers": [{"name": "c", "image": "x", "ports": [{"containerPort": 80}]}],
        },
        "status": {"phase": "Running", "podIP": ip, "podIPs": [{"ip": ip}]},
    }


def _node(name: str, ip: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name},
        "status": {"addresses": [{"type": "InternalIP", "address": ip}]},
    }


DENY_ALL = {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]}
# web and db on node n1 with the agent (hostNetwork: n1's address); other on n2. Every pod is denied everything by
# policy; a narrow allow gives web → db TCP 80 only, so a partial connection exists beside the full ones.
OBJECTS = (
    namespace("a"),
    namespace("infra"),
    _node("n1", "10.0.0.1"),
    _node("n2", "10.0.0.2"),
    _pod("a", "web", "10.1.0.10", "n1"),
    _pod("a", "db", "10.1.0.11", "n1"),
    _pod("a", "other", "10.1.1.12", "n2"),
    _pod("infra", "agent", "10.0.0.1", "n1", host=True),
    policy("a", "deny-all", DENY_ALL),
    policy("infra", "deny-all", DENY_ALL),
    policy(
        "a",
        "web-to-db",
        {
            "podSelector": {"matchLabels": {"app": "db"}},
            "ingress": [{"from": [{"podSelector": {"matchLabels": {"app": "web"}}}], "ports": [{"port": 80}]}],
        },
    ),
    policy(
        "a",
        "web-out",
        {
            "podSelector": {"matchLabels": {"app": "web"}},
            "egress": [{"to": [{"podSelector": {"matchLabels": {"app": "db"}}}], "ports": [{"port": 80}]}],
        },
    ),
)


@pytest.fixture(scope="module")
def analysis():  # noqa: ANN201
    return analyze_objects(*OBJECTS)


def _truth(analysis, probe: tuple[str, int] | None) -> dict[tuple[str, str], int]:  # noqa: ANN001
    """Each pod pair's state from the engine's per-pair read-out: 2 every port (or the probe), 1 some, 0 none."""
    r = analysis.reachability
    out = {}
    for s, sp in enumerate(r.pods):
        for d, dp in enumerate(r.pods):
            bits = r.endpoint_bits(Endpoint(pod=s), Endpoint(pod=d))
            if probe is not None:
                w, bit = r.probe_bit(*probe)
                out[(sp.key, dp.key)] = 2 if bits[w] & bit else 0
            else:
                out[(sp.key, dp.key)] = 2 if np.array_equal(bits, r.ports.all_bits) else 1 if bits.any() else 0
    return out


def test_the_cluster_holds_each_kind_of_pair(analysis) -> None:  # noqa: ANN001
    """The fixture is what the other tests need: node-local pairs both ways, a partial and a denied pair."""
    r = analysis.reachability
    i = {p.key: k for k, p in enumerate(r.pods)}
    assert r.pod_exception(i["infra/agent"], i["a/web"]) is Exception_.NODE_LOCAL
    assert r.pod_exception(i["a/db"], i["infra/agent"]) is Exception_.NODE_LOCAL
    assert r.pod_exception(i["a/web"], i["a/web"]) is Exception_.LOOPBACK
    assert r.pod_exception(i["infra/agent"], i["a/other"]) is Exception_.NONE  # another node
    truth = _truth(analysis, None)
    assert truth[("a/web", "a/db")] == 1 and truth[("a/db", "a/web")] == 0
    assert truth[("infra/agent", "a/web")] == 2 and truth[("a/web", "infra/agent")] == 2
    assert truth[("infra/agent", "a/other")] == 0


@pytest.mark.parametrize("probe", [None, ("TCP", 80), ("TCP", 443)], ids=["all-ports", "tcp-80", "tcp-443"])
def test_the_grid_equals_the_engine_pair_by_pair(analysis, probe) -> None:  # noqa: ANN001
    view = MatrixView(analysis, include_external=False)
    cells = grid_cells(fast_grid(view, view.pod_names(), "", probe))
    glyph = {0: "X", 1: "~", 2: "."}
    assert cells == {pair: glyph[state] for pair, state in _truth(analysis, probe).items()}


@pytest.mark.parametrize("probe", [("TCP", 80), ("TCP", 443)], ids=["tcp-80", "tcp-443"])
def test_probe_rows_equal_the_engine_pair_by_pair(analysis, probe) -> None:  # noqa: ANN001
    r = analysis.reachability
    rows = MatrixView(analysis, include_external=False).rows()
    every = np.ones(len(r.pods), dtype=bool)
    listed = {(r.pods[s].key, r.pods[d].key) for s, dsts in rows.probe_rows(every, *probe, None, None) for d in dsts}
    assert listed == {pair for pair, state in _truth(analysis, probe).items() if state == 2}


@pytest.mark.parametrize("probe", [None, ("TCP", 80)], ids=["all-ports", "tcp-80"])
def test_the_ui_matrix_row_equals_the_engine_pair_by_pair(analysis, probe) -> None:  # noqa: ANN001
    model = ViewModel(analysis)
    r = analysis.reachability
    state = {2: ALLOWED, 1: PARTIAL, 0: DENIED}
    truth = _truth(analysis, probe)
    cols = np.arange(len(r.pods))
    for s, sp in enumerate(r.pods):
        got = model.row_states(s, cols, probe).tolist()
        assert got == [state[truth[(sp.key, dp.key)]] for dp in r.pods], sp.key
