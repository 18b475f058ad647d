"""Small builders so scheduler tests read like the scenario they describe."""

from __future__ import annotations

from netpol.model.cluster import Cluster
from netpol.model.labels import Labels, LabelSelector, NodeSelectorRequirement, NodeSelectorTerm
from netpol.model.objects import (
    Affinity,
    Container,
    ContainerPort,
    Namespace,
    Node,
    NodeAffinity,
    OwnerRef,
    Pod,
    PodAffinity,
    PodAffinityTerm,
    PodAntiAffinity,
    Taint,
    Toleration,
)
from scheduling import schedule
from scheduling.podinfo import pod_info
from scheduling.snapshot import Snapshot

GI = 2**30
MI = 2**20


def node(
    name: str,
    *,
    labels: dict[str, str] | None = None,
    taints: tuple[Taint, ...] = (),
    cpu: int = 4000,
    memory: int = 8 * GI,
    pods: int = 110,
    unschedulable: bool = False,
    ready: bool = True,
    images: tuple = (),
    extra: dict[str, int] | None = None,
) -> Node:
    alloc = {"cpu": cpu, "memory": memory, "pods": pods, **(extra or {})}
    lab = {"kubernetes.io/hostname": name, **(labels or {})}
    return Node(name, Labels(lab), taints, unschedulable, allocatable=alloc, capacity=alloc, ready=ready, images=images)


def pod(
    name: str,
    *,
    ns: str = "default",
    labels: dict[str, str] | None = None,
    cpu: int | None = None,
    memory: int | None = None,
    node_name: str = "",
    node_selector: dict[str, str] | None = None,
    affinity: Affinity | None = None,
    tolerations: tuple[Toleration, ...] = (),
    ports: tuple[ContainerPort, ...] = (),
    owner: OwnerRef | None = None,
    order: int = 0,
    priority: int = 0,
    phase: str = "",
    host_network: bool = False,
    image: str = "nginx:1.25",
    spread: tuple = (),
    empty_dir: bool = False,
    init: tuple[Container, ...] = (),
) -> Pod:
    req = {}
    if cpu is not None:
        req["cpu"] = cpu
    if memory is not None:
        req["memory"] = memory
    c = Container("c", image, ports, requests=req)
    return Pod(
        ns,
        name,
        Labels(labels or {}),
        (c,),
        init,
        node_name,
        Labels(node_selector or {}),
        affinity,
        tolerations,
        spread,
        host_network,
        priority,
        owner=owner,
        phase=phase,
        order=order,
        has_empty_dir=empty_dir,
    )


def term(key: str, op: str, *values: str) -> NodeSelectorTerm:
    return NodeSelectorTerm((NodeSelectorRequirement(key, op, tuple(values)),))


def node_affinity(*terms: NodeSelectorTerm, preferred: tuple = ()) -> Affinity:
    return Affinity(node_affinity=NodeAffinity(required=terms or None, preferred=preferred))


def sel(**labels: str) -> LabelSelector:
    return LabelSelector(Labels(labels))


def pod_affinity(key: str, selector: LabelSelector, *, anti: bool = False, **kw) -> Affinity:
    t = PodAffinityTerm(key, selector, **kw)
    if anti:
        return Affinity(pod_anti_affinity=PodAntiAffinity(required=(t,)))
    return Affinity(pod_affinity=PodAffinity(required=(t,)))


def cluster(nodes, pods, **kw) -> Cluster:
    namespaces = kw.pop("namespaces", (Namespace("default", Labels({"kubernetes.io/metadata.name": "default"})),))
    return Cluster(namespaces=namespaces, nodes=tuple(nodes), pods=tuple(pods), **kw)


def placements(c: Cluster, **kw) -> dict[str, str]:
    """pod name → node name, or the Pending reason as the Filter phase left it: the FailedScheduling text up to
    the PostFilter's " preemption: …" sentence (that sentence is pinned in test_sched_preemption.py)."""
    r = schedule(c, **kw)
    return {
        p.name: (p.node_name if p.phase == "Running" else f"{p.phase}: {p.reason.split(' preemption: ', 1)[0]}")
        for p in r.cluster.pods
    }


def snapshot(nodes, bound=()) -> Snapshot:
    snap = Snapshot(nodes)
    for p in bound:
        snap.bind(pod_info(p), snap.index[p.node_name])
    return snap
