"""Node pod ranges and pod IPs, the way kube-controller-manager and a host-local CNI hand them out.

Node ranges mirror kube-controller-manager's range allocator (pkg/controller/nodeipam/ipam/range_allocator.go,
cidrset): `--cluster-cidr` is one range or a dual-stack pair (one IPv4 and one IPv6 range, comma-separated;
cmd/kube-controller-manager/app/core.go validateCIDRs), with one cidrset per range. Nodes with
`spec.podCIDRs` keep them and mark them used; every other node, in node-name order, gets the next free block
of every cluster range (AllocateOrOccupyCIDR: one per cidrset, in --cluster-cidr order), of
`--node-cidr-mask-size` bits for a single-stack cluster or `--node-cidr-mask-size-ipv4/-ipv6` for a
dual-stack one (default /24 for IPv4, /64 for IPv6; core.go setNodeCIDRMaskSizes). When a range runs out the
remaining nodes get none: the controller records a `CIDRNotAvailable` event on each of them, the node's CNI
cannot give its pods an address, and those pods never leave ContainerCreating (here: Pending, "no pod CIDR
on node …", not part of any traffic). Upstream keeps the IPv4 block it took before the IPv6 set failed
(and retries); here a node that cannot get every family gets nothing and takes nothing.

Pod addresses: one per range of the node (a dual-stack node: an IPv4 and an IPv6 address, in the node's
podCIDRs order, the first being status.podIP), hosts of the range in pod order from the second host on
(host-local keeps the first for the node's bridge), skipping addresses already taken by `status.podIPs`.
hostNetwork pods take the node's InternalIPs (one per family). Pods with no node (no Node objects in the
input) take addresses from the cluster ranges.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

import netaddr

from netpol.errors import UsageError
from netpol.gcpause import gc_paused
from netpol.model.cluster import Cluster, Warning_
from netpol.model.evolve import evolve
from netpol.model.families import family_name
from netpol.model.objects import Pod

DEFAULT_CLUSTER_CIDR = "10.244.0.0/16"  # kubeadm/Flannel's podSubnet; the one default every command uses
DEFAULT_NODE_MASK = {4: 24, 6: 64}  # kube-controller-manager --node-cidr-mask-size-ipv4 / -ipv6
MAX_MASK_DIFFERENCE = 16  # cidrset: at most 2^16 node ranges per cluster CIDR ("the node CIDR size is too big")
NO_POD_CIDR = "no pod CIDR on node {node}"
CIDR_NOT_AVAILABLE = "CIDRNotAvailable"  # the Node event reason (nodeipam/ipam/range_allocator.go)
_EXAMPLE = f"expected e.g. {DEFAULT_CLUSTER_CIDR} or a dual-stack pair 10.244.0.0/16,fd00:10:244::/56"


@dataclass(frozen=True, slots=True)
class ClusterRange:
    """One cluster CIDR and the size of the node ranges cut from it (one cidrset of the range allocator)."""

    cidr: netaddr.IPNetwork
    node_mask: int

    @property
    def version(self) -> int:
        return int(self.cidr.version)

    @property
    def capacity(self) -> int:
        """How many node ranges the cluster CIDR holds."""
        return 1 << (self.node_mask - self.cidr.prefixlen)


@dataclass(frozen=True, slots=True)
class PodNetwork:
    """kube-controller-manager's --cluster-cidr (one range, or one per family) and node mask sizes, validated."""

    ranges: tuple[ClusterRange, ...]

    @classmethod
    def parse(
        cls,
        cluster_cidr: str = DEFAULT_CLUSTER_CIDR,
        node_mask: int | None = None,
        *,
        node_mask_ipv4: int | None = None,
        node_mask_ipv6: int | None = None,
    ) -> PodNetwork:
        """Bad values are usage errors naming the option (exit 2), never a traceback. The rules are
        kube-controller-manager's (cmd/kube-controller-manager/app/core.go validateCIDRs, setNodeCIDRMaskSizes)."""
        nets = []
        for part in str(cluster_cidr).strip().split(","):
            try:
                if "/" not in part:
                    raise ValueError
                nets.append(netaddr.IPNetwork(part.strip()).cidr)
            except (netaddr.AddrFormatError, ValueError, TypeError):
                raise UsageError(f"--cluster-cidr: {part.strip()!r} is not a CIDR ({_EXAMPLE})") from None
        if len(nets) > 2:
            raise UsageError(f"--cluster-cidr: {len(nets)} ranges given, at most 2 (one per IP family)")
        dual = len(nets) == 2
        if dual and nets[0].version == nets[1].version:
            raise UsageError(
                f"--cluster-cidr: {nets[0]} and {nets[1]} are both {family_name(nets[0].version)}; "
                "a dual-stack pair is one IPv4 and one IPv6 range"
            )
        given = {4: node_mask_ipv4, 6: node_mask_ipv6}
        if dual and node_mask is not None:
            raise UsageError(
                "--node-cidr-mask-size: not allowed with a dual-stack --cluster-cidr; "
                "use --node-cidr-mask-size-ipv4 and --node-cidr-mask-size-ipv6"
            )
        if not dual:
            if node_mask is not None and (node_mask_ipv4 is not None or node_mask_ipv6 is not None):
                opt = "--node-cidr-mask-size-ipv4" if node_mask_ipv4 is not None else "--node-cidr-mask-size-ipv6"
                raise UsageError(f"{opt}: not allowed together with --node-cidr-mask-size")
            other = 6 if nets[0].version == 4 else 4
            if given[other] is not None:
                raise UsageError(
                    f"--node-cidr-mask-size-ipv{other}: not allowed for a single-stack "
                    f"{family_name(nets[0].version)} --cluster-cidr"
                )
        ranges = []
        for net in nets:
            v = net.version
            opt = f"--node-cidr-mask-size-ipv{v}" if dual or given[v] is not None else "--node-cidr-mask-size"
            mask = node_mask if node_mask is not None else given[v]
            mask = DEFAULT_NODE_MASK[v] if mask is None else int(mask)
            width = 32 if v == 4 else 128
            if not net.prefixlen <= mask <= width:  # cidrset.NewCIDRSet: subnet mask ≥ cluster mask
                raise UsageError(f"{opt}: /{mask} must lie between the cluster CIDR's /{net.prefixlen} and /{width}")
            if mask - net.prefixlen > MAX_MASK_DIFFERENCE:
                raise UsageError(
                    f"{opt}: /{mask} cuts {net} into more than 2^{MAX_MASK_DIFFERENCE} node ranges "
                    "(kube-controller-manager refuses it: the node CIDR size is too big)"
                )
            ranges.append(ClusterRange(net, mask))
        return cls(tuple(ranges))

    @property
    def cluster_cidr(self) -> netaddr.IPNetwork:
        """The primary (first) cluster range."""
        return self.ranges[0].cidr

    @property
    def node_mask(self) -> int:
        return self.ranges[0].node_mask

    @property
    def capacity(self) -> int:
        return self.ranges[0].capacity

    @property
    def dual_stack(self) -> bool:
        return len(self.ranges) == 2

    @property
    def text(self) -> str:
        """The --cluster-cidr value, normalised (ranges comma-separated, primary first)."""
        return ",".join(str(r.cidr) for r in self.ranges)


