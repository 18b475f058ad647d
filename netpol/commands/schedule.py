"""`netpol schedule`: delegates to the scheduler package's command."""

from __future__ import annotations

import argparse

from netpol.commands.context import Context, add_input_arguments
from netpol.model.cluster import Cluster


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_input_arguments(p)
    from scheduling import command

    command.add_arguments(p)


def explain_keys(texts: list[str], cluster: Cluster) -> list[str]:
    """`--explain` names pods as every command does (netpol.targets: `ns/name`, a bare name, …), among the
    input's pods and the DaemonSet pods the scheduler will make (one per node, named after it)."""
    if not texts:
        return []
    from netpol.targets import resolve_pod_name
    from scheduling.controllers import daemonset_pods

    keys = [p.key for p in cluster.pods]
    keys += [p.key for wl in cluster.workloads if wl.kind == "DaemonSet" for p in daemonset_pods(wl, cluster.nodes)]
    return [resolve_pod_name(t, keys) for t in texts]


def run(args: argparse.Namespace, ctx: Context) -> int:
    from netpol.workloads import expand_workloads
    from scheduling import command

    cluster = expand_workloads(ctx.cluster)
    args.explain = explain_keys(list(getattr(args, "explain", None) or []), cluster)
    return command.run(args, cluster, ctx.out)
