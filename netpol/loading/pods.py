"""Pod specs (bare Pods and workload templates): containers and their ports and resources, owners, status.

Every field through netpol.loading.typed: wrong types, out-of-range integers and quoted booleans are
errors naming the field, as the API server's decoder makes them. The scheduling constraints are read in
netpol.loading.placement; unknown fields outside the deciding parts are reported by netpol.loading.schema.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from netpol.errors import InputError, SourceRef
from netpol.loading import typed as t
from netpol.loading.fields import ip_field, labels_field, resources_field
from netpol.loading.placement import affinity, spread, tolerations
from netpol.loading.schema import fields
from netpol.model import names
from netpol.model.families import dual_stack_problem
from netpol.model.labels import FrozenMap
from netpol.model.objects import PROTOCOLS, Container, ContainerPort, OwnerRef, Pod

CONTAINER_PORT = fields("ContainerPort")


def _containers(items: Any, src: SourceRef, fld: str) -> tuple[Container, ...]:
    out: list[Container] = []
    for c, cfld in t.objs(items, src, fld):
        ports = []
        for p, pfld in t.objs(c.get("ports"), src, cfld + ".ports"):
            t.check_fields(p, CONTAINER_PORT, src, pfld)
            num = t.integer(p.get("containerPort"), src, pfld + ".containerPort", 1, 65535)
            proto = t.string(p.get("protocol"), src, pfld + ".protocol") or "TCP"
            if proto not in PROTOCOLS:
                raise t.unsupported(proto, ("SCTP", "TCP", "UDP"), src, pfld + ".protocol")
            ports.append(
                ContainerPort(
                    num,
                    proto,
                    t.string(p.get("name"), src, pfld + ".name"),
                    t.integer(p.get("hostPort"), src, pfld + ".hostPort", 0, 65535, default=0),
                    t.string(p.get("hostIP"), src, pfld + ".hostIP"),
                )
            )
        res = t.obj(c.get("resources"), src, cfld + ".resources")
        limits = resources_field(res.get("limits"), src, cfld + ".resources.limits")
        requests = resources_field(res.get("requests"), src, cfld + ".resources.requests")
        if not requests and limits:
            requests = limits  # the API server defaults requests to limits
        elif limits:
            requests = FrozenMap({**limits, **requests})
        name = t.string(c.get("name"), src, cfld + ".name")
        out.append(
            Container(
                name or f"container-{len(out)}",
                t.string(c.get("image"), src, cfld + ".image"),
                tuple(ports),
                requests,
                limits,
            )
        )
    return tuple(out)


def controller_owner(meta: Mapping[str, Any], src: SourceRef | None = None) -> OwnerRef | None:
    """The controlling owner reference (the ReplicaSet of a pod, the Deployment of a ReplicaSet)."""
    src = src or SourceRef()
    for o, ofld in t.objs(meta.get("ownerReferences"), src, "metadata.ownerReferences"):
        if t.boolean(o.get("controller"), src, ofld + ".controller", default=True):
            kind, name = t.string(o.get("kind"), src, ofld + ".kind"), t.string(o.get("name"), src, ofld + ".name")
            for key, value in (("kind", kind), ("name", name)):  # required fields of metav1.OwnerReference
                if not value:
                    raise InputError(f"an ownerReference needs {key} (a required field)", src, f"{ofld}.{key}")
            return OwnerRef(kind, name)
    return None


def read_pod(
    meta: Mapping[str, Any],
    spec: Mapping[str, Any],
    status: Mapping[str, Any],
    src: SourceRef,
    fld: str,
    *,
    namespace: str,
    name: str,
    labels_path: str = "metadata.labels",
    order: int = 0,
) -> Pod:
    """Read a Pod or a workload's pod template (fld is the path prefix of `spec` for error messages); `order`: its
    creation order in the input (given here, not by a copy after: one Pod built per object read)."""
    spec = t.obj(spec, src, fld)
    status = t.obj(status, src, "status")
    owner = controller_owner(meta, src)
    overhead = resources_field(spec.get("overhead"), src, fld + ".overhead")
    pod_ips = _pod_ips(status, src)
    preemption = t.string(spec.get("preemptionPolicy"), src, fld + ".preemptionPolicy")
    if preemption not in ("", "PreemptLowerPriority", "Never"):
        raise t.unsupported(preemption, ("Never", "PreemptLowerPriority"), src, fld + ".preemptionPolicy")
    node_name = t.string(spec.get("nodeName"), src, fld + ".nodeName")
    if node_name:
        reason = names.dns1123_subdomain(node_name)
        if reason:
            raise t.invalid(node_name, reason, src, fld + ".nodeName")
    return Pod(
        namespace=namespace,
        name=name,
        labels=labels_field(meta.get("labels"), src, labels_path),
        containers=_containers(spec.get("containers"), src, fld + ".containers"),
        init_containers=_containers(spec.get("initContainers"), src, fld + ".initContainers"),
        node_name=node_name,
        node_selector=labels_field(spec.get("nodeSelector"), src, fld + ".nodeSelector"),
        affinity=affinity(spec.get("affinity"), src, fld + ".affinity"),
        tolerations=tolerations(spec.get("tolerations"), src, fld + ".tolerations"),
        topology_spread_constraints=spread(
            spec.get("topologySpreadConstraints"), src, fld + ".topologySpreadConstraints"
        ),
        host_network=t.boolean(spec.get("hostNetwork"), src, fld + ".hostNetwork"),
        priority=t.integer(spec.get("priority"), src, fld + ".priority", default=0),
        overhead=overhead,
        scheduler_name=t.string(spec.get("schedulerName"), src, fld + ".schedulerName") or "default-scheduler",
        has_empty_dir=any(v.get("emptyDir") is not None for v, _ in t.objs(spec.get("volumes"), src, fld + ".volumes")),
        owner=owner,
        phase=t.string(status.get("phase"), src, "status.phase"),
        pod_ips=pod_ips,
        reason=unscheduled_reason(status),
        source=src,
        priority_class_name=t.string(spec.get("priorityClassName"), src, fld + ".priorityClassName"),
        preemption_policy=preemption,
        service_account=t.string(spec.get("serviceAccountName"), src, fld + ".serviceAccountName")
        or t.string(spec.get("serviceAccount"), src, fld + ".serviceAccount")
        or "default",
        mirror="kubernetes.io/config.mirror" in t.string_map(meta.get("annotations"), src, "metadata.annotations"),
        terminating=bool(t.timestamp(meta.get("deletionTimestamp"), src, "metadata.deletionTimestamp")),
        start_time=t.timestamp(status.get("startTime"), src, "status.startTime"),
        order=order,
    )


def _pod_ips(status: Mapping[str, Any], src: SourceRef) -> tuple[str, ...]:
    """status.podIP and status.podIPs: every address of the pod, the primary first. PodStatus API reference:
    "If this field is specified, the 0th entry must match the podIP field. Pods may be allocated at most 1
    value for each of IPv4 and IPv6" (dual-stack: one address per family)."""
    pod_ip = t.string(status.get("podIP"), src, "status.podIP")
    if pod_ip:
        ip_field(pod_ip, src, "status.podIP")
    ips = []
    for item, fld in t.objs(status.get("podIPs"), src, "status.podIPs"):
        ip = t.string(item.get("ip"), src, fld + ".ip")
        if not ip:
            raise t.required(src, fld + ".ip")
        ip_field(ip, src, fld + ".ip")
        ips.append(ip)
    if not ips:
        return (pod_ip,) if pod_ip else ()
    if pod_ip and ips[0] != pod_ip:
        raise t.invalid(ips[0], f"must match status.podIP ({pod_ip})", src, "status.podIPs[0].ip")
    problem = dual_stack_problem(ips)
    if problem:
        raise t.invalid(", ".join(ips), problem, src, "status.podIPs")
    return tuple(ips)


def unscheduled_reason(status: Mapping[str, Any]) -> str:
    """A cluster's own word on a pod it could not place: the PodScheduled=False condition's message (the
    FailedScheduling text kube-scheduler writes, pkg/scheduler/schedule_one.go handleSchedulingFailure)."""
    for c in status.get("conditions") or () if isinstance(status, Mapping) else ():
        if isinstance(c, Mapping) and c.get("type") == "PodScheduled" and c.get("status") == "False":
            return str(c.get("message") or c.get("reason") or "")
    return ""
