"""A kube-scheduler (v1.30+) simulator: where every pod of a cluster would run, and why.

`schedule(cluster)` is the entry point the CLI and the analysis pipeline call (as the placer); `output`
renders what `netpol schedule` prints. The package depends on netpol.model and netpol.errors only.
"""

from scheduling.controllers import Eviction
from scheduling.diagnosis import NodeTrace, PluginScore, PodTrace, render_trace
from scheduling.drain import Blocked, DrainOptions, DrainReport
from scheduling.simulation import ScheduleResult, schedule

__all__ = [
    "Blocked",
    "DrainOptions",
    "DrainReport",
    "Eviction",
    "NodeTrace",
    "PluginScore",
    "PodTrace",
    "ScheduleResult",
    "render_trace",
    "schedule",
]
