"""Dual-stack input and IPAM: every address of a pod, every pod range of a node, one address per family.

Upstream facts pinned here:
- PodStatus.podIPs (API reference): "If this field is specified, the 0th entry must match the podIP field.
  Pods may be allocated at most 1 value for each of IPv4 and IPv6"; NodeSpec.podCIDRs likewise for podCIDR
  ("may specify no more than one IP for each IP family", pkg/apis/core/validation).
- kube-controller-manager (cmd/kube-controller-manager/app/core.go validateCIDRs, setNodeCIDRMaskSizes):
  --cluster-cidr holds at most 2 CIDRs, and 2 only as one per family; --node-cidr-mask-size is refused with
  a dual-stack --cluster-cidr (use --node-cidr-mask-size-ipv4/-ipv6, default /24 and /64); the per-family flag
  of the family a single-stack cluster lacks is refused, and so is mixing it with --node-cidr-mask-size.
- The range allocator (pkg/controller/nodeipam/ipam/range_allocator.go AllocateOrOccupyCIDR): one cidrset per
  cluster CIDR; a node with spec.podCIDRs keeps them (occupyCIDRs), any other node gets the next block of every
  cidrset, and when one is exhausted the node gets a CIDRNotAvailable event.
- Dual-stack concept page (kubernetes.io/docs/concepts/services-networking/dual-stack): pods get one IPv4 and
  one IPv6 address; hostNetwork pods report the node's addresses (one per family).
"""

from __future__ import annotations

import json
from pathlib import Path

import netaddr
import pytest

from netpol.errors import UsageError
from netpol.ipam import PodNetwork, assign_ips, node_pod_cidrs
from netpol.manifests import load_text
from netpol.model.cluster import Cluster
from netpol.model.objects import Node, NodeAddress, Pod
from tests.helpers import run_cli
from tests.scheduling.manifests import node_doc, pod_doc, write

DUAL = "10.244.0.0/16,fd00:10:244::/56"


def _pod_yaml(status: str) -> str:
    return f"""
apiVersion: v1
kind: Pod
metadata: {{name: web, namespace: default}}
spec: {{containers: [{{name: c, image: nginx}}]}}
status: {status}
"""


def test_pod_carries_every_address_of_status_pod_ips_primary_first() -> None:
    cluster = load_text(_pod_yaml("{podIP: 10.1.0.5, podIPs: [{ip: 10.1.0.5}, {ip: 'fd00::5'}]}"))
    (pod,) = cluster.pods
    assert pod.pod_ips == ("10.1.0.5", "fd00::5")
    assert pod.pod_ip == "10.1.0.5" and pod.ip_of(6) == "fd00::5" and pod.ip_of(4) == "10.1.0.5"


def test_pod_ips_alone_give_the_primary_and_pod_ip_alone_still_reads() -> None:
    assert load_text(_pod_yaml("{podIPs: [{ip: 'fd00::5'}, {ip: 10.1.0.5}]}")).pods[0].pod_ip == "fd00::5"
    assert load_text(_pod_yaml("{podIP: 10.1.0.5}")).pods[0].pod_ips == ("10.1.0.5",)


@pytest.mark.parametrize(
    ("status", "field", "words"),
    [
        ("{podIP: 10.1.0.5, podIPs: [{ip: 10.1.0.6}]}", "status.podIPs[0].ip", "must match status.podIP"),
        ("{podIPs: [{ip: 10.1.0.5}, {ip: 10.1.0.6}]}", "status.podIPs", "no more than one IP for each IP family"),
        (
            "{podIPs: [{ip: 10.1.0.5}, {ip: 'fd00::5'}, {ip: 'fd00::6'}]}",
            "status.podIPs",
            "no more than one IP for each IP family",
        ),
        ("{podIPs: [{ip: nonsense}]}", "status.podIPs[0].ip", "valid IP address"),
        ("{podIPs: [{}]}", "status.podIPs[0].ip", "Required value"),
    ],
)
def test_bad_pod_ips_exit_2_naming_the_field(tmp_path: Path, status: str, field: str, words: str) -> None:
    path = tmp_path / "pod.yaml"
    path.write_text(_pod_yaml(status))
    r = run_cli("matrix", str(path))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert field in r.stderr and words in r.stderr and "pod.yaml" in r.stderr


