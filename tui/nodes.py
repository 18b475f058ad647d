"""Nodes as the Nodes view shows them: the pods on each, effective requests against allocatable, and the
text forms of quantities and usage bars (pure; no Textual)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from netpol.model.objects import Node, Pod
from scheduling.podinfo import container_requests


@dataclass(frozen=True, slots=True)
class NodeInfo:
    node: Node
    pods: tuple[Pod, ...]
    requested: Mapping[str, int]

    @property
    def name(self) -> str:
        return self.node.name


def pod_requests(pod: Pod) -> dict[str, int]:
    """Effective requests, as the scheduler counts them against allocatable (kubectl describe node)."""
    return container_requests(pod.containers, pod.init_containers, pod.overhead, non_zero=False)


def render_quantity(resource: str, value: int) -> str:
    if resource == "cpu":
        return f"{value}m" if value % 1000 else str(value // 1000)
    if resource in ("memory", "ephemeral-storage"):
        for unit, size in (("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10)):
            if value >= size:
                q = value / size
                return f"{q:.1f}{unit}" if q != int(q) else f"{int(q)}{unit}"
        return str(value)
    return str(value)


def bar(used: int, total: int, width: int = 10) -> str:
    """`████░░░░░░ 40%`: the number carries the meaning, the bar repeats it."""
    if total <= 0:
        return "░" * width + "   n/a"
    frac = used / total
    filled = min(width, round(frac * width))
    return "█" * filled + "░" * (width - filled) + f" {round(frac * 100):>3}%"


def node_infos(nodes: Iterable[Node], pods: Sequence[Pod]) -> list[NodeInfo]:
    """Per node (by name): the running pods placed on it and the sum of their effective requests."""
    by_node: dict[str, list[Pod]] = {}
    for p in pods:
        if p.node_name:
            by_node.setdefault(p.node_name, []).append(p)
    out = []
    for node in sorted(nodes, key=lambda n: n.name):
        pods = tuple(by_node.get(node.name, ()))
        req: dict[str, int] = {"pods": len(pods)}
        for p in pods:
            for k, v in pod_requests(p).items():
                req[k] = req.get(k, 0) + v
        out.append(NodeInfo(node, pods, req))
    return out
