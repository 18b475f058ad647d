"""NodeUnschedulable: cordoned nodes (spec.unschedulable) reject pods that do not tolerate the
node.kubernetes.io/unschedulable:NoSchedule taint (upstream plugins/nodeunschedulable)."""

from __future__ import annotations

from netpol.model.objects import Taint
from scheduling.framework import Code, CycleState, NodeVerdicts, uniform_verdicts
from scheduling.podinfo import PodInfo
from scheduling.snapshot import TAINT_UNSCHEDULABLE, Snapshot

NAME = "NodeUnschedulable"
ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable"
UNSCHEDULABLE_TAINT = Taint(TAINT_UNSCHEDULABLE, "", "NoSchedule")


class NodeUnschedulable:
    name = NAME

    def filter(self, state: CycleState, pod: PodInfo, snap: Snapshot) -> NodeVerdicts | None:
        if not snap.unschedulable.any():
            return None
        if any(t.tolerates(UNSCHEDULABLE_TAINT) for t in pod.pod.tolerations):
            return None
        return uniform_verdicts(~snap.unschedulable, ERR_REASON_UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