def _node_yaml(spec: str) -> str:
    return f"apiVersion: v1\nkind: Node\nmetadata: {{name: n1}}\nspec: {spec}\n"


def test_node_carries_both_pod_cidrs_and_checks_them_like_the_api_server(tmp_path: Path) -> None:
    node = load_text(_node_yaml("{podCIDR: 10.244.1.0/24, podCIDRs: [10.244.1.0/24, 'fd00:10:244:1::/64']}")).nodes[0]
    assert node.pod_cidrs == ("10.244.1.0/24", "fd00:10:244:1::/64") and node.pod_cidr == "10.244.1.0/24"
    for spec, field in [
        ("{podCIDR: 10.244.1.0/24, podCIDRs: [10.244.2.0/24]}", "spec.podCIDRs[0]"),
        ("{podCIDRs: [10.244.1.0/24, 10.244.2.0/24]}", "spec.podCIDRs"),
    ]:
        path = tmp_path / "node.yaml"
        path.write_text(_node_yaml(spec))
        r = run_cli("schedule", str(path))
        assert r.returncode == 2 and field in r.stderr and "Traceback" not in r.stderr


def test_dual_stack_cluster_cidr_gives_each_node_one_range_per_family() -> None:
    net = PodNetwork.parse(DUAL)
    assert net.dual_stack and [r.node_mask for r in net.ranges] == [24, 64]
    cluster = Cluster(nodes=(Node("a"), Node("b")))
    got = {k: [str(c) for c in v] for k, v in node_pod_cidrs(cluster, net).cidrs.items()}
    assert got == {"a": ["10.244.0.0/24", "fd00:10:244::/64"], "b": ["10.244.1.0/24", "fd00:10:244:1::/64"]}


def test_ipam_assigns_one_address_per_family_primary_in_cluster_cidr_order() -> None:
    cluster = Cluster(
        nodes=(Node("a"), Node("b")),
        pods=(Pod("default", "p", node_name="b", phase="Running"), Pod("default", "q", node_name="b", phase="Running")),
    )
    pods = assign_ips(cluster, PodNetwork.parse(DUAL)).pods
    assert [p.pod_ips for p in pods] == [("10.244.1.2", "fd00:10:244:1::2"), ("10.244.1.3", "fd00:10:244:1::3")]
    v6_first = assign_ips(cluster, PodNetwork.parse("fd00:10:244::/56,10.244.0.0/16")).pods
    assert v6_first[0].pod_ips == ("fd00:10:244:1::2", "10.244.1.2")  # the first family is the primary


def test_given_pod_cidrs_are_kept_a_single_family_node_stays_single_stack() -> None:
    """occupyCIDRs: a node that has spec.podCIDRs keeps exactly them, even one family in a dual-stack cluster."""
    cluster = Cluster(
        nodes=(Node("a", pod_cidrs=("10.244.0.0/24",)), Node("b")),
        pods=(Pod("default", "p", node_name="a", phase="Running"),),
    )
    net = PodNetwork.parse(DUAL)
    got = {k: [str(c) for c in v] for k, v in node_pod_cidrs(cluster, net).cidrs.items()}
    assert got == {"a": ["10.244.0.0/24"], "b": ["10.244.1.0/24", "fd00:10:244::/64"]}
    assert assign_ips(cluster, net).pods[0].pod_ips == ("10.244.0.2",)


def test_one_family_running_out_leaves_the_node_without_ranges_with_cidr_not_available() -> None:
    cluster = Cluster(
        nodes=(Node("a"), Node("b"), Node("c")),
        pods=(Pod("default", "p", node_name="c", phase="Running"),),
    )
    net = PodNetwork.parse("10.244.0.0/16,fd00:10:244::/63")  # two IPv6 /64s for three nodes
    ranges = node_pod_cidrs(cluster, net)
    assert ranges.unallocated == ("c",) and ranges.warning is not None
    assert "CIDRNotAvailable: node c and 0 more" in ranges.warning.message
    assert "fd00:10:244::/63 (IPv6) holds 2 /64 node ranges" in ranges.warning.message
    placed = assign_ips(cluster, net).pods[0]
    assert placed.phase == "Pending" and placed.reason == "no pod CIDR on node c" and placed.pod_ips == ()


