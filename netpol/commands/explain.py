"""`netpol explain SRC DST [PATH...] [--port P[/PROTO]]`: the verdict and its reasons, side by side."""

from __future__ import annotations

import argparse
import json

from netpol.commands._questions import add_common, add_port_argument, check_positionals, intermixed, resolve_positional
from netpol.commands._types import namespace_arg
from netpol.commands.context import Context
from netpol.errors import UsageError
from netpol.explain import explain_targets
from netpol.targets import Resolver, check_named_port, parse_probe

USAGE = "netpol explain SRC DST [PATH...]"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("src", help="source: ns/pod, pod, deploy/ns/name, svc/ns/name, IP or CIDR")
    p.add_argument("dst", help="destination, same forms (svc/ns/name maps --port from Service port to targetPort)")
    p.add_argument(
        "-n", "--namespace", type=namespace_arg, action="append", default=[], help="namespace for bare names"
    )
    add_port_argument(p)
    add_common(p)
    intermixed(p)


def run(args: argparse.Namespace, ctx: Context) -> int:
    probe = parse_probe(args.port)
    check_positionals(USAGE, [args.src, args.dst], args.paths)
    analysis = ctx.analysis
    res = Resolver(analysis, getattr(args, "cluster_cidr", None))
    src = resolve_positional(res, args.src, args.namespace, USAGE)
    dst = resolve_positional(res, args.dst, args.namespace, USAGE)
    if src.is_external and dst.is_external:
        raise UsageError("both ends are external addresses: this cluster's policies say nothing about that")
    check_named_port(analysis, probe, dst)
    for note in (*src.notes, *dst.notes):
        print(f"note: {note}", file=ctx.err)
    out = explain_targets(analysis, src, dst, probe)
    match args.output:
        case "json":
            ctx.out.write(json.dumps({"explanations": [e.to_json() for e in out]}, indent=2) + "\n")
        case "md":
            ctx.out.write("".join("```\n" + "\n".join(e.lines()) + "\n```\n" for e in out))
        case _:
            ctx.out.write("\n\n".join("\n".join(e.lines()) for e in out) + "\n")
    return 0 if all(e.allowed for e in out) else 1  # a negative answer, like grep: scripts can test it
