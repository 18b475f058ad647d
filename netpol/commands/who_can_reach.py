"""`netpol who-can-reach TARGET [PATH...]`: every source that can open a connection to TARGET, and why."""

from __future__ import annotations

import argparse

from netpol.commands._exposure import add_exposure_arguments, exposure_of, keep_paths
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
from netpol.exposure import ExposureReport
from netpol.ports import ConnectionSet
from netpol.targets import Probe, Resolver, Target, check_named_port, parse_probe

USAGE = "netpol who-can-reach TARGET [PATH...]"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("target", nargs="?", help="ns/pod, pod, deploy/ns/name, sts/…, ds/…, svc/ns/name, IP or CIDR")
    add_endpoint_arguments(p)
    p.add_argument("--by", choices=("pod", "workload"), default="pod", help="group sources (and targets) by workload")
    p.add_argument(
        "--from",
        dest="from_",
        choices=("internet",),
        help="internet: the paths from outside the cluster through its doors (netpol exposure --focus TARGET)",
    )
    add_exposure_arguments(p)
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
    if args.from_ == "internet":
        return _from_internet(args, ctx, target, probe)
    check_named_port(ctx.analysis, probe, target)
    report = who_can_reach(ctx.analysis, target, probe, by_workload=args.by == "workload")
    report.notes[:0] = target.notes
    ctx.out.write(report.render(args.output))
    return 0 if report.entries else 1  # nobody can reach it: a negative answer


def _from_internet(args: argparse.Namespace, ctx: Context, target: Target, probe: Probe | None) -> int:
    """The exposure paths ending at the target's pods (on the probe's port there, when given: for svc/… the
    Service port, as everywhere); exit 1 when none lets the internet in."""
    if target.is_external:
        raise UsageError("--from internet asks what reaches pods from outside: name pods, a workload or a Service")
    r = ctx.analysis.reachability
    pods = {r.pods[i].key: r.pods[i] for i in target.pods}
    exposure = exposure_of(args, ctx)
    paths = keep_paths(exposure, set(pods), [])
    if probe is not None:
        paths = tuple(p for p in paths if not p.target or _on(p.target, target.dst_ports(pods[p.pod], probe)))
    notes = [*target.notes, *(f"{p.key} does not run ({p.phase or 'not running'})" for p in target.pending)]
    report = ExposureReport(
        paths,
        (),
        dict(exposure.proxies),
        args.cluster_traffic_source,
        tuple(notes),
        title=f"who-can-reach {target.text} --from internet",
    )
    ctx.out.write(report.render(args.output))
    return 0 if any(p.verdict in ("allowed", "restricted") for p in paths) else 1


def _on(target: str, ports: ConnectionSet | None) -> bool:
    """Whether a path's `TCP 8080` on its pod is among the ports asked (None: every port)."""
    proto, port = target.split(" ")
    return ports is None or ports.contains(proto, int(port))
