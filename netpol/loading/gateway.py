"""Gateway API (gateway.networking.k8s.io) objects → model: Gateway, GatewayClass, HTTPRoute, GRPCRoute,
TLSRoute, TCPRoute, UDPRoute and ReferenceGrant, in any served version (v1, v1beta1, v1alpha2, v1alpha3).

The fields that decide where traffic goes (listeners' ports, protocols and allowedRoutes; routes'
parentRefs and backendRefs, request mirrors; grants' from and to) are validated as the CRDs' schemas do
(gateway-api apis/v1 *_types.go kubebuilder markers: required names, ports 1–65535, `from` one of
All/Selector/Same/None, a Service backend needs a port, weights 0–1,000,000) and an unknown key there is an
error; the rest (matches, filters other than mirrors, timeouts) is checked by netpol.loading.schema.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from netpol.errors import InputError, SourceRef
from netpol.loading import typed as t
from netpol.loading.fields import annotations_field, namespace_of, read_label_selector
from netpol.loading.schema import fields
from netpol.model import names
from netpol.model.gateway import (
    FROM_NAMESPACES,
    GROUP,
    ROUTE_KINDS,
    AllowedRoutes,
    BackendRef,
    Gateway,
    GatewayClass,
    GatewayRoute,
    Listener,
    ParentRef,
    ReferenceGrant,
    ReferenceGrantFrom,
    ReferenceGrantTo,
    RouteRule,
)

LISTENER = fields("Listener")
ALLOWED = fields("AllowedRoutes")
ROUTE_NAMESPACES = fields("RouteNamespaces")
GROUP_KIND = fields("RouteGroupKind")
PARENT = fields("ParentReference")
# Every kind of route rule and backend reference, in every version: what the reader itself reads.
RULE = fields("HTTPRouteRule") | fields("GRPCRouteRule") | fields("TCPRouteRule")
BACKEND = fields("HTTPBackendRef") | fields("GRPCBackendRef") | fields("BackendRef")
MIRROR = fields("HTTPRequestMirrorFilter")
OBJECT_REF = fields("BackendObjectReference")
GRANT_FROM = fields("ReferenceGrantFrom")
GRANT_TO = fields("ReferenceGrantTo")
MAX_WEIGHT = 1_000_000


def read_gateway(obj: Mapping[str, Any], src: SourceRef) -> Gateway:
    meta = obj["metadata"]
    spec = t.obj(obj.get("spec"), src, "spec")
    class_name = t.string(spec.get("gatewayClassName"), src, "spec.gatewayClassName")
    if not class_name:
        raise t.required(src, "spec.gatewayClassName")
    listeners = []
    seen: set[str] = set()
    items = t.objs(spec.get("listeners"), src, "spec.listeners")
    if not items:
        raise t.required(src, "spec.listeners")
    for m, fld in items:
        t.check_fields(m, LISTENER, src, fld)
        name = _name(m.get("name"), src, fld + ".name", label=True)
        if name in seen:
            raise InputError(f"Duplicate value: {t.show(name)}: listener names must be unique", src, fld + ".name")
        seen.add(name)
        protocol = t.string(m.get("protocol"), src, fld + ".protocol")
        if not protocol:
            raise t.required(src, fld + ".protocol")
        tls = t.obj(m.get("tls"), src, fld + ".tls")
        tls_mode = ""
        if protocol in ("HTTPS", "TLS"):
            tls_mode = t.string(tls.get("mode"), src, fld + ".tls.mode") or "Terminate"
            if tls_mode not in ("Terminate", "Passthrough"):
                raise t.unsupported(tls_mode, ("Terminate", "Passthrough"), src, fld + ".tls.mode")
        listeners.append(
            Listener(
                name=name,
                port=t.integer(m.get("port"), src, fld + ".port", 1, 65535),
                protocol=protocol,
                hostname=t.string(m.get("hostname"), src, fld + ".hostname"),
                tls_mode=tls_mode,
                allowed=_allowed_routes(m.get("allowedRoutes"), src, fld + ".allowedRoutes"),
            )
        )
    return Gateway(namespace_of(meta, src), meta["name"], class_name, tuple(listeners), src)


def _allowed_routes(value: Any, src: SourceRef, fld: str) -> AllowedRoutes:
    m = t.obj(value, src, fld)
    t.check_fields(m, ALLOWED, src, fld)
    ns = t.obj(m.get("namespaces"), src, fld + ".namespaces")
    t.check_fields(ns, ROUTE_NAMESPACES, src, fld + ".namespaces")
    from_ = t.string(ns.get("from"), src, fld + ".namespaces.from") or "Same"
    if from_ not in FROM_NAMESPACES:
        raise t.unsupported(from_, FROM_NAMESPACES, src, fld + ".namespaces.from")
    selector = None
    if from_ == "Selector":
        if ns.get("selector") is None:
            raise t.required(src, fld + ".namespaces.selector", 'must be specified when `from` is "Selector"')
        selector = read_label_selector(ns.get("selector"), src, fld + ".namespaces.selector")
    kinds = []
    for k, kfld in t.objs(m.get("kinds"), src, fld + ".kinds"):
        t.check_fields(k, GROUP_KIND, src, kfld)
        group = t.string(k.get("group"), src, kfld + ".group", GROUP)
        kind = t.string(k.get("kind"), src, kfld + ".kind")
        if not kind:
            raise t.required(src, kfld + ".kind")
        if group == GROUP:  # kinds of other groups attach routes this tool does not read
            kinds.append(kind)
    return AllowedRoutes(from_, selector, tuple(kinds))


def read_gateway_class(obj: Mapping[str, Any], src: SourceRef) -> GatewayClass:
    spec = t.obj(obj.get("spec"), src, "spec")
    controller = t.string(spec.get("controllerName"), src, "spec.controllerName")
    if not controller:
        raise t.required(src, "spec.controllerName")
    return GatewayClass(obj["metadata"]["name"], controller, src)


def read_gateway_route(obj: Mapping[str, Any], src: SourceRef) -> GatewayRoute:
    meta = obj["metadata"]
    ns = namespace_of(meta, src)
    kind = src.kind
    assert kind in ROUTE_KINDS
    spec = t.obj(obj.get("spec"), src, "spec")
    parents = []
    for m, fld in t.objs(spec.get("parentRefs"), src, "spec.parentRefs"):
        t.check_fields(m, PARENT, src, fld)
        parents.append(
            ParentRef(
                name=_name(m.get("name"), src, fld + ".name"),
                namespace=_namespace(m.get("namespace"), ns, src, fld + ".namespace"),
                group=t.string(m.get("group"), src, fld + ".group", GROUP),
                kind=t.string(m.get("kind"), src, fld + ".kind", "Gateway"),
                section_name=t.string(m.get("sectionName"), src, fld + ".sectionName"),
                port=t.opt_integer(m.get("port"), src, fld + ".port", 1, 65535),
            )
        )
    rules = []
    for m, fld in t.objs(spec.get("rules"), src, "spec.rules"):
        t.check_fields(m, RULE, src, fld)
        refs: list[BackendRef] = []
        for b, bfld in t.objs(m.get("backendRefs"), src, fld + ".backendRefs"):
            t.check_fields(b, BACKEND, src, bfld)
            refs.append(_backend_ref(b, ns, src, bfld))
            refs += _mirrors(b.get("filters"), ns, src, bfld + ".filters")
        refs += _mirrors(m.get("filters"), ns, src, fld + ".filters")
        rules.append(RouteRule(t.string(m.get("name"), src, fld + ".name"), tuple(refs)))
    return GatewayRoute(
        kind=kind,
        namespace=ns,
        name=meta["name"],
        parent_refs=tuple(parents),
        hostnames=t.strings(spec.get("hostnames"), src, "spec.hostnames"),
        rules=tuple(rules),
        source=src,
        annotations=annotations_field(meta.get("annotations"), src),
    )


def _mirrors(value: Any, ns: str, src: SourceRef, fld: str) -> list[BackendRef]:
    """The backends of RequestMirror filters: a copy of the traffic goes there too (HTTPRequestMirrorFilter)."""
    out = []
    for f, ffld in t.objs(value, src, fld):
        if t.string(f.get("type"), src, ffld + ".type") != "RequestMirror":
            continue
        mirror = t.obj(f.get("requestMirror"), src, ffld + ".requestMirror")
        t.check_fields(mirror, MIRROR, src, ffld + ".requestMirror")
        if mirror.get("backendRef") is None:
            raise t.required(src, ffld + ".requestMirror.backendRef")
        ref = t.obj(mirror.get("backendRef"), src, ffld + ".requestMirror.backendRef")
        t.check_fields(ref, OBJECT_REF, src, ffld + ".requestMirror.backendRef")
        b = _backend_ref(ref, ns, src, ffld + ".requestMirror.backendRef")
        out.append(BackendRef(b.name, b.namespace, b.group, b.kind, b.port, b.weight, mirror=True))
    return out


def _backend_ref(m: Mapping[str, Any], ns: str, src: SourceRef, fld: str) -> BackendRef:
    group = t.string(m.get("group"), src, fld + ".group")
    kind = t.string(m.get("kind"), src, fld + ".kind", "Service")
    port = t.opt_integer(m.get("port"), src, fld + ".port", 1, 65535)
    if group == "" and kind == "Service" and port is None:
        raise t.required(src, fld + ".port", "a Service backend needs a port")
    return BackendRef(
        name=_name(m.get("name"), src, fld + ".name"),
        namespace=_namespace(m.get("namespace"), ns, src, fld + ".namespace"),
        group=group,
        kind=kind,
        port=port,
        weight=t.integer(m.get("weight"), src, fld + ".weight", 0, MAX_WEIGHT, default=1),
    )


def read_reference_grant(obj: Mapping[str, Any], src: SourceRef) -> ReferenceGrant:
    meta = obj["metadata"]
    spec = t.obj(obj.get("spec"), src, "spec")
    froms = []
    for m, fld in t.objs(spec.get("from"), src, "spec.from"):
        t.check_fields(m, GRANT_FROM, src, fld)
        kind = t.string(m.get("kind"), src, fld + ".kind")
        if not kind:
            raise t.required(src, fld + ".kind")
        froms.append(
            ReferenceGrantFrom(
                t.string(m.get("group"), src, fld + ".group"),
                kind,
                _namespace(m.get("namespace"), "", src, fld + ".namespace", required=True),
            )
        )
    tos = []
    for m, fld in t.objs(spec.get("to"), src, "spec.to"):
        t.check_fields(m, GRANT_TO, src, fld)
        kind = t.string(m.get("kind"), src, fld + ".kind")
        if not kind:
            raise t.required(src, fld + ".kind")
        tos.append(
            ReferenceGrantTo(
                t.string(m.get("group"), src, fld + ".group"), kind, t.string(m.get("name"), src, fld + ".name")
            )
        )
    if not froms:
        raise t.required(src, "spec.from")
    if not tos:
        raise t.required(src, "spec.to")
    return ReferenceGrant(namespace_of(meta, src), meta["name"], tuple(froms), tuple(tos), src)


def _name(value: Any, src: SourceRef, fld: str, *, label: bool = False) -> str:
    name = t.string(value, src, fld)
    if not name:
        raise t.required(src, fld)
    reason = names.dns1123_label(name) if label else names.dns1123_subdomain(name)
    if reason:
        raise t.invalid(name, reason, src, fld)
    return name


def _namespace(value: Any, default: str, src: SourceRef, fld: str, *, required: bool = False) -> str:
    ns = t.string(value, src, fld)
    if not ns:
        if required:
            raise t.required(src, fld)
        return default
    reason = names.dns1123_label(ns)
    if reason:
        raise t.invalid(ns, reason, src, fld)
    return ns
