"""`netpol explain SRC DST [PATH...] [--port P[/PROTO]]`: the verdict and its reasons, side by side."""

from __future__ import annotations

import argparse
import json

from netpol.commands._questions import add_common, add_port_argument, check_positionals, intermixed, resolve_positional
from netpol.commands._types import namespace_arg
from netpol.commands.context import Context
from netpol.errors import UsageError
from netpol.explain import explain_targets
from netpol.exposure import PodBeyond, admission_json, analyze_beyond, beyond_lines
from netpol.pipeline import Analysis
from netpol.targets import Resolver, Target, check_named_port, parse_probe

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
    beyond = _beyond(analysis, src, dst)
    match args.output:
        case "json":
            doc = {
                "explanations": [e.to_json() for e in out],
                "beyond": [admission_json(b.pod, a) for b in beyond for a in b.admissions],
            }
            ctx.out.write(json.dumps(doc, indent=2) + "\n")
        case "md":
            ctx.out.write("".join("```\n" + "\n".join(e.lines()) + "\n```\n" for e in out))
            if beyond:
                ctx.out.write("```\n" + "\n".join(beyond_lines(beyond)[1:]) + "\n```\n")
        case _:
            ctx.out.write("\n\n".join("\n".join(e.lines()) for e in out) + "\n")
            ctx.out.write("".join(line + "\n" for line in beyond_lines(beyond)))
    return 0 if all(e.allowed for e in out) else 1  # a negative answer, like grep: scripts can test it


# Past this many endpoint pods (a Service or workload on both ends) the exposure beyond the input is left to
# `netpol exposure --focus`: explain stays a question about pairs.
BEYOND_MAX_PODS = 20


def _beyond(analysis: Analysis, src: Target, dst: Target) -> list[PodBeyond]:
    """What the source pods reach (egress) and the destination pods admit (ingress) outside the input: the other
    half of their policies' answer (netpol exposure, "beyond the input")."""
    r = analysis.reachability
    src_pods = [r.pods[i].key for i in src.pods]
    dst_pods = [r.pods[i].key for i in dst.pods]
    if not src_pods and not dst_pods or len(src_pods) + len(dst_pods) > BEYOND_MAX_PODS:
        return []
    found = analyze_beyond(analysis).of(sorted({*src_pods, *dst_pods}))
    out = []
    for b in found:
        keep = tuple(
            a
            for a in b.admissions
            if a.isolated  # a side no policy isolates says so above already
            and ((a.direction == "egress" and b.pod in src_pods) or (a.direction == "ingress" and b.pod in dst_pods))
        )
        if keep:
            out.append(PodBeyond(b.pod, keep))
    return out
