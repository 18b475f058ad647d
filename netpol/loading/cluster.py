"""Top-level objects → a validated Cluster: dispatch by kind, duplicates, implicit namespaces, skipped kinds.

Nothing a user gave is dropped silently: every object is modelled, or reported as a warning with the
reason (kinds that do not affect connectivity, unknown kinds, policies of another API group).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from netpol.errors import InputError, SourceRef
from netpol.gcpause import gc_paused
from netpol.loading import typed as t
from netpol.loading.admin import read_admin_policy
from netpol.loading.documents import Document, Skipped, iter_paths, read_documents
from netpol.loading.fields import (
    OBJECT_META,
    TAINT_EFFECTS,
    TOP_LEVEL,
    annotations_field,
    check_meta,
    cidr_field,
    int_or_percent,
    ip_field,
    labels_field,
    namespace_of,
    read_label_selector,
    resources_field,
)
from netpol.loading.pods import controller_owner, read_pod
from netpol.loading.policies import port_number, read_policy
from netpol.model import names
from netpol.model.cluster import Cluster, Warning_
from netpol.model.evolve import evolve
from netpol.model.families import dual_stack_problem
from netpol.model.labels import Labels
from netpol.model.objects import (
    NAMESPACE_NAME_LABEL,
    PROTOCOLS,
    AdminNetworkPolicy,
    Namespace,
    NetworkPolicy,
    Node,
    NodeAddress,
    Pod,
    PodDisruptionBudget,
    PriorityClass,
    Service,
    ServicePort,
    Taint,
    Workload,
)

WORKLOAD_KINDS = ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob")
POLICY_KINDS = frozenset({"NetworkPolicy", "AdminNetworkPolicy", "BaselineAdminNetworkPolicy"})


# Kinds that cannot change which pod reaches which: counted in one summary line, never fatal under --strict.
INERT_KINDS = frozenset(
    {
        "ServiceAccount",
        "ConfigMap",
        "Secret",
        "Role",
        "RoleBinding",
        "ClusterRole",
        "ClusterRoleBinding",
        "Route",
        "Ingress",
        "IngressClass",
        "Endpoints",
        "EndpointSlice",
        "HorizontalPodAutoscaler",
        "VerticalPodAutoscaler",
        "PersistentVolumeClaim",
        "PersistentVolume",
        "StorageClass",
        "CustomResourceDefinition",
        "Event",
        "LimitRange",
        "ResourceQuota",
        "ControllerRevision",
        "Lease",
        "MutatingWebhookConfiguration",
        "ValidatingWebhookConfiguration",
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "APIService",
        "Gateway",
        "GatewayClass",
        "HTTPRoute",
        "GRPCRoute",
        "CSIDriver",
        "RuntimeClass",
        "ServiceMonitor",
        "PodMonitor",
        "PrometheusRule",
        "Certificate",
        "Issuer",
        "ClusterIssuer",
    }
)

# Policies of other engines: the answer may be wrong without them, so they stay loud (and fail --strict).
UNEVALUATED_POLICY_KINDS = {
    "CiliumNetworkPolicy": "Cilium",
    "CiliumClusterwideNetworkPolicy": "Cilium",
    "GlobalNetworkPolicy": "Calico",
    "StagedNetworkPolicy": "Calico",
    "StagedGlobalNetworkPolicy": "Calico",
    "ClusterNetworkPolicy": "Antrea",
    "AuthorizationPolicy": "Istio",
    "EgressNetworkPolicy": "OpenShift",
    "EgressFirewall": "OVN-Kubernetes",
}


@dataclass
class Builder:
    namespaces: dict[str, Namespace] = field(default_factory=dict)
    nodes: dict[str, Node] = field(default_factory=dict)
    pods: dict[str, Pod] = field(default_factory=dict)
    workloads: dict[tuple[str, str], Workload] = field(default_factory=dict)
    policies: dict[str, NetworkPolicy] = field(default_factory=dict)
    services: dict[str, Service] = field(default_factory=dict)
    pdbs: dict[str, PodDisruptionBudget] = field(default_factory=dict)
    admin_policies: dict[str, AdminNetworkPolicy] = field(default_factory=dict)
    priority_classes: dict[str, PriorityClass] = field(default_factory=dict)
    warnings: list[Warning_] = field(default_factory=list)
    findings: t.Findings = field(default_factory=t.Findings)
    inert: Counter[str] = field(default_factory=Counter)
    order: int = 0
    used_namespaces: dict[str, SourceRef] = field(default_factory=dict)
    fingerprints: dict[tuple[str, object], bytes] = field(default_factory=dict)

    def put(self, table: dict, key: object, value: object, src: SourceRef, obj: Mapping[str, Any]) -> None:
        fp = fingerprint(obj)
        previous = self.fingerprints.get((src.kind, key))
        if previous is not None and previous != fp:  # the same object twice (a file passed twice) is no news
            name = f"{src.namespace}/{src.name}" if src.namespace else src.name
            self.warnings.append(
                Warning_(
                    "duplicate", f"{src.kind} {name} defined again, differently; the later definition is used", src
                )
            )
        self.fingerprints[(src.kind, key)] = fp
        table[key] = value


def fingerprint(obj: Mapping[str, Any]) -> bytes:
    """A bounded digest of an object's content (the reader bounds alias expansion, so this is bounded too)."""
    try:
        data = orjson.dumps(obj, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS, default=repr)
    except (TypeError, orjson.JSONEncodeError):  # keys of mixed types that cannot be sorted, nesting > 254
        data = repr(sorted(map(repr, obj.items()))).encode()
    return hashlib.blake2b(data, digest_size=16).digest()


