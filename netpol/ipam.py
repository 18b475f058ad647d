"""Node pod ranges and pod IPs, the way kube-controller-manager and a host-local CNI hand them out.

Node ranges mirror kube-controller-manager's range allocator (pkg/controller/nodeipam/ipam/range_allocator.go,
cidrset): nodes with `spec.podCIDR` keep it and mark it used; every other node, in node-name order, gets the
next free block of the cluster CIDR of `--node-cidr-mask-size` bits (default /24 for IPv4, /64 for IPv6, as
`--node-cidr-mask-size-ipv4/-ipv6`). When the range runs out the remaining nodes get none: the controller
records a `CIDRNotAvailable` event on each of them, the node's CNI cannot give its pods an address, and
those pods never leave ContainerCreating (here: Pending, "no pod CIDR on node …", not part of any traffic).

Pod addresses: hosts of the node's range in pod order, from the second host on (host-local keeps the first
for the node's bridge), skipping addresses already taken by `status.podIP`. hostNetwork pods take the
node's InternalIP. Pods with no node (no Node objects in the input) take addresses from the cluster CIDR.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, replace

import netaddr

from netpol.errors import UsageError
from netpol.model.cluster import Cluster, Warning_

DEFAULT_CLUSTER_CIDR = "10.244.0.0/16"  # kubeadm/Flannel's podSubnet; the one default every command uses
DEFAULT_NODE_MASK = {4: 24, 6: 64}  # kube-controller-manager --node-cidr-mask-size-ipv4 / -ipv6
MAX_MASK_DIFFERENCE = 16  # cidrset: at most 2^16 node ranges per cluster CIDR ("the node CIDR size is too big")
NO_POD_CIDR = "no pod CIDR on node {node}"
CIDR_NOT_AVAILABLE = "CIDRNotAvailable"  # the Node event reason (nodeipam/ipam/range_allocator.go)


@dataclass(frozen=True, slots=True)
class PodNetwork:
    """kube-controller-manager's --cluster-cidr and --node-cidr-mask-size, validated."""

    cluster_cidr: netaddr.IPNetwork
    node_mask: int

    @classmethod
    def parse(cls, cluster_cidr: str = DEFAULT_CLUSTER_CIDR, node_mask: int | None = None) -> PodNetwork:
        """Bad values are usage errors naming the option (exit 2), never a traceback."""
        try:
            net = netaddr.IPNetwork(str(cluster_cidr).strip())
        except (netaddr.AddrFormatError, ValueError, TypeError):
            raise UsageError(
                f"--cluster-cidr: {cluster_cidr!r} is not a CIDR (expected e.g. {DEFAULT_CLUSTER_CIDR})"
            ) from None
        if "/" not in str(cluster_cidr):
            raise UsageError(f"--cluster-cidr: {cluster_cidr!r} is not a CIDR (expected e.g. {DEFAULT_CLUSTER_CIDR})")
        mask = DEFAULT_NODE_MASK[net.version] if node_mask is None else int(node_mask)
        width = 32 if net.version == 4 else 128
        if not net.prefixlen <= mask <= width:  # cidrset.NewCIDRSet: subnet mask ≥ cluster mask
            raise UsageError(
                f"--node-cidr-mask-size: /{mask} must lie between the cluster CIDR's /{net.prefixlen} and /{width}"
            )
        if mask - net.prefixlen > MAX_MASK_DIFFERENCE:
            raise UsageError(
                f"--node-cidr-mask-size: /{mask} cuts {net.cidr} into more than 2^{MAX_MASK_DIFFERENCE} node ranges "
                "(kube-controller-manager refuses it: the node CIDR size is too big)"
            )
        return cls(net.cidr, mask)

    @property
    def capacity(self) -> int:
        """How many node ranges the cluster CIDR holds."""
        return 1 << (self.node_mask - self.cluster_cidr.prefixlen)


def network_of(cluster_cidr: str | PodNetwork | None, node_mask: int | None = None) -> PodNetwork:
    if isinstance(cluster_cidr, PodNetwork):
        return cluster_cidr
    return PodNetwork.parse(cluster_cidr or DEFAULT_CLUSTER_CIDR, node_mask)


@dataclass(frozen=True, slots=True)
class NodeRanges:
    """Each node's pod range; nodes the allocator could not serve are absent, with the warning it raised."""

    cidrs: dict[str, netaddr.IPNetwork]
    unallocated: tuple[str, ...]
    warning: Warning_ | None


