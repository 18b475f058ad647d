"""NodeName: a pod with spec.nodeName fits only that node (upstream plugins/nodename).

Pods that already carry a nodeName bypass the scheduler entirely (see controllers.admit); the plugin is
kept in the profile so a trace of such a pod, or a custom caller, sees the same rule.
"""

from __future__ import annotations

from scheduling.framework import Code, CycleState, NodeVerdicts, uniform_verdicts
from scheduling.podinfo import PodInfo
from scheduling.snapshot import Snapshot

NAME = "NodeName"
ERR_REASON = "node(s) didn't match the requested node name"


class NodeName:
    name = NAME

    def filter(self, state: CycleState, pod: PodInfo, snap: Snapshot) -> NodeVerdicts | None:
        if not pod.pod.node_name:
            return None
        return uniform_verdicts(snap.names_arr == pod.pod.node_name, ERR_REASON, Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
