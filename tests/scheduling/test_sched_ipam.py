"""Node pod ranges like kube-controller-manager's range allocator (pkg/controller/nodeipam/ipam/range_allocator.go,
cidrset): node-sized blocks of --cluster-cidr in node order; when they run out, CIDRNotAvailable and pods that
cannot start. Run through the real `netpol` command as a user would."""

from __future__ import annotations

import json
from pathlib import Path

import netaddr
import pytest

from netpol.errors import UsageError
from netpol.ipam import DEFAULT_CLUSTER_CIDR, PodNetwork, assign_ips, node_pod_cidrs
from netpol.model.cluster import Cluster
from netpol.model.objects import Node, Pod
from tests.helpers import run_cli
from tests.scheduling.manifests import deployment_doc, node_doc, pod_doc, write


def test_five_thousand_nodes_without_pod_cidr_schedule_with_a_cidr_not_available_warning(tmp_path: Path) -> None:
    """A /16 holds 256 /24s: node 257 on (name order) gets no range; never a StopIteration traceback."""
    nodes = [node_doc(f"node-{i:04d}", f"10.1.{i // 250}.{i % 250 + 1}") for i in range(5000)]
    path = write(tmp_path / "big.yaml", *nodes, deployment_doc("web", 300, cpu="3"))
    r = run_cli("schedule", path, "-o", "json")
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    warning = [line for line in r.stderr.splitlines() if "CIDRNotAvailable" in line]
    assert len(warning) == 1
    assert "node node-0256 and 4743 more get no pod CIDR" in warning[0]
    assert "holds 256 /24 node ranges" in warning[0] and "5000 nodes need one" in warning[0]
    pods = json.loads(r.stdout)["pods"]
    assert len(pods) == 300  # 3 CPU each on 4-CPU nodes: one pod per node
    for p in pods:
        if p["node"] < "node-0256":
            assert p["phase"] == "Running" and netaddr.IPAddress(p["ip"]) in netaddr.IPNetwork(DEFAULT_CLUSTER_CIDR)
        else:
            assert p["phase"] == "Pending" and p["ip"] is None
            assert p["reason"] == f"no pod CIDR on node {p['node']}"
    assert any(p["phase"] == "Pending" for p in pods) and any(p["phase"] == "Running" for p in pods)


def test_pods_on_a_node_without_a_range_are_left_out_of_reachability_with_the_reason(tmp_path: Path) -> None:
    path = write(
        tmp_path / "c.yaml",
        node_doc("a", "10.1.0.1"),
        node_doc("b", "10.1.0.2"),
        node_doc("c", "10.1.0.3"),
        pod_doc("pa", node="a"),
        pod_doc("pc", node="c"),
        pod_doc("agent", node="c", host_network=True),
    )
    r = run_cli("matrix", path, "--cluster-cidr", "10.0.0.0/23", "-o", "json")  # two /24s for three nodes
    assert r.returncode == 0, r.stderr
    assert "CIDRNotAvailable: node c and 0 more get no pod CIDR" in r.stderr
    doc = json.loads(r.stdout)
    assert [p["name"] for p in doc["pending"]] == ["default/pc"]
    assert doc["pending"][0]["reason"] == "no pod CIDR on node c"
    wide = run_cli("schedule", path, "--cluster-cidr", "10.0.0.0/23")
    row = next(line.split() for line in wide.stdout.splitlines() if " pc " in f" {line} ")
    assert row[2] == "ContainerCreating" and row[4] == "c"  # bound, but its network never comes up
    agent = next(line.split() for line in wide.stdout.splitlines() if " agent " in f" {line} ")
    assert agent[2] == "Running" and agent[3] == "10.1.0.3"  # hostNetwork pods need no pod range


