"""`netpol schedule`: delegates to the scheduler package's command."""

from __future__ import annotations

import argparse

from netpol.commands.context import Context, add_input_arguments


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_input_arguments(p)
    from scheduling import command

    command.add_arguments(p)


def run(args: argparse.Namespace, ctx: Context) -> int:
    from netpol.loading.live import node_usage
    from netpol.workloads import expand_workloads
    from scheduling import command

    cluster = ctx.cluster
    if ctx.live:  # a what-if: the simulator re-places what the cluster left Pending; say what the cluster said
        for pod in cluster.pods:
            if pod.phase == "Pending" and not pod.node_name:
                said = pod.reason or "not scheduled yet"
                print(f"note: {pod.key} is Pending in the cluster: {said}", file=ctx.err)
    return command.run(args, expand_workloads(cluster), ctx.out, node_usage(cluster))
