"""Objects that pick pods by label without owning them: Services (ports, target ports) and PodDisruptionBudgets.

A Service's ports decide which pod port a connection through it reaches, so an unknown key in a ServicePort
is an error; the rest of the spec is checked by netpol.loading.schema (warnings).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from netpol.errors import InputError, SourceRef
from netpol.loading import typed as t
from netpol.loading.fields import int_or_percent, labels_field, namespace_of, read_label_selector
from netpol.loading.policies import port_number
from netpol.loading.schema import fields
from netpol.model.objects import PROTOCOLS, PodDisruptionBudget, Service, ServicePort

SERVICE_PORT = fields("ServicePort")
SERVICE_TYPES = ("ClusterIP", "NodePort", "LoadBalancer", "ExternalName")


def read_service(obj: Mapping[str, Any], src: SourceRef) -> Service:
    meta = obj["metadata"]
    spec = t.obj(obj.get("spec"), src, "spec")
    ports = []
    for p, pfld in t.objs(spec.get("ports"), src, "spec.ports"):
        t.check_fields(p, SERVICE_PORT, src, pfld)
        port = t.integer(p.get("port"), src, pfld + ".port", 1, 65535)
        target: int | str = port_number(p.get("targetPort"), src, pfld + ".targetPort") or port  # default: port
        proto = t.string(p.get("protocol"), src, pfld + ".protocol") or "TCP"
        if proto not in PROTOCOLS:
            raise t.unsupported(proto, ("SCTP", "TCP", "UDP"), src, pfld + ".protocol")
        ports.append(
            ServicePort(
                port,
                target,
                proto,
                t.string(p.get("name"), src, pfld + ".name"),
                t.opt_integer(p.get("nodePort"), src, pfld + ".nodePort", 0, 65535),
            )
        )
    sel = spec.get("selector")
    svc_type = t.string(spec.get("type"), src, "spec.type") or "ClusterIP"
    if svc_type not in SERVICE_TYPES:
        raise t.unsupported(svc_type, SERVICE_TYPES, src, "spec.type")
    return Service(
        namespace=namespace_of(meta, src),
        name=meta["name"],
        selector=labels_field(sel, src, "spec.selector") if sel else None,
        ports=tuple(ports),
        type=svc_type,
        cluster_ip=t.string(spec.get("clusterIP"), src, "spec.clusterIP"),
        source=src,
        labels=labels_field(meta.get("labels"), src, "metadata.labels"),
    )


def read_pdb(obj: Mapping[str, Any], src: SourceRef) -> PodDisruptionBudget:
    meta = obj["metadata"]
    spec = t.obj(obj.get("spec"), src, "spec")
    sel = spec.get("selector")
    pdb = PodDisruptionBudget(
        namespace=namespace_of(meta, src),
        name=meta["name"],
        selector=read_label_selector(sel, src, "spec.selector") if sel is not None else None,
        min_available=int_or_percent(spec.get("minAvailable"), src, "spec.minAvailable"),
        max_unavailable=int_or_percent(spec.get("maxUnavailable"), src, "spec.maxUnavailable"),
        source=src,
    )
    if pdb.min_available is not None and pdb.max_unavailable is not None:
        raise InputError("Invalid value: minAvailable and maxUnavailable cannot be both set", src, "spec")
    return pdb
