"""`netpol who-can-reach TARGET [PATH...]`: every source that can open a connection to TARGET, and why."""

from __future__ import annotations

import argparse

from netpol.commands._questions import add_common, add_endpoint_arguments, intermixed
from netpol.commands.context import Context
from netpol.explain import who_can_reach
from netpol.targets import parse_probe, resolve_endpoint


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("target", nargs="?", help="ns/pod, pod, deploy/ns/name, sts/…, ds/…, svc/ns/name, IP or CIDR")
    add_endpoint_arguments(p)
    p.add_argument("--by", choices=("pod", "workload"), default="pod", help="group sources (and targets) by workload")
    add_common(p)
    intermixed(p)


def split_target(args: argparse.Namespace, attr: str) -> None:
    """With -l the positional is a path, not a target: move it back."""
    if args.selector is not None and getattr(args, attr):
        args.paths = [getattr(args, attr), *args.paths]
        setattr(args, attr, None)


def run(args: argparse.Namespace, ctx: Context) -> int:
    split_target(args, "target")
    probe = parse_probe(args.port)
    analysis = ctx.analysis
    target = resolve_endpoint(analysis, args.target, selector=args.selector, namespaces=args.namespace)
    report = who_can_reach(analysis, target, probe, by_workload=args.by == "workload")
    ctx.out.write(report.render(args.output))
    return 0 if report.entries else 1  # nobody can reach it: a negative answer