# Kubernetes' documented envelope is 150,000 pods per cluster; beyond this cap an expansion is a runaway.
DEFAULT_MAX_PODS = 1_000_000


@gc_paused()
def load_paths(paths: Iterable[str], *, stdin_text: str | None = None, max_pods: int = DEFAULT_MAX_PODS) -> Cluster:
    """Read every manifest under `paths` into a validated Cluster (workloads not yet expanded).

    No Kubernetes object at all (empty stdin, an empty folder, only unrelated files) is an error: a CI job
    must not pass because `helm template` failed upstream of `| netpol matrix -`.
    """
    paths = list(paths)
    docs: list[Document] = []
    skipped: list[Skipped] = []
    for p in iter_paths(paths, skipped):
        docs.extend(read_documents(p, stdin_text if p == "-" else None))
    if not docs:
        where = ", ".join("<stdin>" if p == "-" else p for p in paths) or "no path"
        raise InputError(f"no Kubernetes objects read from {where}")
    extra = [Warning_("skipped-file", f"{s.path}: {s.reason}; not read", None) for s in skipped]
    return build_cluster(docs, extra, max_pods=max_pods)


@gc_paused()
def load_text(text: str, label: str = "<input>", *, max_pods: int = DEFAULT_MAX_PODS) -> Cluster:
    """Convenience for tests and the UI: one YAML/JSON string."""
    return build_cluster(list(read_documents(label if label != "-" else "-", text)), max_pods=max_pods)


def _check_pod_count(b: Builder, max_pods: int) -> None:
    """The pods the workloads will expand to, counted before any is made: a runaway is an error, not 3 GB."""
    nodes = max(1, len(b.nodes))
    total = len(b.pods)
    for wl in b.workloads.values():
        total += nodes if wl.kind == "DaemonSet" else wl.replicas
        if total > max_pods:
            raise InputError(
                f"the workloads expand to more than {max_pods:,} pods (--max-pods; Kubernetes' own envelope is "
                f"150,000 pods per cluster)",
                wl.source,
                "spec.replicas" if wl.kind != "DaemonSet" else "",
            )


