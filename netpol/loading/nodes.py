"""Cluster-scoped objects: Namespaces (their labels decide namespaceSelectors), Nodes, PriorityClasses.

Each reader takes an object whose top level and metadata name were checked by netpol.loading.cluster and
returns the model value; unknown fields are reported by netpol.loading.schema before it runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from netpol.errors import SourceRef
from netpol.loading import typed as t
from netpol.loading.fields import TAINT_EFFECTS, annotations_field, cidr_field, ip_field, labels_field, resources_field
from netpol.model.families import dual_stack_problem
from netpol.model.labels import Labels
from netpol.model.objects import NAMESPACE_NAME_LABEL, Namespace, Node, NodeAddress, PriorityClass, Taint


def read_namespace(obj: Mapping[str, Any], src: SourceRef) -> Namespace:
    meta = obj["metadata"]
    name = meta["name"]
    labels = dict(labels_field(meta.get("labels"), src, "metadata.labels"))
    # The API server sets this immutable label on every namespace since v1.21.
    labels[NAMESPACE_NAME_LABEL] = name
    return Namespace(name, Labels(labels), source=src, annotations=annotations_field(meta.get("annotations"), src))


def read_node(obj: Mapping[str, Any], src: SourceRef) -> Node:
    meta = obj["metadata"]
    spec = t.obj(obj.get("spec"), src, "spec")
    status = t.obj(obj.get("status"), src, "status")
    taints = []
    for tm, fld in t.objs(spec.get("taints"), src, "spec.taints"):
        key = t.string(tm.get("key"), src, fld + ".key")
        if not key:
            raise t.required(src, fld + ".key")
        effect = t.string(tm.get("effect"), src, fld + ".effect")
        if effect not in TAINT_EFFECTS:
            raise t.unsupported(effect, TAINT_EFFECTS, src, fld + ".effect")
        taints.append(Taint(key, t.string(tm.get("value"), src, fld + ".value"), effect))
    pod_cidrs = _pod_cidrs(spec, src)
    addresses = []
    for a, fld in t.objs(status.get("addresses"), src, "status.addresses"):
        addr = NodeAddress(
            t.string(a.get("type"), src, fld + ".type"), t.string(a.get("address"), src, fld + ".address")
        )
        if addr.type in ("InternalIP", "ExternalIP"):
            if not addr.address:
                raise t.required(src, fld + ".address")
            ip_field(addr.address, src, fld + ".address")
        addresses.append(addr)
    capacity = resources_field(status.get("capacity"), src, "status.capacity")
    allocatable = resources_field(status.get("allocatable"), src, "status.allocatable") or capacity
    images = tuple(
        (
            t.strings(im.get("names"), src, fld + ".names"),
            t.integer(im.get("sizeBytes"), src, fld + ".sizeBytes", 0, t.INT64[1], default=0),
        )
        for im, fld in t.objs(status.get("images"), src, "status.images")
    )
    ready = True
    for c, fld in t.objs(status.get("conditions"), src, "status.conditions"):
        if t.string(c.get("type"), src, fld + ".type") == "Ready":
            ready = t.string(c.get("status"), src, fld + ".status") == "True"
    return Node(
        name=meta["name"],
        labels=labels_field(meta.get("labels"), src, "metadata.labels"),
        taints=tuple(taints),
        unschedulable=t.boolean(spec.get("unschedulable"), src, "spec.unschedulable"),
        pod_cidrs=pod_cidrs,
        addresses=tuple(addresses),
        capacity=capacity,
        allocatable=allocatable,
        images=images,
        ready=ready,
        source=src,
    )


def _pod_cidrs(spec: Mapping[str, Any], src: SourceRef) -> tuple[str, ...]:
    """spec.podCIDR and spec.podCIDRs, the first range first. NodeSpec API reference: "If this field is
    specified, the 0th entry must match the podCIDR field. It may contain at most 1 value for each of IPv4
    and IPv6" (dual-stack: one pod range per family)."""
    pod_cidr = t.string(spec.get("podCIDR"), src, "spec.podCIDR")
    if pod_cidr:
        cidr_field(pod_cidr, src, "spec.podCIDR")
    cidrs = []
    for k, value in enumerate(t.arr(spec.get("podCIDRs"), src, "spec.podCIDRs")):
        fld = f"spec.podCIDRs[{k}]"
        cidrs.append(t.string(value, src, fld))
        cidr_field(cidrs[-1], src, fld)
    if not cidrs:
        return (pod_cidr,) if pod_cidr else ()
    if pod_cidr and cidrs[0] != pod_cidr:
        raise t.invalid(cidrs[0], f"must match spec.podCIDR ({pod_cidr})", src, "spec.podCIDRs[0]")
    problem = dual_stack_problem(cidrs)
    if problem:
        raise t.invalid(", ".join(cidrs), problem, src, "spec.podCIDRs")
    return tuple(cidrs)


def read_priority_class(obj: Mapping[str, Any], src: SourceRef) -> PriorityClass:
    """scheduling.k8s.io/v1 PriorityClass: `value` is required; preemptionPolicy defaults to PreemptLowerPriority."""
    if obj.get("value") is None:
        raise t.required(src, "value")
    value = t.integer(obj.get("value"), src, "value", -(2**31), 1_000_000_000)  # above 1e9: system classes only
    policy = t.string(obj.get("preemptionPolicy"), src, "preemptionPolicy") or "PreemptLowerPriority"
    if policy not in ("PreemptLowerPriority", "Never"):
        raise t.unsupported(policy, ("Never", "PreemptLowerPriority"), src, "preemptionPolicy")
    return PriorityClass(
        obj["metadata"]["name"], value, t.boolean(obj.get("globalDefault"), src, "globalDefault"), policy, src
    )