def _free_blocks(net: PodNetwork, taken: list[netaddr.IPNetwork]) -> Iterator[netaddr.IPNetwork]:
    """The cluster CIDR's node-sized blocks in address order, minus every block a given podCIDR overlaps
    (cidrset.Occupy marks all of them)."""
    base = net.cluster_cidr
    shift = (32 if base.version == 4 else 128) - net.node_mask
    used: set[int] = set()
    for t in taken:
        if t.version != base.version or t.last < base.first or t.first > base.last:
            continue
        lo = (max(t.first, base.first) - base.first) >> shift
        hi = (min(t.last, base.last) - base.first) >> shift
        used.update(range(lo, hi + 1))
    for k in range(net.capacity):
        if k not in used:
            yield netaddr.IPNetwork((base.first + (k << shift), net.node_mask), version=base.version)


def node_pod_cidrs(cluster: Cluster, network: str | PodNetwork | None = None) -> NodeRanges:
    """spec.podCIDR where given, else the next free node-sized block of the cluster CIDR (node-name order)."""
    net = network_of(network)
    free = _free_blocks(net, [netaddr.IPNetwork(n.pod_cidr) for n in cluster.nodes if n.pod_cidr])
    cidrs: dict[str, netaddr.IPNetwork] = {}
    unallocated: list[str] = []
    for node in sorted(cluster.nodes, key=lambda n: n.name):
        if node.pod_cidr:
            cidrs[node.name] = netaddr.IPNetwork(node.pod_cidr)
            continue
        block = next(free, None) if not unallocated else None
        if block is None:
            unallocated.append(node.name)
        else:
            cidrs[node.name] = block
    warning = None
    if unallocated:
        asking = sum(1 for n in cluster.nodes if not n.pod_cidr)
        warning = Warning_(
            "cidr-not-available",
            f"{CIDR_NOT_AVAILABLE}: node {unallocated[0]} and {len(unallocated) - 1} more get no pod CIDR: "
            f"--cluster-cidr {net.cluster_cidr} holds {net.capacity} /{net.node_mask} node ranges "
            f"({len(cluster.nodes) - asking} taken by spec.podCIDR), {asking} nodes need one; "
            f"there are no remaining CIDRs left to allocate in the accepted range, "
            f"so pods on these nodes cannot start (raise --node-cidr-mask-size or widen --cluster-cidr)",
        )
    return NodeRanges(cidrs, tuple(unallocated), warning)


def assign_ips(cluster: Cluster, cluster_cidr: str | PodNetwork | None = None) -> Cluster:
    """Fill `pod_ip` for every running pod that has none; Pending and terminated pods get none.

    A pod (not hostNetwork) on a node without a pod range stays Pending with the reason "no pod CIDR on node X".
    """
    net = network_of(cluster_cidr)
    ranges = node_pod_cidrs(cluster, net)
    cidrs = dict(ranges.cidrs)
    no_range = set(ranges.unallocated)
    used = {p.pod_ip for p in cluster.pods if p.pod_ip}
    cidrs[""] = net.cluster_cidr  # pods bound to no known node
    hosts: dict[str, Iterator[netaddr.IPAddress]] = {}
    nodes = {n.name: n for n in cluster.nodes}
    warnings = [ranges.warning] if ranges.warning is not None else []

    def next_ip(key: str) -> str | None:
        it = hosts.get(key)
        if it is None:
            # host-local IPAM keeps the range's first address for the node's bridge (cni0): pods start at .2
            it = hosts[key] = itertools.islice(cidrs[key].iter_hosts(), 1, None)
        for ip in it:
            s = str(ip)
            if s not in used:
                used.add(s)
                return s
        return None

    pods = []
    for p in cluster.pods:
        if p.pod_ip or p.terminated or p.phase == "Pending":
            pods.append(p)
            continue
        node = nodes.get(p.node_name)
        ip: str | None
        if p.host_network and node is not None:
            ip = node.internal_ip
            if ip is None:
                warnings.append(
                    Warning_("no-node-ip", f"hostNetwork pod {p.key}: node {node.name} has no InternalIP", p.source)
                )
        elif node is not None and node.name in no_range:
            pods.append(replace(p, phase="Pending", reason=NO_POD_CIDR.format(node=node.name)))
            continue
        else:
            ip = next_ip(node.name if node is not None else "")
        if ip is None and not p.host_network:
            warnings.append(Warning_("ip-exhausted", f"no free pod IP for {p.key}", p.source))
        pods.append(replace(p, pod_ip=ip or ""))
    return cluster.with_pods(tuple(pods), *warnings)
