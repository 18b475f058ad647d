"""`netpol matrix`: the port-aware reachability matrix in txt, grid, csv, json, md, dot or graphml.

Every combination of format and mode (--port, --focus, --direction, --by) either works or exits 2 saying
what is not supported; tests/questions/test_matrix_table.py walks the whole table.
"""

from __future__ import annotations

import argparse

from netpol.commands._questions import add_port_argument, check_positionals, intermixed
from netpol.commands._types import endpoint_arg, namespace_arg, protocol_arg
from netpol.commands._whatif import add_what_if_arguments
from netpol.commands.context import Context, add_input_arguments
from netpol.commands.matrix_ports import write_ports
from netpol.errors import UsageError
from netpol.readout.export import DIRECTIONS, FORMATS, MatrixView, write, write_compact, write_probe
from netpol.targets import Probe, Resolver, Target, check_namespaces, parse_probe

USAGE = "netpol matrix [PATH...] --focus ENDPOINT"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_input_arguments(p)
    add_what_if_arguments(p)
    p.add_argument("-o", "--output", choices=FORMATS, default="txt", help="output format (default txt)")
    p.add_argument(
        "-n", "--namespace", type=namespace_arg, action="append", default=[], help="only pods of this namespace"
    )
    p.add_argument("-A", "--all-namespaces", action="store_true", help="every namespace (the default)")
    add_port_argument(p)
    p.add_argument("--protocol", type=protocol_arg, help="protocol of --port (default TCP; or write --port 53/UDP)")
    p.add_argument(
        "--focus",
        type=endpoint_arg,
        metavar="ENDPOINT",
        help="only pairs involving this endpoint: ns/pod, pod, deploy/ns/name, svc/ns/name, an IP or a range",
    )
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
        help="with -o json: the whole matrix by equivalence class, lossless (netpol/readout/compact.py)",
    )
    intermixed(p)


def probe_of(args: argparse.Namespace) -> Probe | None:
    """--port in the one port grammar: a port (the fast probe), a range or a name (netpol.commands.matrix_ports)."""
    probe = parse_probe(args.port)
    if probe is None:
        if args.protocol is not None:
            raise UsageError("--protocol goes with --port (e.g. --port 53 --protocol UDP, or --port 53/UDP)")
        return None
    if args.protocol is not None and args.protocol != probe.protocol:
        if "/" in args.port:
            raise UsageError(f"--port says {probe.protocol} and --protocol says {args.protocol}: give one")
        probe = Probe(args.protocol, probe.port, probe.end, probe.name)
    return probe


def focus_target(ctx: Context, args: argparse.Namespace) -> Target | None:
    if args.focus is None:
        return None
    res = Resolver(ctx.analysis, getattr(args, "cluster_cidr", None))
    target = res.resolve(args.focus, args.namespace)
    for note in target.notes:
        print(f"note: {note}", file=ctx.err)
    return target


def run(args: argparse.Namespace, ctx: Context) -> int:
    check_positionals(USAGE, [], args.paths)
    probe = probe_of(args)
    analysis = ctx.analysis
    check_namespaces(analysis, args.namespace)
    namespaces = () if args.all_namespaces else tuple(args.namespace)
    if args.direction and not (args.focus or namespaces):
        raise UsageError("--direction needs --focus ENDPOINT or -n NS: the end whose ingress or egress to show")
    target = focus_target(ctx, args)
    focus_names = None
    if target is not None:
        r = analysis.reachability
        focus_names = frozenset([r.pods[i].key for i in target.pods] + [r.atoms[a].render() for a in target.atoms])
        for pod in target.pending:
            print(f"note: {pod.key} is {pod.phase or 'not running'} and takes no part in traffic", file=ctx.err)
        if target.atoms and args.no_external:
            raise UsageError(f"--focus {args.focus} is an external address and --no-external leaves those out")
        if target.atoms and (probe is not None or args.output == "grid"):
            what = "-o grid (a table over pods)" if args.output == "grid" else "--port (a probe between pods)"
            raise UsageError(f"--focus {args.focus} is an external address: {what} has no row for it; use -o txt/json")
    view = MatrixView(
        analysis,
        namespaces,
        include_external=not args.no_external,
        focus=args.focus,
        direction=args.direction,
        by_workload=args.by == "workload",
        focus_names=focus_names,
    )
    if args.compact:
        if args.output != "json":
            raise UsageError("--compact is a form of -o json")
        if probe is not None and not probe.single:
            raise UsageError(f"--compact probes one numbered port, not {probe.render()}")
        write_compact(view, ctx.out, (probe.protocol, probe.port) if probe is not None else None)
    elif probe is not None and not probe.single:
        write_ports(view, probe, args.output, ctx.out, ctx.err)
    elif probe is not None:
        write_probe(view, args.output, probe.protocol, probe.port, ctx.out)
    else:
        write(view, args.output, ctx.out)
    for pod in analysis.pending:  # not in the matrix: say so where it cannot break the output's format
        if not namespaces or pod.namespace in namespaces:
            print(f"note: {pod.key} is Pending and takes no part in traffic: {pod.reason}", file=ctx.err)
    return 0
