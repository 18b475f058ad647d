"""A node as an endpoint (issue 20's closed Endpoint: pod | external range | node): to policies a node is its
address (an ipBlock decides), but traffic between a node and its own pods is always allowed (Kubernetes
NetworkPolicy concept page: "traffic to and from the node where a Pod is running is always allowed")."""

from __future__ import annotations

import pytest

from netpol.engine import Endpoint, Exception_, verdict
from tests.helpers import analyze_objects, namespace, pod, policy


def _node(name: str, ip: str, cidr: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name},
        "spec": {"podCIDR": cidr},
        "status": {"addresses": [{"type": "InternalIP", "address": ip}]},
    }


def _analysis():  # noqa: ANN202
    # web on n1 admits ingress from 192.168.0.2 (node n2's address) only; both pods isolated for ingress.
    return analyze_objects(
        _node("n1", "192.168.0.1", "10.244.1.0/24"),
        _node("n2", "192.168.0.2", "10.244.2.0/24"),
        _node("n3", "192.168.0.3", "10.244.3.0/24"),
        namespace("x"),
        pod("x", "web", {"app": "web"}, nodeName="n1"),
        policy("x", "web", {"podSelector": {}, "ingress": [{"from": [{"ipBlock": {"cidr": "192.168.0.2/32"}}]}]}),
    )


def test_a_node_is_its_address_to_the_policies_and_reaches_its_own_pods_always() -> None:
    a = _analysis()
    r = a.reachability
    web = r.pod_index["x/web"]
    n1, n2, n3 = (r.node_endpoint(n) for n in ("n1", "n2", "n3"))
    assert n1 is not None and n2 is not None and n3 is not None
    assert (n1.kind, n1.name(r)) == ("node", "node/n1")
    # n1 runs web: always allowed, whatever the policy says (n1's address is not in the ipBlock)
    assert r.ports.to_set(r.endpoint_bits(n1, Endpoint(pod=web))).is_all
    assert verdict(r, n1, Endpoint(pod=web)).exception is Exception_.NODE_LOCAL
    # n2's address is the one the ipBlock admits; n3's is not
    assert r.ports.to_set(r.endpoint_bits(n2, Endpoint(pod=web))).is_all
    assert r.ports.to_set(r.endpoint_bits(n3, Endpoint(pod=web))).is_empty
    assert verdict(r, n3, Endpoint(pod=web)).exception is Exception_.NONE


def test_an_endpoint_is_exactly_one_thing() -> None:
    with pytest.raises(ValueError):
        Endpoint()
    with pytest.raises(ValueError):
        Endpoint(pod=1, atom=2)
    with pytest.raises(ValueError):
        Endpoint(pod=1, node="n1")
