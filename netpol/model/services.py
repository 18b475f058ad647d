"""Objects that select or rank pods without running them: Services, PodDisruptionBudgets, PriorityClasses."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from netpol.errors import SourceRef
from netpol.model.labels import EMPTY_LABELS, FrozenMap, Labels, LabelSelector

ServiceType = Literal["ClusterIP", "NodePort", "LoadBalancer", "ExternalName"]
ExternalTrafficPolicy = Literal["Cluster", "Local"]
"""core/v1 ServiceExternalTrafficPolicy: `Local` keeps the client's address and sends only to endpoints on the
node the traffic arrived at; `Cluster` (the default) may forward to any node, masquerading the source."""


@dataclass(frozen=True, slots=True)
class ServicePort:
    port: int
    target_port: int | str
    protocol: str = "TCP"
    name: str = ""
    node_port: int | None = None


@dataclass(frozen=True, slots=True)
class Service:
    namespace: str
    name: str
    selector: Labels | None = None  # None: no selector (endpoints managed by hand)
    ports: tuple[ServicePort, ...] = ()
    type: ServiceType = "ClusterIP"
    cluster_ip: str = ""
    source: SourceRef = SourceRef()
    labels: Labels = EMPTY_LABELS  # the Service's own labels (Cilium's toServices k8sServiceSelector reads them)
    # What makes a Service a door from outside the cluster (concepts/services-networking/service): its type,
    # externalIPs, the client ranges a cloud load balancer admits, and whether the client address is kept.
    external_traffic_policy: ExternalTrafficPolicy = "Cluster"
    load_balancer_source_ranges: tuple[str, ...] = ()  # empty: every client
    external_ips: tuple[str, ...] = ()
    allocate_load_balancer_node_ports: bool = True  # a LoadBalancer also opens its nodePorts unless false
    annotations: FrozenMap[str] = EMPTY_LABELS  # read for the audit's per-object acceptance

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass(frozen=True, slots=True)
class PodDisruptionBudget:
    namespace: str
    name: str
    selector: LabelSelector | None
    min_available: int | str | None = None
    max_unavailable: int | str | None = None
    source: SourceRef = SourceRef()


@dataclass(frozen=True, slots=True)
class PriorityClass:
    """scheduling.k8s.io/v1 PriorityClass: the priority pods naming it get, and whether it is the default."""

    name: str
    value: int
    global_default: bool = False
    preemption_policy: str = "PreemptLowerPriority"
    source: SourceRef = SourceRef()
