"""networking.k8s.io/v1 Ingress and IngressClass → model.

Which Services and ports an Ingress forwards to, and which controller serves it, decide what the internet
reaches: those parts are validated as the API server does (pkg/apis/networking/validation
ValidateIngressSpec: a backend is a Service or a resource, never both; a Service port by name or by number,
never both; defaultBackend or rules; pathType one of Exact, Prefix, ImplementationSpecific) and an unknown
key there is an error. The rest is checked by netpol.loading.schema (warnings).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from netpol.errors import InputError, SourceRef
from netpol.loading import typed as t
from netpol.loading.fields import annotations_field, namespace_of
from netpol.loading.policies import port_name_problem
from netpol.loading.schema import fields
from netpol.model import names
from netpol.model.ingress import (
    CLASS_ANNOTATION,
    DEFAULT_CLASS_ANNOTATION,
    Ingress,
    IngressBackend,
    IngressClass,
    IngressPath,
    IngressRule,
    ServiceBackend,
)

BACKEND = fields("IngressBackend")
SERVICE_BACKEND = fields("IngressServiceBackend")
BACKEND_PORT = fields("ServiceBackendPort")
RULE = fields("IngressRule")
HTTP_RULE = fields("HTTPIngressRuleValue")
PATH = fields("HTTPIngressPath")
RESOURCE = fields("TypedLocalObjectReference")
PATH_TYPES = ("Exact", "Prefix", "ImplementationSpecific")


def read_ingress(obj: Mapping[str, Any], src: SourceRef) -> Ingress:
    meta = obj["metadata"]
    spec = t.obj(obj.get("spec"), src, "spec")
    annotations = t.string_map(meta.get("annotations"), src, "metadata.annotations")
    class_name = t.string(spec.get("ingressClassName"), src, "spec.ingressClassName") or None
    if class_name is not None:
        reason = names.dns1123_subdomain(class_name)
        if reason:
            raise t.invalid(class_name, reason, src, "spec.ingressClassName")
    elif annotations.get(CLASS_ANNOTATION):
        class_name = annotations[CLASS_ANNOTATION]
    default = spec.get("defaultBackend")
    default_backend = _backend(default, src, "spec.defaultBackend") if default is not None else None
    rules = []
    for r, fld in t.objs(spec.get("rules"), src, "spec.rules"):
        t.check_fields(r, RULE, src, fld)
        http = t.opt_obj(r.get("http"), src, fld + ".http")
        paths: list[IngressPath] = []
        if http is not None:
            t.check_fields(http, HTTP_RULE, src, fld + ".http")
            items = t.objs(http.get("paths"), src, fld + ".http.paths")
            if not items:
                raise t.required(src, fld + ".http.paths")
            for p, pfld in items:
                t.check_fields(p, PATH, src, pfld)
                path_type = t.string(p.get("pathType"), src, pfld + ".pathType")
                if path_type not in PATH_TYPES:
                    raise t.unsupported(path_type, PATH_TYPES, src, pfld + ".pathType")
                path = t.string(p.get("path"), src, pfld + ".path")
                if path_type != "ImplementationSpecific" and not path.startswith("/"):
                    raise t.invalid(path, "must be an absolute path", src, pfld + ".path")
                if p.get("backend") is None:
                    raise t.required(src, pfld + ".backend")
                paths.append(IngressPath(path, path_type, _backend(p.get("backend"), src, pfld + ".backend")))
        rules.append(IngressRule(t.string(r.get("host"), src, fld + ".host"), tuple(paths)))
    if default_backend is None and not rules:
        raise InputError("Invalid value: either `defaultBackend` or `rules` must be specified", src, "spec")
    tls_hosts: list[str] = []
    tls = t.objs(spec.get("tls"), src, "spec.tls")
    for item, fld in tls:
        tls_hosts += t.strings(item.get("hosts"), src, fld + ".hosts")
    return Ingress(
        namespace=namespace_of(meta, src),
        name=meta["name"],
        class_name=class_name,
        default_backend=default_backend,
        rules=tuple(rules),
        tls_hosts=tuple(tls_hosts),
        tls=bool(tls),
        source=src,
        annotations=annotations_field(meta.get("annotations"), src),
    )


def _backend(value: Any, src: SourceRef, fld: str) -> IngressBackend:
    m = t.obj(value, src, fld)
    t.check_fields(m, BACKEND, src, fld)
    service, resource = t.opt_obj(m.get("service"), src, fld + ".service"), m.get("resource")
    if service is not None and resource is not None:
        raise InputError("Invalid value: cannot set both `service` and `resource` backends", src, fld)
    if service is None and resource is None:
        raise t.required(src, fld, "one backend (`service` or `resource`) must be specified")
    if resource is not None:
        r = t.obj(resource, src, fld + ".resource")
        t.check_fields(r, RESOURCE, src, fld + ".resource")
        kind = t.string(r.get("kind"), src, fld + ".resource.kind")
        name = t.string(r.get("name"), src, fld + ".resource.name")
        if not kind or not name:
            raise t.required(src, fld + ".resource." + ("kind" if not kind else "name"))
        return IngressBackend(resource=f"{kind}/{name}")
    assert service is not None
    t.check_fields(service, SERVICE_BACKEND, src, fld + ".service")
    name = t.string(service.get("name"), src, fld + ".service.name")
    if not name:
        raise t.required(src, fld + ".service.name")
    reason = names.dns1123_label(name)
    if reason:
        raise t.invalid(name, reason, src, fld + ".service.name")
    port = t.obj(service.get("port"), src, fld + ".service.port")
    t.check_fields(port, BACKEND_PORT, src, fld + ".service.port")
    port_name = t.string(port.get("name"), src, fld + ".service.port.name")
    number = t.opt_integer(port.get("number"), src, fld + ".service.port.number")
    if port_name and number is not None:
        raise InputError("Invalid value: cannot set both port name & port number", src, fld + ".service.port")
    if not port_name and number is None:
        raise t.required(src, fld + ".service.port", "port name or number is required")
    if number is not None and not 1 <= number <= 65535:
        raise t.invalid(number, "must be between 1 and 65535, inclusive", src, fld + ".service.port.number")
    if port_name:
        problem = port_name_problem(port_name)
        if problem:
            raise t.invalid(port_name, problem, src, fld + ".service.port.name")
    return IngressBackend(ServiceBackend(name, port_name, number))


def read_ingress_class(obj: Mapping[str, Any], src: SourceRef) -> IngressClass:
    meta = obj["metadata"]
    spec = t.obj(obj.get("spec"), src, "spec")
    controller = t.string(spec.get("controller"), src, "spec.controller")
    if not controller:
        raise t.required(src, "spec.controller")
    annotations = t.string_map(meta.get("annotations"), src, "metadata.annotations")
    return IngressClass(
        name=meta["name"],
        controller=controller,
        default=annotations.get(DEFAULT_CLASS_ANNOTATION) == "true",
        source=src,
    )
