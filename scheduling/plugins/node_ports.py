"""NodePorts: a hostPort is free unless another pod on the node holds the same protocol and port on the
same host IP or on 0.0.0.0 (upstream plugins/nodeports, framework.HostPortInfo.CheckConflict)."""

from __future__ import annotations

import numpy as np

from scheduling.framework import Code, CycleState, NodeVerdicts, uniform_verdicts
from scheduling.podinfo import PodInfo
from scheduling.snapshot import Snapshot

NAME = "NodePorts"
ERR_REASON = "node(s) didn't have free ports for the requested pod ports"
BIND_ALL = "0.0.0.0"


def conflicts(
    wanted: tuple[tuple[str, str, int], ...], used: dict[tuple[str, int], dict[int, list[str]]], n: int
) -> np.ndarray:
    bad = np.zeros(n, dtype=bool)
    for proto, ip, port in wanted:
        for i, ips in used.get((proto, port), {}).items():
            if ips and (ip == BIND_ALL or BIND_ALL in ips or ip in ips):
                bad[i] = True
    return bad


class NodePorts:
    name = NAME

    def filter(self, state: CycleState, pod: PodInfo, snap: Snapshot) -> NodeVerdicts | None:
        if not pod.host_ports:
            return None
        bad = conflicts(pod.host_ports, snap.host_ports, snap.n)
        if not bad.any():
            return None
        return uniform_verdicts(~bad, ERR_REASON, Code.UNSCHEDULABLE)
