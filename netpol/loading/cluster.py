"""Top-level objects → a validated Cluster: dispatch by kind, duplicates, implicit namespaces, skipped kinds.

Nothing a user gave is dropped silently: every object is modelled, or reported as a warning with the
reason (kinds that do not affect connectivity, unknown kinds, policies of another API group).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from netpol.errors import InputError, SourceRef
from netpol.loading.admin import read_admin_policy
from netpol.loading.documents import Document, iter_paths, read_documents
from netpol.loading.fields import (
    TAINT_EFFECTS,
    annotations_field,
    cidr_field,
    int_field,
    int_or_percent,
    ip_field,
    labels_field,
    namespace_of,
    read_label_selector,
    resources_field,
    scalar_str,
)
from netpol.loading.pods import controller_owner, read_pod
from netpol.loading.policies import read_policy
from netpol.model.cluster import Cluster, Warning_
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
        "Endpoints",
        "EndpointSlice",
        "HorizontalPodAutoscaler",
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
        "APIService",
        "IngressClass",
        "Gateway",
        "HTTPRoute",
    }
)


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
    order: int = 0
    used_namespaces: dict[str, SourceRef] = field(default_factory=dict)
    raw: dict[tuple[str, object], Mapping[str, Any]] = field(default_factory=dict)

    def put(self, table: dict, key: object, value: object, src: SourceRef, obj: Mapping[str, Any]) -> None:
        previous = self.raw.get((src.kind, key))
        if previous is not None and previous != obj:  # the same object twice (a file passed twice) is no news
            name = f"{src.namespace}/{src.name}" if src.namespace else src.name
            self.warnings.append(
                Warning_(
                    "duplicate", f"{src.kind} {name} defined again, differently; the later definition is used", src
                )
            )
        self.raw[(src.kind, key)] = obj
        table[key] = value


def load_paths(paths: Iterable[str], *, stdin_text: str | None = None) -> Cluster:
    """Read every manifest under `paths` into a validated Cluster (workloads not yet expanded)."""
    docs: list[Document] = []
    for p in iter_paths(paths):
        docs.extend(read_documents(p, stdin_text if p == "-" else None))
    return build_cluster(docs)


def load_text(text: str, label: str = "<input>") -> Cluster:
    """Convenience for tests and the UI: one YAML/JSON string."""
    return build_cluster(list(read_documents(label if label != "-" else "-", text)))


def build_cluster(docs: Iterable[Document]) -> Cluster:
    b = Builder()
    for d in docs:
        _read_object(b, d)
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


def _read_object(b: Builder, d: Document) -> None:
    obj, src = d.obj, d.source
    kind = src.kind
    api = str(obj.get("apiVersion") or "")
    meta = obj.get("metadata") or {}
    name = meta.get("name")
    if kind in INERT_KINDS:
        b.warnings.append(Warning_("skipped-kind", f"{kind} does not affect pod connectivity; not modelled", src))
        return
    handlers = {
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
    if kind not in handlers and kind not in WORKLOAD_KINDS:
        b.warnings.append(Warning_("skipped-kind", f"unknown kind {kind}; not modelled", src))
        return
    if kind in ("AdminNetworkPolicy", "BaselineAdminNetworkPolicy") and not api.startswith("policy.networking.k8s.io/"):
        b.warnings.append(
            Warning_("skipped-kind", f"{kind} of apiVersion {api} is not policy.networking.k8s.io; skipped", src)
        )
        return
    if kind == "NetworkPolicy" and api and not api.startswith("networking.k8s.io/"):
        b.warnings.append(
            Warning_("skipped-kind", f"NetworkPolicy of apiVersion {api} is not networking.k8s.io/v1; skipped", src)
        )
        return
    if not name or not isinstance(name, str):
        raise InputError("object has no name", src, "metadata.name")
    if kind in WORKLOAD_KINDS:
        wl = _read_workload(b, obj, src)
        b.put(b.workloads, (kind, wl.key), wl, src, obj)
        b.used_namespaces.setdefault(wl.namespace, src)
        return
    handlers[kind](b, obj, src)


def _read_namespace(b: Builder, obj: Mapping[str, Any], src: SourceRef) -> None:
    meta = obj["metadata"]
    labels = dict(labels_field(meta.get("labels"), src, "metadata.labels"))
    # The API server sets this immutable label on every namespace since v1.21.
    labels[NAMESPACE_NAME_LABEL] = meta["name"]
    annotations = annotations_field(meta.get("annotations"), src)
    b.put(
        b.namespaces,
        meta["name"],
        Namespace(meta["name"], Labels(labels), source=src, annotations=annotations),
        src,
        obj,
    )


def _read_node(b: Builder, obj: Mapping[str, Any], src: SourceRef) -> None:
    meta = obj["metadata"]
    spec = obj.get("spec") or {}
    status = obj.get("status") or {}
    taints = []
    for i, t in enumerate(spec.get("taints") or []):
        fld = f"spec.taints[{i}]"
        if not isinstance(t, Mapping) or not t.get("key"):
            raise InputError("taint needs a key", src, fld + ".key")
        effect = t.get("effect")
        if effect not in TAINT_EFFECTS:
            raise InputError(
                f"unknown taint effect {effect!r} (expected one of {', '.join(TAINT_EFFECTS)})", src, fld + ".effect"
            )
        taints.append(Taint(str(t["key"]), scalar_str(t.get("value") or ""), effect))
    pod_cidr = spec.get("podCIDR")
    if pod_cidr:
        cidr_field(pod_cidr, src, "spec.podCIDR")
    addresses = tuple(
        NodeAddress(str(a.get("type")), str(a.get("address")))
        for a in status.get("addresses") or []
        if isinstance(a, Mapping)
    )
    for i, a in enumerate(addresses):
        if a.type in ("InternalIP", "ExternalIP"):
            ip_field(a.address, src, f"status.addresses[{i}].address")
    capacity = resources_field(status.get("capacity"), src, "status.capacity")
    allocatable = resources_field(status.get("allocatable"), src, "status.allocatable") or capacity
    images = tuple(
        (tuple(str(n) for n in im.get("names") or []), int(im.get("sizeBytes") or 0))
        for im in status.get("images") or []
        if isinstance(im, Mapping)
    )
    ready = True
    for c in status.get("conditions") or []:
        if isinstance(c, Mapping) and c.get("type") == "Ready":
            ready = str(c.get("status")) == "True"
    node = Node(
        name=meta["name"],
        labels=labels_field(meta.get("labels"), src, "metadata.labels"),
        taints=tuple(taints),
        unschedulable=bool(spec.get("unschedulable")),
        pod_cidr=str(pod_cidr) if pod_cidr else None,
        addresses=addresses,
        capacity=capacity,
        allocatable=allocatable,
        images=images,
        ready=ready,
        source=src,
    )
    b.put(b.nodes, node.name, node, src, obj)


def _read_pod(b: Builder, obj: Mapping[str, Any], src: SourceRef) -> None:
    meta = obj["metadata"]
    ns = namespace_of(meta)
    pod = read_pod(meta, obj.get("spec") or {}, obj.get("status") or {}, src, "spec", namespace=ns, name=meta["name"])
    b.order += 1

    pod = replace(pod, order=b.order)
    b.used_namespaces.setdefault(ns, src)
    b.put(b.pods, pod.key, pod, src, obj)


def _read_workload(b: Builder, obj: Mapping[str, Any], src: SourceRef) -> Workload:
    kind = src.kind
    meta = obj["metadata"]
    ns = namespace_of(meta)
    spec = obj.get("spec") or {}
    prefix = "spec"
    if kind == "CronJob":
        spec = (spec.get("jobTemplate") or {}).get("spec") or {}
        prefix = "spec.jobTemplate.spec"
    template = spec.get("template")
    if not isinstance(template, Mapping):
        raise InputError("a pod template is required", src, prefix + ".template")
    tmeta = template.get("metadata") or {}
    if kind in ("Job", "CronJob"):
        par = spec.get("parallelism", 1)
        comp = spec.get("completions")
        replicas = int_field(par, src, prefix + ".parallelism", minimum=0)
        if comp is not None:
            replicas = min(replicas, int_field(comp, src, prefix + ".completions", minimum=0))
    elif kind == "DaemonSet":
        replicas = 0
    else:
        replicas = int_field(spec.get("replicas", 1), src, "spec.replicas", minimum=0)
    sel = spec.get("selector")
    selector = read_label_selector(sel, src, prefix + ".selector") if sel is not None else None
    b.order += 1
    tpl = read_pod(tmeta, template.get("spec") or {}, {}, src, prefix + ".template.spec", namespace=ns, name="")
    if selector is not None and kind not in ("Job", "CronJob") and not selector.matches(tpl.labels):
        raise InputError("selector does not match the template's labels", src, prefix + ".selector")

    tpl = replace(tpl, order=b.order)
    pmp = str(spec.get("podManagementPolicy") or "OrderedReady")
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
        controller_owner(meta),
    )


def _read_service(b: Builder, obj: Mapping[str, Any], src: SourceRef) -> None:
    meta = obj["metadata"]
    spec = obj.get("spec") or {}
    ports = []
    for i, p in enumerate(spec.get("ports") or []):
        pfld = f"spec.ports[{i}]"
        port = int_field(p.get("port"), src, pfld + ".port", minimum=1)
        target = p.get("targetPort", port)
        if not isinstance(target, int | str) or isinstance(target, bool):
            raise InputError(f"targetPort must be a number or a port name, got {target!r}", src, pfld + ".targetPort")
        if isinstance(target, str) and target.isdigit():
            target = int(target)
        proto = str(p.get("protocol") or "TCP")
        if proto not in PROTOCOLS:
            raise InputError(f"unknown protocol {proto!r}", src, pfld + ".protocol")
        np_ = p.get("nodePort")
        ports.append(
            ServicePort(
                port,
                target,
                proto,
                str(p.get("name") or ""),
                None if np_ is None else int_field(np_, src, pfld + ".nodePort"),
            )
        )
    sel = spec.get("selector")
    svc = Service(
        namespace=namespace_of(meta),
        name=meta["name"],
        selector=labels_field(sel, src, "spec.selector") if sel else None,
        ports=tuple(ports),
        type=str(spec.get("type") or "ClusterIP"),
        cluster_ip=str(spec.get("clusterIP") or ""),
        source=src,
    )
    b.used_namespaces.setdefault(svc.namespace, src)
    b.put(b.services, svc.key, svc, src, obj)


def _read_pdb(b: Builder, obj: Mapping[str, Any], src: SourceRef) -> None:
    meta = obj["metadata"]
    spec = obj.get("spec") or {}
    sel = spec.get("selector")
    pdb = PodDisruptionBudget(
        namespace=namespace_of(meta),
        name=meta["name"],
        selector=read_label_selector(sel, src, "spec.selector") if sel is not None else None,
        min_available=int_or_percent(spec.get("minAvailable"), src, "spec.minAvailable"),
        max_unavailable=int_or_percent(spec.get("maxUnavailable"), src, "spec.maxUnavailable"),
        source=src,
    )
    if pdb.min_available is not None and pdb.max_unavailable is not None:
        raise InputError("minAvailable and maxUnavailable are mutually exclusive", src, "spec")
    b.used_namespaces.setdefault(pdb.namespace, src)
    b.put(b.pdbs, f"{pdb.namespace}/{pdb.name}", pdb, src, obj)


def _read_priority_class(b: Builder, obj: Mapping[str, Any], src: SourceRef) -> None:
    """scheduling.k8s.io/v1 PriorityClass: `value` is required; preemptionPolicy defaults to PreemptLowerPriority."""
    value = obj.get("value")
    if value is None:
        raise InputError("a PriorityClass needs a value", src, "value")
    policy = str(obj.get("preemptionPolicy") or "PreemptLowerPriority")
    if policy not in ("PreemptLowerPriority", "Never"):
        raise InputError(
            f"unknown preemptionPolicy {policy!r} (PreemptLowerPriority or Never)", src, "preemptionPolicy"
        )
    pc = PriorityClass(
        obj["metadata"]["name"], int_field(value, src, "value"), bool(obj.get("globalDefault")), policy, src
    )
    b.put(b.priority_classes, pc.name, pc, src, obj)
