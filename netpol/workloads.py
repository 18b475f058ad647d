"""Workloads → pods, named the way the controllers name them, so a folder of Deployments gives real pods.

Names are deterministic (derived from the workload, never random): `web-<10>-<5>` for Deployments (the
ReplicaSet's pod-template-hash then a suffix), `rs-<5>` for ReplicaSets, `web-0…` for StatefulSets,
`job-<5>` for Jobs, `cron-<minutes>-<5>` for CronJobs. DaemonSet pods depend on the nodes and are the
scheduler's (scheduling.controllers); without nodes one representative pod is created, with a warning.
"""

from __future__ import annotations

from dataclasses import replace

from netpol.gcpause import gc_paused
from netpol.model.cluster import Cluster, Warning_
from netpol.model.naming import daemonset_pod, make_pod, pod_labels, pod_template_hash, safe_hash
from netpol.model.objects import OwnerRef, Pod, Workload


def _free_name(prefix: str, seed: str, namespace: str, taken: set[str]) -> str:
    """`prefix` + a 5-character suffix not taken yet: the API refuses a taken generateName result and the
    controller tries another random suffix (apiserver names.SimpleNameGenerator); here the next seed."""
    attempt = 0
    while True:
        name = f"{prefix}{safe_hash(seed if not attempt else f'{seed}/{attempt}', 5)}"
        if f"{namespace}/{name}" not in taken:
            taken.add(f"{namespace}/{name}")
            return name
        attempt += 1


def workload_pods(wl: Workload, taken: set[str] | None = None) -> tuple[Pod, ...]:
    """The pods a controller would create for `wl` (DaemonSets excluded: they need nodes).

    Generated names avoid `taken` (keys `ns/name` of pods that exist) and each other, and are added to it.
    """
    taken = set() if taken is None else taken
    pods: list[Pod] = []
    match wl.kind:
        case "Deployment":
            h = pod_template_hash(wl)
            owner = OwnerRef("ReplicaSet", f"{wl.name}-{h}")
            labels = pod_labels(wl, {"pod-template-hash": h})
            for i in range(wl.replicas):
                name = _free_name(f"{wl.name}-{h}-", f"{wl.key}/{h}/{i}", wl.namespace, taken)
                pods.append(make_pod(wl, name, {}, owner, i, labels))
        case "ReplicaSet":
            owner = OwnerRef("ReplicaSet", wl.name)
            labels = pod_labels(wl, {})
            for i in range(wl.replicas):
                name = _free_name(f"{wl.name}-", f"{wl.key}/{i}", wl.namespace, taken)
                pods.append(make_pod(wl, name, {}, owner, i, labels))
        case "StatefulSet":
            owner = OwnerRef("StatefulSet", wl.name)
            rev = f"{wl.name}-{pod_template_hash(wl)}"
            for i in range(wl.replicas):
                name = f"{wl.name}-{i}"
                extra = {
                    "controller-revision-hash": rev,
                    "statefulset.kubernetes.io/pod-name": name,
                    "apps.kubernetes.io/pod-index": str(i),
                }
                pods.append(make_pod(wl, name, extra, owner, i))
        case "Job" | "CronJob":
            job = (
                wl.name
                if wl.kind == "Job"
                else f"{wl.name}-{28_000_000 + int(safe_hash(wl.key, 3).encode().hex(), 16) % 1000}"
            )
            owner = OwnerRef("Job", job)
            labels = pod_labels(wl, {"job-name": job, "batch.kubernetes.io/job-name": job})
            for i in range(wl.replicas):
                name = _free_name(f"{job}-", f"{wl.key}/{job}/{i}", wl.namespace, taken)
                pods.append(make_pod(wl, name, {}, owner, i, labels))
        case "DaemonSet":
            pass
        case _:
            raise AssertionError(wl.kind)
    return tuple(pods)


def materialized(cluster: Cluster) -> set[tuple[str, str, str]]:
    """(kind, namespace, name) of workloads whose children are in the input already.

    `kubectl get all -o yaml` dumps a Deployment with its ReplicaSet and their Pods: the children stand
    for the workload, and expanding it again would invent a second set of pods.
    """
    out = set()
    children: tuple[Pod | Workload, ...] = (*cluster.pods, *cluster.workloads)
    for child in children:
        if child.owner is not None:
            out.add((child.owner.kind, child.namespace, child.owner.name))
    return out


@gc_paused()
def expand_workloads(cluster: Cluster) -> Cluster:
    """Add the pods of every non-DaemonSet workload (bare pods stay as given, first).

    Workloads whose pods (or ReplicaSets, Jobs) are in the input are not expanded again, DaemonSets
    included (they leave `cluster.workloads`, so the scheduler's DaemonSet controller skips them too).
    """
    done = materialized(cluster)
    kept = tuple(w for w in cluster.workloads if (w.kind, w.namespace, w.name) not in done)
    if len(kept) != len(cluster.workloads):
        cluster = replace(cluster, workloads=kept)
    pods = list(cluster.pods)
    seen = {p.key for p in pods}
    warnings = []
    for wl in cluster.workloads:
        fixed_names = wl.kind == "StatefulSet"  # the others draw suffixes that avoid `seen` (and add to it)
        for p in workload_pods(wl, seen):
            if not fixed_names:
                pods.append(p)
                continue
            if p.key in seen:
                warnings.append(
                    Warning_(
                        "duplicate",
                        f"pod {p.key} of {wl.kind} {wl.name} already given as a Pod; kept the Pod",
                        wl.source,
                    )
                )
                continue
            seen.add(p.key)
            pods.append(p)
    return cluster.with_pods(tuple(pods), *warnings)


def expand_daemonsets_without_nodes(cluster: Cluster) -> Cluster:
    """No Node objects: one representative pod per DaemonSet, so its policies still show (with a warning)."""
    extra = []
    warnings = []
    for wl in cluster.workloads:
        if wl.kind == "DaemonSet":
            extra.append(daemonset_pod(wl, "", 0))
            warnings.append(
                Warning_(
                    "daemonset-without-nodes", f"DaemonSet {wl.key}: no nodes given, modelled as one pod", wl.source
                )
            )
    if not extra:
        return cluster
    return cluster.with_pods(cluster.pods + tuple(extra), *warnings)
