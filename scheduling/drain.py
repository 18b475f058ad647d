"""kubectl drain (kubectl/pkg/drain: filters.go, drain.go) and the PodDisruptionBudget arithmetic the eviction
API and the disruption controller apply (pkg/controller/disruption). All functions are pure."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from netpol.model.naming import pod_template_hash
from netpol.model.objects import Pod, PodDisruptionBudget, Workload
from scheduling.controllers import Eviction


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
