"""`netpol can-reach SOURCE [PATH...]`: every destination SOURCE can open a connection to, and why."""

from __future__ import annotations

import argparse

from netpol.commands._questions import add_common, add_endpoint_arguments, intermixed
from netpol.commands.context import Context
from netpol.commands.who_can_reach import resolve_one
from netpol.errors import UsageError
from netpol.explain import can_reach
from netpol.targets import listing, parse_probe

USAGE = "netpol can-reach SOURCE [PATH...]"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("source", nargs="?", help="ns/pod, pod, deploy/ns/name, sts/…, ds/…, svc/ns/name, IP or CIDR")
    add_endpoint_arguments(p)
    p.add_argument("--by", choices=("pod", "workload"), default="pod", help="group by workload")
    add_common(p)
    intermixed(p)


def run(args: argparse.Namespace, ctx: Context) -> int:
    probe = parse_probe(args.port)
    source = resolve_one(args, ctx, "source", USAGE)
    if probe is not None and probe.name is not None:  # resolved on each destination: some pod must name it
        names = sorted({n for p in ctx.analysis.pods for n, proto, _ in p.named_ports() if proto == probe.protocol})
        if probe.name not in names:
            raise UsageError(
                f"--port {probe.name}/{probe.protocol}: no pod names a {probe.protocol} port so (port names: "
                f"{listing(names) or 'none'}); give a number, or one of those names"
            )
    report = can_reach(ctx.analysis, source, probe, by_workload=args.by == "workload")
    report.notes[:0] = source.notes
    ctx.out.write(report.render(args.output))
    return 0 if report.entries else 1  # it can reach nothing: a negative answer
