"""What happens around the scheduler: admission defaults, the DaemonSet controller, the kubelet's admission
of spec.nodeName pods, node conditions as taints, cordon, kubectl drain with PodDisruptionBudgets.

Each rule cites the upstream code it mirrors; all functions are pure.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from netpol.model.labels import NodeSelectorRequirement, NodeSelectorTerm
from netpol.model.naming import daemonset_pod, pod_template_hash
from netpol.model.objects import Affinity, Node, NodeAffinity, Pod, PodDisruptionBudget, Taint, Toleration, Workload
from scheduling.plugins import node_affinity, node_name, node_ports, node_resources_fit, taint_toleration
from scheduling.podinfo import PodInfo
from scheduling.snapshot import TAINT_NOT_READY, TAINT_UNREACHABLE, TAINT_UNSCHEDULABLE, Snapshot, untolerated_taint

DEFAULT_TOLERATION_SECONDS = 300  # kube-apiserver --default-not-ready-toleration-seconds / unreachable


# ---------------------------------------------------------------------------------------------- admission


def _tolerates_noexecute(tolerations: Iterable[Toleration], key: str) -> bool:
    return any((t.key == key or not t.key) and t.effect in ("NoExecute", "") for t in tolerations)


def with_default_tolerations(pod: Pod) -> Pod:
    """DefaultTolerationSeconds admission: not-ready and unreachable NoExecute for 300 s, unless the pod
    already tolerates them (a toleration with that key or no key, and NoExecute or no effect)."""
    extra = []
    for key in (TAINT_NOT_READY, TAINT_UNREACHABLE):
        if not _tolerates_noexecute(pod.tolerations, key):
            extra.append(Toleration(key, "Exists", "", "NoExecute", DEFAULT_TOLERATION_SECONDS))
    return replace(pod, tolerations=pod.tolerations + tuple(extra)) if extra else pod


# ---------------------------------------------------------------------------------------------- nodes


def node_condition_taints(node: Node) -> Node:
    """The node lifecycle controller taints a NotReady node not-ready:NoSchedule (TaintNodesByCondition)
    and not-ready:NoExecute (taint-based eviction)."""
    if node.ready:
        return node
    have = {(t.key, t.effect) for t in node.taints}
    extra = tuple(
        Taint(TAINT_NOT_READY, "", e) for e in ("NoSchedule", "NoExecute") if (TAINT_NOT_READY, e) not in have
    )
    return replace(node, taints=node.taints + extra) if extra else node


def cordoned(node: Node) -> Node:
    """`kubectl cordon`: spec.unschedulable, and the node.kubernetes.io/unschedulable:NoSchedule taint the
    node lifecycle controller adds for it."""
    taints = node.taints
    if not any(t.key == TAINT_UNSCHEDULABLE and t.effect == "NoSchedule" for t in taints):
        taints = taints + (Taint(TAINT_UNSCHEDULABLE, "", "NoSchedule"),)
    return replace(node, unschedulable=True, taints=taints)


# ---------------------------------------------------------------------------------------------- DaemonSet


def _add_or_update(tolerations: tuple[Toleration, ...], tol: Toleration) -> tuple[Toleration, ...]:
    """v1helper.AddOrUpdateTolerationInPodSpec: replace a toleration equal but for seconds, else append."""
    out = list(tolerations)
    for i, t in enumerate(out):
        if (t.key, t.operator, t.value, t.effect) == (tol.key, tol.operator, tol.value, tol.effect):
            out[i] = tol
            return tuple(out)
    return tuple(out) + (tol,)


def daemonset_tolerations(pod: Pod) -> Pod:
    """daemon/util.AddOrUpdateDaemonPodTolerations: what DaemonSet pods tolerate beyond their template.

    Never the control-plane taint: a DaemonSet runs on control-plane nodes only if its template says so.
    """
    tols = pod.tolerations
    adds = [
        (TAINT_NOT_READY, "NoExecute"),
        (TAINT_UNREACHABLE, "NoExecute"),
        ("node.kubernetes.io/disk-pressure", "NoSchedule"),
        ("node.kubernetes.io/memory-pressure", "NoSchedule"),
        ("node.kubernetes.io/pid-pressure", "NoSchedule"),
        (TAINT_UNSCHEDULABLE, "NoSchedule"),
    ]
    if pod.host_network:
        adds.append(("node.kubernetes.io/network-unavailable", "NoSchedule"))
    for key, effect in adds:
        tols = _add_or_update(tols, Toleration(key, "Exists", "", effect))
    return replace(pod, tolerations=tols)


def pinned_to(pod: Pod, node_name_: str) -> Pod:
    """daemon/util.ReplaceDaemonSetPodNodeNameNodeAffinity: required node affinity becomes the single term
    `metadata.name In [node]` (matchFields); preferred terms stay."""
    term = NodeSelectorTerm(match_fields=(NodeSelectorRequirement("metadata.name", "In", (node_name_,)),))
    aff = pod.affinity or Affinity()
    na = aff.node_affinity or NodeAffinity()
    return replace(pod, affinity=replace(aff, node_affinity=replace(na, required=(term,))))


def daemon_should_run(pod: Pod, node: Node) -> bool:
    """daemon.NodeShouldRunDaemonPod: nodeName, node affinity/selector of the template, and no untolerated
    NoSchedule/NoExecute taint. Resources are the scheduler's business (the pod may then stay Pending)."""
    if pod.node_name and pod.node_name != node.name:
        return False
    if any(node.labels.get(k) != v for k, v in pod.node_selector.items()):
        return False
    na = pod.affinity.node_affinity if pod.affinity else None
    if na is not None and na.required is not None:
        if not any(t.matches(node.labels, node.name) for t in na.required):
            return False
    return untolerated_taint(node.taints, pod.tolerations, ("NoSchedule", "NoExecute")) is None