def build_cluster(
    docs: Iterable[Document], warnings: Iterable[Warning_] = (), *, max_pods: int = DEFAULT_MAX_PODS
) -> Cluster:
    b = Builder()
    b.warnings.extend(warnings)
    for d in docs:
        _read_object(b, d)
    _check_pod_count(b, max_pods)
    for code, message, src in b.findings.items:
        b.warnings.append(Warning_(code, message, src))
    if b.inert:
        total = sum(b.inert.values())
        kinds = ", ".join(f"{k} ×{n}" for k, n in sorted(b.inert.items(), key=lambda kv: (-kv[1], kv[0])))
        b.warnings.append(
            Warning_(
                "ignored-kinds",
                f"ignored: {total} object{'s' if total != 1 else ''} of kinds that do not affect connectivity "
                f"({kinds})",
                None,
                strict=False,
            )
        )
    for name, src in sorted(b.used_namespaces.items()):
        if name not in b.namespaces:
            b.namespaces[name] = Namespace(name, Labels({NAMESPACE_NAME_LABEL: name}), implicit=True, source=src)
            if name != "default":
                b.warnings.append(
                    Warning_("implicit-namespace", f"namespace {name} is used but not declared; assumed to exist", src)
                )
    return Cluster(
        namespaces=tuple(sorted(b.namespaces.values(), key=lambda n: n.name)),
        nodes=tuple(sorted(b.nodes.values(), key=lambda n: n.name)),
        pods=tuple(b.pods.values()),
        workloads=tuple(b.workloads.values()),
        policies=tuple(sorted(b.policies.values(), key=lambda p: (p.namespace, p.name))),
        services=tuple(sorted(b.services.values(), key=lambda s: (s.namespace, s.name))),
        pdbs=tuple(sorted(b.pdbs.values(), key=lambda p: (p.namespace, p.name))),
        priority_classes=tuple(sorted(b.priority_classes.values(), key=lambda c: c.name)),
        admin_policies=_admin_order(b),
        warnings=tuple(b.warnings),
    )


def _admin_order(b: Builder) -> tuple[AdminNetworkPolicy, ...]:
    """ANPs by priority (lower first), then the BANP. Equal priorities are ambiguous upstream: warn."""
    anps = sorted((p for p in b.admin_policies.values() if not p.baseline), key=lambda p: (p.priority, p.name))
    for a, c in zip(anps, anps[1:], strict=False):
        if a.priority == c.priority:
            b.warnings.append(
                Warning_(
                    "anp-same-priority",
                    f"AdminNetworkPolicies {a.name} and {c.name} share priority {a.priority}; implementations may "
                    "apply either first (evaluated here by name)",
                    c.source,
                )
            )
    return tuple(anps) + tuple(p for p in b.admin_policies.values() if p.baseline)


def _read_admin_policy(b: Builder, obj: Mapping[str, Any], src: SourceRef) -> None:
    pol = read_admin_policy(obj, src)
    b.put(b.admin_policies, pol.key, pol, src, obj)


def _read_policy(b: Builder, obj: Mapping[str, Any], src: SourceRef) -> None:
    pol, warnings = read_policy(obj, src)
    b.warnings.extend(warnings)
    b.used_namespaces.setdefault(pol.namespace, src)
    b.put(b.policies, pol.key, pol, src, obj)


HANDLERS: dict[str, Callable[[Builder, Mapping[str, Any], SourceRef], None]] = {}


def _decisive(kind: str, path: str) -> bool:
    """A duplicated key that can change who reaches whom: anywhere in a policy, in names and labels, whole specs."""
    if kind in POLICY_KINDS or "." not in path and "[" not in path:
        return True
    return path.startswith("metadata.") or any(
        w in path for w in ("labels", "elector", "ports", "hostNetwork", "nodeName", "template.metadata")
    )


