"""`netpol explain SRC DST [PATH...] [--port P[/PROTO]]`: the verdict and its reasons, side by side."""

from __future__ import annotations

import argparse
import json

from netpol.commands._questions import add_common, intermixed
from netpol.commands.context import Context
from netpol.errors import UsageError
from netpol.explain import explain_targets
from netpol.targets import Resolver, parse_probe


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("src", help="source: ns/pod, pod, deploy/ns/name, svc/ns/name, IP or CIDR")
    p.add_argument("dst", help="destination, same forms (svc/ns/name maps --port from Service port to targetPort)")
    p.add_argument("-n", "--namespace", action="append", default=[], help="namespace for bare names (repeatable)")
    p.add_argument("--port", help="one destination port: P or P/PROTO (e.g. 80, 53/UDP)")
    add_common(p)
    intermixed(p)


def run(args: argparse.Namespace, ctx: Context) -> int:
    probe = parse_probe(args.port)
    analysis = ctx.analysis
    res = Resolver(analysis)
    src = res.resolve(args.src, args.namespace)
    dst = res.resolve(args.dst, args.namespace)
    if src.is_external and dst.is_external:
        raise UsageError("both ends are external addresses: this cluster's policies say nothing about that")
    out = explain_targets(analysis, src, dst, probe)
    match args.output:
        case "json":
            ctx.out.write(json.dumps({"explanations": [e.to_json() for e in out]}, indent=2) + "\n")
        case "md":
            ctx.out.write("".join("```\n" + "\n".join(e.lines()) + "\n```\n" for e in out))
        case _:
            ctx.out.write("\n\n".join("\n".join(e.lines()) for e in out) + "\n")
    return 0 if all(e.allowed for e in out) else 1  # a negative answer, like grep: scripts can test it
