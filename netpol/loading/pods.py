"""Pod specs (bare Pods and workload templates): containers, resources, tolerations, affinity, spreading."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from netpol.errors import InputError, SourceRef
from netpol.loading.fields import (
    TAINT_EFFECTS,
    int_field,
    ip_field,
    labels_field,
    read_label_selector,
    resources_field,
    scalar_str,
)
from netpol.model.labels import NODE_SELECTOR_OPERATORS, FrozenMap, NodeSelectorRequirement, NodeSelectorTerm
from netpol.model.objects import (
    PROTOCOLS,
    Affinity,
    Container,
    ContainerPort,
    NodeAffinity,
    OwnerRef,
    Pod,
    PodAffinity,
    PodAffinityTerm,
    PodAntiAffinity,
    PreferredSchedulingTerm,
    Toleration,
    TopologySpreadConstraint,
    WeightedPodAffinityTerm,
)


def _node_requirements(items: Any, src: SourceRef, fld: str, *, fields: bool) -> tuple[NodeSelectorRequirement, ...]:
    out = []
    for i, e in enumerate(items or []):
        efld = f"{fld}[{i}]"
        if not isinstance(e, Mapping) or not e.get("key"):
            raise InputError("requirement needs a key", src, efld + ".key")
        op = e.get("operator")
        if op not in NODE_SELECTOR_OPERATORS:
            raise InputError(
                f"unknown operator {op!r} (expected one of {', '.join(NODE_SELECTOR_OPERATORS)})",
                src,
                efld + ".operator",
            )
        values = tuple(scalar_str(v) for v in e.get("values") or [])
        if op in ("In", "NotIn") and not values:
            raise InputError(f"operator {op} needs at least one value", src, efld + ".values")
        if op in ("Exists", "DoesNotExist") and values:
            raise InputError(f"operator {op} must not have values", src, efld + ".values")
        if op in ("Gt", "Lt"):
            if len(values) != 1:
                raise InputError(f"operator {op} needs exactly one value", src, efld + ".values")
            try:
                int(values[0])
            except ValueError:
                raise InputError(
                    f"operator {op} needs an integer value, got {values[0]!r}", src, efld + ".values"
                ) from None
        if fields and e["key"] != "metadata.name":
            raise InputError(f"matchFields supports only metadata.name, got {e['key']!r}", src, efld + ".key")
        if fields and op not in ("In", "NotIn"):
            raise InputError("matchFields supports only In and NotIn", src, efld + ".operator")
        out.append(NodeSelectorRequirement(str(e["key"]), op, values))
    return tuple(out)


def _node_term(t: Any, src: SourceRef, fld: str) -> NodeSelectorTerm:
    if not isinstance(t, Mapping):
        raise InputError("must be a node selector term", src, fld)
    return NodeSelectorTerm(
        _node_requirements(t.get("matchExpressions"), src, fld + ".matchExpressions", fields=False),
        _node_requirements(t.get("matchFields"), src, fld + ".matchFields", fields=True),
    )


def _pod_affinity_term(t: Any, src: SourceRef, fld: str) -> PodAffinityTerm:
    if not isinstance(t, Mapping):
        raise InputError("must be a pod affinity term", src, fld)
    key = t.get("topologyKey")
    if not key:
        raise InputError("topologyKey is required", src, fld + ".topologyKey")
    ls = t.get("labelSelector")
    nss = t.get("namespaceSelector")
    return PodAffinityTerm(
        topology_key=str(key),
        label_selector=read_label_selector(ls, src, fld + ".labelSelector") if ls is not None else None,
        namespaces=tuple(str(n) for n in t.get("namespaces") or []),
        namespace_selector=read_label_selector(nss, src, fld + ".namespaceSelector") if nss is not None else None,
        match_label_keys=tuple(str(k) for k in t.get("matchLabelKeys") or []),
        mismatch_label_keys=tuple(str(k) for k in t.get("mismatchLabelKeys") or []),
    )


def _weighted_terms(items: Any, src: SourceRef, fld: str) -> tuple[WeightedPodAffinityTerm, ...]:
    out = []
    for i, w in enumerate(items or []):
        wfld = f"{fld}[{i}]"
        weight = int_field((w or {}).get("weight"), src, wfld + ".weight", minimum=1)
        if weight > 100:
            raise InputError(f"weight must be in 1..100, got {weight}", src, wfld + ".weight")
        out.append(
            WeightedPodAffinityTerm(
                weight, _pod_affinity_term(w.get("podAffinityTerm"), src, wfld + ".podAffinityTerm")
            )
        )
    return tuple(out)


def _affinity(value: Any, src: SourceRef, fld: str) -> Affinity | None:
    if not value:
        return None
    na = value.get("nodeAffinity")
    node_affinity = None
    if na:
        req = na.get("requiredDuringSchedulingIgnoredDuringExecution")
        required = None
        if req is not None:
            rfld = fld + ".nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
            required = tuple(
                _node_term(t, src, f"{rfld}[{i}]") for i, t in enumerate(req.get("nodeSelectorTerms") or [])
            )
        preferred = []
        for i, p in enumerate(na.get("preferredDuringSchedulingIgnoredDuringExecution") or []):
            pfld = f"{fld}.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[{i}]"
            weight = int_field((p or {}).get("weight"), src, pfld + ".weight", minimum=1)
            if weight > 100:
                raise InputError(f"weight must be in 1..100, got {weight}", src, pfld + ".weight")
            preferred.append(
                PreferredSchedulingTerm(weight, _node_term(p.get("preference") or {}, src, pfld + ".preference"))
            )
        node_affinity = NodeAffinity(required, tuple(preferred))

    def pod_terms(key: str) -> tuple[tuple[PodAffinityTerm, ...], tuple[WeightedPodAffinityTerm, ...]] | None:
        pa = value.get(key)
        if not pa:
            return None
        req = tuple(
            _pod_affinity_term(t, src, f"{fld}.{key}.requiredDuringSchedulingIgnoredDuringExecution[{i}]")
            for i, t in enumerate(pa.get("requiredDuringSchedulingIgnoredDuringExecution") or [])
        )
        pref = _weighted_terms(
            pa.get("preferredDuringSchedulingIgnoredDuringExecution"),
            src,
            f"{fld}.{key}.preferredDuringSchedulingIgnoredDuringExecution",
        )
        return req, pref

    pa = pod_terms("podAffinity")
    paa = pod_terms("podAntiAffinity")
    return Affinity(
        node_affinity,
        PodAffinity(*pa) if pa else None,
        PodAntiAffinity(*paa) if paa else None,
    )


def _containers(items: Any, src: SourceRef, fld: str) -> tuple[Container, ...]:
    out = []
    for i, c in enumerate(items or []):
        cfld = f"{fld}[{i}]"
        if not isinstance(c, Mapping):
            raise InputError("must be a container", src, cfld)
        ports = []
        for j, p in enumerate(c.get("ports") or []):
            pfld = f"{cfld}.ports[{j}]"
            num = int_field(p.get("containerPort"), src, pfld + ".containerPort", minimum=1)
            if num > 65535:
                raise InputError(f"port must be in 1..65535, got {num}", src, pfld + ".containerPort")
            proto = str(p.get("protocol") or "TCP")
            if proto not in PROTOCOLS:
                raise InputError(f"unknown protocol {proto!r} (expected TCP, UDP or SCTP)", src, pfld + ".protocol")
            host_port = p.get("hostPort") or 0
            ports.append(
                ContainerPort(
                    num,
                    proto,
                    str(p.get("name") or ""),
                    int_field(host_port, src, pfld + ".hostPort"),
                    str(p.get("hostIP") or ""),
                )
            )
        res = c.get("resources") or {}
        limits = resources_field(res.get("limits"), src, cfld + ".resources.limits")
        requests = resources_field(res.get("requests"), src, cfld + ".resources.requests")
        if not requests and limits:
            requests = limits  # the API server defaults requests to limits
        elif limits:
            requests = FrozenMap({**limits, **requests})
        out.append(
            Container(str(c.get("name") or f"container-{i}"), str(c.get("image") or ""), tuple(ports), requests, limits)
        )
    return tuple(out)


def _tolerations(items: Any, src: SourceRef, fld: str) -> tuple[Toleration, ...]:
    out = []
    for i, t in enumerate(items or []):
        tfld = f"{fld}[{i}]"
        if not isinstance(t, Mapping):
            raise InputError("must be a toleration", src, tfld)
        op = t.get("operator") or "Equal"
        if op not in ("Equal", "Exists"):
            raise InputError(f"unknown operator {op!r} (expected Equal or Exists)", src, tfld + ".operator")
        effect = t.get("effect") or ""
        if effect and effect not in TAINT_EFFECTS:
            raise InputError(f"unknown effect {effect!r}", src, tfld + ".effect")
        if op == "Exists" and t.get("value"):
            raise InputError("operator Exists must not have a value", src, tfld + ".value")
        if not t.get("key") and op != "Exists":
            raise InputError("an empty key needs operator Exists", src, tfld + ".operator")
        secs = t.get("tolerationSeconds")
        out.append(
            Toleration(
                str(t.get("key") or ""),
                op,
                scalar_str(t.get("value") or ""),
                effect,
                None if secs is None else int_field(secs, src, tfld + ".tolerationSeconds"),
            )
        )
    return tuple(out)


def _spread(items: Any, src: SourceRef, fld: str) -> tuple[TopologySpreadConstraint, ...]:
    out = []
    for i, c in enumerate(items or []):
        cfld = f"{fld}[{i}]"
        wu = c.get("whenUnsatisfiable")
        if wu not in ("DoNotSchedule", "ScheduleAnyway"):
            raise InputError(
                f"whenUnsatisfiable must be DoNotSchedule or ScheduleAnyway, got {wu!r}",
                src,
                cfld + ".whenUnsatisfiable",
            )
        if not c.get("topologyKey"):
            raise InputError("topologyKey is required", src, cfld + ".topologyKey")
        ls = c.get("labelSelector")
        md = c.get("minDomains")
        out.append(
            TopologySpreadConstraint(
                max_skew=int_field(c.get("maxSkew"), src, cfld + ".maxSkew", minimum=1),
                topology_key=str(c["topologyKey"]),
                when_unsatisfiable=wu,
                label_selector=read_label_selector(ls, src, cfld + ".labelSelector") if ls is not None else None,
                min_domains=None if md is None else int_field(md, src, cfld + ".minDomains", minimum=1),
                node_affinity_policy=str(c.get("nodeAffinityPolicy") or "Honor"),
                node_taints_policy=str(c.get("nodeTaintsPolicy") or "Ignore"),
                match_label_keys=tuple(str(k) for k in c.get("matchLabelKeys") or []),
            )
        )
    return tuple(out)


def controller_owner(meta: Mapping[str, Any]) -> OwnerRef | None:
    """The controlling owner reference (the ReplicaSet of a pod, the Deployment of a ReplicaSet)."""
    for o in meta.get("ownerReferences") or []:
        if isinstance(o, Mapping) and o.get("controller", True):
            return OwnerRef(str(o.get("kind")), str(o.get("name")))
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
) -> Pod:
    """Read a Pod or a workload's pod template (fld is the path prefix of `spec` for error messages)."""
    if not isinstance(spec, Mapping):
        raise InputError("must be a pod spec", src, fld)
    owner = controller_owner(meta)
    overhead = resources_field(spec.get("overhead"), src, fld + ".overhead")
    pod_ip = str(status.get("podIP") or "")
    if pod_ip:
        ip_field(pod_ip, src, "status.podIP")
    priority = spec.get("priority")
    return Pod(
        namespace=namespace,
        name=name,
        labels=labels_field(meta.get("labels"), src, "metadata.labels"),
        containers=_containers(spec.get("containers"), src, fld + ".containers"),
        init_containers=_containers(spec.get("initContainers"), src, fld + ".initContainers"),
        node_name=str(spec.get("nodeName") or ""),
        node_selector=labels_field(spec.get("nodeSelector"), src, fld + ".nodeSelector"),
        affinity=_affinity(spec.get("affinity"), src, fld + ".affinity"),
        tolerations=_tolerations(spec.get("tolerations"), src, fld + ".tolerations"),
        topology_spread_constraints=_spread(
            spec.get("topologySpreadConstraints"), src, fld + ".topologySpreadConstraints"
        ),
        host_network=bool(spec.get("hostNetwork")),
        priority=int_field(priority, src, fld + ".priority") if priority is not None else 0,
        overhead=overhead,
        scheduler_name=str(spec.get("schedulerName") or "default-scheduler"),
        has_empty_dir=any(isinstance(v, Mapping) and "emptyDir" in v for v in spec.get("volumes") or []),
        owner=owner,
        phase=str(status.get("phase") or ""),
        pod_ip=pod_ip,
        reason=unscheduled_reason(status),
        source=src,
        priority_class_name=str(spec.get("priorityClassName") or ""),
        preemption_policy=str(spec.get("preemptionPolicy") or ""),
        mirror="kubernetes.io/config.mirror" in (meta.get("annotations") or {}),
        terminating=bool(meta.get("deletionTimestamp")),
        start_time=str(status.get("startTime") or ""),
    )


def unscheduled_reason(status: Mapping[str, Any]) -> str:
    """A cluster's own word on a pod it could not place: the PodScheduled=False condition's message (the
    FailedScheduling text kube-scheduler writes, pkg/scheduler/schedule_one.go handleSchedulingFailure)."""
    for c in status.get("conditions") or () if isinstance(status, Mapping) else ():
        if isinstance(c, Mapping) and c.get("type") == "PodScheduled" and c.get("status") == "False":
            return str(c.get("message") or c.get("reason") or "")
    return ""
