"""`netpol who-can-reach TARGET [PATH...]`: every source that can open a connection to TARGET, and why."""

from __future__ import annotations

import argparse

from netpol.commands._questions import (
    add_common,
    add_endpoint_arguments,
    check_positionals,
    intermixed,
    resolve_positional,
)
from netpol.commands.context import Context
from netpol.errors import UsageError
from netpol.explain import who_can_reach
from netpol.targets import Resolver, Target, check_named_port, parse_probe

USAGE = "netpol who-can-reach TARGET [PATH...]"


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


def resolve_one(args: argparse.Namespace, ctx: Context, attr: str, usage: str) -> Target:
    """The endpoint of a one-endpoint question: the positional name, or -l SELECTOR (with -n)."""
    split_target(args, attr)
    text = getattr(args, attr)
    check_positionals(usage, [text], args.paths)
    analysis = ctx.analysis
    res = Resolver(analysis, getattr(args, "cluster_cidr", None))
    if args.selector is not None:
        return res.selector(args.selector, args.namespace)
    if not text:
        raise UsageError("an endpoint is required (ns/pod, pod, deploy/ns/name, svc/ns/name, IP/CIDR, or -l)")
    return resolve_positional(res, text, args.namespace, usage)


def run(args: argparse.Namespace, ctx: Context) -> int:
    probe = parse_probe(args.port)
    target = resolve_one(args, ctx, "target", USAGE)
    check_named_port(ctx.analysis, probe, target)
    report = who_can_reach(ctx.analysis, target, probe, by_workload=args.by == "workload")
    report.notes[:0] = target.notes
    ctx.out.write(report.render(args.output))
    return 0 if report.entries else 1  # nobody can reach it: a negative answer
