"""Top-level objects → a validated Cluster: dispatch by kind, duplicates, implicit namespaces, skipped kinds.

Nothing a user gave is dropped silently: every object is modelled, or reported as a warning with the
reason (kinds that do not affect connectivity, unknown kinds, policies of another API group). Each kind's
reader lives in its own module (nodes, services, controllers, pods, policies, admin); this one keeps the
tables they fill.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from importlib import import_module
from typing import TYPE_CHECKING, Any

import orjson

from netpol.english import with_article
from netpol.errors import InputError, SourceRef
from netpol.gcpause import gc_paused
from netpol.loading import typed as t
from netpol.loading.admin import read_admin_policy
from netpol.loading.controllers import read_workload
from netpol.loading.documents import Document, Skipped, iter_paths, read_documents
from netpol.loading.fields import check_meta, namespace_of
from netpol.loading.kinds import (
    CNP_API_VERSION,
    DOOR_APIS,
    ENGINE_OF_GROUP,
    INERT_KINDS,
    OUT_OF_SCOPE_KINDS,
    STAGED_KINDS,
    UNEVALUATED_POLICY_KINDS,
    WORKLOAD_KINDS,
    door_api_ok,
    is_calico,
)
from netpol.loading.nodes import read_namespace, read_node, read_priority_class
from netpol.loading.objsize import MAX_OBJECT_BYTES
from netpol.loading.pods import read_pod
from netpol.loading.policies import read_policy
from netpol.loading.services import read_pdb, read_service
from netpol.loading.unevaluated import read_unevaluated
from netpol.model import names
from netpol.model.calico_objects import CalicoObjects
from netpol.model.cluster import Cluster, Warning_
from netpol.model.labels import Labels
from netpol.model.objects import (
    NAMESPACE_NAME_LABEL,
    AdminNetworkPolicy,
    Namespace,
    NetworkPolicy,
    Node,
    Pod,
    PodDisruptionBudget,
    PriorityClass,
    Service,
    Workload,
)
from netpol.model.unevaluated import UnevaluatedPolicy

if TYPE_CHECKING:  # each policy kind's reader and model is imported when an input first holds one of its objects
    from netpol.loading.calico import CalicoReader
    from netpol.model.cilium import CiliumPolicy
    from netpol.model.cnp import ClusterNetworkPolicy


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
    cluster_network_policies: dict[str, ClusterNetworkPolicy] = field(default_factory=dict)
    priority_classes: dict[str, PriorityClass] = field(default_factory=dict)
    unevaluated: dict[str, UnevaluatedPolicy] = field(default_factory=dict)
    cilium_policies: dict[str, CiliumPolicy] = field(default_factory=dict)
    doors: dict[str, dict[object, Any]] = field(default_factory=dict)  # Cluster field → key → door object
    warnings: list[Warning_] = field(default_factory=list)
    findings: t.Findings = field(default_factory=t.Findings)
    inert: Counter[str] = field(default_factory=Counter)
    order: int = 0
    used_namespaces: dict[str, SourceRef] = field(default_factory=dict)
    fingerprints: dict[tuple[str, object], bytes] = field(default_factory=dict)
    calico_reader: CalicoReader | None = None

    @property
    def calico(self) -> CalicoReader:
        """Calico's objects read so far (and ServiceAccounts, which only Calico's selectors read)."""
        if self.calico_reader is None:
            from netpol.loading.calico import CalicoReader

            self.calico_reader = CalicoReader()
        return self.calico_reader

    def put(self, table: dict, key: object, value: object, src: SourceRef, obj: Mapping[str, Any]) -> None:
        fp, size = fingerprint(obj)
        if size > MAX_OBJECT_BYTES:  # aliased text was bounded before (documents.py); this is plain text
            raise InputError(
                f"is {size / 2**20:,.1f} MiB as JSON; the API server refuses an object over "
                f"{MAX_OBJECT_BYTES // 2**20} MiB, so it cannot exist",
                src,
            )
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


def fingerprint(obj: Mapping[str, Any]) -> tuple[bytes, int]:
    """A digest of an object's content and its size as JSON. Bounded: documents.py refuses an object whose
    aliases expand beyond the API server's request limit before it gets here (orjson is never handed one)."""
    try:
        data = orjson.dumps(obj, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS, default=repr)
    except (TypeError, orjson.JSONEncodeError):  # keys of mixed types that cannot be sorted, nesting > 254
        data = repr(sorted(map(repr, obj.items()))).encode()
    return hashlib.blake2b(data, digest_size=16).digest(), len(data)


