"""Objects that pick pods by label without owning them: Services (ports, target ports) and PodDisruptionBudgets.

A Service's ports decide which pod port a connection through it reaches, so an unknown key in a ServicePort
is an error; the rest of the spec is checked by netpol.loading.schema (warnings).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from netpol.errors import InputError, SourceRef
from netpol.loading import typed as t
from netpol.loading.fields import (
    annotations_field,
    cidr_field,
    int_or_percent,
    ip_field,
    labels_field,
    namespace_of,
    read_label_selector,
)
from netpol.loading.policies import port_number
from netpol.loading.schema import fields
from netpol.model.objects import PROTOCOLS, PodDisruptionBudget, Service, ServicePort

SERVICE_PORT = fields("ServicePort")
SERVICE_TYPES = ("ClusterIP", "NodePort", "LoadBalancer", "ExternalName")
TRAFFIC_POLICIES = ("Cluster", "Local")
# The older spelling of spec.loadBalancerSourceRanges, which cloud providers still honour when the field is
# empty (concepts/services-networking/service, "type: LoadBalancer"; k8s.io/cloud-provider service helpers).
SOURCE_RANGES_ANNOTATION = "service.beta.kubernetes.io/load-balancer-source-ranges"


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
    external_ips = tuple(
        str(ip_field(v, src, f"spec.externalIPs[{i}]"))
        for i, v in enumerate(t.arr(spec.get("externalIPs"), src, "spec.externalIPs"))
    )
    return Service(
        namespace=namespace_of(meta, src),
        name=meta["name"],
        selector=labels_field(sel, src, "spec.selector") if sel else None,
        ports=tuple(ports),
        type=svc_type,  # type: ignore[arg-type]  # checked against SERVICE_TYPES above
        cluster_ip=t.string(spec.get("clusterIP"), src, "spec.clusterIP"),
        source=src,
        labels=labels_field(meta.get("labels"), src, "metadata.labels"),
        external_traffic_policy=_traffic_policy(spec, svc_type, bool(external_ips), src),
        load_balancer_source_ranges=_source_ranges(meta, spec, src),
        external_ips=external_ips,
        allocate_load_balancer_node_ports=t.boolean(
            spec.get("allocateLoadBalancerNodePorts"), src, "spec.allocateLoadBalancerNodePorts", True
        ),
        annotations=annotations_field(meta.get("annotations"), src),
    )


def _traffic_policy(
    spec: Mapping[str, Any], svc_type: str, external_ips: bool, src: SourceRef
) -> Literal["Cluster", "Local"]:
    """spec.externalTrafficPolicy, defaulted to Cluster; only externally-accessible Services (NodePort,
    LoadBalancer, or with externalIPs) may set it (pkg/apis/core/validation validateServiceExternalTrafficPolicy)."""
    value = t.string(spec.get("externalTrafficPolicy"), src, "spec.externalTrafficPolicy")
    if not value:
        return "Cluster"
    if value not in TRAFFIC_POLICIES:
        raise t.unsupported(value, TRAFFIC_POLICIES, src, "spec.externalTrafficPolicy")
    if svc_type not in ("NodePort", "LoadBalancer") and not external_ips:
        raise t.invalid(value, "may only be set for externally-accessible services", src, "spec.externalTrafficPolicy")
    return "Local" if value == "Local" else "Cluster"


def _source_ranges(meta: Mapping[str, Any], spec: Mapping[str, Any], src: SourceRef) -> tuple[str, ...]:
    """spec.loadBalancerSourceRanges (CIDRs), else the older annotation's comma-separated list."""
    fld = "spec.loadBalancerSourceRanges"
    given = [(v, f"{fld}[{i}]") for i, v in enumerate(t.arr(spec.get("loadBalancerSourceRanges"), src, fld))]
    if not given:
        note = t.string_map(meta.get("annotations"), src, "metadata.annotations").get(SOURCE_RANGES_ANNOTATION, "")
        where = f"metadata.annotations[{SOURCE_RANGES_ANNOTATION}]"
        given = [(part.strip(), where) for part in note.split(",") if part.strip()]
    return tuple(str(cidr_field(v, src, where).cidr) for v, where in given)


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
