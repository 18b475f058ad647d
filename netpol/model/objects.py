"""Namespaces, nodes, pods and workloads as frozen values, with the API server's defaults already applied by the loader.

The other objects have their own modules (policies, admin, services); their names are re-exported here so
`from netpol.model.objects import NetworkPolicy` keeps working.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from netpol.errors import SourceRef
from netpol.model.admin import (
    AdminNamespaces,
    AdminNetworkPolicy,
    AdminNetworks,
    AdminNodes,
    AdminPeer,
    AdminPods,
    AdminRule,
)
from netpol.model.labels import EMPTY_LABELS, FrozenMap, Labels, LabelSelector, NodeSelectorTerm
from netpol.model.policies import IPBlock, NetworkPolicy, NetworkPolicyPeer, NetworkPolicyPort, NetworkPolicyRule
from netpol.model.services import PodDisruptionBudget, PriorityClass, Service, ServicePort
from netpol.model.vocab import PROTOCOLS

ResourceList = Mapping[str, int]
"""Resource name → integer units (cpu in millicores, the rest in base units)."""

EMPTY_RESOURCES: ResourceList = FrozenMap()

NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"

# Everything public, the re-exported policy, admin and service names included (their callers import them here).
__all__ = [
    "AdminNamespaces",
    "AdminNetworkPolicy",
    "AdminNetworks",
    "AdminNodes",
    "AdminPeer",
    "AdminPods",
    "AdminRule",
    "Affinity",
    "Container",
    "ContainerPort",
    "EMPTY_RESOURCES",
    "IPBlock",
    "NAMESPACE_NAME_LABEL",
    "Namespace",
    "NetworkPolicy",
    "NetworkPolicyPeer",
    "NetworkPolicyPort",
    "NetworkPolicyRule",
    "Node",
    "NodeAddress",
    "NodeAffinity",
    "OwnerRef",
    "PROTOCOLS",
    "Pod",
    "PodAffinity",
    "PodAffinityTerm",
    "PodAntiAffinity",
    "PodDisruptionBudget",
    "PreferredSchedulingTerm",
    "PriorityClass",
    "ResourceList",
    "Service",
    "ServicePort",
    "Taint",
    "Toleration",
    "TopologySpreadConstraint",
    "WeightedPodAffinityTerm",
    "Workload",
]


@dataclass(frozen=True, slots=True)
class Namespace:
    name: str
    labels: Labels = EMPTY_LABELS
    implicit: bool = False
    source: SourceRef = SourceRef()
    annotations: FrozenMap[str] = EMPTY_LABELS  # read for the audit's per-object acceptance


@dataclass(frozen=True, slots=True)
class Taint:
    key: str
    value: str = ""
    effect: str = "NoSchedule"  # NoSchedule | PreferNoSchedule | NoExecute

    def render(self) -> str:
        return f"{self.key}={self.value}:{self.effect}" if self.value else f"{self.key}:{self.effect}"


@dataclass(frozen=True, slots=True)
class Toleration:
    key: str = ""
    operator: str = "Equal"  # Equal | Exists
    value: str = ""
    effect: str = ""  # empty matches every effect
    toleration_seconds: int | None = None

    def tolerates(self, taint: Taint) -> bool:
        """v1 Toleration.ToleratesTaint (k8s.io/api/core/v1/toleration.go)."""
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        match self.operator:
            case "Exists":
                return True
            case "Equal" | "":
                return self.value == taint.value
            case _:
                return False


@dataclass(frozen=True, slots=True)
class NodeAddress:
    type: str
    address: str


@dataclass(frozen=True, slots=True)
class Node:
    name: str
    labels: Labels = EMPTY_LABELS
    taints: tuple[Taint, ...] = ()
    unschedulable: bool = False
    pod_cidrs: tuple[str, ...] = ()  # spec.podCIDRs: at most one range per address family, podCIDR first
    addresses: tuple[NodeAddress, ...] = ()
    capacity: ResourceList = EMPTY_RESOURCES
    allocatable: ResourceList = EMPTY_RESOURCES
    images: tuple[tuple[tuple[str, ...], int], ...] = ()  # (names, sizeBytes)
    ready: bool = True
    source: SourceRef = SourceRef()

    @property
    def pod_cidr(self) -> str | None:
        """spec.podCIDR: the first of spec.podCIDRs (the API server keeps them equal)."""
        return self.pod_cidrs[0] if self.pod_cidrs else None

    @property
    def internal_ip(self) -> str | None:
        for a in self.addresses:
            if a.type == "InternalIP":
                return a.address
        return None

    @property
    def internal_ips(self) -> tuple[str, ...]:
        """The first InternalIP of each address family, the first family first: what a hostNetwork pod on
        this node carries as status.podIPs (the kubelet reports the node's IPs, one per family)."""
        out: dict[bool, str] = {}
        for a in self.addresses:
            if a.type == "InternalIP":
                out.setdefault(":" in a.address, a.address)
        return tuple(out.values())


@dataclass(frozen=True, slots=True)
class ContainerPort:
    container_port: int
    protocol: str = "TCP"
    name: str = ""
    host_port: int = 0
    host_ip: str = ""


@dataclass(frozen=True, slots=True)
class Container:
    name: str
    image: str = ""
    ports: tuple[ContainerPort, ...] = ()
    requests: ResourceList = EMPTY_RESOURCES
    limits: ResourceList = EMPTY_RESOURCES


@dataclass(frozen=True, slots=True)
class PreferredSchedulingTerm:
    weight: int
    preference: NodeSelectorTerm


@dataclass(frozen=True, slots=True)
class NodeAffinity:
    required: tuple[NodeSelectorTerm, ...] | None = None  # None: no requiredDuringScheduling
    preferred: tuple[PreferredSchedulingTerm, ...] = ()


@dataclass(frozen=True, slots=True)
class PodAffinityTerm:
    topology_key: str
    label_selector: LabelSelector | None = None  # None matches no pod
    namespaces: tuple[str, ...] = ()
    namespace_selector: LabelSelector | None = None
    match_label_keys: tuple[str, ...] = ()
    mismatch_label_keys: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class WeightedPodAffinityTerm:
    weight: int
    term: PodAffinityTerm


@dataclass(frozen=True, slots=True)
class PodAffinity:
    required: tuple[PodAffinityTerm, ...] = ()
    preferred: tuple[WeightedPodAffinityTerm, ...] = ()


@dataclass(frozen=True, slots=True)
class PodAntiAffinity:
    required: tuple[PodAffinityTerm, ...] = ()
    preferred: tuple[WeightedPodAffinityTerm, ...] = ()


@dataclass(frozen=True, slots=True)
class Affinity:
    node_affinity: NodeAffinity | None = None
    pod_affinity: PodAffinity | None = None
    pod_anti_affinity: PodAntiAffinity | None = None


@dataclass(frozen=True, slots=True)
class TopologySpreadConstraint:
    max_skew: int
    topology_key: str
    when_unsatisfiable: str  # DoNotSchedule | ScheduleAnyway
    label_selector: LabelSelector | None = None
    min_domains: int | None = None
    node_affinity_policy: str = "Honor"
    node_taints_policy: str = "Ignore"
    match_label_keys: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class OwnerRef:
    kind: str
    name: str

    def render(self) -> str:
        return f"{self.kind}/{self.name}"


@dataclass(frozen=True, slots=True)
class Pod:
    """A pod as read, or as expanded from a workload template.

    `phase` is the status the input gave ("" when none); the scheduler returns copies with `node_name`,
    `phase` ("Running" / "Pending") and `reason` filled in, and IPAM fills `pod_ips`.
    """

    namespace: str
    name: str
    labels: Labels = EMPTY_LABELS
    containers: tuple[Container, ...] = ()
    init_containers: tuple[Container, ...] = ()
    node_name: str = ""
    node_selector: Labels = EMPTY_LABELS
    affinity: Affinity | None = None
    tolerations: tuple[Toleration, ...] = ()
    topology_spread_constraints: tuple[TopologySpreadConstraint, ...] = ()
    host_network: bool = False
    priority: int = 0
    overhead: ResourceList = EMPTY_RESOURCES
    scheduler_name: str = "default-scheduler"
    has_empty_dir: bool = False
    owner: OwnerRef | None = None
    phase: str = ""
    pod_ips: tuple[str, ...] = ()  # status.podIPs: at most one address per family, the primary (podIP) first
    reason: str = ""
    order: int = 0  # creation order in the input; the scheduler's queue order
    source: SourceRef = SourceRef()
    priority_class_name: str = ""  # spec.priorityClassName; the Priority admission plugin resolves it
    preemption_policy: str = ""  # spec.preemptionPolicy: PreemptLowerPriority (default) | Never
    mirror: bool = False  # annotation kubernetes.io/config.mirror: a static pod the kubelet owns
    # spec.serviceAccountName (its deprecated alias spec.serviceAccount when only that is set); admission fills
    # "default" when neither is (Cilium's and Calico's policies select on it)
    service_account: str = "default"
    terminating: bool = False  # metadata.deletionTimestamp is set: the pod is already being deleted
    start_time: str = ""  # status.startTime (RFC 3339), for preemption's "latest start" tie-break

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def terminated(self) -> bool:
        return self.phase in ("Succeeded", "Failed")

    @property
    def pod_ip(self) -> str:
        """status.podIP: the primary address, the first of status.podIPs ("" when none)."""
        return self.pod_ips[0] if self.pod_ips else ""

    def ip_of(self, version: int) -> str:
        """The pod's address of one family (4 or 6), "" when it has none: a dual-stack pod has one of each."""
        for ip in self.pod_ips:
            if (":" in ip) == (version == 6):
                return ip
        return ""

    def named_ports(self) -> tuple[tuple[str, str, int], ...]:
        """(name, protocol, number) for every named container port: what named NetworkPolicy ports resolve to."""
        out = {(p.name, p.protocol, p.container_port) for c in self.containers for p in c.ports if p.name}
        return tuple(sorted(out))


@dataclass(frozen=True, slots=True)
class Workload:
    """Deployment, ReplicaSet, StatefulSet, DaemonSet, Job or CronJob: a pod template and a count."""

    kind: str
    namespace: str
    name: str
    template: Pod
    replicas: int = 1
    selector: LabelSelector | None = None
    pod_management_policy: str = "OrderedReady"  # StatefulSet only
    labels: Labels = EMPTY_LABELS
    source: SourceRef = SourceRef()
    owner: OwnerRef | None = None  # e.g. the Deployment of a ReplicaSet, the CronJob of a Job

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"
