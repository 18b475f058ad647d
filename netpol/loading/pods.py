"""Pod specs (bare Pods and workload templates): containers, resources, tolerations, affinity, spreading.

Every field through netpol.loading.typed: wrong types, out-of-range integers and quoted booleans are
errors naming the field, as the API server's decoder makes them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from netpol.errors import InputError, SourceRef
from netpol.loading import typed as t
from netpol.loading.fields import (
    TAINT_EFFECTS,
    ip_field,
    labels_field,
    read_label_selector,
    resources_field,
)
from netpol.model import names
from netpol.model.families import dual_stack_problem
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

POD_SPEC = frozenset(
    {
        "volumes",
        "initContainers",
        "containers",
        "ephemeralContainers",
        "restartPolicy",
        "terminationGracePeriodSeconds",
        "activeDeadlineSeconds",
        "dnsPolicy",
        "nodeSelector",
        "serviceAccountName",
        "serviceAccount",
        "automountServiceAccountToken",
        "nodeName",
        "hostNetwork",
        "hostPID",
        "hostIPC",
        "shareProcessNamespace",
        "securityContext",
        "imagePullSecrets",
        "hostname",
        "subdomain",
        "affinity",
        "schedulerName",
        "tolerations",
        "hostAliases",
        "priorityClassName",
        "priority",
        "dnsConfig",
        "readinessGates",
        "runtimeClassName",
        "enableServiceLinks",
        "preemptionPolicy",
        "overhead",
        "topologySpreadConstraints",
        "setHostnameAsFQDN",
        "os",
        "hostUsers",
        "schedulingGates",
        "resourceClaims",
        "resources",
    }
)
CONTAINER = frozenset(
    {
        "name",
        "image",
        "command",
        "args",
        "workingDir",
        "ports",
        "envFrom",
        "env",
        "resources",
        "resizePolicy",
        "restartPolicy",
        "volumeMounts",
        "volumeDevices",
        "livenessProbe",
        "readinessProbe",
        "startupProbe",
        "lifecycle",
        "terminationMessagePath",
        "terminationMessagePolicy",
        "imagePullPolicy",
        "securityContext",
        "stdin",
        "stdinOnce",
        "tty",
    }
)
CONTAINER_PORT = frozenset({"name", "hostPort", "containerPort", "protocol", "hostIP"})
RESOURCES = frozenset({"limits", "requests", "claims"})
TOLERATION = frozenset({"key", "operator", "value", "effect", "tolerationSeconds"})
NODE_REQUIREMENT = frozenset({"key", "operator", "values"})
NODE_TERM = frozenset({"matchExpressions", "matchFields"})
AFFINITY = frozenset({"nodeAffinity", "podAffinity", "podAntiAffinity"})
NODE_AFFINITY = frozenset(
    {"requiredDuringSchedulingIgnoredDuringExecution", "preferredDuringSchedulingIgnoredDuringExecution"}
)
POD_AFFINITY = NODE_AFFINITY
POD_AFFINITY_TERM = frozenset(
    {"labelSelector", "namespaces", "topologyKey", "namespaceSelector", "matchLabelKeys", "mismatchLabelKeys"}
)
SPREAD = frozenset(
    {
        "maxSkew",
        "topologyKey",
        "whenUnsatisfiable",
        "labelSelector",
        "minDomains",
        "nodeAffinityPolicy",
        "nodeTaintsPolicy",
        "matchLabelKeys",
    }
)


def _unsupported(value: Any, allowed: tuple[str, ...], src: SourceRef, fld: str) -> InputError:
    return t.unsupported(value, allowed, src, fld)


def _node_requirements(items: Any, src: SourceRef, fld: str, *, fields: bool) -> tuple[NodeSelectorRequirement, ...]:
    out = []
    for e, efld in t.objs(items, src, fld):
        t.check_fields(e, NODE_REQUIREMENT, src, efld)
        key = t.string(e.get("key"), src, efld + ".key")
        if not key:
            raise t.required(src, efld + ".key")
        op = e.get("operator")
        if op not in NODE_SELECTOR_OPERATORS:
            raise _unsupported(op, NODE_SELECTOR_OPERATORS, src, efld + ".operator")
        values = t.strings(e.get("values"), src, efld + ".values")
        if op in ("In", "NotIn") and not values:
            raise t.required(src, efld + ".values", f"must be specified when `operator` is '{op}'")
        if op in ("Exists", "DoesNotExist") and values:
            raise InputError(f"Forbidden: may not be specified when `operator` is '{op}'", src, efld + ".values")
        if op in ("Gt", "Lt"):
            if len(values) != 1:
                raise t.required(src, efld + ".values", f"must be specified single value when `operator` is '{op}'")
            v = values[0]
            if not (v.lstrip("-").isdigit() and v.isascii() and len(v) <= 20 and t.INT64[0] <= int(v) <= t.INT64[1]):
                raise t.invalid(v, "must be an integer", src, efld + ".values[0]")
        if fields and key != "metadata.name":
            raise t.invalid(key, "not a valid field selector key (only metadata.name)", src, efld + ".key")
        if fields and op not in ("In", "NotIn"):
            raise _unsupported(op, ("In", "NotIn"), src, efld + ".operator")
        out.append(NodeSelectorRequirement(key, op, values))
    return tuple(out)


def _node_term(value: Any, src: SourceRef, fld: str) -> NodeSelectorTerm:
    m = t.obj(value, src, fld)
    t.check_fields(m, NODE_TERM, src, fld)
    return NodeSelectorTerm(
        _node_requirements(m.get("matchExpressions"), src, fld + ".matchExpressions", fields=False),
        _node_requirements(m.get("matchFields"), src, fld + ".matchFields", fields=True),
    )


def _pod_affinity_term(value: Any, src: SourceRef, fld: str) -> PodAffinityTerm:
    m = t.obj(value, src, fld)
    t.check_fields(m, POD_AFFINITY_TERM, src, fld)
    key = t.string(m.get("topologyKey"), src, fld + ".topologyKey")
    if not key:
        raise t.required(src, fld + ".topologyKey", "can not be empty")
    ls = m.get("labelSelector")
    nss = m.get("namespaceSelector")
    return PodAffinityTerm(
        topology_key=key,
        label_selector=read_label_selector(ls, src, fld + ".labelSelector") if ls is not None else None,
        namespaces=t.strings(m.get("namespaces"), src, fld + ".namespaces"),
        namespace_selector=read_label_selector(nss, src, fld + ".namespaceSelector") if nss is not None else None,
        match_label_keys=t.strings(m.get("matchLabelKeys"), src, fld + ".matchLabelKeys"),
        mismatch_label_keys=t.strings(m.get("mismatchLabelKeys"), src, fld + ".mismatchLabelKeys"),
    )


def _weight(m: Mapping[str, Any], src: SourceRef, fld: str) -> int:
    return t.integer(m.get("weight"), src, fld + ".weight", 1, 100)


def _weighted_terms(items: Any, src: SourceRef, fld: str) -> tuple[WeightedPodAffinityTerm, ...]:
    out = []
    for w, wfld in t.objs(items, src, fld):
        t.check_fields(w, frozenset({"weight", "podAffinityTerm"}), src, wfld)
        out.append(
            WeightedPodAffinityTerm(
                _weight(w, src, wfld), _pod_affinity_term(w.get("podAffinityTerm"), src, wfld + ".podAffinityTerm")
            )
        )
    return tuple(out)


def _affinity(value: Any, src: SourceRef, fld: str) -> Affinity | None:
    m = t.obj(value, src, fld)
    if not m:
        return None
    t.check_fields(m, AFFINITY, src, fld)
    na = t.obj(m.get("nodeAffinity"), src, fld + ".nodeAffinity")
    node_affinity = None
    if na:
        t.check_fields(na, NODE_AFFINITY, src, fld + ".nodeAffinity")
        rfld = fld + ".nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
        req = t.opt_obj(na.get("requiredDuringSchedulingIgnoredDuringExecution"), src, rfld)
        required = None
        if req is not None:
            t.check_fields(req, frozenset({"nodeSelectorTerms"}), src, rfld)
            required = tuple(
                _node_term(term, src, f"{rfld}.nodeSelectorTerms[{i}]")
                for i, term in enumerate(t.arr(req.get("nodeSelectorTerms"), src, rfld + ".nodeSelectorTerms"))
            )
        preferred = []
        pbase = fld + ".nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution"
        for p, pfld in t.objs(na.get("preferredDuringSchedulingIgnoredDuringExecution"), src, pbase):
            t.check_fields(p, frozenset({"weight", "preference"}), src, pfld)
            preferred.append(
                PreferredSchedulingTerm(
                    _weight(p, src, pfld), _node_term(p.get("preference"), src, pfld + ".preference")
                )
            )
        node_affinity = NodeAffinity(required, tuple(preferred))

    def pod_terms(key: str) -> tuple[tuple[PodAffinityTerm, ...], tuple[WeightedPodAffinityTerm, ...]] | None:
        pa = t.obj(m.get(key), src, f"{fld}.{key}")
        if not pa:
            return None
        t.check_fields(pa, POD_AFFINITY, src, f"{fld}.{key}")
        rbase = f"{fld}.{key}.requiredDuringSchedulingIgnoredDuringExecution"
        req = tuple(
            _pod_affinity_term(term, src, f"{rbase}[{i}]")
            for i, term in enumerate(t.arr(pa.get("requiredDuringSchedulingIgnoredDuringExecution"), src, rbase))
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


def _containers(items: Any, src: SourceRef, fld: str, findings: t.Findings | None) -> tuple[Container, ...]:
    out = []
    for c, cfld in t.objs(items, src, fld):
        t.check_fields(c, CONTAINER, src, cfld, findings)
        ports = []
        for p, pfld in t.objs(c.get("ports"), src, cfld + ".ports"):
            t.check_fields(p, CONTAINER_PORT, src, pfld)
            num = t.integer(p.get("containerPort"), src, pfld + ".containerPort", 1, 65535)
            proto = t.string(p.get("protocol"), src, pfld + ".protocol") or "TCP"
            if proto not in PROTOCOLS:
                raise _unsupported(proto, ("SCTP", "TCP", "UDP"), src, pfld + ".protocol")
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
        t.check_fields(res, RESOURCES, src, cfld + ".resources", findings)
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


def _tolerations(items: Any, src: SourceRef, fld: str) -> tuple[Toleration, ...]:
    out = []
    for m, tfld in t.objs(items, src, fld):
        t.check_fields(m, TOLERATION, src, tfld)
        op = t.string(m.get("operator"), src, tfld + ".operator") or "Equal"
        if op not in ("Equal", "Exists"):
            raise _unsupported(op, ("Equal", "Exists"), src, tfld + ".operator")
        effect = t.string(m.get("effect"), src, tfld + ".effect")
        if effect and effect not in TAINT_EFFECTS:
            raise _unsupported(effect, TAINT_EFFECTS, src, tfld + ".effect")
        key = t.string(m.get("key"), src, tfld + ".key")
        value = t.string(m.get("value"), src, tfld + ".value")
        if op == "Exists" and value:
            raise t.invalid(value, "value must be empty when `operator` is 'Exists'", src, tfld + ".value")
        if not key and op != "Exists":
            if m.get("operator") is None:  # nothing to point at but the missing key
                raise t.required(src, tfld + ".key", "an empty key needs operator Exists (match every taint)")
            raise t.invalid(op, "operator must be Exists when `key` is empty", src, tfld + ".operator")
        out.append(
            Toleration(
                key,
                op,
                value,
                effect,
                t.opt_integer(m.get("tolerationSeconds"), src, tfld + ".tolerationSeconds", *t.INT64),
            )
        )
    return tuple(out)


def _spread(items: Any, src: SourceRef, fld: str) -> tuple[TopologySpreadConstraint, ...]:
    out = []
    for c, cfld in t.objs(items, src, fld):
        t.check_fields(c, SPREAD, src, cfld)
        wu = c.get("whenUnsatisfiable")
        if wu not in ("DoNotSchedule", "ScheduleAnyway"):
            raise _unsupported(wu, ("DoNotSchedule", "ScheduleAnyway"), src, cfld + ".whenUnsatisfiable")
        key = t.string(c.get("topologyKey"), src, cfld + ".topologyKey")
        if not key:
            raise t.required(src, cfld + ".topologyKey", "can not be empty")
        ls = c.get("labelSelector")
        md = c.get("minDomains")
        nap = t.string(c.get("nodeAffinityPolicy"), src, cfld + ".nodeAffinityPolicy") or "Honor"
        ntp = t.string(c.get("nodeTaintsPolicy"), src, cfld + ".nodeTaintsPolicy") or "Ignore"
        for value, name in ((nap, "nodeAffinityPolicy"), (ntp, "nodeTaintsPolicy")):
            if value not in ("Honor", "Ignore"):
                raise _unsupported(value, ("Honor", "Ignore"), src, f"{cfld}.{name}")
        out.append(
            TopologySpreadConstraint(
                max_skew=t.integer(c.get("maxSkew"), src, cfld + ".maxSkew", 1),
                topology_key=key,
                when_unsatisfiable=wu,
                label_selector=read_label_selector(ls, src, cfld + ".labelSelector") if ls is not None else None,
                min_domains=None if md is None else t.integer(md, src, cfld + ".minDomains", 1),
                node_affinity_policy=nap,
                node_taints_policy=ntp,
                match_label_keys=t.strings(c.get("matchLabelKeys"), src, cfld + ".matchLabelKeys"),
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
    findings: t.Findings | None = None,
    labels_path: str = "metadata.labels",
) -> Pod:
    """Read a Pod or a workload's pod template (fld is the path prefix of `spec` for error messages)."""
    spec = t.obj(spec, src, fld)
    status = t.obj(status, src, "status")
    t.check_fields(spec, POD_SPEC, src, fld, findings)
    owner = controller_owner(meta, src)
    overhead = resources_field(spec.get("overhead"), src, fld + ".overhead")
    pod_ips = _pod_ips(status, src)
    preemption = t.string(spec.get("preemptionPolicy"), src, fld + ".preemptionPolicy")
    if preemption not in ("", "PreemptLowerPriority", "Never"):
        raise _unsupported(preemption, ("Never", "PreemptLowerPriority"), src, fld + ".preemptionPolicy")
    node_name = t.string(spec.get("nodeName"), src, fld + ".nodeName")
    if node_name:
        reason = names.dns1123_subdomain(node_name)
        if reason:
            raise t.invalid(node_name, reason, src, fld + ".nodeName")
    return Pod(
        namespace=namespace,
        name=name,
        labels=labels_field(meta.get("labels"), src, labels_path),
        containers=_containers(spec.get("containers"), src, fld + ".containers", findings),
        init_containers=_containers(spec.get("initContainers"), src, fld + ".initContainers", findings),
        node_name=node_name,
        node_selector=labels_field(spec.get("nodeSelector"), src, fld + ".nodeSelector"),
        affinity=_affinity(spec.get("affinity"), src, fld + ".affinity"),
        tolerations=_tolerations(spec.get("tolerations"), src, fld + ".tolerations"),
        topology_spread_constraints=_spread(
            spec.get("topologySpreadConstraints"), src, fld + ".topologySpreadConstraints"
        ),
        host_network=t.boolean(spec.get("hostNetwork"), src, fld + ".hostNetwork"),
        priority=t.integer(spec.get("priority"), src, fld + ".priority", default=0),
        overhead=overhead,
        scheduler_name=t.string(spec.get("schedulerName"), src, fld + ".schedulerName") or "default-scheduler",
        has_empty_dir=any("emptyDir" in v for v, _ in t.objs(spec.get("volumes"), src, fld + ".volumes")),
        owner=owner,
        phase=t.string(status.get("phase"), src, "status.phase"),
        pod_ips=pod_ips,
        reason=unscheduled_reason(status),
        source=src,
        priority_class_name=t.string(spec.get("priorityClassName"), src, fld + ".priorityClassName"),
        preemption_policy=preemption,
        mirror="kubernetes.io/config.mirror" in t.string_map(meta.get("annotations"), src, "metadata.annotations"),
        terminating=bool(t.timestamp(meta.get("deletionTimestamp"), src, "metadata.deletionTimestamp")),
        start_time=t.timestamp(status.get("startTime"), src, "status.startTime"),
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
