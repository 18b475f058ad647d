"""A live cluster, read through kubectl (the user's kubeconfig, contexts and credentials, unchanged).

Only GET requests reach the cluster: `kubectl api-versions` (discovery), then the lists as the API server
writes them (`kubectl get --raw`, `limit`/`continue` pages), the kinds side by side, the doors into the
cluster (Ingresses, OpenShift Routes, the Gateway API) in the first version the cluster serves. Only what runs is read: Pods (bound, with their IPs and the scheduler's
PodScheduled condition), not the workloads that made them, so nothing is expanded twice.

What the user may not read decides what can be answered: without NetworkPolicies (or served
AdminNetworkPolicies) every answer would be wrong, so that is an error; without Nodes the pods still run
where the cluster put them (no scheduling questions); a user who may list only some namespaces (`-n`) gets
those namespaces and a note that answers across namespaces are limited. Messages are kubectl's own reason,
once, on one line (kubectl repeats discovery errors through klog several times).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from netpol.errors import SourceRef
from netpol.loading.apilists import (
    ANPS,
    BANPS,
    CCNPS,
    CILIUM_GROUP_VERSION,
    CLUSTER_NPS,
    CNPS,
    METRICS_GROUP_VERSION,
    NAMESPACED,
    NAMESPACES,
    NODE_METRICS,
    NODES,
    PAGE_LIMIT,
    POLICIES,
    Kind,
    Listed,
    calico_kinds,
    list_all,
    served_doors,
)
from netpol.loading.cluster import build_cluster
from netpol.loading.documents import Document
from netpol.loading.kubectl import DEFAULT_TIMEOUT, LiveError, LiveOptions, one_line_reason, run_kubectl
from netpol.model.cluster import Cluster, Warning_
from netpol.model.quantity import to_units
from netpol.model.usage import NodeUsage

# Re-exported: callers and tests import these from here.
__all__ = [
    "DEFAULT_TIMEOUT",
    "PAGE_LIMIT",
    "LiveError",
    "LiveOptions",
    "LiveRead",
    "NodeUsage",
    "node_usage",
    "one_line_reason",
    "read_live_detailed",
    "run_kubectl",
]

WHY_OPTIONAL = {
    "services": "svc/… names cannot be resolved",
    "poddisruptionbudgets": "drains honour no PodDisruptionBudget",
    "adminnetworkpolicies": "none are applied, so answers may be wrong where one would decide",
    "baselineadminnetworkpolicies": "none is applied, so answers may be wrong where it would decide",
    "ciliumnetworkpolicies": "none are applied, so answers may be wrong where one would decide",
    "ciliumclusterwidenetworkpolicies": "none are applied, so answers may be wrong where one would decide",
    "globalnetworkpolicies": "none are applied, so answers may be wrong where one would decide",
    "tiers": "policies of tiers other than Calico's own are ordered last",
    "networksets": "rules selecting them match none of their addresses",
    "globalnetworksets": "rules selecting them match none of their addresses",
    "serviceaccounts": "Calico rules selecting service accounts by label match none",
    "clusternetworkpolicies": "none are applied, so answers may be wrong where one would decide",
    **{
        plural: "what they expose from outside the cluster is not analysed (netpol exposure)"
        for plural in (
            "ingresses",
            "routes",
            "gateways",
            "httproutes",
            "grpcroutes",
            "tlsroutes",
            "tcproutes",
            "udproutes",
        )
    },
    "ingressclasses": "Ingresses' controllers are known by their class names alone",
    "gatewayclasses": "Gateways' controllers are unknown: their pods are found by GEP-1762's label",
    "referencegrants": "routes to another namespace's Services are taken as refused",
}


@dataclass(frozen=True, slots=True)
class LiveRead:
    cluster: Cluster
    notes: tuple[str, ...] = ()
    usage: NodeUsage = NodeUsage()
    namespaces: tuple[str, ...] = ()  # non-empty when only these namespaces could be read
    timings: Mapping[str, float] = field(default_factory=dict)  # seconds: kubectl, parse, build


def _served(options: LiveOptions) -> set[str]:
    """The group/versions the API server serves (`kubectl api-versions`): also proves the context works."""
    return {line.strip() for line in run_kubectl(options, ["api-versions"]).splitlines() if line.strip()}


def _fatal(listed: Listed, hint: str = "") -> LiveError:
    """Without this kind every answer would be wrong: say what could not be read, and where."""
    return LiveError(
        f"cannot list {listed.kind.plural}{listed.where}: {listed.refused.lower()}; the answer would be wrong{hint}"
    )


def read_live_detailed(options: LiveOptions) -> LiveRead:
    """Read the cluster kubectl points at: notes for what could not be read, node usage when served."""
    timings: dict[str, float] = {}
    start = time.perf_counter()
    served = _served(options)
    timings["kubectl"] = time.perf_counter() - start
    admin = ANPS.group_version in served  # v1alpha1: AdminNetworkPolicy, BaselineAdminNetworkPolicy
    cnp = CLUSTER_NPS.group_version in served  # v1alpha2: ClusterNetworkPolicy
    metrics = METRICS_GROUP_VERSION in served
    if POLICIES.group_version not in served:
        raise LiveError(f"the cluster serves no {POLICIES.group_version} API: NetworkPolicies cannot be read")
    cilium = CILIUM_GROUP_VERSION in served  # Cilium's CRDs: listed only where Cilium is installed
    calico = calico_kinds(served)
    doors = served_doors(served)
    namespaced = tuple(k for k in (*NAMESPACED, CNPS) if k.group_version in served)
    namespaced += tuple(k for k in (*calico, *doors) if k.namespaced)
    wanted: list[tuple[Kind, str | None]] = [(NAMESPACES, None), (NODES, None)]
    wanted += [(k, None) for k in namespaced]
    wanted += [(k, None) for k in (*calico, *doors) if not k.namespaced]
    if admin:
        wanted += [(ANPS, None), (BANPS, None)]
    if cilium:
        wanted.append((CCNPS, None))
    if cnp:
        wanted.append((CLUSTER_NPS, None))
    if metrics:
        wanted.append((NODE_METRICS, None))
    listed = list_all(options, wanted, timings)

    notes: list[str] = []
    scoped: tuple[str, ...] = ()
    refused = [x for x in listed if x.kind.namespaced and x.refused == "Forbidden" and x.kind.need == "required"]
    if refused and options.namespaces:
        # A namespace-scoped user: read only the namespaces asked for, kind by kind.
        scoped = tuple(dict.fromkeys(options.namespaces))
        listed = [x for x in listed if not x.kind.namespaced]
        listed += list_all(options, [(k, ns) for k in namespaced for ns in scoped], timings)
        notes.append(
            f"you may not list {refused[0].kind.plural} in all namespaces; read only namespace"
            f"{'s' if len(scoped) > 1 else ''} {', '.join(scoped)}: pods elsewhere are unknown, so answers"
            " across namespaces are limited"
        )
    elif refused:
        raise _fatal(refused[0], " (give -n NAMESPACE to read only namespaces you may list)")

    start = time.perf_counter()
    docs: list[Document] = []
    warnings: list[Warning_] = []
    usage: NodeUsage | None = None
    namespaces_read = False
    for x in listed:
        if x.kind is NODE_METRICS:
            usage = (
                NodeUsage(unavailable=f"cannot list nodes.metrics.k8s.io: {x.message}")
                if x.refused
                else _usage(x.items)
            )
            continue
        if x.refused:
            match x.kind.need:
                case "required":
                    raise _fatal(x)
                case "nodes":
                    warnings.append(
                        Warning_(
                            "live-forbidden",
                            "cannot list nodes: forbidden; reachability without scheduling (pods run where the"
                            " cluster put them; node addresses and Pending reasons per node are unknown)",
                            SourceRef("<kubectl get nodes>"),
                        )
                    )
                case "namespaces":
                    warnings.append(
                        Warning_(
                            "live-forbidden",
                            "cannot list namespaces: forbidden; namespace labels other than"
                            " kubernetes.io/metadata.name are unknown, so namespaceSelectors on them match nothing",
                            SourceRef("<kubectl get namespaces>"),
                        )
                    )
                case _:
                    warnings.append(
                        Warning_(
                            "live-forbidden",
                            f"cannot list {x.kind.plural}{x.where}: {x.refused.lower()};"
                            f" {WHY_OPTIONAL.get(x.kind.plural, 'they are left out')}",
                            SourceRef(f"<kubectl get {x.kind.plural}>"),
                        )
                    )
            continue
        namespaces_read |= x.kind is NAMESPACES
        docs += _documents(x)
    if not admin and not cnp:
        notes.append("the cluster serves no AdminNetworkPolicy API (policy.networking.k8s.io): NetworkPolicies only")
    elif not cnp:
        notes.append(
            f"the cluster serves no ClusterNetworkPolicy API ({CLUSTER_NPS.group_version}): AdminNetworkPolicies (v1alpha1)"
            " and NetworkPolicies only"
        )
    if usage is None:
        usage = NodeUsage(unavailable="the cluster serves no metrics.k8s.io API (metrics-server)")
    if not namespaces_read:
        docs += _namespace_stubs(docs, scoped)
    cluster = build_cluster(docs)
    cluster = replace(cluster, warnings=cluster.warnings + tuple(warnings), node_usage=usage)
    timings["build"] = time.perf_counter() - start
    return LiveRead(cluster, tuple(notes), usage, scoped, timings)


def node_usage(cluster: Cluster) -> NodeUsage | None:
    """The metrics.k8s.io usage a live read attached to its cluster (None: not live, or not served)."""
    return cluster.node_usage


def _documents(listed: Listed) -> list[Document]:
    label = f"<kubectl get {listed.kind.plural}>"
    out = []
    for i, item in enumerate(listed.items):
        if not isinstance(item, Mapping):
            continue
        if "kind" not in item or "apiVersion" not in item:  # a list's items may leave both to the list
            item = {"apiVersion": listed.kind.group_version, "kind": listed.kind.kind, **item}
        meta = item.get("metadata") or {}
        out.append(
            Document(
                item,
                SourceRef(label, i, listed.kind.kind, str(meta.get("namespace") or ""), str(meta.get("name") or "")),
            )
        )
    return out


def _namespace_stubs(docs: Sequence[Document], scoped: Sequence[str]) -> list[Document]:
    """Namespaces as far as they are known without listing them: every namespace carries its name label."""
    names = sorted({d.source.namespace for d in docs if d.source.namespace} | set(scoped))
    return [
        Document(
            {
                "apiVersion": "v1",
                "kind": "Namespace",
                "metadata": {"name": n, "labels": {"kubernetes.io/metadata.name": n}},
            },
            SourceRef("<kubectl: namespace not listed>", 0, "Namespace", "", n),
        )
        for n in names
    ]


def _usage(items: Iterable[Mapping[str, Any]]) -> NodeUsage:
    cpu: dict[str, int] = {}
    mem: dict[str, int] = {}
    for item in items:
        name = str((item.get("metadata") or {}).get("name") or "")
        u = item.get("usage") or {}
        try:
            cpu[name] = to_units("cpu", u.get("cpu", "0"))
            mem[name] = to_units("memory", u.get("memory", "0"))
        except ValueError:
            continue
    return NodeUsage(cpu, mem)