def test_node_cidr_mask_size_cuts_smaller_ranges(tmp_path: Path) -> None:
    path = write(tmp_path / "c.yaml", node_doc("a", "10.1.0.1"), node_doc("b", "10.1.0.2"), pod_doc("p", node="b"))
    r = run_cli("schedule", path, "--cluster-cidr", "10.8.0.0/16", "--node-cidr-mask-size", "26", "-o", "json")
    assert r.returncode == 0, r.stderr
    ip = json.loads(r.stdout)["pods"][0]["ip"]
    assert netaddr.IPAddress(ip) in netaddr.IPNetwork("10.8.0.64/26")  # b: the second /26 (name order)


def test_ipv6_cluster_cidr_defaults_to_64_bit_node_ranges() -> None:
    net = PodNetwork.parse("fd00:10:244::/56")
    assert net.node_mask == 64 and net.capacity == 256
    cluster = Cluster(nodes=(Node("a"), Node("b")), pods=(Pod("default", "p", node_name="b", phase="Running"),))
    ranges = node_pod_cidrs(cluster, net)
    assert [str(c) for c in ranges.cidrs["b"]] == ["fd00:10:244:1::/64"]
    assert assign_ips(cluster, net).pods[0].pod_ip == "fd00:10:244:1::2"  # host-local starts at the 2nd host


def test_given_pod_cidrs_are_kept_and_their_blocks_skipped() -> None:
    cluster = Cluster(nodes=(Node("a"), Node("b", pod_cidrs=("10.244.0.0/23",)), Node("c")))
    ranges = node_pod_cidrs(cluster, PodNetwork.parse(DEFAULT_CLUSTER_CIDR))
    assert {k: ",".join(map(str, v)) for k, v in ranges.cidrs.items()} == {
        "a": "10.244.2.0/24",
        "b": "10.244.0.0/23",
        "c": "10.244.3.0/24",
    }
    assert ranges.unallocated == () and ranges.warning is None


@pytest.mark.parametrize(
    ("cidr", "mask", "option"),
    [
        ("nonsense", None, "--cluster-cidr"),
        ("10.0.0.0", None, "--cluster-cidr"),
        ("10.0.0.0/16", 8, "--node-cidr-mask-size"),  # cidrset: subnet mask smaller than the cluster's
        ("10.0.0.0/8", 30, "--node-cidr-mask-size"),  # cidrset: more than 2^16 node ranges
    ],
)
def test_bad_network_options_are_usage_errors_naming_the_option(cidr: str, mask: int | None, option: str) -> None:
    with pytest.raises(UsageError, match=option):
        PodNetwork.parse(cidr, mask)


def test_bad_cluster_cidr_exits_2_without_traceback(tmp_path: Path) -> None:
    path = write(tmp_path / "c.yaml", node_doc("a"), pod_doc("p"))
    for argv in (["--cluster-cidr", "nonsense"], ["--node-cidr-mask-size", "40"]):
        r = run_cli("schedule", path, *argv)
        assert r.returncode == 2 and "Traceback" not in r.stderr and argv[0] in r.stderr


def test_every_command_honours_the_cluster_cidr_option(tmp_path: Path) -> None:
    """One default (netpol.ipam.DEFAULT_CLUSTER_CIDR), and --cluster-cidr reaches every consumer: here the audit's
    DNS check, which judges an ipBlock egress rule against the pod range (it used its own literal before)."""
    path = write(
        tmp_path / "a.yaml",
        pod_doc("web", ns="default"),
        {
            "apiVersion": "networking.k8s.io/v1",
            "kind": "NetworkPolicy",
            "metadata": {"name": "egress", "namespace": "default"},
            "spec": {
                "podSelector": {},
                "policyTypes": ["Egress"],
                "egress": [
                    {
                        "to": [{"ipBlock": {"cidr": "10.9.0.0/16"}}],
                        "ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}],
                    }
                ],
            },
        },
    )
    assert "NP030" in run_cli("audit", path).stdout  # the default range is not inside 10.9.0.0/16
    assert "NP030" not in run_cli("audit", path, "--cluster-cidr", "10.9.0.0/16").stdout