def daemonset_pods(ds: Workload, nodes: Sequence[Node]) -> tuple[Pod, ...]:
    """One pod per eligible node, named after the DaemonSet and the node, pinned by matchFields."""
    out = []
    for k, node in enumerate(sorted(nodes, key=lambda n: n.name)):
        pod = daemonset_tolerations(daemonset_pod(ds, node.name, k))
        if daemon_should_run(pod, node):
            out.append(with_default_tolerations(pinned_to(pod, node.name)))
    return tuple(out)


# ---------------------------------------------------------------------------------------------- kubelet


@dataclass(frozen=True, slots=True)
class Rejection:
    """The kubelet refused a pod at admission: pod phase Failed, status.reason and status.message."""

    reason: str
    message: str


def kubelet_admit(info: PodInfo, snap: Snapshot, i: int) -> Rejection | None:
    """kubelet lifecycle.predicateAdmitHandler: scheduler.AdmissionCheck (resources, node affinity/selector,
    node name, host ports) plus untolerated NoExecute taints. Only the first failure is reported: reason
    `OutOf<resource>` for resources, else the plugin name; message prefixed "Pod was rejected: "."""
    insufficient = node_resources_fit.fits(info, snap, i)
    if insufficient:
        r = insufficient[0]
        msg = (
            f"Node didn't have enough resource: {r.resource}, requested: {r.requested}, used: {r.used}, "
            f"capacity: {r.capacity}"
        )
        return Rejection(f"OutOf{r.resource}", "Pod was rejected: " + msg)
    pod = info.pod
    node = snap.nodes[i]
    if any(node.labels.get(k) != v for k, v in pod.node_selector.items()) or not _required_terms_match(pod, node):
        return Rejection(node_affinity.NAME, f"Pod was rejected: Predicate {node_affinity.NAME} failed")
    if pod.node_name and pod.node_name != node.name:  # pragma: no cover - admission runs on the named node
        return Rejection(node_name.NAME, f"Pod was rejected: Predicate {node_name.NAME} failed")
    if info.host_ports and node_ports.conflicts(info.host_ports, snap.host_ports, snap.n)[i]:
        return Rejection(node_ports.NAME, f"Pod was rejected: Predicate {node_ports.NAME} failed")
    if untolerated_taint(node.taints, pod.tolerations, ("NoExecute",)) is not None:
        return Rejection(taint_toleration.NAME, f"Pod was rejected: Predicate {taint_toleration.NAME} failed")
    return None