def _read_object(b: Builder, d: Document) -> None:
    obj, src = d.obj, d.source
    kind = src.kind
    for path in d.duplicates:
        message = f'duplicate field "{path}"'
        if _decisive(kind, path):
            raise InputError(message, src, path, show_field=False)
        b.findings.add("duplicate-field", message, src)
    api = obj.get("apiVersion")
    if api is not None and not isinstance(api, str):
        raise t.wrong_type(api, "a string", src, "apiVersion")
    api = api or ""
    if kind in INERT_KINDS:
        b.inert[kind] += 1
        return
    if kind in UNEVALUATED_POLICY_KINDS or (
        kind == "NetworkPolicy" and api and not api.startswith("networking.k8s.io/")
    ):
        engine = UNEVALUATED_POLICY_KINDS.get(kind) or api.split("/")[0]
        b.warnings.append(
            Warning_(
                "unevaluated-policy",
                f"{kind} ({api or 'no apiVersion'}) is a {engine} policy, which netpol does not evaluate: the "
                "answers may be wrong for the pods it selects",
                src,
            )
        )
        return
    if kind not in HANDLERS and kind not in WORKLOAD_KINDS:
        b.warnings.append(Warning_("skipped-kind", f"unknown kind {kind}; not modelled", src))
        return
    if kind in ("AdminNetworkPolicy", "BaselineAdminNetworkPolicy") and not api.startswith("policy.networking.k8s.io/"):
        b.warnings.append(
            Warning_(
                "unevaluated-policy",
                f"{kind} of apiVersion {api} is not policy.networking.k8s.io; not evaluated",
                src,
            )
        )
        return
    meta = check_meta(obj, src, b.findings, PRIORITY_CLASS if kind == "PriorityClass" else TOP_LEVEL)
    name = meta.get("name")
    if name is None or name == "":
        raise t.required(src, "metadata.name", "name or generateName is required")
    name = t.string(name, src, "metadata.name")
    reason = names.dns1123_label(name) if kind in ("Namespace", "Service") else names.dns1123_subdomain(name)
    if reason:
        raise t.invalid(name, reason, src, "metadata.name")
    if kind in WORKLOAD_KINDS:
        wl = _read_workload(b, obj, src)
        b.put(b.workloads, (kind, wl.key), wl, src, obj)
        b.used_namespaces.setdefault(wl.namespace, src)
        return
    HANDLERS[kind](b, obj, src)


def _read_namespace(b: Builder, obj: Mapping[str, Any], src: SourceRef) -> None:
    meta = obj["metadata"]
    name = meta["name"]
    labels = dict(labels_field(meta.get("labels"), src, "metadata.labels"))
    # The API server sets this immutable label on every namespace since v1.21.
    labels[NAMESPACE_NAME_LABEL] = name
    annotations = annotations_field(meta.get("annotations"), src)
    b.put(b.namespaces, name, Namespace(name, Labels(labels), source=src, annotations=annotations), src, obj)


NODE_SPEC = frozenset({"podCIDR", "podCIDRs", "providerID", "unschedulable", "taints", "configSource", "externalID"})


