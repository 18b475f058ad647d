"""Objects that select or rank pods without running them: Services, PodDisruptionBudgets, PriorityClasses."""

from __future__ import annotations

from dataclasses import dataclass

from netpol.errors import SourceRef
from netpol.model.labels import EMPTY_LABELS, Labels, LabelSelector


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
    type: str = "ClusterIP"
    cluster_ip: str = ""
    source: SourceRef = SourceRef()
    labels: Labels = EMPTY_LABELS  # the Service's own labels (Cilium's toServices k8sServiceSelector reads them)

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