def network_of(cluster_cidr: str | PodNetwork | None, node_mask: int | None = None) -> PodNetwork:
    if isinstance(cluster_cidr, PodNetwork):
        return cluster_cidr
    return PodNetwork.parse(cluster_cidr or DEFAULT_CLUSTER_CIDR, node_mask)


@dataclass(frozen=True, slots=True)
class NodeRanges:
    """Each node's pod ranges (one per family); nodes the allocator could not serve are absent, with the
    warning it raised."""

    cidrs: dict[str, tuple[netaddr.IPNetwork, ...]]
    unallocated: tuple[str, ...]
    warning: Warning_ | None


def _free_blocks(rng: ClusterRange, taken: list[netaddr.IPNetwork]) -> Iterator[netaddr.IPNetwork]:
    """The cluster CIDR's node-sized blocks in address order, minus every block a given podCIDR overlaps
    (cidrset.Occupy marks all of them)."""
    base = rng.cidr
    shift = (32 if base.version == 4 else 128) - rng.node_mask
    used: set[int] = set()
    for t in taken:
        if t.version != base.version or t.last < base.first or t.first > base.last:
            continue
        lo = (max(t.first, base.first) - base.first) >> shift
        hi = (min(t.last, base.last) - base.first) >> shift
        used.update(range(lo, hi + 1))
    for k in range(rng.capacity):
        if k not in used:
            yield netaddr.IPNetwork((base.first + (k << shift), rng.node_mask), version=base.version)


def node_pod_cidrs(cluster: Cluster, network: str | PodNetwork | None = None) -> NodeRanges:
    """spec.podCIDRs where given, else the next free node-sized block of every cluster range (node-name order)."""
    net = network_of(network)
    given = [netaddr.IPNetwork(c) for n in cluster.nodes for c in n.pod_cidrs]
    free = [_free_blocks(r, given) for r in net.ranges]
    cidrs: dict[str, tuple[netaddr.IPNetwork, ...]] = {}
    unallocated: list[str] = []
    exhausted: ClusterRange | None = None
    for node in sorted(cluster.nodes, key=lambda n: n.name):
        if node.pod_cidrs:
            cidrs[node.name] = tuple(netaddr.IPNetwork(c) for c in node.pod_cidrs)
            continue
        blocks = []
        if exhausted is None:
            for rng, it in zip(net.ranges, free, strict=True):
                block = next(it, None)
                if block is None:
                    exhausted = rng
                    break
                blocks.append(block)
        if exhausted is not None:
            unallocated.append(node.name)
        else:
            cidrs[node.name] = tuple(blocks)
    warning = None
    if unallocated and exhausted is not None:
        asking = sum(1 for n in cluster.nodes if not n.pod_cidrs)
        family = f" ({family_name(exhausted.version)})" if net.dual_stack else ""
        warning = Warning_(
            "cidr-not-available",
            f"{CIDR_NOT_AVAILABLE}: node {unallocated[0]} and {len(unallocated) - 1} more get no pod CIDR: "
            f"--cluster-cidr {exhausted.cidr}{family} holds {exhausted.capacity} /{exhausted.node_mask} node ranges "
            f"({len(cluster.nodes) - asking} taken by spec.podCIDR), {asking} nodes need one; "
            f"there are no remaining CIDRs left to allocate in the accepted range, "
            f"so pods on these nodes cannot start (raise --node-cidr-mask-size or widen --cluster-cidr)",
        )
    return NodeRanges(cidrs, tuple(unallocated), warning)