# Kubernetes' documented envelope is 150,000 pods per cluster (kubernetes.io/docs/setup/best-practices/
# cluster-large): beyond it an input is a runaway (`replicas: 1000000` took `schedule` over a minute and
# 1.4 GiB on two cores); --max-pods lifts it. The supported sizes (README) stop there too.
DEFAULT_MAX_PODS = 150_000


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
    cluster = build_cluster(docs, extra, max_pods=max_pods)
    if not _has_content(cluster):
        where = ", ".join("<stdin>" if p == "-" else p for p in paths)
        kinds = Counter(d.source.kind for d in docs)
        read = ", ".join(f"{k} ×{n}" for k, n in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0])))
        raise InputError(
            f"no pods, workloads, policies or nodes read from {where} (only {read}): nothing to analyse; "
            "a wrong path or a failed `helm template` upstream would look the same"
        )
    return cluster


def _has_content(cluster: Cluster) -> bool:
    """Something a command can answer about. Namespaces, Services, ConfigMaps … alone are not: like empty input,
    they must not let a CI gate pass with "no findings" (issue 25 item 13)."""
    return bool(
        cluster.pods
        or cluster.workloads
        or cluster.policies
        or cluster.admin_policies
        or cluster.unevaluated
        or cluster.nodes
    )


@gc_paused()
def load_text(text: str, label: str = "<input>", *, max_pods: int = DEFAULT_MAX_PODS) -> Cluster:
    """Convenience for tests and the UI: one YAML/JSON string."""
    return build_cluster(list(read_documents(label if label != "-" else "-", text)), max_pods=max_pods)


def _too_many(max_pods: int, what: str) -> str:
    return (
        f"{what} more than {max_pods:,} pods: Kubernetes' own envelope is 150,000 pods per cluster, and placing "
        f"and analysing more takes minutes; --max-pods N lifts this bound"
    )


def _check_pod_count(b: Builder, max_pods: int) -> None:
    """The pods the workloads will expand to, counted before any is made: a runaway is an error, not 3 GB."""
    nodes = max(1, len(b.nodes))
    total = len(b.pods)
    for wl in b.workloads.values():
        total += nodes if wl.kind == "DaemonSet" else wl.replicas
        if total > max_pods:
            raise InputError(
                _too_many(max_pods, "the workloads expand to"),
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
        if len(b.pods) > max_pods:  # explicit Pod objects: stop at the first one over, not after reading all
            raise InputError(_too_many(max_pods, "the input holds"), d.source)
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
    calico, calico_warnings = b.calico.objects() if b.calico_reader is not None else (CalicoObjects(), [])
    b.warnings.extend(Warning_(code, message, src) for code, message, src in calico_warnings)
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
        unevaluated=tuple(sorted(b.unevaluated.values(), key=lambda p: (p.namespace, p.kind, p.name))),
        cilium_policies=tuple(sorted(b.cilium_policies.values(), key=lambda p: (p.clusterwide, p.namespace, p.name))),
        calico=calico,
        cluster_network_policies=_cnp_order(b),
        warnings=tuple(b.warnings),
        ingresses=_doors(b, "ingresses"),
        ingress_classes=_doors(b, "ingress_classes"),
        gateways=_doors(b, "gateways"),
        gateway_classes=_doors(b, "gateway_classes"),
        gateway_routes=_doors(b, "gateway_routes"),
        reference_grants=_doors(b, "reference_grants"),
        routes=_doors(b, "routes"),
    )


def _doors(b: Builder, table: str) -> tuple[Any, ...]:
    """The door objects of one Cluster field, by (kind, namespace/name)."""
    return tuple(v for _, v in sorted(b.doors.get(table, {}).items(), key=lambda kv: str(kv[0])))


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


def _cnp_order(b: Builder) -> tuple[ClusterNetworkPolicy, ...]:
    if not b.cluster_network_policies:
        return ()
    from netpol.loading.cnp import cnp_order

    return cnp_order(b.cluster_network_policies.values())


def _read_cluster_network_policy(b: Builder, obj: Mapping[str, Any], src: SourceRef) -> None:
    from netpol.loading.cnp import read_cluster_network_policy

    pol = read_cluster_network_policy(obj, src)
    b.put(b.cluster_network_policies, pol.name, pol, src, obj)


def _read_policy(b: Builder, obj: Mapping[str, Any], src: SourceRef) -> None:
    pol, warnings = read_policy(obj, src)
    b.warnings.extend(warnings)
    b.used_namespaces.setdefault(pol.namespace, src)
    b.put(b.policies, pol.key, pol, src, obj)


def _read_cilium_policy(b: Builder, obj: Mapping[str, Any], src: SourceRef) -> None:
    api = obj.get("apiVersion") or ""  # absent in a list's items (a live read)
    if api and not api.startswith("cilium.io/"):
        b.warnings.append(
            Warning_("unevaluated-policy", f"{src.kind} of apiVersion {api} is not cilium.io; not evaluated", src)
        )
        return
    from netpol.loading.cilium import read_cilium_policy

    pol, warnings = read_cilium_policy(obj, src)
    b.warnings.extend(warnings)
    if pol.namespace:
        b.used_namespaces.setdefault(pol.namespace, src)
    b.put(b.cilium_policies, pol.key, pol, src, obj)


