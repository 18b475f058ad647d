"""analyze(cluster, placer) → Analysis: the one object that exports, questions and the UI receive.

Data flows one way: Cluster → workloads expanded → placement (the scheduler, passed in as `placer` so
this package never imports it) → pod IPs → reachability. Without Node objects nothing is scheduled:
pods run where the input says (or nowhere in particular) and take IPs from the cluster CIDR.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Protocol

from netpol.ambiguity import ambiguous_ties, tie_message
from netpol.engine import EngineOptions, Reachability, build_reachability, unresolved_named_ports
from netpol.ipam import DEFAULT_CLUSTER_CIDR, PodNetwork, assign_ips, network_of
from netpol.model.cluster import Cluster, Warning_
from netpol.model.objects import Pod
from netpol.workloads import expand_daemonsets_without_nodes, expand_workloads


class PlacementResult(Protocol):
    @property
    def cluster(self) -> Cluster: ...  # read-only, so a frozen ScheduleResult satisfies it


Placer = Callable[[Cluster], PlacementResult]


@dataclass(frozen=True)
class Analysis:
    cluster: Cluster  # expanded, placed, with IPs
    reachability: Reachability
    placement: PlacementResult | None = None
    options: EngineOptions = field(default_factory=EngineOptions)
    cluster_cidr: str = DEFAULT_CLUSTER_CIDR  # the pod range(s) nodes without spec.podCIDR were cut from

    @property
    def pods(self) -> tuple[Pod, ...]:
        """Pods that take part in traffic, sorted by namespace/name (matrix order)."""
        return self.reachability.pods

    @property
    def pending(self) -> tuple[Pod, ...]:
        return tuple(sorted((p for p in self.cluster.pods if p.phase == "Pending"), key=lambda p: p.key))

    @property
    def warnings(self) -> tuple[Warning_, ...]:
        return self.cluster.warnings


def prepare(
    cluster: Cluster,
    placer: Placer | None = None,
    cluster_cidr: str | PodNetwork = DEFAULT_CLUSTER_CIDR,
    *,
    schedule_without_nodes: bool = False,
) -> tuple[Cluster, PlacementResult | None]:
    """`schedule_without_nodes`: run the placer even with no Node objects (`netpol schedule`: pods Pending)."""
    cluster = expand_workloads(cluster)
    placement = None
    if placer is not None and (cluster.nodes or schedule_without_nodes):
        placement = placer(cluster)
        cluster = placement.cluster
    else:  # no nodes (or no scheduler): pods run where the input binds them, or nowhere in particular
        cluster = expand_daemonsets_without_nodes(cluster)
    return assign_ips(cluster, cluster_cidr), placement


def analyze(
    cluster: Cluster,
    placer: Placer | None = None,
    options: EngineOptions | None = None,
    cluster_cidr: str | PodNetwork = DEFAULT_CLUSTER_CIDR,
) -> Analysis:
    options = options or EngineOptions()
    placed, placement = prepare(cluster, placer, cluster_cidr)
    reach = build_reachability(placed, options)
    lint = [
        Warning_(
            "unresolved-named-port",
            f"{cp.rule_label(rule)}: named port {name!r} ({proto or 'any protocol'}) resolves on no "
            f"{'selected' if rule.direction == 'ingress' else 'peer'} pod; it matches nothing",
            cp.ref,
        )
        for cp, rule, name, proto in unresolved_named_ports(reach)
    ]
    lint += [
        Warning_("cnp-same-priority", tie_message(a, b), b.ref)
        for a, b in ambiguous_ties(reach)
        if "ClusterNetworkPolicy" in (a.kind, b.kind)  # v1alpha1 ties are warned about when read
    ]
    if lint:
        placed = replace(placed, warnings=placed.warnings + tuple(lint))
    return Analysis(placed, reach, placement, options, network_of(cluster_cidr).text)