def _host_strings(block: netaddr.IPNetwork) -> Iterator[str]:
    """`str(ip) for ip in block.iter_hosts()`, with IPv4 addresses spelt from integers (netaddr's objects
    were most of the time of addressing 100,000 pods); IPv6 keeps netaddr's spelling."""
    if block.version != 4:
        yield from map(str, block.iter_hosts())
        return
    first, last = block.first, block.last
    if block.prefixlen < 31:  # iter_hosts: no network and broadcast address, except in /31 and /32 (RFC 3021)
        first, last = first + 1, last - 1
    for n in range(first, last + 1):
        yield f"{n >> 24}.{(n >> 16) & 255}.{(n >> 8) & 255}.{n & 255}"


@gc_paused()
def assign_ips(cluster: Cluster, cluster_cidr: str | PodNetwork | None = None) -> Cluster:
    """Fill `pod_ips` for every running pod that has none (one address per range of its node); Pending and
    terminated pods get none.

    A pod (not hostNetwork) on a node without a pod range stays Pending with the reason "no pod CIDR on node X".
    """
    net = network_of(cluster_cidr)
    ranges = node_pod_cidrs(cluster, net)
    cidrs = dict(ranges.cidrs)
    no_range = set(ranges.unallocated)
    used = {ip for p in cluster.pods for ip in p.pod_ips}
    cidrs[""] = tuple(r.cidr for r in net.ranges)  # pods bound to no known node
    hosts: dict[netaddr.IPNetwork, Iterator[str]] = {}
    nodes = {n.name: n for n in cluster.nodes}
    warnings = [ranges.warning] if ranges.warning is not None else []
    exhausted: dict[str, list[Pod]] = {}  # node ("" for none) → pods its range had no address for

    def next_ip(block: netaddr.IPNetwork) -> str | None:
        it = hosts.get(block)
        if it is None:
            # host-local IPAM keeps the range's first address for the node's bridge (cni0): pods start at .2
            it = hosts[block] = itertools.islice(_host_strings(block), 1, None)
        for s in it:
            if s not in used:
                used.add(s)
                return s
        return None

    pods = []
    for p in cluster.pods:
        if p.pod_ips or p.terminated or p.phase == "Pending":
            pods.append(p)
            continue
        node = nodes.get(p.node_name)
        ips: tuple[str, ...]
        if p.host_network and node is not None:
            ips = node.internal_ips
            if not ips:
                warnings.append(
                    Warning_("no-node-ip", f"hostNetwork pod {p.key}: node {node.name} has no InternalIP", p.source)
                )
        elif node is not None and node.name in no_range:
            pods.append(replace(p, phase="Pending", reason=NO_POD_CIDR.format(node=node.name)))
            continue
        else:
            got = [next_ip(block) for block in cidrs[node.name if node is not None else ""]]
            # host-local with several ranges fails the pod's network set-up when any range is full
            ips = tuple(ip for ip in got if ip is not None) if None not in got else ()
            if not ips:
                exhausted.setdefault(node.name if node is not None else "", []).append(p)
        pods.append(evolve(p, pod_ips=ips))
    warnings += [_exhausted_warning(where, cidrs[where], left) for where, left in exhausted.items()]
    return cluster.with_pods(tuple(pods), *warnings)


def _exhausted_warning(node: str, blocks: Sequence[netaddr.IPNetwork], pods: list[Pod]) -> Warning_:
    """One line per full range, with the count: 10^5 replicas on a /16 are 34,467 pods without an address,
    not 34,467 identical warnings."""
    where = f"node {node}'s pod range" if node else "the cluster's pod range (--cluster-cidr)"
    ranges = ", ".join(map(str, blocks))
    if len(pods) == 1:
        return Warning_("ip-exhausted", f"no free pod IP for {pods[0].key}: {where} {ranges} is full", pods[0].source)
    shown = ", ".join(p.key for p in pods[:3]) + (f" and {len(pods) - 3:,} more" if len(pods) > 3 else "")
    return Warning_(
        "ip-exhausted",
        f"no free pod IP for {len(pods):,} pods ({shown}): {where} {ranges} is full; they have no address",
        pods[0].source,
    )
