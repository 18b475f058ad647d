"""What happens around the scheduler: admission (default tolerations, priority), the DaemonSet controller, the
kubelet's admission of spec.nodeName pods, node conditions as taints, cordon, NoExecute eviction. kubectl drain
and PodDisruptionBudgets are in `drain`.

Each rule cites the upstream code it mirrors; all functions are pure.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from netpol.model.labels import NodeSelectorRequirement, NodeSelectorTerm
from netpol.model.naming import daemonset_pod
from netpol.model.objects import (
    Affinity,
    Node,
    NodeAffinity,
    Pod,
    PriorityClass,
    Taint,
    Toleration,
    Workload,
)
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


SYSTEM_PRIORITY_CLASSES = {  # scheduling/v1 SystemPriorityClasses(): they exist in every cluster
    "system-node-critical": 2_000_001_000,
    "system-cluster-critical": 2_000_000_000,
}


def with_priority(pod: Pod, classes: Sequence[PriorityClass]) -> Pod | str:
    """The Priority admission plugin (plugin/pkg/admission/priority): spec.priority and preemptionPolicy from
    spec.priorityClassName, else from the globalDefault class, else priority 0. A name no class has makes
    the API server refuse the pod: that refusal is returned as text."""
    by_name = {c.name: c for c in classes}
    name = pod.priority_class_name
    if name:
        pc = by_name.get(name)
        if pc is not None:
            return replace(pod, priority=pc.value, preemption_policy=pod.preemption_policy or pc.preemption_policy)
        if name in SYSTEM_PRIORITY_CLASSES:
            return replace(pod, priority=SYSTEM_PRIORITY_CLASSES[name])
        return f'pods "{pod.name}" is forbidden: no PriorityClass with name {name} was found'
    default = next((c for c in sorted(classes, key=lambda c: c.name) if c.global_default), None)
    if default is not None and pod.priority == 0:
        return replace(
            pod,
            priority=default.value,
            priority_class_name=default.name,
            preemption_policy=pod.preemption_policy or default.preemption_policy,
        )
    return pod


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