def _required_terms_match(pod: Pod, node: Node) -> bool:
    na = pod.affinity.node_affinity if pod.affinity else None
    if na is None or na.required is None:
        return True
    return any(t.matches(node.labels, node.name) for t in na.required)


# ---------------------------------------------------------------------------------------------- NoExecute


@dataclass(frozen=True, slots=True)
class Eviction:
    """A pod the taint manager evicts: at once (after_seconds None) or when its tolerationSeconds run out."""

    pod: str
    node: str
    taint: str
    after_seconds: int | None
    replacement: str | None = None


def noexecute_eviction(pod: Pod, node: Node) -> tuple[Taint, int | None] | None:
    """tainteviction controller: the first NoExecute taint not tolerated evicts now; otherwise the smallest
    tolerationSeconds among tolerations of NoExecute taints bounds the pod's stay. None: the pod stays."""
    noexec = [t for t in node.taints if t.effect == "NoExecute"]
    if not noexec:
        return None
    for t in noexec:
        if not any(tol.tolerates(t) for tol in pod.tolerations):
            return t, None
    best: tuple[Taint, int] | None = None
    for t in noexec:
        secs = [tol.toleration_seconds for tol in pod.tolerations if tol.tolerates(t)]
        if secs and all(s is not None for s in secs):
            limit = max(0, min(s for s in secs if s is not None))  # getMinTolerationTime
            if best is None or limit < best[1]:
                best = (t, limit)
    return best


# ---------------------------------------------------------------------------------------------- drain


@dataclass(frozen=True, slots=True)
class DrainOptions:
    """kubectl drain flags."""

    ignore_daemonsets: bool = False
    delete_emptydir_data: bool = False
    force: bool = False


@dataclass(frozen=True, slots=True)
class Blocked:
    pod: str
    node: str
    reason: str


@dataclass(frozen=True, slots=True)
class DrainReport:
    """What `kubectl drain` would do: pods evicted (and their replacements), evictions refused, and the errors
    that abort a drain before any eviction (kubectl's pod filters)."""

    nodes: tuple[str, ...] = ()
    evicted: tuple[Eviction, ...] = ()
    blocked: tuple[Blocked, ...] = ()
    errors: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


DAEMONSET_FATAL = "cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore)"
DAEMONSET_WARNING = "ignoring DaemonSet-managed Pods"
LOCAL_STORAGE_FATAL = "cannot delete Pods with local storage (use --delete-emptydir-data to override)"
LOCAL_STORAGE_WARNING = "deleting Pods with local storage"
UNMANAGED_FATAL = "cannot delete Pods that declare no controller (use --force to override)"
UNMANAGED_WARNING = "deleting Pods that declare no controller"
PDB_VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget."
PDB_MULTIPLE = "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."


DrainVerdict = Literal["ok", "skip", "warning", "error"]


def drain_filter(pod: Pod, opts: DrainOptions) -> tuple[bool, DrainVerdict, str]:
    """kubectl drain's pod filters (kubectl/pkg/drain/filters.go makeFilters) in their order: skipDeleted,
    daemonSet, mirrorPod, localStorage, unreplicated. The first filter that keeps a pod ends the walk, and
    only the *last* status survives (filters.go: a localStorage warning is dropped when unreplicated says Okay).

    (delete?, verdict, message). Mirror pods are skipped silently (the kubelet owns static pods). A pod whose
    deletion already started is not evicted again: kubectl waits for it (skipDeletedFilter skips it only with
    --skip-wait-for-delete-timeout), and its controller has already replaced it, so here it is skipped too.
    """
    finished = pod.phase in ("Succeeded", "Failed")

    def skip_deleted() -> tuple[bool, DrainVerdict, str]:
        return (False, "skip", "") if pod.terminating else (True, "ok", "")

    def daemon_set() -> tuple[bool, DrainVerdict, str]:
        if pod.owner is None or pod.owner.kind != "DaemonSet" or finished:
            return True, "ok", ""
        if not opts.ignore_daemonsets:
            return False, "error", DAEMONSET_FATAL
        return False, "warning", DAEMONSET_WARNING

    def mirror() -> tuple[bool, DrainVerdict, str]:
        return (False, "skip", "") if pod.mirror else (True, "ok", "")

    def local_storage() -> tuple[bool, DrainVerdict, str]:
        if not pod.has_empty_dir or finished:
            return True, "ok", ""
        if not opts.delete_emptydir_data:
            return False, "error", LOCAL_STORAGE_FATAL
        return True, "warning", LOCAL_STORAGE_WARNING

    def unreplicated() -> tuple[bool, DrainVerdict, str]:
        if finished or pod.owner is not None:
            return True, "ok", ""
        if opts.force:
            return True, "warning", UNMANAGED_WARNING
        return False, "error", UNMANAGED_FATAL

    status: tuple[bool, DrainVerdict, str] = (True, "ok", "")
    for step in (skip_deleted, daemon_set, mirror, local_storage, unreplicated):
        status = step()
        if not status[0]:
            break
    return status


