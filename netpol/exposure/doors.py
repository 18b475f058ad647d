"""The doors of a cluster: every way a client outside it reaches a Service port, read from the input alone.

- A Service of type LoadBalancer (its `port`, from `loadBalancerSourceRanges` or anywhere) or NodePort (its
  `nodePort` on every node), a LoadBalancer also opening its nodePorts unless `allocateLoadBalancerNodePorts`
  is false, and `externalIPs` on any type (concepts/services-networking/service).
- An Ingress (networking.k8s.io/v1): HTTP 80, and HTTPS 443 when it has `tls`, through its IngressClass's
  controller, to the Service port of its default backend and of every rule path (concepts/services-networking/
  ingress).
- A Gateway API route attached to a Gateway listener: a parentRef naming the Gateway (and its sectionName /
  port), a listener whose allowedRoutes admit the route's kind and namespace and whose hostname intersects
  the route's, through the Gateway's proxy to each backendRef; a backend in another namespace needs a
  ReferenceGrant there (gateway-api apis/v1 gateway_types.go AllowedRoutes, shared_types.go ParentReference,
  referencegrant_types.go).
- An OpenShift Route: HTTP 80 (HTTPS 443 with `tls`, and 80 too when insecureEdgeTerminationPolicy is Allow)
  through the router to `to` and `alternateBackends` (weight 0: nothing), `port.targetPort` choosing the
  Service port (openshift/api route/v1 types.go).

A door that forwards nothing (a missing Service or port, a refused cross-namespace reference, a route no
listener accepts) is kept with the reason: it is reported, never dropped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from netpol.errors import SourceRef
from netpol.exposure.conventions import (
    GATEWAY_CONTROLLERS,
    GEP_1762,
    INGRESS_CLASS_NAMES,
    INGRESS_CONTROLLERS,
    OPENSHIFT_ROUTER,
    Convention,
)
from netpol.model.cluster import Cluster
from netpol.model.gateway import GROUP, BackendRef, Gateway, GatewayRoute, Listener, ParentRef
from netpol.model.ingress import Ingress, IngressBackend
from netpol.model.objects import Service, ServicePort
from netpol.model.openshift import Route
from netpol.model.services import ExternalTrafficPolicy

DoorKind = Literal["LoadBalancer", "NodePort", "ExternalIP", "Ingress", "Gateway", "Route"]
DOOR_KINDS: tuple[DoorKind, ...] = get_args(DoorKind)
EVERY_CLIENT = ("0.0.0.0/0", "::/0")


@dataclass(frozen=True, slots=True)
class ProxyRef:
    """The proxy a door forwards through: its controller, how `--proxy-pods` names it, where its pods are."""

    what: str  # "IngressClass nginx (k8s.io/ingress-nginx)", "Gateway infra/gw (GatewayClass eg: …)", …
    key: str  # the --proxy-pods key: ingressclass/NAME, gateway/NS/NAME, openshift-router
    convention: Convention | None  # None: an unknown in-cluster proxy
    namespace: str  # the door object's namespace (a convention's "" namespace)
    name: str  # the object named in a convention's labels (the Gateway)
    why_unknown: str = ""  # when convention is None


@dataclass(frozen=True, slots=True)
class Backend:
    """A Service port a door forwards to; `problem`: why nothing is forwarded there."""

    service: str  # ns/name ("" for a backend that is not a Service)
    port: ServicePort | None
    via: str  # what routes to it, in the door object's words
    problem: str = ""


@dataclass(frozen=True, slots=True)
class Door:
    kind: DoorKind
    object: str  # "Service web/front", "Ingress web/site", "HTTPRoute web/r", "Route frontend/webapp"
    namespace: str
    entry: str  # how clients reach it: "port 80", "nodePort 30080", "listener http (HTTP 80)"
    entry_port: int | None  # the port clients connect to (None: an unallocated nodePort)
    protocol: str  # TCP, UDP or SCTP, on the wire
    source: SourceRef
    client_ranges: tuple[str, ...] = EVERY_CLIENT
    traffic_policy: ExternalTrafficPolicy | None = None  # Service doors
    proxy: ProxyRef | None = None
    backends: tuple[Backend, ...] = ()
    problem: str = ""  # the door forwards nothing at all (a route attached to no listener)

    @property
    def label(self) -> str:
        return f"{self.kind} {self.object.split(' ', 1)[-1]} {self.entry}"


def find_doors(cluster: Cluster) -> tuple[Door, ...]:
    services = {s.key: s for s in cluster.services}
    doors = [d for svc in cluster.services for d in _service_doors(svc)]
    doors += [d for ing in cluster.ingresses for d in _ingress_doors(cluster, ing, services)]
    doors += [d for route in cluster.gateway_routes for d in _gateway_doors(cluster, route, services)]
    doors += [d for route in cluster.routes for d in _route_doors(route, services)]
    return tuple(sorted(doors, key=lambda d: (d.namespace, d.object, d.kind, d.entry_port or 0, d.entry)))


# -------------------------------------------------------------------------------------------- Services


def _service_doors(svc: Service) -> list[Door]:
    if svc.type == "ExternalName":  # a DNS alias: no proxying, no pods
        return []
    out = []
    problem = (
        "" if svc.selector is not None else "the Service has no selector (endpoints managed by hand): not followed"
    )
    obj = f"Service {svc.key}"
    for sp in svc.ports:
        backend = (Backend(svc.key, sp, f"port {_port_words(sp)}", problem),)

        def door(
            kind: DoorKind,
            entry: str,
            port: int | None,
            ranges: tuple[str, ...] = EVERY_CLIENT,
            sp: ServicePort = sp,
            backend: tuple[Backend, ...] = backend,
        ) -> Door:
            return Door(
                kind,
                obj,
                svc.namespace,
                entry,
                port,
                sp.protocol,
                svc.source,
                client_ranges=ranges,
                traffic_policy=svc.external_traffic_policy,
                backends=backend,
            )

        if svc.type == "LoadBalancer":
            out.append(
                door("LoadBalancer", f"port {sp.port}", sp.port, svc.load_balancer_source_ranges or EVERY_CLIENT)
            )
        if svc.type == "NodePort" or (svc.type == "LoadBalancer" and svc.allocate_load_balancer_node_ports):
            where = f"nodePort {sp.node_port}" if sp.node_port else "an allocated nodePort"
            out.append(door("NodePort", where, sp.node_port))
        if svc.external_ips:
            out.append(door("ExternalIP", f"externalIPs {', '.join(svc.external_ips)} port {sp.port}", sp.port))
    return out


def _port_words(sp: ServicePort) -> str:
    name = f" ({sp.name})" if sp.name else ""
    return f"{sp.protocol} {sp.port}{name} → targetPort {sp.target_port}"


def _service_port(
    services: dict[str, Service], ns: str, name: str, *, number: int | None = None, port_name: str = ""
) -> tuple[Service | None, ServicePort | None, str]:
    """A Service of namespace `ns` and one of its ports by number or name, or why there is none."""
    svc = services.get(f"{ns}/{name}")
    if svc is None:
        return None, None, f"Service {ns}/{name} is not in the input"
    for sp in svc.ports:
        if (port_name and sp.name == port_name) or (number is not None and sp.port == number):
            if svc.selector is None:
                return svc, sp, "the Service has no selector (endpoints managed by hand): not followed"
            return svc, sp, ""
    asked = f"named {port_name}" if port_name else str(number)
    return svc, None, f"Service {ns}/{name} has no port {asked}"


# ---------------------------------------------------------------------------------------------- Ingress


def _ingress_doors(cluster: Cluster, ing: Ingress, services: dict[str, Service]) -> list[Door]:
    proxy = _ingress_proxy(cluster, ing)
    backends = _dedupe([_ingress_backend(services, ing.namespace, where, b) for where, b in ing.backends()])
    entries = [("HTTP 80", 80)] + ([("HTTPS 443", 443)] if ing.tls else [])
    return [
        Door(
            "Ingress",
            f"Ingress {ing.key}",
            ing.namespace,
            entry,
            port,
            "TCP",
            ing.source,
            proxy=proxy,
            backends=backends,
        )
        for entry, port in entries
    ]


def _ingress_backend(services: dict[str, Service], ns: str, where: str, b: IngressBackend) -> Backend:
    if b.service is None:
        return Backend("", None, where, f"resource backend {b.resource}: served by the controller itself, no pod")
    s = b.service
    svc, sp, problem = _service_port(services, ns, s.name, number=s.port_number, port_name=s.port_name)
    return Backend(f"{ns}/{s.name}", sp, where, problem)


def _ingress_proxy(cluster: Cluster, ing: Ingress) -> ProxyRef:
    classes = {c.name: c for c in cluster.ingress_classes}
    name = ing.class_name
    why = ""
    if name is None:
        default = [c for c in cluster.ingress_classes if c.default]
        if len(default) == 1:
            name = default[0].name
        else:
            why = (
                "the Ingress names no IngressClass and the input has no single default IngressClass"
                if not default
                else f"several IngressClasses are marked default ({', '.join(c.name for c in default)})"
            )
    if name is None:
        return ProxyRef("no IngressClass", "ingressclass/-", None, ing.namespace, "", why)
    cls = classes.get(name)
    controller = cls.controller if cls is not None else INGRESS_CLASS_NAMES.get(name, "")
    what = f"IngressClass {name}" + (f" ({controller})" if controller else "")
    if cls is None and not controller:
        return ProxyRef(
            what, f"ingressclass/{name}", None, ing.namespace, "", f"IngressClass {name} is not in the input"
        )
    convention = INGRESS_CONTROLLERS.get(controller)
    why = "" if convention is not None else f"no known convention for controller {controller}"
    return ProxyRef(what, f"ingressclass/{name}", convention, ing.namespace, name, why)


# ------------------------------------------------------------------------------------------ Gateway API


def _gateway_doors(cluster: Cluster, route: GatewayRoute, services: dict[str, Service]) -> list[Door]:
    gateways = {g.key: g for g in cluster.gateways}
    backends = _dedupe(
        [
            _route_backend(cluster, route, services, k, ref)
            for k, rule in enumerate(route.rules)
            for ref in rule.backend_refs
        ]
    )
    obj = f"{route.kind} {route.key}"
    out: list[Door] = []
    for pref in route.parent_refs:
        if pref.group != GROUP or pref.kind != "Gateway":
            continue  # a Service parent is mesh (east-west) routing inside the cluster: not a door
        gw = gateways.get(f"{pref.namespace}/{pref.name}")
        if gw is None:
            out.append(
                _detached(
                    route,
                    obj,
                    pref,
                    f"parentRef {pref.render()}: Gateway {pref.namespace}/{pref.name} is not in the input",
                    backends,
                )
            )
            continue
        proxy = _gateway_proxy(cluster, gw)
        accepted: list[tuple[Listener, str]] = []
        refused: list[tuple[Listener, str]] = []
        for listener in gw.listeners:
            why = _refuses(cluster, route, pref, gw, listener)
            (refused if why else accepted).append((listener, why))
        if not accepted:
            reasons = "; ".join(f"{lst.name}: {why}" for lst, why in refused) or "it has no listener"
            out.append(_detached(route, obj, pref, f"no listener of Gateway {gw.key} accepts it ({reasons})", backends))
        for listener, _ in accepted:
            entry = f"Gateway {gw.key} listener {listener.name} ({listener.protocol} {listener.port})"
            door = Door(
                "Gateway",
                obj,
                route.namespace,
                entry,
                listener.port,
                listener.transport,
                route.source,
                proxy=proxy,
                backends=backends,
            )
            if door not in out:
                out.append(door)
    return out


def _detached(route: GatewayRoute, obj: str, pref: ParentRef, problem: str, backends: tuple[Backend, ...]) -> Door:
    return Door(
        "Gateway",
        obj,
        route.namespace,
        f"parentRef {pref.render()}",
        None,
        "TCP",
        route.source,
        backends=backends,
        problem=problem,
    )


def _refuses(cluster: Cluster, route: GatewayRoute, pref: ParentRef, gw: Gateway, listener: Listener) -> str:
    """Why `listener` does not accept `route` through `pref` ("" when it does)."""
    if pref.section_name and pref.section_name != listener.name:
        return f"the parentRef names listener {pref.section_name}"
    if pref.port is not None and pref.port != listener.port:
        return f"the parentRef names port {pref.port}"
    if route.kind not in listener.route_kinds():
        return f"admits {', '.join(listener.route_kinds()) or 'no route kind'}, not {route.kind}"
    allowed = listener.allowed
    match allowed.from_:
        case "All":
            pass
        case "Same":
            if route.namespace != gw.namespace:
                return f"admits routes of namespace {gw.namespace} only (allowedRoutes from Same)"
        case "Selector":
            ns = cluster.namespace(route.namespace)
            labels = ns.labels if ns is not None else {}
            if allowed.selector is None or not allowed.selector.matches(labels):
                sel = allowed.selector.render() if allowed.selector is not None else "{}"
                return f"admits routes of namespaces selected by {sel}, not {route.namespace}"
        case "None":
            return "admits no routes (allowedRoutes from None)"
    if listener.hostname and route.hostnames and route.kind in ("HTTPRoute", "GRPCRoute", "TLSRoute"):
        if not any(hostnames_intersect(listener.hostname, h) for h in route.hostnames):
            return f"hostname {listener.hostname} matches none of {', '.join(route.hostnames)}"
    return ""


def hostnames_intersect(a: str, b: str) -> bool:
    """Whether a listener hostname and a route hostname share a host: equal, or a wildcard `*.example.com`
    (a suffix match on whole labels, never `example.com` itself) covering the other (apis/v1 Listener.Hostname,
    HTTPRouteSpec.Hostnames)."""
    if a == b:
        return True
    wa, wb = a.startswith("*."), b.startswith("*.")
    if wa and wb:
        return a[1:].endswith(b[1:]) or b[1:].endswith(a[1:])
    if wa:
        return b.endswith(a[1:])
    if wb:
        return a.endswith(b[1:])
    return False


def _route_backend(
    cluster: Cluster, route: GatewayRoute, services: dict[str, Service], rule: int, ref: BackendRef
) -> Backend:
    via = f"rule {rule + 1}" + (" (RequestMirror)" if ref.mirror else "")
    if not ref.is_service:
        return Backend("", None, via, f"backend {ref.render()} is not a Service: not followed")
    if ref.weight == 0 and not ref.mirror:
        return Backend(f"{ref.namespace}/{ref.name}", None, via, "weight 0: it receives no traffic")
    if ref.namespace != route.namespace and not granted(cluster, route, ref):
        return Backend(
            f"{ref.namespace}/{ref.name}",
            None,
            via,
            f"no ReferenceGrant in namespace {ref.namespace} lets {route.kind} {route.key} refer to Service "
            f"{ref.namespace}/{ref.name} (ResolvedRefs False, RefNotPermitted)",
        )
    _, sp, problem = _service_port(services, ref.namespace, ref.name, number=ref.port)
    return Backend(f"{ref.namespace}/{ref.name}", sp, via, problem)


def granted(cluster: Cluster, route: GatewayRoute, ref: BackendRef) -> bool:
    """A ReferenceGrant in the backend's namespace trusts this route's kind and namespace with that Service."""
    for g in cluster.reference_grants:
        if g.namespace != ref.namespace:
            continue
        src_ok = any(f.group == GROUP and f.kind == route.kind and f.namespace == route.namespace for f in g.from_)
        dst_ok = any(t.group == ref.group and t.kind == ref.kind and t.name in ("", ref.name) for t in g.to)
        if src_ok and dst_ok:
            return True
    return False


def _gateway_proxy(cluster: Cluster, gw: Gateway) -> ProxyRef:
    cls = next((c for c in cluster.gateway_classes if c.name == gw.class_name), None)
    controller = cls.controller if cls is not None else ""
    convention = GATEWAY_CONTROLLERS.get(controller, GEP_1762)
    what = f"Gateway {gw.key} (GatewayClass {gw.class_name}{': ' + controller if controller else ''})"
    return ProxyRef(what, f"gateway/{gw.key}", convention, gw.namespace, gw.name)


# ------------------------------------------------------------------------------------ OpenShift Routes


def _route_doors(route: Route, services: dict[str, Service]) -> list[Door]:
    proxy = ProxyRef(OPENSHIFT_ROUTER.name, "openshift-router", OPENSHIFT_ROUTER, route.namespace, "")
    backends: list[Backend] = []
    for k, target in enumerate(route.targets):
        via = "to" if k == 0 else f"alternateBackends[{k - 1}]"
        key = f"{route.namespace}/{target.name}"
        if target.weight == 0:
            backends.append(Backend(key, None, via, "weight 0: it receives no traffic"))
            continue
        svc = services.get(key)
        if svc is None:
            backends.append(Backend(key, None, via, f"Service {key} is not in the input"))
            continue
        ports = _route_ports(svc, route.target_port)
        if not ports:
            backends.append(Backend(key, None, via, f"Service {key} has no port for targetPort {route.target_port}"))
        problem = (
            "" if svc.selector is not None else "the Service has no selector (endpoints managed by hand): not followed"
        )
        backends += [Backend(key, sp, via, problem) for sp in ports]
    if route.tls_termination:
        entries = [("HTTPS 443", 443)] + ([("HTTP 80", 80)] if route.insecure_edge == "Allow" else [])
    else:
        entries = [("HTTP 80", 80)]
    return [
        Door(
            "Route",
            f"Route {route.key}",
            route.namespace,
            entry,
            port,
            "TCP",
            route.source,
            proxy=proxy,
            backends=_dedupe(backends),
        )
        for entry, port in entries
    ]


def _route_ports(svc: Service, target: int | str | None) -> list[ServicePort]:
    """The Service ports a Route's port.targetPort names: a name is a Service port's name (the endpoints' port
    list), a number the pods' port (a targetPort), else the Service port of that number; none: every port."""
    if target is None:
        return list(svc.ports)
    if isinstance(target, str):
        return [sp for sp in svc.ports if sp.name == target]
    by_target = [sp for sp in svc.ports if sp.target_port == target]
    return by_target or [sp for sp in svc.ports if sp.port == target]


def _dedupe(backends: list[Backend]) -> tuple[Backend, ...]:
    """One backend per (Service, port, problem), naming every place that routes to it."""
    out: dict[tuple[str, ServicePort | None, str], Backend] = {}
    for b in backends:
        k = (b.service, b.port, b.problem)
        seen = out.get(k)
        out[k] = b if seen is None else Backend(b.service, b.port, f"{seen.via}, {b.via}", b.problem)
    return tuple(out.values())
