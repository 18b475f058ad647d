"""Gateway API (gateway.networking.k8s.io) objects as frozen values: Gateways and their listeners, the routes
that attach to them (HTTPRoute, GRPCRoute, TLSRoute, TCPRoute, UDPRoute), their backends, and the
ReferenceGrants that let a route forward to another namespace (gateway-api apis/v1 *_types.go)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from netpol.errors import SourceRef
from netpol.model.labels import EMPTY_LABELS, FrozenMap, LabelSelector

GROUP = "gateway.networking.k8s.io"
# GEP-1762 (apis/v1 well_known_labels.go): every resource an implementation generates for a Gateway, its
# proxy Deployment and pods included, carries this label set to the Gateway's name.
GATEWAY_NAME_LABEL = f"{GROUP}/gateway-name"

RouteKind = Literal["HTTPRoute", "GRPCRoute", "TLSRoute", "TCPRoute", "UDPRoute"]
ROUTE_KINDS: tuple[RouteKind, ...] = get_args(RouteKind)

FromNamespaces = Literal["All", "Selector", "Same", "None"]
"""AllowedRoutes.namespaces.from: where routes may attach from (default Same)."""
FROM_NAMESPACES: tuple[FromNamespaces, ...] = get_args(FromNamespaces)

# The route kinds a listener admits when allowedRoutes.kinds is empty, by its protocol (apis/v1
# gateway_types.go AllowedRoutes.Kinds: "determined using the Listener protocol"; the Gateway API's route
# kinds' documentation: HTTPRoute and GRPCRoute on HTTP/HTTPS, TLSRoute on TLS, TCPRoute on TCP, UDPRoute on UDP).
DEFAULT_KINDS: dict[str, tuple[RouteKind, ...]] = {
    "HTTP": ("HTTPRoute", "GRPCRoute"),
    "HTTPS": ("HTTPRoute", "GRPCRoute"),
    "TLS": ("TLSRoute",),
    "TCP": ("TCPRoute",),
    "UDP": ("UDPRoute",),
}


@dataclass(frozen=True, slots=True)
class AllowedRoutes:
    from_: FromNamespaces = "Same"
    selector: LabelSelector | None = None  # with from_ == "Selector"
    kinds: tuple[str, ...] = ()  # route kinds of group gateway.networking.k8s.io; empty: by protocol


@dataclass(frozen=True, slots=True)
class Listener:
    name: str
    port: int
    protocol: str  # HTTP, HTTPS, TLS, TCP, UDP, or an implementation's own `domain/name`
    hostname: str = ""  # "" matches every host
    tls_mode: str = ""  # Terminate | Passthrough (TLS/HTTPS listeners; the API's default is Terminate)
    allowed: AllowedRoutes = AllowedRoutes()

    @property
    def transport(self) -> str:
        """The protocol the listener's port speaks on the wire (what a NetworkPolicy port names)."""
        return "UDP" if self.protocol == "UDP" else "TCP"

    def route_kinds(self) -> tuple[str, ...]:
        return self.allowed.kinds or DEFAULT_KINDS.get(self.protocol, ())


@dataclass(frozen=True, slots=True)
class Gateway:
    namespace: str
    name: str
    class_name: str
    listeners: tuple[Listener, ...] = ()
    source: SourceRef = SourceRef()

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass(frozen=True, slots=True)
class GatewayClass:
    name: str
    controller: str  # spec.controllerName, e.g. gateway.envoyproxy.io/gatewayclass-controller
    source: SourceRef = SourceRef()


@dataclass(frozen=True, slots=True)
class ParentRef:
    """ParentReference; group and kind defaulted (gateway.networking.k8s.io, Gateway), namespace to the route's."""

    name: str
    namespace: str
    group: str = GROUP
    kind: str = "Gateway"
    section_name: str = ""
    port: int | None = None

    def render(self) -> str:
        where = f"/{self.section_name}" if self.section_name else ""
        return f"{self.kind} {self.namespace}/{self.name}{where}" + (f":{self.port}" if self.port else "")


@dataclass(frozen=True, slots=True)
class BackendRef:
    """BackendObjectReference with its weight; group "" and kind Service by default, namespace the route's.
    `mirror`: the target of a RequestMirror filter (a copy of the traffic is sent there too)."""

    name: str
    namespace: str
    group: str = ""
    kind: str = "Service"
    port: int | None = None
    weight: int = 1
    mirror: bool = False

    @property
    def is_service(self) -> bool:
        return self.group == "" and self.kind == "Service"

    def render(self) -> str:
        kind = "Service" if self.is_service else f"{self.kind}.{self.group}" if self.group else self.kind
        return f"{kind} {self.namespace}/{self.name}" + (f":{self.port}" if self.port is not None else "")


@dataclass(frozen=True, slots=True)
class RouteRule:
    name: str = ""
    backend_refs: tuple[BackendRef, ...] = ()


@dataclass(frozen=True, slots=True)
class GatewayRoute:
    """An HTTPRoute, GRPCRoute, TLSRoute, TCPRoute or UDPRoute: where it attaches and where it forwards."""

    kind: RouteKind
    namespace: str
    name: str
    parent_refs: tuple[ParentRef, ...] = ()
    hostnames: tuple[str, ...] = ()
    rules: tuple[RouteRule, ...] = ()
    source: SourceRef = SourceRef()
    annotations: FrozenMap[str] = EMPTY_LABELS  # read for the audit's per-object acceptance

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass(frozen=True, slots=True)
class ReferenceGrantFrom:
    group: str
    kind: str
    namespace: str


@dataclass(frozen=True, slots=True)
class ReferenceGrantTo:
    group: str
    kind: str
    name: str = ""  # "" every object of that kind in the grant's namespace


@dataclass(frozen=True, slots=True)
class ReferenceGrant:
    """Trust from objects of other namespaces (from) to objects of this one (to) (apis/v1beta1 referencegrant)."""

    namespace: str
    name: str
    from_: tuple[ReferenceGrantFrom, ...] = ()
    to: tuple[ReferenceGrantTo, ...] = ()
    source: SourceRef = SourceRef()

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"
