"""Manifests in, Cluster out: YAML/JSON files, folders, stdin; API defaults applied; errors name the field.

Validation happens here so that evaluation never raises: everything the engine and the scheduler read
has already been checked against the rules the API server applies (apis/networking/validation,
apis/core/validation).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import netaddr
import yaml

from netpol.errors import InputError, SourceRef
from netpol.model.cluster import Cluster, Warning_
from netpol.model.labels import (
    NODE_SELECTOR_OPERATORS,
    SELECTOR_OPERATORS,
    FrozenMap,
    Labels,
    LabelSelector,
    LabelSelectorRequirement,
    NodeSelectorRequirement,
    NodeSelectorTerm,
)
from netpol.model.objects import (
    NAMESPACE_NAME_LABEL,
    PROTOCOLS,
    AdminNetworkPolicy,
    Affinity,
    Container,
    ContainerPort,
    IPBlock,
    Namespace,
    NetworkPolicy,
    NetworkPolicyPeer,
    NetworkPolicyPort,
    NetworkPolicyRule,
    Node,
    NodeAddress,
    NodeAffinity,
    OwnerRef,
    Pod,
    PodAffinity,
    PodAffinityTerm,
    PodAntiAffinity,
    PodDisruptionBudget,
    PreferredSchedulingTerm,
    Service,
    ServicePort,
    Taint,
    Toleration,
    TopologySpreadConstraint,
    WeightedPodAffinityTerm,
    Workload,
)
from netpol.model.quantity import to_units

try:  # libyaml when available: several times faster on large dumps
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _Loader = yaml.SafeLoader

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
WORKLOAD_KINDS = ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob")
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
# Kinds that are understood and do not change pod-to-pod connectivity: read, counted, not modelled.
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
        "PriorityClass",
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


@dataclass(frozen=True, slots=True)
class Document:
    """One top-level object with where it came from."""

    obj: Mapping[str, Any]
    source: SourceRef


@dataclass
class _Builder:
    namespaces: dict[str, Namespace] = field(default_factory=dict)
    nodes: dict[str, Node] = field(default_factory=dict)
    pods: dict[str, Pod] = field(default_factory=dict)
    workloads: dict[tuple[str, str], Workload] = field(default_factory=dict)
    policies: dict[str, NetworkPolicy] = field(default_factory=dict)
    services: dict[str, Service] = field(default_factory=dict)
    pdbs: dict[str, PodDisruptionBudget] = field(default_factory=dict)
    admin_policies: dict[str, AdminNetworkPolicy] = field(default_factory=dict)
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


# ---------------------------------------------------------------------------------------------- reading


def iter_paths(paths: Iterable[str]) -> Iterator[str]:
    """Files in the given order; folders walked recursively in sorted order (repeatable output)."""
    for p in paths:
        if p == "-":
            yield p
        elif os.path.isdir(p):
            for root, dirs, files in os.walk(p):
                dirs.sort()
                for f in sorted(files):
                    if f.endswith(MANIFEST_SUFFIXES):
                        yield os.path.join(root, f)
        elif os.path.isfile(p):
            yield p
        else:
            raise InputError(f"no such file or directory: {p}")


def read_documents(path: str, text: str | None = None) -> Iterator[Document]:
    """Parse one file (or stdin text) into top-level objects, flattening `List` / `*List`."""
    label = "<stdin>" if path == "-" else path
    if text is None:
        if path == "-":
            text = sys.stdin.read()
        else:
            try:
                with open(path, encoding="utf-8") as fh:
                    text = fh.read()
            except (OSError, UnicodeDecodeError) as exc:
                raise InputError(f"cannot read: {exc}", SourceRef(label)) from exc
    docs: list[Any]
    stripped = text.lstrip()
    if path.endswith(".json") or stripped.startswith("{") or stripped.startswith("["):
        try:
            docs = [json.loads(text)]
        except json.JSONDecodeError:
            docs = _load_yaml(text, label)  # JSON is YAML; YAML gives a line number either way
    else:
        docs = _load_yaml(text, label)
    for i, doc in enumerate(docs):
        if doc is None:
            continue
        src = SourceRef(label, i)
        if isinstance(doc, list):
            for item in doc:
                yield from _flatten(item, src, None)
            continue
        if not isinstance(doc, Mapping):
            raise InputError(f"expected a Kubernetes object (a mapping), got {type(doc).__name__}", src)
        yield from _flatten(doc, src, None)


def _load_yaml(text: str, label: str) -> list[Any]:
    try:
        return list(yaml.load_all(text, Loader=_Loader))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise InputError(f"invalid YAML: {where}{problem}", SourceRef(label)) from exc


def _flatten(obj: Any, src: SourceRef, default_kind: str | None) -> Iterator[Document]:
    if not isinstance(obj, Mapping):
        raise InputError(f"expected a Kubernetes object (a mapping), got {type(obj).__name__}", src)
    kind = obj.get("kind") or default_kind
    if kind is None:
        raise InputError("object has no kind", src, "kind")
    if kind == "List" or (kind.endswith("List") and "items" in obj):
        inner = kind[: -len("List")] or None
        items = obj.get("items") or []
        if not isinstance(items, list):
            raise InputError("items must be a list", src, "items")
        for item in items:
            yield from _flatten(item, src, inner)
        return
    if "kind" not in obj:
        obj = {**obj, "kind": kind}
    meta = obj.get("metadata") or {}
    if not isinstance(meta, Mapping):
        raise InputError("metadata must be a mapping", src, "metadata")
    yield Document(
        obj, SourceRef(src.file, src.document, kind, str(meta.get("namespace") or ""), str(meta.get("name") or ""))
    )


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
    b = _Builder()
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
        admin_policies=_admin_order(b),
        warnings=tuple(b.warnings),
    )


def _admin_order(b: _Builder) -> tuple[AdminNetworkPolicy, ...]:
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


def _read_admin_policy(b: _Builder, obj: Mapping[str, Any], src: SourceRef) -> None:
    from netpol.manifests_admin import read_admin_policy  # validation of the v1alpha1 CRD schema

    pol = read_admin_policy(obj, src)
    b.put(b.admin_policies, pol.key, pol, src, obj)


# ---------------------------------------------------------------------------------------------- objects


def _read_object(b: _Builder, d: Document) -> None:
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


def _ns(meta: Mapping[str, Any]) -> str:
    return str(meta.get("namespace") or "default")


def _labels(value: Any, src: SourceRef, fld: str) -> Labels:
    if value is None:
        return Labels()
    if not isinstance(value, Mapping):
        raise InputError("must be a mapping of label keys to values", src, fld)
    out = {}
    for k, v in value.items():
        if v is None:
            v = ""
        if not isinstance(v, str | int | float | bool):
            raise InputError(f"label {k!r} must be a string", src, fld)
        out[str(k)] = _scalar_str(v)
    return Labels(out)


def _scalar_str(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _read_namespace(b: _Builder, obj: Mapping[str, Any], src: SourceRef) -> None:
    meta = obj["metadata"]
    labels = dict(_labels(meta.get("labels"), src, "metadata.labels"))
    # The API server sets this immutable label on every namespace since v1.21.
    labels[NAMESPACE_NAME_LABEL] = meta["name"]
    b.put(b.namespaces, meta["name"], Namespace(meta["name"], Labels(labels), source=src), src, obj)


def _read_node(b: _Builder, obj: Mapping[str, Any], src: SourceRef) -> None:
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
        taints.append(Taint(str(t["key"]), _scalar_str(t.get("value") or ""), effect))
    pod_cidr = spec.get("podCIDR")
    if pod_cidr:
        _cidr(pod_cidr, src, "spec.podCIDR")
    addresses = tuple(
        NodeAddress(str(a.get("type")), str(a.get("address")))
        for a in status.get("addresses") or []
        if isinstance(a, Mapping)
    )
    for i, a in enumerate(addresses):
        if a.type in ("InternalIP", "ExternalIP"):
            _ip(a.address, src, f"status.addresses[{i}].address")
    capacity = _resources(status.get("capacity"), src, "status.capacity")
    allocatable = _resources(status.get("allocatable"), src, "status.allocatable") or capacity
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
        labels=_labels(meta.get("labels"), src, "metadata.labels"),
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


def _resources(value: Any, src: SourceRef, fld: str) -> FrozenMap[int]:
    if not value:
        return FrozenMap()
    if not isinstance(value, Mapping):
        raise InputError("must be a mapping of resource names to quantities", src, fld)
    out = {}
    for k, v in value.items():
        try:
            out[str(k)] = to_units(str(k), v)
        except ValueError as exc:
            raise InputError(f"{exc} (e.g. 500m, 2, 1Gi)", src, f"{fld}.{k}") from exc
    return FrozenMap(out)


def _cidr(value: Any, src: SourceRef, fld: str) -> netaddr.IPNetwork:
    try:
        if not isinstance(value, str) or "/" not in value:
            raise ValueError
        return netaddr.IPNetwork(value)
    except (ValueError, netaddr.AddrFormatError, TypeError):
        raise InputError(f"invalid CIDR {value!r}", src, fld) from None


def _ip(value: Any, src: SourceRef, fld: str) -> netaddr.IPAddress:
    try:
        return netaddr.IPAddress(str(value))
    except (ValueError, netaddr.AddrFormatError, TypeError):
        raise InputError(f"invalid IP address {value!r}", src, fld) from None


def _int(value: Any, src: SourceRef, fld: str, *, minimum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"must be an integer, got {value!r}", src, fld)
    if minimum is not None and value < minimum:
        raise InputError(f"must be >= {minimum}, got {value}", src, fld)
    return value


# ---------------------------------------------------------------------------------------------- selectors


def read_label_selector(value: Any, src: SourceRef, fld: str) -> LabelSelector:
    if value is None:
        return LabelSelector()
    if not isinstance(value, Mapping):
        raise InputError("must be a label selector (matchLabels / matchExpressions)", src, fld)
    exprs = []
    for i, e in enumerate(value.get("matchExpressions") or []):
        efld = f"{fld}.matchExpressions[{i}]"
        if not isinstance(e, Mapping) or not e.get("key"):
            raise InputError("expression needs a key", src, efld + ".key")
        op = e.get("operator")
        if op not in SELECTOR_OPERATORS:
            raise InputError(
                f"unknown operator {op!r} (expected one of {', '.join(SELECTOR_OPERATORS)})", src, efld + ".operator"
            )
        values = tuple(_scalar_str(v) for v in e.get("values") or [])
        if op in ("In", "NotIn") and not values:
            raise InputError(f"operator {op} needs at least one value", src, efld + ".values")
        if op in ("Exists", "DoesNotExist") and values:
            raise InputError(f"operator {op} must not have values", src, efld + ".values")
        exprs.append(LabelSelectorRequirement(str(e["key"]), op, values))
    return LabelSelector(_labels(value.get("matchLabels"), src, fld + ".matchLabels"), tuple(exprs))


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
        values = tuple(_scalar_str(v) for v in e.get("values") or [])
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
        weight = _int((w or {}).get("weight"), src, wfld + ".weight", minimum=1)
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
            weight = _int((p or {}).get("weight"), src, pfld + ".weight", minimum=1)
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


# ---------------------------------------------------------------------------------------------- pods


def _containers(items: Any, src: SourceRef, fld: str) -> tuple[Container, ...]:
    out = []
    for i, c in enumerate(items or []):
        cfld = f"{fld}[{i}]"
        if not isinstance(c, Mapping):
            raise InputError("must be a container", src, cfld)
        ports = []
        for j, p in enumerate(c.get("ports") or []):
            pfld = f"{cfld}.ports[{j}]"
            num = _int(p.get("containerPort"), src, pfld + ".containerPort", minimum=1)
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
                    _int(host_port, src, pfld + ".hostPort"),
                    str(p.get("hostIP") or ""),
                )
            )
        res = c.get("resources") or {}
        limits = _resources(res.get("limits"), src, cfld + ".resources.limits")
        requests = _resources(res.get("requests"), src, cfld + ".resources.requests")
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
                _scalar_str(t.get("value") or ""),
                effect,
                None if secs is None else _int(secs, src, tfld + ".tolerationSeconds"),
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
                max_skew=_int(c.get("maxSkew"), src, cfld + ".maxSkew", minimum=1),
                topology_key=str(c["topologyKey"]),
                when_unsatisfiable=wu,
                label_selector=read_label_selector(ls, src, cfld + ".labelSelector") if ls is not None else None,
                min_domains=None if md is None else _int(md, src, cfld + ".minDomains", minimum=1),
                node_affinity_policy=str(c.get("nodeAffinityPolicy") or "Honor"),
                node_taints_policy=str(c.get("nodeTaintsPolicy") or "Ignore"),
                match_label_keys=tuple(str(k) for k in c.get("matchLabelKeys") or []),
            )
        )
    return tuple(out)


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
    owner = None
    for o in meta.get("ownerReferences") or []:
        if isinstance(o, Mapping) and o.get("controller", True):
            owner = OwnerRef(str(o.get("kind")), str(o.get("name")))
            break
    overhead = _resources(spec.get("overhead"), src, fld + ".overhead")
    pod_ip = str(status.get("podIP") or "")
    if pod_ip:
        _ip(pod_ip, src, "status.podIP")
    priority = spec.get("priority")
    return Pod(
        namespace=namespace,
        name=name,
        labels=_labels(meta.get("labels"), src, "metadata.labels"),
        containers=_containers(spec.get("containers"), src, fld + ".containers"),
        init_containers=_containers(spec.get("initContainers"), src, fld + ".initContainers"),
        node_name=str(spec.get("nodeName") or ""),
        node_selector=_labels(spec.get("nodeSelector"), src, fld + ".nodeSelector"),
        affinity=_affinity(spec.get("affinity"), src, fld + ".affinity"),
        tolerations=_tolerations(spec.get("tolerations"), src, fld + ".tolerations"),
        topology_spread_constraints=_spread(
            spec.get("topologySpreadConstraints"), src, fld + ".topologySpreadConstraints"
        ),
        host_network=bool(spec.get("hostNetwork")),
        priority=_int(priority, src, fld + ".priority") if priority is not None else 0,
        overhead=overhead,
        scheduler_name=str(spec.get("schedulerName") or "default-scheduler"),
        has_empty_dir=any(isinstance(v, Mapping) and "emptyDir" in v for v in spec.get("volumes") or []),
        owner=owner,
        phase=str(status.get("phase") or ""),
        pod_ip=pod_ip,
        source=src,
    )


def _read_pod(b: _Builder, obj: Mapping[str, Any], src: SourceRef) -> None:
    meta = obj["metadata"]
    ns = _ns(meta)
    pod = read_pod(meta, obj.get("spec") or {}, obj.get("status") or {}, src, "spec", namespace=ns, name=meta["name"])
    b.order += 1
    from dataclasses import replace

    pod = replace(pod, order=b.order)
    b.used_namespaces.setdefault(ns, src)
    b.put(b.pods, pod.key, pod, src, obj)


def _read_workload(b: _Builder, obj: Mapping[str, Any], src: SourceRef) -> Workload:
    kind = src.kind
    meta = obj["metadata"]
    ns = _ns(meta)
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
        replicas = _int(par, src, prefix + ".parallelism", minimum=0)
        if comp is not None:
            replicas = min(replicas, _int(comp, src, prefix + ".completions", minimum=0))
    elif kind == "DaemonSet":
        replicas = 0
    else:
        replicas = _int(spec.get("replicas", 1), src, "spec.replicas", minimum=0)
    sel = spec.get("selector")
    selector = read_label_selector(sel, src, prefix + ".selector") if sel is not None else None
    b.order += 1
    tpl = read_pod(tmeta, template.get("spec") or {}, {}, src, prefix + ".template.spec", namespace=ns, name="")
    if selector is not None and kind not in ("Job", "CronJob") and not selector.matches(tpl.labels):
        raise InputError("selector does not match the template's labels", src, prefix + ".selector")
    from dataclasses import replace

    tpl = replace(tpl, order=b.order)
    pmp = str(spec.get("podManagementPolicy") or "OrderedReady")
    return Workload(
        kind, ns, meta["name"], tpl, replicas, selector, pmp, _labels(meta.get("labels"), src, "metadata.labels"), src
    )


# ---------------------------------------------------------------------------------------------- services, PDBs


def _read_service(b: _Builder, obj: Mapping[str, Any], src: SourceRef) -> None:
    meta = obj["metadata"]
    spec = obj.get("spec") or {}
    ports = []
    for i, p in enumerate(spec.get("ports") or []):
        pfld = f"spec.ports[{i}]"
        port = _int(p.get("port"), src, pfld + ".port", minimum=1)
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
                None if np_ is None else _int(np_, src, pfld + ".nodePort"),
            )
        )
    sel = spec.get("selector")
    svc = Service(
        namespace=_ns(meta),
        name=meta["name"],
        selector=_labels(sel, src, "spec.selector") if sel else None,
        ports=tuple(ports),
        type=str(spec.get("type") or "ClusterIP"),
        cluster_ip=str(spec.get("clusterIP") or ""),
        source=src,
    )
    b.used_namespaces.setdefault(svc.namespace, src)
    b.put(b.services, svc.key, svc, src, obj)


def _int_or_percent(value: Any, src: SourceRef, fld: str) -> int | str | None:
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 0:
            raise InputError(f"must be >= 0, got {value}", src, fld)
        return value
    if isinstance(value, str):
        if value.endswith("%") and value[:-1].isdigit():
            return value
        if value.isdigit():
            return int(value)
    raise InputError(f"must be an integer or a percentage, got {value!r}", src, fld)


def _read_pdb(b: _Builder, obj: Mapping[str, Any], src: SourceRef) -> None:
    meta = obj["metadata"]
    spec = obj.get("spec") or {}
    sel = spec.get("selector")
    pdb = PodDisruptionBudget(
        namespace=_ns(meta),
        name=meta["name"],
        selector=read_label_selector(sel, src, "spec.selector") if sel is not None else None,
        min_available=_int_or_percent(spec.get("minAvailable"), src, "spec.minAvailable"),
        max_unavailable=_int_or_percent(spec.get("maxUnavailable"), src, "spec.maxUnavailable"),
        source=src,
    )
    if pdb.min_available is not None and pdb.max_unavailable is not None:
        raise InputError("minAvailable and maxUnavailable are mutually exclusive", src, "spec")
    b.used_namespaces.setdefault(pdb.namespace, src)
    b.put(b.pdbs, f"{pdb.namespace}/{pdb.name}", pdb, src, obj)


# ---------------------------------------------------------------------------------------------- NetworkPolicy


def _read_policy(b: _Builder, obj: Mapping[str, Any], src: SourceRef) -> None:
    meta = obj["metadata"]
    ns = _ns(meta)
    spec = obj.get("spec")
    if not isinstance(spec, Mapping):
        raise InputError("spec is required", src, "spec")
    if "podSelector" not in spec:
        raise InputError("podSelector is required (use {} to select every pod)", src, "spec.podSelector")
    pod_selector = read_label_selector(spec.get("podSelector"), src, "spec.podSelector")
    ingress = tuple(
        _rule(r, src, f"spec.ingress[{i}]", "from")
        for i, r in enumerate(_list(spec.get("ingress"), src, "spec.ingress"))
    )
    egress_raw = _list(spec.get("egress"), src, "spec.egress")
    egress = tuple(_rule(r, src, f"spec.egress[{i}]", "to") for i, r in enumerate(egress_raw))
    types_raw = spec.get("policyTypes")
    if types_raw:
        types = []
        for i, t in enumerate(types_raw):
            if t not in ("Ingress", "Egress"):
                raise InputError(
                    f"policyTypes entries must be Ingress or Egress, got {t!r}", src, f"spec.policyTypes[{i}]"
                )
            if t not in types:
                types.append(t)
        policy_types = tuple(sorted(types, key=("Ingress", "Egress").index))
    else:
        # API default (networking/v1 defaults.go): Ingress always; Egress only when egress rules exist.
        policy_types = ("Ingress", "Egress") if egress_raw else ("Ingress",)
    if egress and "Egress" not in policy_types:
        b.warnings.append(
            Warning_(
                "ignored-rules", "egress rules are present but Egress is not in policyTypes; they have no effect", src
            )
        )
    if ingress and "Ingress" not in policy_types:
        b.warnings.append(
            Warning_(
                "ignored-rules", "ingress rules are present but Ingress is not in policyTypes; they have no effect", src
            )
        )
    pol = NetworkPolicy(ns, meta["name"], pod_selector, policy_types, ingress, egress, src, raw=obj)
    b.used_namespaces.setdefault(ns, src)
    b.put(b.policies, pol.key, pol, src, obj)


def _list(value: Any, src: SourceRef, fld: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise InputError("must be a list", src, fld)
    return value


def _rule(r: Any, src: SourceRef, fld: str, peers_key: str) -> NetworkPolicyRule:
    if r is None:
        r = {}
    if not isinstance(r, Mapping):
        raise InputError("must be a rule (a mapping)", src, fld)
    peers = tuple(
        _peer(p, src, f"{fld}.{peers_key}[{i}]")
        for i, p in enumerate(_list(r.get(peers_key), src, f"{fld}.{peers_key}"))
    )
    ports = tuple(_port(p, src, f"{fld}.ports[{i}]") for i, p in enumerate(_list(r.get("ports"), src, f"{fld}.ports")))
    return NetworkPolicyRule(peers, ports)


def _peer(p: Any, src: SourceRef, fld: str) -> NetworkPolicyPeer:
    if not isinstance(p, Mapping):
        raise InputError("must be a peer (podSelector, namespaceSelector or ipBlock)", src, fld)
    has_pod = "podSelector" in p
    has_ns = "namespaceSelector" in p
    ipb = p.get("ipBlock")
    if ipb is not None and (has_pod or has_ns):
        raise InputError("ipBlock cannot be combined with podSelector or namespaceSelector in one peer", src, fld)
    if ipb is None and not (has_pod or has_ns):
        raise InputError("a peer needs podSelector, namespaceSelector or ipBlock", src, fld)
    if ipb is not None:
        return NetworkPolicyPeer(ip_block=_ip_block(ipb, src, fld + ".ipBlock"))
    return NetworkPolicyPeer(
        pod_selector=read_label_selector(p.get("podSelector"), src, fld + ".podSelector") if has_pod else None,
        namespace_selector=read_label_selector(p.get("namespaceSelector"), src, fld + ".namespaceSelector")
        if has_ns
        else None,
    )


def _ip_block(ipb: Any, src: SourceRef, fld: str) -> IPBlock:
    if not isinstance(ipb, Mapping) or not ipb.get("cidr"):
        raise InputError("ipBlock needs a cidr", src, fld + ".cidr")
    cidr = _cidr(ipb["cidr"], src, fld + ".cidr")
    excepts = []
    for i, e in enumerate(_list(ipb.get("except"), src, fld + ".except")):
        efld = f"{fld}.except[{i}]"
        ex = _cidr(e, src, efld)
        if ex.version != cidr.version or ex not in cidr or ex == cidr:
            raise InputError(f"except {e} must be a strict subset of cidr {ipb['cidr']}", src, efld)
        excepts.append(str(e))
    return IPBlock(str(ipb["cidr"]), tuple(excepts))


def _port(p: Any, src: SourceRef, fld: str) -> NetworkPolicyPort:
    if not isinstance(p, Mapping):
        raise InputError("must be a port (protocol, port, endPort)", src, fld)
    proto = p.get("protocol") or "TCP"
    if proto not in PROTOCOLS:
        raise InputError(f"unknown protocol {proto!r} (expected TCP, UDP or SCTP)", src, fld + ".protocol")
    port = p.get("port")
    end = p.get("endPort")
    if isinstance(port, str) and port.isdigit():
        port = int(port)
    if port is not None:
        if isinstance(port, bool) or not isinstance(port, int | str):
            raise InputError(f"port must be a number or a port name, got {port!r}", src, fld + ".port")
        if isinstance(port, int) and not 1 <= port <= 65535:
            raise InputError(f"port must be in 1..65535, got {port}", src, fld + ".port")
        if isinstance(port, str) and not port:
            raise InputError("port name must not be empty", src, fld + ".port")
    if end is not None:
        end = _int(end, src, fld + ".endPort")
        if port is None:
            raise InputError("endPort requires port", src, fld + ".endPort")
        if isinstance(port, str):
            raise InputError("endPort cannot be used with a named port", src, fld + ".endPort")
        if end < port:
            raise InputError(f"endPort {end} must be >= port {port}", src, fld + ".endPort")
        if end > 65535:
            raise InputError(f"endPort must be <= 65535, got {end}", src, fld + ".endPort")
    return NetworkPolicyPort(proto, port, end)
