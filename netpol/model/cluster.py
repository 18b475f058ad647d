"""The whole input: every object read, plus what was skipped and why (nothing is dropped silently)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from netpol.errors import SourceRef
from netpol.model.calico_objects import CalicoObjects
from netpol.model.objects import (
    AdminNetworkPolicy,
    Namespace,
    NetworkPolicy,
    Node,
    Pod,
    PodDisruptionBudget,
    PriorityClass,
    Service,
    Workload,
)
from netpol.model.unevaluated import UnevaluatedPolicy
from netpol.model.usage import NodeUsage

if TYPE_CHECKING:  # the other policy kinds' and the doors' models: imported where an input holds them
    from netpol.model.cilium import CiliumPolicy
    from netpol.model.cnp import ClusterNetworkPolicy
    from netpol.model.gateway import Gateway, GatewayClass, GatewayRoute, ReferenceGrant
    from netpol.model.ingress import Ingress, IngressClass
    from netpol.model.openshift import Route


@dataclass(frozen=True, slots=True)
class Warning_:
    """A non-fatal finding while reading (skipped kind, implicit namespace, …); `--strict` makes it fatal."""

    code: str
    message: str
    source: SourceRef | None = None
    strict: bool = True  # whether --strict makes it fatal (a summary of inert kinds does not)

    def render(self) -> str:
        return f"{self.source.describe()}: {self.message}" if self.source else self.message


@dataclass(frozen=True, slots=True)
class Cluster:
    namespaces: tuple[Namespace, ...] = ()
    nodes: tuple[Node, ...] = ()
    pods: tuple[Pod, ...] = ()
    workloads: tuple[Workload, ...] = ()
    policies: tuple[NetworkPolicy, ...] = ()
    services: tuple[Service, ...] = ()
    pdbs: tuple[PodDisruptionBudget, ...] = ()
    admin_policies: tuple[AdminNetworkPolicy, ...] = ()  # ANPs by priority, then the BANP
    cluster_network_policies: tuple[ClusterNetworkPolicy, ...] = ()  # Admin tier, then Baseline; by priority, name
    priority_classes: tuple[PriorityClass, ...] = ()
    unevaluated: tuple[UnevaluatedPolicy, ...] = ()  # policies of kinds netpol does not evaluate (named everywhere)
    cilium_policies: tuple[CiliumPolicy, ...] = ()  # CiliumNetworkPolicies, then CiliumClusterwideNetworkPolicies
    calico: CalicoObjects = CalicoObjects()  # Calico's tiers, policies, network sets (and ServiceAccounts)
    warnings: tuple[Warning_, ...] = ()
    # the doors into the cluster besides Services (netpol/exposure): sorted by namespace/name
    ingresses: tuple[Ingress, ...] = ()
    ingress_classes: tuple[IngressClass, ...] = ()
    gateways: tuple[Gateway, ...] = ()
    gateway_classes: tuple[GatewayClass, ...] = ()
    gateway_routes: tuple[GatewayRoute, ...] = ()  # HTTPRoute, GRPCRoute, TLSRoute, TCPRoute, UDPRoute
    reference_grants: tuple[ReferenceGrant, ...] = ()
    routes: tuple[Route, ...] = ()  # OpenShift route.openshift.io/v1
    node_usage: NodeUsage | None = field(default=None, compare=False)  # a live read's metrics.k8s.io usage

    def namespace(self, name: str) -> Namespace | None:
        for ns in self.namespaces:
            if ns.name == name:
                return ns
        return None

    def node(self, name: str) -> Node | None:
        for n in self.nodes:
            if n.name == name:
                return n
        return None

    def with_pods(self, pods: tuple[Pod, ...], *warnings: Warning_) -> Cluster:
        return replace(self, pods=pods, warnings=self.warnings + tuple(warnings))

    @property
    def running_pods(self) -> tuple[Pod, ...]:
        """Pods that take part in traffic: not terminated, not Pending."""
        return tuple(p for p in self.pods if not p.terminated and p.phase != "Pending")
