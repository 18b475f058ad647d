"""What-if placement for every reachability command: `--cordon NODE`, `--drain NODE` (kubectl drain's flags)
and `--seed`, applied by the scheduler before reachability is computed, so answers hold after the drain
(pods moved, new IPs, ipBlock rules matching or not). The scheduler's own drain simulation does the work
(scheduling.schedule, as `netpol schedule --drain` uses it); this module only wires the flags to it."""

from __future__ import annotations

import argparse
from typing import TextIO

from netpol.commands._types import node_arg
from netpol.errors import UsageError
from netpol.model.cluster import Cluster
from netpol.pipeline import Placer


def add_what_if_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("what-if (answers computed after these, as `netpol schedule` places pods)")
    g.add_argument(
        "--cordon", type=node_arg, action="append", default=[], metavar="NODE", help="cordon NODE before placing pods"
    )
    g.add_argument(
        "--drain",
        type=node_arg,
        action="append",
        default=[],
        metavar="NODE",
        help="drain NODE like `kubectl drain`: its pods are evicted and their workloads' pods placed elsewhere",
    )
    g.add_argument("--ignore-daemonsets", action="store_true", help="drain: leave DaemonSet-managed pods")
    g.add_argument("--delete-emptydir-data", action="store_true", help="drain: evict pods using emptyDir volumes")
    g.add_argument("--force", action="store_true", help="drain: also delete pods no controller manages")


def what_if(args: argparse.Namespace) -> tuple[tuple[str, ...], tuple[str, ...]]:
    return tuple(getattr(args, "cordon", None) or ()), tuple(getattr(args, "drain", None) or ())


def placer_for(args: argparse.Namespace, err: TextIO) -> Placer:
    """The scheduler as the pipeline's placer, with the what-if flags of `args`; a drain kubectl would refuse
    is an error (the answers would be about a node that was not drained), refused evictions are reported."""
    seed = getattr(args, "seed", None)
    cordon, drain = what_if(args)

    def place(cluster: Cluster):  # noqa: ANN202 - scheduling.ScheduleResult
        # the composition root wires scheduling in, imported only when there are nodes to place pods on
        from scheduling import DrainOptions, schedule

        opts = DrainOptions(
            ignore_daemonsets=bool(getattr(args, "ignore_daemonsets", False)),
            delete_emptydir_data=bool(getattr(args, "delete_emptydir_data", False)),
            force=bool(getattr(args, "force", False)),
        )
        result = schedule(cluster, seed=seed, cordon=cordon, drain=drain, drain_options=opts)
        report = getattr(result, "drain", None)
        if report is not None and drain:
            if report.errors:
                raise UsageError(f"--drain {', '.join(drain)}: kubectl drain would refuse: " + "; ".join(report.errors))
            for b in report.blocked:
                print(f"note: --drain {b.node}: {b.pod} is not evicted: {b.reason}", file=err)
            for e in report.evicted:
                where = f", replaced by {e.replacement}" if e.replacement else ", not recreated (no controller)"
                print(f"note: --drain {e.node}: {e.pod} evicted{where}", file=err)
        return result

    return place


def check_what_if(args: argparse.Namespace, cluster: Cluster) -> None:
    """--cordon/--drain need Node objects: without them nothing is scheduled, so there is nothing to drain."""
    cordon, drain = what_if(args)
    if (cordon or drain) and not cluster.nodes:
        opt = "--drain" if drain else "--cordon"
        raise UsageError(f"{opt}: the input has no Node objects, so no pod is placed by the scheduler to move")