def test_host_network_pods_carry_every_internal_ip_of_their_node() -> None:
    node = Node(
        "a",
        addresses=(
            NodeAddress("Hostname", "a"),
            NodeAddress("InternalIP", "192.168.1.10"),
            NodeAddress("InternalIP", "192.168.1.11"),  # a second IPv4: only the first per family
            NodeAddress("InternalIP", "2001:db8::10"),
        ),
    )
    cluster = Cluster(nodes=(node,), pods=(Pod("kube-system", "agent", node_name="a", host_network=True),))
    assert assign_ips(cluster, PodNetwork.parse(DUAL)).pods[0].pod_ips == ("192.168.1.10", "2001:db8::10")


@pytest.mark.parametrize(
    ("cidr", "mask", "v4", "v6", "option"),
    [
        ("10.0.0.0/16,fd00::/56,10.1.0.0/16", None, None, None, "--cluster-cidr"),  # more than 2
        ("10.0.0.0/16,10.1.0.0/16", None, None, None, "--cluster-cidr"),  # not one per family
        ("10.0.0.0/16,nonsense", None, None, None, "--cluster-cidr"),
        (DUAL, 24, None, None, "--node-cidr-mask-size"),  # refused with dual-stack
        ("10.0.0.0/16", None, None, 64, "--node-cidr-mask-size-ipv6"),  # single-stack IPv4
        ("fd00::/56", None, 24, None, "--node-cidr-mask-size-ipv4"),  # single-stack IPv6
        ("10.0.0.0/16", 24, 26, None, "--node-cidr-mask-size-ipv4"),  # not with --node-cidr-mask-size
        ("10.0.0.0/16,fd00::/40", None, None, None, "--node-cidr-mask-size-ipv6"),  # default /64: 2^24 ranges
        (DUAL, None, 8, None, "--node-cidr-mask-size-ipv4"),  # shorter than the cluster's /16
    ],
)
def test_bad_dual_stack_network_options_name_the_option(
    cidr: str, mask: int | None, v4: int | None, v6: int | None, option: str
) -> None:
    with pytest.raises(UsageError, match=f"^{option}:"):
        PodNetwork.parse(cidr, mask, node_mask_ipv4=v4, node_mask_ipv6=v6)


def test_per_family_masks_cut_the_node_ranges() -> None:
    net = PodNetwork.parse(DUAL, node_mask_ipv4=26, node_mask_ipv6=72)
    ranges = node_pod_cidrs(Cluster(nodes=(Node("a"), Node("b"))), net).cidrs
    assert [str(c) for c in ranges["b"]] == ["10.244.0.64/26", "fd00:10:244:0:100::/72"]


def test_schedule_with_a_dual_stack_cluster_cidr_runs_through_the_cli(tmp_path: Path) -> None:
    path = write(tmp_path / "c.yaml", node_doc("a", "10.1.0.1"), node_doc("b", "10.1.0.2"), pod_doc("p", node="b"))
    r = run_cli("schedule", path, "--cluster-cidr", DUAL, "--node-cidr-mask-size-ipv6", "72", "-o", "json")
    assert r.returncode == 0, r.stderr
    (pod,) = json.loads(r.stdout)["pods"]
    assert netaddr.IPAddress(pod["ip"]) in netaddr.IPNetwork("10.244.1.0/24")  # the primary address
    bad = run_cli("schedule", path, "--cluster-cidr", DUAL, "--node-cidr-mask-size", "24")
    assert bad.returncode == 2 and "--node-cidr-mask-size: not allowed with a dual-stack" in bad.stderr
    assert "Traceback" not in bad.stderr
