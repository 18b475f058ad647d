"""`netpol matrix`: the port-aware reachability matrix in txt, grid, csv, json, md or dot."""

from __future__ import annotations

import argparse

from netpol.commands._questions import intermixed
from netpol.commands.context import Context, add_input_arguments
from netpol.errors import UsageError
from netpol.export import DIRECTIONS, FORMATS, MatrixView, write, write_compact, write_probe
from netpol.model.objects import PROTOCOLS
from netpol.targets import check_namespaces


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_input_arguments(p)
    p.add_argument("-o", "--output", choices=FORMATS, default="txt", help="output format (default txt)")
    p.add_argument("-n", "--namespace", action="append", default=[], help="only pods of this namespace (repeatable)")
    p.add_argument("-A", "--all-namespaces", action="store_true", help="every namespace (the default)")
    p.add_argument("--port", type=int, help="probe one port: show only pairs where it is allowed")
    p.add_argument("--protocol", default="TCP", help="protocol of --port (default TCP)")
    p.add_argument("--focus", help="only pairs involving this endpoint (ns/pod or an external range)")
    p.add_argument("--no-external", action="store_true", help="leave external IP ranges out")
    p.add_argument(
        "--direction",
        choices=DIRECTIONS,
        help="with --focus or -n: only connections into it (ingress) or out of it (egress); the other end may be anything",
    )
    p.add_argument(
        "--by", choices=("pod", "workload"), default="pod", help="aggregate replicas: web/frontend[Deployment]"
    )
    p.add_argument(
        "--compact",
        action="store_true",
        help="with -o json: the whole matrix by equivalence class, lossless (netpol/compact.py)",
    )
    intermixed(p)


def run(args: argparse.Namespace, ctx: Context) -> int:
    protocol = args.protocol.upper()
    if protocol not in PROTOCOLS:
        raise UsageError(f"--protocol must be one of {', '.join(PROTOCOLS)}, got {args.protocol!r}")
    if args.port is not None and not 1 <= args.port <= 65535:
        raise UsageError(f"--port must be in 1..65535, got {args.port}")
    analysis = ctx.analysis
    check_namespaces(analysis, args.namespace)
    namespaces = () if args.all_namespaces else tuple(args.namespace)
    if args.direction and not (args.focus or namespaces):
        raise UsageError("--direction needs --focus ns/pod or -n NS: the end whose ingress or egress to show")
    if args.port is not None and args.output == "graphml":
        raise UsageError("-o graphml shows the whole matrix; drop --port (or use -o json)")
    view = MatrixView(
        analysis,
        namespaces,
        include_external=not args.no_external,
        focus=args.focus,
        direction=args.direction,
        by_workload=args.by == "workload",
    )
    if args.focus and view.focus_id() == -1 and not view.by_workload:
        raise UsageError(
            f"--focus {args.focus!r} is neither a running pod (ns/name) nor an external range of this cluster"
        )
    if args.compact:
        if args.output != "json":
            raise UsageError("--compact is a form of -o json")
        write_compact(view, ctx.out, (protocol, args.port) if args.port is not None else None)
    elif args.port is not None:
        write_probe(view, args.output, protocol, args.port, ctx.out)
    else:
        write(view, args.output, ctx.out)
    for pod in analysis.pending:  # not in the matrix: say so where it cannot break the output's format
        if not namespaces or pod.namespace in namespaces:
            print(f"note: {pod.key} is Pending and takes no part in traffic: {pod.reason}", file=ctx.err)
    return 0