def _read_node(b: Builder, obj: Mapping[str, Any], src: SourceRef) -> None:
    meta = obj["metadata"]
    spec = t.obj(obj.get("spec"), src, "spec")
    t.check_fields(spec, NODE_SPEC, src, "spec", b.findings)
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
    node = Node(
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
    b.put(b.nodes, node.name, node, src, obj)


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


def _read_pod(b: Builder, obj: Mapping[str, Any], src: SourceRef) -> None:
    meta = obj["metadata"]
    ns = namespace_of(meta, src)
    spec = t.obj(obj.get("spec"), src, "spec")
    status = t.obj(obj.get("status"), src, "status")
    pod = read_pod(meta, spec, status, src, "spec", namespace=ns, name=meta["name"], findings=b.findings)
    b.order += 1
    pod = evolve(pod, order=b.order)
    b.used_namespaces.setdefault(ns, src)
    b.put(b.pods, pod.key, pod, src, obj)


WORKLOAD_SPECS = {
    "Deployment": frozenset(
        {
            "replicas",
            "selector",
            "template",
            "strategy",
            "minReadySeconds",
            "revisionHistoryLimit",
            "paused",
            "progressDeadlineSeconds",
        }
    ),
    "ReplicaSet": frozenset({"replicas", "minReadySeconds", "selector", "template"}),
    "StatefulSet": frozenset(
        {
            "replicas",
            "selector",
            "template",
            "volumeClaimTemplates",
            "serviceName",
            "podManagementPolicy",
            "updateStrategy",
            "revisionHistoryLimit",
            "minReadySeconds",
            "persistentVolumeClaimRetentionPolicy",
            "ordinals",
        }
    ),
    "DaemonSet": frozenset({"selector", "template", "updateStrategy", "minReadySeconds", "revisionHistoryLimit"}),
    "Job": frozenset(
        {
            "parallelism",
            "completions",
            "activeDeadlineSeconds",
            "podFailurePolicy",
            "successPolicy",
            "backoffLimit",
            "backoffLimitPerIndex",
            "maxFailedIndexes",
            "selector",
            "manualSelector",
            "template",
            "ttlSecondsAfterFinished",
            "completionMode",
            "suspend",
            "podReplacementPolicy",
            "managedBy",
        }
    ),
    "CronJob": frozenset(
        {
            "schedule",
            "timeZone",
            "startingDeadlineSeconds",
            "concurrencyPolicy",
            "suspend",
            "jobTemplate",
            "successfulJobsHistoryLimit",
            "failedJobsHistoryLimit",
        }
    ),
}
TEMPLATE = frozenset({"metadata", "spec"})


def _read_workload(b: Builder, obj: Mapping[str, Any], src: SourceRef) -> Workload:
    kind = src.kind
    meta = obj["metadata"]
    ns = namespace_of(meta, src)
    spec = t.obj(obj.get("spec"), src, "spec")
    t.check_fields(spec, WORKLOAD_SPECS[kind], src, "spec", b.findings)
    prefix = "spec"
    if kind == "CronJob":
        job = t.obj(spec.get("jobTemplate"), src, "spec.jobTemplate")
        t.check_fields(job, TEMPLATE, src, "spec.jobTemplate", b.findings)
        spec = t.obj(job.get("spec"), src, "spec.jobTemplate.spec")
        prefix = "spec.jobTemplate.spec"
        t.check_fields(spec, WORKLOAD_SPECS["Job"], src, prefix, b.findings)
    template = t.opt_obj(spec.get("template"), src, prefix + ".template")
    if template is None:
        raise t.required(src, prefix + ".template", "a pod template is required")
    t.check_fields(template, TEMPLATE, src, prefix + ".template", b.findings)
    tmeta = t.obj(template.get("metadata"), src, prefix + ".template.metadata")
    t.check_fields(tmeta, OBJECT_META, src, prefix + ".template.metadata", b.findings)
    if kind in ("Job", "CronJob"):
        replicas = t.integer(spec.get("parallelism"), src, prefix + ".parallelism", 0, default=1)
        comp = t.opt_integer(spec.get("completions"), src, prefix + ".completions", 0)
        if comp is not None:
            replicas = min(replicas, comp)
    elif kind == "DaemonSet":
        replicas = 0
    else:
        replicas = t.integer(spec.get("replicas"), src, "spec.replicas", 0, default=1)
    sel = spec.get("selector")
    selector = read_label_selector(sel, src, prefix + ".selector") if sel is not None else None
    b.order += 1
    tspec = t.obj(template.get("spec"), src, prefix + ".template.spec")
    tpl = read_pod(
        tmeta,
        tspec,
        {},
        src,
        prefix + ".template.spec",
        namespace=ns,
        name="",
        findings=b.findings,
        labels_path=prefix + ".template.metadata.labels",
    )
    if selector is not None and kind not in ("Job", "CronJob") and not selector.matches(tpl.labels):
        raise InputError("Invalid value: `selector` does not match template `labels`", src, prefix + ".selector")
    tpl = evolve(tpl, order=b.order)
    pmp = t.string(spec.get("podManagementPolicy"), src, "spec.podManagementPolicy") or "OrderedReady"
    if kind == "StatefulSet" and pmp not in ("OrderedReady", "Parallel"):
        raise InputError(
            f'Unsupported value: {t.show(pmp)}: supported values: "OrderedReady", "Parallel"',
            src,
            "spec.podManagementPolicy",
        )
    return Workload(
        kind,
        ns,
        meta["name"],
        tpl,
        replicas,
        selector,
        pmp,
        labels_field(meta.get("labels"), src, "metadata.labels"),
        src,
        controller_owner(meta, src),
    )


SERVICE_SPEC = frozenset(
    {
        "ports",
        "selector",
        "clusterIP",
        "clusterIPs",
        "type",
        "externalIPs",
        "sessionAffinity",
        "loadBalancerIP",
        "loadBalancerSourceRanges",
        "externalName",
        "externalTrafficPolicy",
        "healthCheckNodePort",
        "publishNotReadyAddresses",
        "sessionAffinityConfig",
        "ipFamilies",
        "ipFamilyPolicy",
        "allocateLoadBalancerNodePorts",
        "loadBalancerClass",
        "internalTrafficPolicy",
        "trafficDistribution",
    }
)
SERVICE_PORT = frozenset({"name", "protocol", "appProtocol", "port", "targetPort", "nodePort"})
SERVICE_TYPES = ("ClusterIP", "NodePort", "LoadBalancer", "ExternalName")


def _read_service(b: Builder, obj: Mapping[str, Any], src: SourceRef) -> None:
    meta = obj["metadata"]
    spec = t.obj(obj.get("spec"), src, "spec")
    t.check_fields(spec, SERVICE_SPEC, src, "spec", b.findings)
    ports = []
    for p, pfld in t.objs(spec.get("ports"), src, "spec.ports"):
        t.check_fields(p, SERVICE_PORT, src, pfld)
        port = t.integer(p.get("port"), src, pfld + ".port", 1, 65535)
        target = p.get("targetPort")
        target = port if target is None else port_number(target, src, pfld + ".targetPort")
        proto = t.string(p.get("protocol"), src, pfld + ".protocol") or "TCP"
        if proto not in PROTOCOLS:
            raise InputError(
                f'Unsupported value: {t.show(proto)}: supported values: "SCTP", "TCP", "UDP"', src, pfld + ".protocol"
            )
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
    svc = Service(
        namespace=namespace_of(meta, src),
        name=meta["name"],
        selector=labels_field(sel, src, "spec.selector") if sel else None,
        ports=tuple(ports),
        type=svc_type,
        cluster_ip=t.string(spec.get("clusterIP"), src, "spec.clusterIP"),
        source=src,
    )
    b.used_namespaces.setdefault(svc.namespace, src)
    b.put(b.services, svc.key, svc, src, obj)


PDB_SPEC = frozenset({"minAvailable", "maxUnavailable", "selector", "unhealthyPodEvictionPolicy"})


def _read_pdb(b: Builder, obj: Mapping[str, Any], src: SourceRef) -> None:
    meta = obj["metadata"]
    spec = t.obj(obj.get("spec"), src, "spec")
    t.check_fields(spec, PDB_SPEC, src, "spec", b.findings)
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
    b.used_namespaces.setdefault(pdb.namespace, src)
    b.put(b.pdbs, f"{pdb.namespace}/{pdb.name}", pdb, src, obj)


PRIORITY_CLASS = frozenset(
    {"apiVersion", "kind", "metadata", "value", "globalDefault", "description", "preemptionPolicy"}
)


def _read_priority_class(b: Builder, obj: Mapping[str, Any], src: SourceRef) -> None:
    """scheduling.k8s.io/v1 PriorityClass: `value` is required; preemptionPolicy defaults to PreemptLowerPriority."""
    if obj.get("value") is None:
        raise t.required(src, "value")
    value = t.integer(obj.get("value"), src, "value", -(2**31), 1_000_000_000)  # above 1e9: system classes only
    policy = t.string(obj.get("preemptionPolicy"), src, "preemptionPolicy") or "PreemptLowerPriority"
    if policy not in ("PreemptLowerPriority", "Never"):
        raise InputError(
            f'Unsupported value: {t.show(policy)}: supported values: "Never", "PreemptLowerPriority"',
            src,
            "preemptionPolicy",
        )
    pc = PriorityClass(
        obj["metadata"]["name"], value, t.boolean(obj.get("globalDefault"), src, "globalDefault"), policy, src
    )
    b.put(b.priority_classes, pc.name, pc, src, obj)


HANDLERS.update(
    {
        "Namespace": _read_namespace,
        "Node": _read_node,
        "Pod": _read_pod,
        "NetworkPolicy": _read_policy,
        "Service": _read_service,
        "PodDisruptionBudget": _read_pdb,
        "PriorityClass": _read_priority_class,
        "AdminNetworkPolicy": _read_admin_policy,
        "BaselineAdminNetworkPolicy": _read_admin_policy,
    }
)
