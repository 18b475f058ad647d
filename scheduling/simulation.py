"""`schedule(cluster)`: the whole simulated control plane, from manifests to where every pod runs.

Steps, in the order a real cluster would go through them:
1. node conditions become taints (NotReady → not-ready NoSchedule/NoExecute); `cordon` nodes are cordoned;
   pods get the API server's default not-ready/unreachable tolerations; the DaemonSet controller creates one
   pod per eligible node;
2. bound pods first: pods already Running stay where they are; pods created with spec.nodeName skip the
   scheduler and face the kubelet's admission (OutOfcpu, NodeAffinity, TaintToleration, ...);
3. the scheduling queue: priority (desc), then creation order; StatefulSets with OrderedReady stop at the
   first ordinal that cannot run (later ordinals are never created);
4. NoExecute taints evict the pods that do not tolerate them (now, or after tolerationSeconds); evicted
   workload pods are recreated once and scheduled;
5. `drain` nodes as `kubectl drain A B` does (kubectl pkg/cmd/drain/drain.go RunDrain): every named node is
   cordoned first, then each is drained in turn: kubectl's pod filters, evictions one at a time under
   PodDisruptionBudgets, each evicted workload pod recreated and scheduled before the next eviction is tried
   (so a replacement never lands on a node named later in the same drain).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace

import numpy as np

from netpol.errors import UsageError
from netpol.model.cluster import Cluster
from netpol.model.naming import safe_hash
from netpol.model.objects import Pod, Workload
from scheduling.controllers import (
    Eviction,
    cordoned,
    daemonset_pods,
    kubelet_admit,
    node_condition_taints,
    noexecute_eviction,
    with_default_tolerations,
    with_priority,
)
from scheduling.diagnosis import PodTrace
from scheduling.drain import (
    PDB_MULTIPLE,
    PDB_VIOLATION,
    Blocked,
    DrainOptions,
    DrainReport,
    budget,
    drain_filter,
    group_messages,
    pdb_matches,
)
from scheduling.podinfo import PodInfo, pod_info
from scheduling.preemption import Evaluator, Preemption
from scheduling.scheduler import Scheduler, default_profile
from scheduling.snapshot import Snapshot

DETAIL_CELLS = (
    20_000  # keep per-node traces for every pod while pods x nodes stays below this (they cost ~10 µs per cell)
)


@dataclass(frozen=True, slots=True)
class ScheduleResult:
    cluster: Cluster
    traces: Mapping[str, PodTrace] = field(default_factory=dict)
    drain: DrainReport = DrainReport()
    evictions: tuple[Eviction, ...] = ()
    preemptions: tuple[Preemption, ...] = ()


class _Run:
    """Mutable bookkeeping of one simulation; `schedule` is its only user."""

    def __init__(self, cluster: Cluster, nodes: list, seed: int | None, detail: Callable[[str], bool]) -> None:
        self.cluster = cluster
        self.snap = Snapshot(nodes, cluster.namespaces)
        self.profile = default_profile(cluster.services, cluster.workloads)
        self.sched = Scheduler(self.snap, self.profile, seed=seed, detail=detail)
        self.queue: list[tuple[int, int, str, Pod]] = []  # the active queue: priority, then creation order
        self.preemptions: list[Preemption] = []
        self.pods: dict[str, Pod] = {}
        self.traces: dict[str, PodTrace] = {}
        self.workloads: dict[tuple[str, str, str], Workload] = {
            (w.namespace, w.kind, w.name): w for w in cluster.workloads
        }
        self.blocked_sets: dict[str, str] = {}
        self.generation = 0

    def place(self, pod: Pod) -> None:
        """Schedule one pod through the framework (PostFilter: preemption) and record the outcome."""
        info = pod_info(pod)
        trace = self.sched.schedule_one(info)
        if trace.how == "unschedulable" and self.sched.last_codes is not None:
            trace = self.preempt(info, trace, self.sched.last_codes)
        self.traces[pod.key] = trace
        if trace.node is not None:
            self.pods[pod.key] = replace(pod, node_name=trace.node, phase="Running", reason="")
        else:
            self.pods[pod.key] = replace(pod, node_name="", phase="Pending", reason=trace.reason)

    def preempt(self, info: PodInfo, failed: PodTrace, codes: np.ndarray) -> PodTrace:
        """DefaultPreemption: evict the chosen victims, then schedule the pod again on the nominated node; the
        victims' controllers recreate them and the replacements join the queue. Without a candidate the
        FailedScheduling message gains upstream's "preemption: …" sentence."""
        evaluator = Evaluator(
            self.snap,
            self.profile,
            self.cluster.pdbs,
            lambda pdb: budget(pdb, self.pods.values(), self.cluster.workloads).disruptions_allowed,
        )
        outcome = evaluator.preempt(info, codes)
        if isinstance(outcome, str):
            return replace(failed, reason=f"{failed.reason} preemption: {outcome}")
        victims, replacements = [], []
        for v in outcome.victims:
            old = self.remove(v.key)
            self.snap.forget(v.key)
            new = self.recreate(old, daemonset=True)
            victims.append(v.key)
            replacements.append(new.key if new else None)
            if new is not None:
                self.enqueue(new)
        done = Preemption(info.key, outcome.name, tuple(victims), tuple(replacements))
        self.preemptions.append(done)
        trace = self.sched.schedule_one(info, nominated=outcome.node)
        note = f"nominated to {outcome.name} after preempting {', '.join(victims)}"
        return replace(trace, message=note, preempted=tuple(victims))

    def bind_existing(self, pod: Pod) -> None:
        i = self.snap.index.get(pod.node_name)
        if i is None:
            reason = f'node "{pod.node_name}" not found'
            self.pods[pod.key] = replace(pod, phase="Pending", reason=reason)
            self.traces[pod.key] = PodTrace(
                pod.key,
                "orphaned",
                node=None,
                reason=reason,
                message="spec.nodeName names no node: the pod never starts",
            )
            return
        info = pod_info(pod)
        if pod.phase != "Running":
            rejection = kubelet_admit(info, self.snap, i)
            if rejection is not None:
                self.pods[pod.key] = replace(pod, phase="Failed", reason=rejection.reason)
                self.traces[pod.key] = PodTrace(
                    pod.key, "rejected", node=pod.node_name, reason=rejection.reason, message=rejection.message
                )
                return
        self.snap.bind(info, i)
        how = "already Running" if pod.phase == "Running" else "spec.nodeName, admitted by the kubelet"
        self.pods[pod.key] = replace(pod, phase="Running", reason="")
        self.traces[pod.key] = PodTrace(pod.key, "bound", node=pod.node_name, message=how)

    def ordered_ready_gate(self, pod: Pod) -> str | None:
        """StatefulSet OrderedReady: once an ordinal is not Running, later ordinals are not created."""
        if pod.owner is None or pod.owner.kind != "StatefulSet":
            return None
        wl = self.workloads.get((pod.namespace, "StatefulSet", pod.owner.name))
        if wl is None or wl.pod_management_policy != "OrderedReady":
            return None
        return self.blocked_sets.get(f"{pod.namespace}/{pod.owner.name}")

    def enqueue(self, pod: Pod) -> None:
        heapq.heappush(self.queue, (-pod.priority, pod.order, pod.key, pod))

    def run_queue(self, pods: Iterable[Pod] = ()) -> None:
        """Pop the queue until it is empty: highest priority first, then creation order (PrioritySort)."""
        for p in pods:
            self.enqueue(p)
        while self.queue:
            *_, pod = heapq.heappop(self.queue)
            waiting_for = self.ordered_ready_gate(pod)
            if waiting_for is not None and pod.owner is not None:
                self.traces[pod.key] = PodTrace(
                    pod.key,
                    "waiting",
                    reason=f"StatefulSet {pod.namespace}/{pod.owner.name} is OrderedReady: {waiting_for} is not Running, "
                    "so this ordinal is not created",
                )
                continue
            self.place(pod)
            if self.pods[pod.key].phase != "Running" and pod.owner is not None and pod.owner.kind == "StatefulSet":
                if self.ordered_ready_gate(pod) is None and self._is_ordered_ready(pod):
                    self.blocked_sets[f"{pod.namespace}/{pod.owner.name}"] = pod.name

    def _is_ordered_ready(self, pod: Pod) -> bool:
        wl = self.workloads.get((pod.namespace, "StatefulSet", pod.owner.name if pod.owner else ""))
        return wl is not None and wl.pod_management_policy == "OrderedReady"

    def remove(self, key: str) -> Pod:
        if key in self.snap.pod_index.bound:
            self.snap.unbind(key)
        return self.pods.pop(key)

    def recreate(self, pod: Pod, *, daemonset: bool = False) -> Pod | None:
        """The owning controller's replacement for an evicted pod: None for bare pods, and for DaemonSet pods
        unless `daemonset` (a preempted DaemonSet pod is recreated for its node; a drained one is not)."""
        if pod.owner is None or (pod.owner.kind == "DaemonSet" and not daemonset):
            return None
        self.generation += 1
        if pod.owner.kind == "StatefulSet":
            name = pod.name  # StatefulSet pods keep their identity
        else:
            prefix = pod.name.rsplit("-", 1)[0]
            name = f"{prefix}-{safe_hash(f'{pod.key}/replacement/{self.generation}', 5)}"
        return replace(pod, name=name, node_name="", phase="", reason="", pod_ips=(), order=10**12 + self.generation)

    def evict_noexecute(self) -> list[Eviction]:
        out = []
        for key in sorted(self.snap.pod_index.bound):
            info, i = self.snap.pod_index.bound[key]
            ev = noexecute_eviction(info.pod, self.snap.nodes[i])
            if ev is None:
                continue
            taint, after = ev
            old = self.remove(key)
            new = self.recreate(old)
            out.append(Eviction(key, self.snap.names[i], taint.render(), after, new.key if new else None))
            if new is not None:
                self.run_queue([new])
        return out

    def cordon(self, names: Iterable[str]) -> None:
        for name in names:
            i = self.snap.index[name]
            self.snap.set_node(i, cordoned(self.snap.nodes[i]))

    def drain(self, name: str, opts: DrainOptions) -> DrainReport:
        """Evict what kubectl drain would from one node, already cordoned (`cordon` above)."""
        i = self.snap.index[name]
        on_node = sorted(self.snap.pods_on[i])
        errors, warnings, delete = [], [], []
        for key in on_node:
            pod = self.pods[key]
            ok, kind, msg = drain_filter(pod, opts)
            if kind == "error":
                errors.append((msg, key))
            elif kind == "warning":
                warnings.append((msg, key))
            if ok:
                delete.append(key)
        if errors:  # kubectl aborts the whole node: nothing is evicted
            return DrainReport((name,), errors=group_messages(errors), warnings=group_messages(warnings))
        evicted: list[Eviction] = []
        blocked: list[Blocked] = []
        retried: list[tuple[str, str]] = []
        pending = list(delete)
        progress = True
        while pending and progress:
            # kubectl evicts every pod at once; the eviction API spends the budget as it goes, refuses the rest
            # with 429 and kubectl retries them once the recreated pods run.
            progress = False
            allowed = {
                pdb.name: budget(pdb, self.pods.values(), self.cluster.workloads).disruptions_allowed
                for pdb in self.cluster.pdbs
            }
            for key in list(pending):
                pod = self.pods[key]
                pdbs = [p for p in self.cluster.pdbs if pdb_matches(p, pod)]
                if len(pdbs) > 1:
                    blocked.append(Blocked(key, name, PDB_MULTIPLE))
                    pending.remove(key)
                    continue
                if pdbs and pod.phase == "Running":
                    if allowed[pdbs[0].name] < 1:
                        retried.append(
                            (
                                f'error when evicting pods/"{pod.name}" -n "{pod.namespace}" (will retry after 5s): '
                                f"{PDB_VIOLATION}",
                                key,
                            )
                        )
                        continue
                    allowed[pdbs[0].name] -= 1
                pending.remove(key)
                progress = True
                old = self.remove(key)
                new = self.recreate(old)
                evicted.append(Eviction(key, name, "", None, new.key if new else None))
                if new is not None:
                    self.run_queue([new])
        warnings += [(msg, key) for msg, key in retried if key not in pending]
        for key in pending:
            pdb = next(p for p in self.cluster.pdbs if pdb_matches(p, self.pods[key]))
            blocked.append(Blocked(key, name, budget(pdb, self.pods.values(), self.cluster.workloads).refusal()))
        notes = group_messages((m, k) for m, k in warnings if not m.startswith("error when evicting"))
        notes += tuple(dict.fromkeys(m for m, _ in warnings if m.startswith("error when evicting")))
        return DrainReport((name,), tuple(evicted), tuple(blocked), (), notes)


