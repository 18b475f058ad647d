"""`netpol schedule PATH...`: where every pod would run, and why the others are Pending.

The cluster goes through the same preparation as every other command (netpol.pipeline.prepare: workloads
expanded, the scheduler as the placer, pod IPs); this module only adds the scheduler's what-if options
(cordon, drain, explain) and picks exit codes like kubectl: 1 when a drain is refused or blocked (errors on
stderr), 1 with `--fail-on-pending` when pods stay Pending (listed on stderr), 2 for usage/input errors.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from typing import Literal, TextIO

from netpol.commands.context import Context, add_input_arguments
from netpol.errors import UsageError
from netpol.manifests import load_paths
from netpol.model.cluster import Cluster
from netpol.model.objects import Pod, Workload
from netpol.pipeline import prepare

Format = Literal["wide", "json", "yaml", "nodes"]
FORMATS: tuple[Format, ...] = ("wide", "json", "yaml", "nodes")


def _option(p: argparse.ArgumentParser, *names: str, **kw: object) -> None:
    """Add an option unless the shared input arguments already offer it (--cordon/--drain may move there)."""
    try:
        p.add_argument(*names, **kw)  # type: ignore[arg-type]
    except argparse.ArgumentError:
        pass


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_input_arguments(p)
    p.add_argument("-o", "--output", choices=FORMATS, default="wide", help="output format (default %(default)s)")
    _option(
        p, "--cordon", action="append", default=[], metavar="NODE", help="cordon NODE before scheduling (repeatable)"
    )
    _option(
        p,
        "--drain",
        action="append",
        default=[],
        metavar="NODE",
        help="after scheduling, drain NODE like `kubectl drain` (repeatable); exit 1 if refused or blocked",
    )
    _option(p, "--ignore-daemonsets", action="store_true", help="drain: leave DaemonSet-managed pods")
    _option(p, "--delete-emptydir-data", action="store_true", help="drain: evict pods using emptyDir volumes")
    _option(p, "--force", action="store_true", help="drain: also delete pods no controller manages")
    p.add_argument(
        "--explain",
        action="append",
        default=[],
        metavar="NS/POD",
        help="print the per-node filter verdicts and scores for a pod (repeatable)",
    )
    p.add_argument(
        "--add",
        action="append",
        default=[],
        metavar="PATH",
        help="what-if: also place the pods and workloads of these manifests (with --live: on the live cluster)",
    )
    p.add_argument(
        "--fail-on-pending", action="store_true", help="exit 1 when pods stay Pending (they are listed on stderr)"
    )


def explain_keys(texts: list[str], cluster: Cluster) -> list[str]:
    """`--explain` names pods as every command does (netpol.targets: `ns/name`, a bare name, …), among the
    input's pods and the DaemonSet pods the scheduler will make (one per node, named after it)."""
    if not texts:
        return []
    from netpol.targets import resolve_pod_name
    from netpol.workloads import expand_workloads
    from scheduling.controllers import daemonset_pods

    cluster = expand_workloads(cluster)
    keys = [p.key for p in cluster.pods]
    keys += [p.key for wl in cluster.workloads if wl.kind == "DaemonSet" for p in daemonset_pods(wl, cluster.nodes)]
    return [resolve_pod_name(t, keys) for t in texts]


def run(args: argparse.Namespace, ctx: Context) -> int:
    from scheduling import DrainOptions, ScheduleResult, schedule
    from scheduling.diagnosis import render_trace
    from scheduling.output import document, drain_errors, drain_warnings, render_nodes, render_wide

    explain = explain_keys(args.explain, ctx.cluster)

    def placer(cluster: Cluster) -> ScheduleResult:
        return schedule(
            cluster,
            seed=args.seed,
            cordon=tuple(args.cordon),
            drain=tuple(args.drain),
            drain_options=DrainOptions(
                ignore_daemonsets=args.ignore_daemonsets,
                delete_emptydir_data=args.delete_emptydir_data,
                force=args.force,
            ),
            explain=explain,
        )

    loaded = ctx.cluster
    if args.add:
        loaded = with_new_pods(loaded, load_paths(args.add))
    if ctx.live:  # a what-if: the simulator re-places what the cluster left Pending; say what the cluster said
        for pod in loaded.pods:
            if pod.phase == "Pending" and not pod.node_name:
                print(f"note: {pod.key} is Pending in the cluster: {pod.reason or 'not scheduled yet'}", file=ctx.err)
    placed, placement = prepare(loaded, placer, ctx.network(), schedule_without_nodes=True)
    assert isinstance(placement, ScheduleResult)
    known = set(loaded.warnings)
    new = tuple(w for w in placed.warnings if w not in known)
    if new:
        ctx.report_warnings(Cluster(warnings=new))
    for key in explain:
        if key not in placement.traces:
            raise UsageError(f'pods "{key}" not found')
    result = replace(placement, cluster=placed)
    out: TextIO = ctx.out
    match args.output:
        case "json":
            out.write(json.dumps(document(result), indent=2) + "\n")
        case "yaml":
            import yaml

            out.write(yaml.safe_dump(document(result), sort_keys=False, default_flow_style=False))
        case "nodes":
            from netpol.loading.live import node_usage

            out.write(render_nodes(result.cluster, node_usage(loaded)))
        case _:
            out.write(render_wide(result))
    if args.output in ("wide", "nodes"):
        for key in explain:
            out.write("\n" + render_trace(result.traces[key]))
    status = 0
    for line in drain_warnings(result.drain):
        print(line, file=ctx.err)
    errors = drain_errors(result.drain)
    if errors:  # kubectl drain: the errors on stderr, exit 1
        print("\n".join(errors), file=ctx.err)
        status = 1
    if args.fail_on_pending:
        pending = pending_pods(result.cluster)
        if pending:
            stay = "pod stays" if len(pending) == 1 else "pods stay"
            print(f"error: {len(pending)} {stay} Pending (--fail-on-pending):", file=ctx.err)
            for p in pending:
                print(f"  {p.key}: {p.reason or 'not scheduled'}", file=ctx.err)
            status = 1
    return status


def pending_pods(cluster: Cluster) -> list[Pod]:
    return sorted((p for p in cluster.pods if p.phase == "Pending"), key=lambda p: p.key)


def with_new_pods(cluster: Cluster, extra: Cluster) -> Cluster:
    """The cluster plus the pods and workloads of `--add` manifests (and namespaces it lacks): new pods to place."""
    taken = {f"Pod {p.key}" for p in cluster.pods} | {f"{w.kind} {w.key}" for w in cluster.workloads}
    objs: list[Pod | Workload] = [*extra.pods, *extra.workloads]
    for obj in objs:
        name = f"{'Pod' if isinstance(obj, Pod) else obj.kind} {obj.key}"
        if name in taken:
            raise UsageError(f"--add: {obj.source.describe()}: {name} exists already")
    known = {n.name for n in cluster.namespaces}
    return replace(
        cluster,
        namespaces=cluster.namespaces + tuple(n for n in extra.namespaces if n.name not in known),
        pods=cluster.pods + extra.pods,
        workloads=cluster.workloads + extra.workloads,
        warnings=cluster.warnings + extra.warnings,
    )
