"""Pod IPs, the way a CNI with per-node host subnets (Flannel, Calico host-local) hands them out.

Deterministic: nodes without `spec.podCIDR` get the next free /24 of the cluster CIDR in node-name order;
pods get hosts of their node's range in pod order, skipping addresses already taken by `status.podIP`.
hostNetwork pods take the node's InternalIP. Pods with no node (no Node objects in the input) take
addresses from the cluster CIDR.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import replace

import netaddr

from netpol.model.cluster import Cluster, Warning_

DEFAULT_CLUSTER_CIDR = "10.244.0.0/16"
NODE_PREFIX = 24


def node_pod_cidrs(cluster: Cluster, cluster_cidr: str = DEFAULT_CLUSTER_CIDR) -> dict[str, netaddr.IPNetwork]:
    """Each node's pod range: spec.podCIDR, else the next /24 of the cluster CIDR not used by another node."""
    taken = netaddr.IPSet(n.pod_cidr for n in cluster.nodes if n.pod_cidr)
    free = (s for s in netaddr.IPNetwork(cluster_cidr).subnet(NODE_PREFIX) if s not in taken)
    out: dict[str, netaddr.IPNetwork] = {}
    for node in sorted(cluster.nodes, key=lambda n: n.name):
        if node.pod_cidr:
            out[node.name] = netaddr.IPNetwork(node.pod_cidr)
        else:
            out[node.name] = next(free)
    return out


def assign_ips(cluster: Cluster, cluster_cidr: str = DEFAULT_CLUSTER_CIDR) -> Cluster:
    """Fill `pod_ip` for every running pod that has none; Pending and terminated pods get none."""
    cidrs = node_pod_cidrs(cluster, cluster_cidr)
    used = {p.pod_ip for p in cluster.pods if p.pod_ip}
    cidrs[""] = netaddr.IPNetwork(cluster_cidr)  # pods bound to no known node
    hosts: dict[str, Iterator[netaddr.IPAddress]] = {}
    nodes = {n.name: n for n in cluster.nodes}
    warnings = []

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
        else:
            ip = next_ip(node.name if node is not None else "")
        if ip is None and not p.host_network:
            warnings.append(Warning_("ip-exhausted", f"no free pod IP for {p.key}", p.source))
        pods.append(replace(p, pod_ip=ip or ""))
    return cluster.with_pods(tuple(pods), *warnings)