HANDLERS: dict[str, Callable[[Builder, Mapping[str, Any], SourceRef], None]] = {}


def _read_object(b: Builder, d: Document) -> None:
    obj, src = d.obj, d.source
    kind = src.kind
    if d.duplicates:  # kubectl's strict field validation (KEP-2885, its default since 1.27): an error, any key
        path = d.duplicates[0]
        raise InputError(f'duplicate field "{path}"', src, path, show_field=False)
    api = obj.get("apiVersion")
    if api is not None and not isinstance(api, str):
        raise t.wrong_type(api, "a string", src, "apiVersion")
    api = api or ""
    if kind in INERT_KINDS:
        b.inert[kind] += 1
        return
    if is_calico(api):
        _read_calico(b, obj, src, api)
        return
    if (
        kind in UNEVALUATED_POLICY_KINDS
        or (kind == "NetworkPolicy" and api and not api.startswith("networking.k8s.io/"))
        or (kind == "ClusterNetworkPolicy" and api.split("/")[0] != CNP_API_VERSION.split("/")[0])
    ):
        group = api.split("/")[0]
        engine = ENGINE_OF_GROUP.get(group) or UNEVALUATED_POLICY_KINDS.get(kind) or group
        what = f"is {with_article(engine)} policy" if engine else "has no apiVersion to tell whose policy it is"
        b.warnings.append(
            Warning_(
                "unevaluated-policy",
                f"{kind} ({api or 'no apiVersion'}) {what}, which netpol does not evaluate: the answers may be "
                "wrong for the pods it selects",
                src,
            )
        )
        _keep_unevaluated(b, read_unevaluated(obj, src, api, engine or "unknown"))
        return
    if kind == "ClusterNetworkPolicy" and api != CNP_API_VERSION:
        b.warnings.append(
            Warning_(
                "unevaluated-policy",
                f"{kind} of apiVersion {api} is not {CNP_API_VERSION}, the version netpol reads; not evaluated",
                src,
            )
        )
        _keep_unevaluated(b, read_unevaluated(obj, src, api, api.split("/")[0]))
        return
    if kind in DOOR_APIS and not door_api_ok(kind, api):
        b.warnings.append(
            Warning_(
                "skipped-kind",
                f"{kind} of apiVersion {api or '(none)'} is not modelled (netpol reads {kind} as "
                f"{' or '.join(a + '*' if a.endswith('/') else a for a in DOOR_APIS[kind])}): "
                "what it exposes is not analysed",
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
        _keep_unevaluated(b, read_unevaluated(obj, src, api, api.split("/")[0]))
        return
    meta = check_meta(obj, src, b.findings, kind)
    name = meta.get("name")
    if name is None or name == "":
        raise t.required(src, "metadata.name", "name or generateName is required")
    name = t.string(name, src, "metadata.name")
    reason = names.dns1123_label(name) if kind in ("Namespace", "Service") else names.dns1123_subdomain(name)
    if reason:
        raise t.invalid(name, reason, src, "metadata.name")
    if kind in WORKLOAD_KINDS:
        b.order += 1
        wl = read_workload(obj, src, b.order)
        b.put(b.workloads, (kind, wl.key), wl, src, obj)
        b.used_namespaces.setdefault(wl.namespace, src)
        return
    HANDLERS[kind](b, obj, src)


def _keep_unevaluated(b: Builder, pol: UnevaluatedPolicy) -> None:
    """Kept for the artifacts (audit NP080, the report); the same object read twice is one."""
    b.unevaluated[f"{pol.key}\0{pol.api_version}"] = pol
def _read_calico(b: Builder, obj: Mapping[str, Any], src: SourceRef, api: str) -> None:
    """projectcalico.org/v3 and crd.projectcalico.org/v1 objects (netpol.loading.calico); Calico's
    NetworkPolicy shares its kind with Kubernetes', so the API group decides."""
    if src.kind in STAGED_KINDS or src.kind in OUT_OF_SCOPE_KINDS:
        staged = src.kind in STAGED_KINDS
        why = "a staged policy does not enforce" if staged else "host endpoints are not modelled"
        # a staged policy changes no answer: a note --strict does not fail on; an unmodelled HostEndpoint might
        b.warnings.append(
            Warning_("calico-not-evaluated", f"{src.kind} ({api}): {why}; not evaluated", src, not staged)
        )
        return
    meta = check_meta(obj, src, b.findings, "calico")
    name = meta.get("name")
    if name is None or name == "":
        raise t.required(src, "metadata.name", "name or generateName is required")
    t.string(name, src, "metadata.name")
    stored = b.calico.read(obj, src, api)
    if stored is None:
        b.warnings.append(Warning_("skipped-kind", f"Calico kind {src.kind} ({api}); not modelled", src))
        return
    table, key, value = stored
    if src.kind == "NetworkPolicy" or src.kind == "NetworkSet":
        b.used_namespaces.setdefault(getattr(value, "namespace", ""), src)
    b.put(table, key, value, src, obj)


def _read_service_account(b: Builder, obj: Mapping[str, Any], src: SourceRef) -> None:
    stored = b.calico.read(obj, src, "v1")
    assert stored is not None
    table, key, value = stored
    b.put(table, key, value, src, obj)


def _read_namespace(b: Builder, obj: Mapping[str, Any], src: SourceRef) -> None:
    ns = read_namespace(obj, src)
    b.put(b.namespaces, ns.name, ns, src, obj)


def _read_node(b: Builder, obj: Mapping[str, Any], src: SourceRef) -> None:
    node = read_node(obj, src)
    b.put(b.nodes, node.name, node, src, obj)


def _read_pod(b: Builder, obj: Mapping[str, Any], src: SourceRef) -> None:
    meta = obj["metadata"]
    ns = namespace_of(meta, src)
    spec = t.obj(obj.get("spec"), src, "spec")
    status = t.obj(obj.get("status"), src, "status")
    b.order += 1
    pod = read_pod(meta, spec, status, src, "spec", namespace=ns, name=meta["name"], order=b.order)
    b.used_namespaces.setdefault(ns, src)
    b.put(b.pods, pod.key, pod, src, obj)


def _read_service(b: Builder, obj: Mapping[str, Any], src: SourceRef) -> None:
    svc = read_service(obj, src)
    b.used_namespaces.setdefault(svc.namespace, src)
    b.put(b.services, svc.key, svc, src, obj)


def _read_pdb(b: Builder, obj: Mapping[str, Any], src: SourceRef) -> None:
    pdb = read_pdb(obj, src)
    b.used_namespaces.setdefault(pdb.namespace, src)
    b.put(b.pdbs, f"{pdb.namespace}/{pdb.name}", pdb, src, obj)


def _read_priority_class(b: Builder, obj: Mapping[str, Any], src: SourceRef) -> None:
    pc = read_priority_class(obj, src)
    b.put(b.priority_classes, pc.name, pc, src, obj)


def _door(table: str, module: str, reader: str) -> Callable[[Builder, Mapping[str, Any], SourceRef], None]:
    """The handler of a door kind (exposure): read it with `module.reader` (imported at the first such object), note
    its namespace, keep it under the Cluster field `table`."""

    def handle(b: Builder, obj: Mapping[str, Any], src: SourceRef) -> None:
        value = getattr(import_module(module), reader)(obj, src)
        namespace = getattr(value, "namespace", None)
        if namespace is not None:
            b.used_namespaces.setdefault(namespace, src)
        key = (src.kind, getattr(value, "key", getattr(value, "name", "")))
        b.put(b.doors.setdefault(table, {}), key, value, src, obj)

    return handle


HANDLERS.update(
    {
        "Ingress": _door("ingresses", "netpol.loading.ingress", "read_ingress"),
        "IngressClass": _door("ingress_classes", "netpol.loading.ingress", "read_ingress_class"),
        "Gateway": _door("gateways", "netpol.loading.gateway", "read_gateway"),
        "GatewayClass": _door("gateway_classes", "netpol.loading.gateway", "read_gateway_class"),
        **{
            k: _door("gateway_routes", "netpol.loading.gateway", "read_gateway_route")
            for k in ("HTTPRoute", "GRPCRoute", "TLSRoute", "TCPRoute", "UDPRoute")
        },
        "ReferenceGrant": _door("reference_grants", "netpol.loading.gateway", "read_reference_grant"),
        "Route": _door("routes", "netpol.loading.openshift", "read_route"),
        "Namespace": _read_namespace,
        "Node": _read_node,
        "Pod": _read_pod,
        "NetworkPolicy": _read_policy,
        "Service": _read_service,
        "PodDisruptionBudget": _read_pdb,
        "PriorityClass": _read_priority_class,
        "AdminNetworkPolicy": _read_admin_policy,
        "BaselineAdminNetworkPolicy": _read_admin_policy,
        "CiliumNetworkPolicy": _read_cilium_policy,
        "CiliumClusterwideNetworkPolicy": _read_cilium_policy,
        "ServiceAccount": _read_service_account,
        "ClusterNetworkPolicy": _read_cluster_network_policy,
    }
)
