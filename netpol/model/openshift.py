"""OpenShift's Route (route.openshift.io/v1) as a frozen value: the Services an OpenShift router forwards a
host to, and on which port (openshift/api route/v1 types.go)."""

from __future__ import annotations

from dataclasses import dataclass

from netpol.errors import SourceRef
from netpol.model.labels import EMPTY_LABELS, FrozenMap

# The default IngressController's router pods (OpenShift "Ingress Operator": deployment router-default in
# openshift-ingress, pods labelled with the controller's name).
ROUTER_NAMESPACE = "openshift-ingress"
ROUTER_LABEL = "ingresscontroller.operator.openshift.io/deployment-ingresscontroller"
ROUTER_DEFAULT = "default"


@dataclass(frozen=True, slots=True)
class RouteTarget:
    """RouteTargetReference: a Service of the Route's namespace and its weight (0 sends it nothing)."""

    name: str
    kind: str = "Service"
    weight: int = 100


@dataclass(frozen=True, slots=True)
class Route:
    namespace: str
    name: str
    to: RouteTarget
    alternate_backends: tuple[RouteTarget, ...] = ()
    target_port: int | str | None = None  # spec.port.targetPort; None: every port of the Service
    host: str = ""
    path: str = ""
    tls_termination: str = ""  # edge | passthrough | reencrypt; "" plain HTTP
    insecure_edge: str = ""  # tls.insecureEdgeTerminationPolicy: None | Allow | Redirect
    source: SourceRef = SourceRef()
    annotations: FrozenMap[str] = EMPTY_LABELS  # read for the audit's per-object acceptance

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def targets(self) -> tuple[RouteTarget, ...]:
        return (self.to, *self.alternate_backends)
