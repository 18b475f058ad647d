"""OpenShift's Route (route.openshift.io/v1) → model.

The Services a Route forwards to and on which port decide what the router exposes: `to` and
`alternateBackends` (kind Service, the only kind allowed; a name; weight 0–256, default 100) and
`port.targetPort` are validated as openshift/api route/v1 types.go marks them, and an unknown key there is an
error; TLS termination is read to know whether the router serves HTTPS. The rest is checked by
netpol.loading.schema (warnings).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from netpol.errors import SourceRef
from netpol.loading import typed as t
from netpol.loading.fields import annotations_field, namespace_of
from netpol.loading.policies import port_number
from netpol.loading.schema import fields
from netpol.model import names
from netpol.model.openshift import Route, RouteTarget

TARGET = fields("RouteTargetReference")
PORT = fields("RoutePort")
TERMINATIONS = ("edge", "passthrough", "reencrypt")
INSECURE = ("Allow", "None", "Redirect", "")


def read_route(obj: Mapping[str, Any], src: SourceRef) -> Route:
    meta = obj["metadata"]
    spec = t.obj(obj.get("spec"), src, "spec")
    if spec.get("to") is None:
        raise t.required(src, "spec.to")
    to = _target(spec.get("to"), src, "spec.to")
    alternates = tuple(
        _target(m, src, fld) for m, fld in t.objs(spec.get("alternateBackends"), src, "spec.alternateBackends")
    )
    if len(alternates) > 3:
        raise t.invalid(len(alternates), "must have at most 3 items", src, "spec.alternateBackends")
    target_port = None
    port = t.opt_obj(spec.get("port"), src, "spec.port")
    if port is not None:
        t.check_fields(port, PORT, src, "spec.port")
        target_port = port_number(port.get("targetPort"), src, "spec.port.targetPort")
        if target_port is None:
            raise t.required(src, "spec.port.targetPort")
    tls = t.obj(spec.get("tls"), src, "spec.tls")
    termination = t.string(tls.get("termination"), src, "spec.tls.termination")
    if spec.get("tls") is not None and termination not in TERMINATIONS:
        raise t.unsupported(termination, TERMINATIONS, src, "spec.tls.termination")
    insecure = t.string(tls.get("insecureEdgeTerminationPolicy"), src, "spec.tls.insecureEdgeTerminationPolicy")
    if insecure not in INSECURE:
        raise t.unsupported(insecure, INSECURE[:3], src, "spec.tls.insecureEdgeTerminationPolicy")
    return Route(
        namespace=namespace_of(meta, src),
        name=meta["name"],
        to=to,
        alternate_backends=alternates,
        target_port=target_port,
        host=t.string(spec.get("host"), src, "spec.host"),
        path=t.string(spec.get("path"), src, "spec.path"),
        tls_termination=termination,
        insecure_edge=insecure,
        source=src,
        annotations=annotations_field(meta.get("annotations"), src),
    )


def _target(value: Any, src: SourceRef, fld: str) -> RouteTarget:
    m = t.obj(value, src, fld)
    t.check_fields(m, TARGET, src, fld)
    kind = t.string(m.get("kind"), src, fld + ".kind") or "Service"
    if kind != "Service":
        raise t.unsupported(kind, ("Service",), src, fld + ".kind")
    name = t.string(m.get("name"), src, fld + ".name")
    if not name:
        raise t.required(src, fld + ".name")
    reason = names.dns1123_label(name)
    if reason:
        raise t.invalid(name, reason, src, fld + ".name")
    weight = t.integer(m.get("weight"), src, fld + ".weight", 0, 256, default=100)
    return RouteTarget(name, kind, weight)