def group_messages(items: Iterable[tuple[str, str]]) -> tuple[str, ...]:
    """PodDeleteList.errors/Warnings: one line per message listing its pods ("msg: ns/a, ns/b"), sorted."""
    by: dict[str, list[str]] = {}
    for msg, pod in items:
        by.setdefault(msg, []).append(pod)
    return tuple(sorted(f"{m}: {', '.join(pods)}" for m, pods in by.items()))


def _percent(value: int | str, total: int) -> int:
    """intstr.GetScaledValueFromIntOrPercent with rounding up."""
    if isinstance(value, int):
        return value
    return math.ceil(int(value.rstrip("%")) * total / 100)


@dataclass(frozen=True, slots=True)
class Budget:
    pdb: PodDisruptionBudget
    desired_healthy: int
    current_healthy: int

    @property
    def disruptions_allowed(self) -> int:
        return max(0, self.current_healthy - self.desired_healthy)

    def refusal(self) -> str:
        return (
            f"{PDB_VIOLATION} The disruption budget {self.pdb.name} needs {self.desired_healthy} healthy pods "
            f"and has {self.current_healthy} currently"
        )


def pdb_matches(pdb: PodDisruptionBudget, pod: Pod) -> bool:
    return pdb.namespace == pod.namespace and pdb.selector is not None and pdb.selector.matches(pod.labels)


def budget(pdb: PodDisruptionBudget, pods: Iterable[Pod], workloads: Sequence[Workload]) -> Budget:
    """disruption controller: desiredHealthy from minAvailable (int, or % of the expected count) or
    expected - maxUnavailable; expected = the owners' replicas (for % and maxUnavailable), else matched pods."""
    matched = [p for p in pods if pdb_matches(pdb, p)]
    healthy = sum(1 for p in matched if p.phase == "Running")
    scale = _owner_scale(matched, workloads)
    if pdb.max_unavailable is not None:
        desired = max(0, scale - _percent(pdb.max_unavailable, scale))
    elif isinstance(pdb.min_available, str):
        desired = _percent(pdb.min_available, scale)
    elif pdb.min_available is not None:
        desired = pdb.min_available
    else:  # policy/v1 leaves both unset only for "minAvailable: 1" semantics in practice
        desired = 1
    return Budget(pdb, desired, healthy)


def _owner_scale(pods: Sequence[Pod], workloads: Sequence[Workload]) -> int:
    owners = {(p.namespace, p.owner.kind, p.owner.name) for p in pods if p.owner is not None}
    total = 0
    for ns, kind, name in sorted(owners):
        wl = next((w for w in workloads if w.namespace == ns and _owns(w, kind, name)), None)
        if wl is None:
            return len(pods)
        total += wl.replicas
    return total or len(pods)


def _owns(wl: Workload, kind: str, name: str) -> bool:
    if wl.kind == kind and wl.name == name:
        return True
    return wl.kind == "Deployment" and kind == "ReplicaSet" and name == f"{wl.name}-{pod_template_hash(wl)}"
