"""`netpol exposure [PATH...] [-n NS]... [--focus ENDPOINT]`: every path from outside the cluster to a pod
(internet → door → (proxy pod →) Service port → pod:targetPort) with its verdict and the rules deciding each
hop, then what the pods' own policies admit or reach beyond the input."""

from __future__ import annotations

import argparse

from netpol.commands._exposure import add_exposure_arguments, exposure_of, keep_paths
from netpol.commands._questions import check_positionals, intermixed, resolve_positional
from netpol.commands._types import endpoint_arg, namespace_arg
from netpol.commands._whatif import add_what_if_arguments
from netpol.commands.context import Context, add_input_arguments
from netpol.errors import UsageError
from netpol.exposure import ExposureReport
from netpol.targets import Resolver, check_namespaces

USAGE = "netpol exposure [PATH...] [--focus ENDPOINT]"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_input_arguments(p)
    add_what_if_arguments(p)
    p.add_argument("-o", "--output", choices=("txt", "json", "md"), default="txt", help="output format (default txt)")
    p.add_argument(
        "-n",
        "--namespace",
        type=namespace_arg,
        action="append",
        default=[],
        help="only pods of this namespace (repeatable)",
    )
    p.add_argument(
        "--focus",
        type=endpoint_arg,
        metavar="ENDPOINT",
        help="only the paths to this endpoint's pods: ns/pod, pod, deploy/ns/name, svc/ns/name",
    )
    add_exposure_arguments(p)
    intermixed(p)


def run(args: argparse.Namespace, ctx: Context) -> int:
    check_positionals(USAGE, [args.focus], args.paths)
    analysis = ctx.analysis
    check_namespaces(analysis, args.namespace)
    pods: set[str] | None = None
    notes: list[str] = []
    if args.focus is not None:
        target = resolve_positional(Resolver(analysis, args.cluster_cidr), args.focus, args.namespace, USAGE)
        if target.is_external:
            raise UsageError(
                f"--focus {args.focus}: an address is outside the cluster; focus on pods, a workload or a Service"
            )
        pods = {analysis.reachability.pods[i].key for i in target.pods}
        notes += target.notes
        notes += [
            f"{p.key} does not run ({p.phase or 'not running'}{': ' + p.reason if p.reason else ''})"
            for p in target.pending
        ]
    exposure = exposure_of(args, ctx)
    paths = keep_paths(exposure, pods, args.namespace)
    shown = sorted(
        k
        for k in exposure.real
        if (pods is None or k in pods) and (not args.namespace or k.split("/", 1)[0] in args.namespace)
    )
    report = ExposureReport(
        paths, tuple(exposure.beyond(shown)), dict(exposure.proxies), args.cluster_traffic_source, tuple(notes)
    )
    ctx.out.write(report.render(args.output))
    return 0