def _merge(reports: list[DrainReport]) -> DrainReport:
    out = DrainReport()
    for r in reports:
        out = DrainReport(
            out.nodes + r.nodes,
            out.evicted + r.evicted,
            out.blocked + r.blocked,
            out.errors + r.errors,
            out.warnings + r.warnings,
        )
    return out


def schedule(
    cluster: Cluster,
    *,
    seed: int | None = None,
    cordon: tuple[str, ...] = (),
    drain: tuple[str, ...] = (),
    drain_options: DrainOptions | None = None,
    explain: Iterable[str] | None = None,
) -> ScheduleResult:
    """Place every pod of an expanded cluster (workloads already turned into pods, DaemonSets not).

    `explain`: pod keys whose per-node trace must be kept even in big clusters (small clusters keep all).
    """
    names = {n.name for n in cluster.nodes}
    for name in (*cordon, *drain):
        if name not in names:
            raise UsageError(f'nodes "{name}" not found')
    nodes = [node_condition_taints(n) for n in cluster.nodes]
    nodes = [cordoned(n) if n.name in cordon else n for n in nodes]

    pods = [with_default_tolerations(p) for p in cluster.pods]
    known = {p.key for p in pods}
    for wl in cluster.workloads:
        if wl.kind == "DaemonSet":
            pods += [p for p in daemonset_pods(wl, nodes) if p.key not in known]
    refused: dict[str, str] = {}
    admitted = []
    for p in pods:
        got = with_priority(p, cluster.priority_classes)
        if isinstance(got, str):
            refused[p.key] = got
            admitted.append(p)
        else:
            admitted.append(got)
    pods = admitted

    wanted = set(explain or ())
    keep_all = len(pods) * max(len(nodes), 1) <= DETAIL_CELLS
    run = _Run(cluster, nodes, seed, (lambda key: True) if keep_all else wanted.__contains__)

    queue = []
    for pod in sorted(pods, key=lambda p: (p.order, p.key)):
        if pod.key in refused:  # the API server never created it
            run.pods[pod.key] = replace(pod, phase="Pending", reason=refused[pod.key])
            run.traces[pod.key] = PodTrace(pod.key, "skipped", reason=refused[pod.key])
        elif pod.terminated:
            run.pods[pod.key] = pod
            run.traces[pod.key] = PodTrace(pod.key, "skipped", node=pod.node_name or None, reason=pod.phase)
        elif pod.terminating and not pod.node_name:  # schedule_one.go skipPodSchedule: "skip schedule deleting pod"
            run.pods[pod.key] = replace(pod, phase="Pending", reason="")
            run.traces[pod.key] = PodTrace(pod.key, "skipped", reason="being deleted: skip schedule deleting pod")
        elif pod.node_name:
            run.bind_existing(pod)
        elif pod.scheduler_name != "default-scheduler":
            run.pods[pod.key] = replace(pod, phase="Pending", reason="")
            run.traces[pod.key] = PodTrace(
                pod.key, "skipped", reason=f'schedulerName "{pod.scheduler_name}" is not simulated'
            )
        else:
            queue.append(pod)
    run.run_queue(queue)
    evictions = run.evict_noexecute()
    opts = drain_options or DrainOptions()
    draining = tuple(dict.fromkeys(drain))
    run.cordon(draining)  # RunDrain: RunCordonOrUncordon(true) over every node, then deleteOrEvictPodsSimple per node
    report = _merge([run.drain(name, opts) for name in draining])

    order = {p.key: k for k, p in enumerate(pods)}
    final = sorted(run.pods.values(), key=lambda p: (order.get(p.key, len(order)), p.order, p.key))
    result_nodes = tuple(run.snap.nodes[run.snap.index[n.name]] for n in cluster.nodes)
    placed = replace(cluster, nodes=result_nodes, pods=tuple(final))
    return ScheduleResult(placed, dict(run.traces), report, tuple(evictions), tuple(run.preemptions))


__all__ = ["DrainOptions", "DrainReport", "Eviction", "PodInfo", "ScheduleResult", "schedule"]
