"""`netpol audit [PATH...] [-n NS]... [-A]`: namespace isolation report and findings; `--fail-on` for CI,
`--baseline` to fail only on new findings, `--write-baseline` to record today's."""

from __future__ import annotations

import argparse
from pathlib import Path

from netpol.audit import FAIL_ON, FORMATS, RULES, audit, render
from netpol.audit.baseline import baseline_text, parse_baseline
from netpol.commands._exposure import add_exposure_arguments, exposure_options
from netpol.commands._questions import intermixed
from netpol.commands._whatif import add_what_if_arguments
from netpol.commands.context import Context, add_input_arguments
from netpol.errors import UsageError
from netpol.outputs import add_overwrite_argument, check_output
from netpol.targets import check_namespaces


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_input_arguments(p)
    add_what_if_arguments(p)  # --cordon/--drain: audit the cluster after the drain
    p.add_argument("-o", "--output", choices=FORMATS, default="txt", help="output format (default txt)")
    p.add_argument("-n", "--namespace", action="append", default=[], help="audit only this namespace (repeatable)")
    p.add_argument("-A", "--all-namespaces", action="store_true", help="every namespace (the default)")
    p.add_argument(
        "--fail-on",
        choices=FAIL_ON,
        help="exit 1 when a finding at or above this severity exists (accepted ones and, with --baseline, "
        "those in the baseline do not count)",
    )
    p.add_argument(
        "--ignore", action="append", default=[], metavar="ID", help="leave out findings of this id (repeatable)"
    )
    p.add_argument("--no-redundancy", action="store_true", help="skip the redundant-policy check (NP060)")
    p.add_argument(
        "--no-exposure", action="store_true", help="skip what reaches the pods from outside the cluster (NP090-NP092)"
    )
    add_exposure_arguments(p)
    p.add_argument("--baseline", metavar="FILE", help="compare with this baseline: only new findings count")
    p.add_argument("--write-baseline", metavar="FILE", help="record today's findings (not accepted ones) to FILE")
    add_overwrite_argument(p)
    intermixed(p)


def run(args: argparse.Namespace, ctx: Context) -> int:
    for rid in args.ignore:
        if rid not in RULES:
            raise UsageError(f"--ignore {rid!r}: unknown finding id (known: {', '.join(RULES)})")
    check_output(args.write_baseline, ctx.input_paths(), "--write-baseline", overwrite=args.overwrite)
    baseline = None
    if args.baseline:
        try:
            text = Path(args.baseline).read_text(encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"--baseline {args.baseline}: cannot read: {exc.strerror or exc}") from None
        baseline = parse_baseline(text, args.baseline)
    analysis = ctx.analysis
    check_namespaces(analysis, args.namespace)
    namespaces = () if args.all_namespaces else tuple(args.namespace)
    report = audit(
        analysis,
        namespaces,
        redundancy=not args.no_redundancy,
        pod_cidr=str(ctx.network().cluster_cidr),
        exposure=not args.no_exposure,
        exposure_options=None if args.no_exposure else exposure_options(args, ctx),
    )
    report.findings = [f for f in report.findings if f.rule not in args.ignore]
    if baseline is not None:
        report = report.against(baseline)
    if args.write_baseline:
        try:
            Path(args.write_baseline).write_text(baseline_text(report.findings), encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"--write-baseline {args.write_baseline}: cannot write: {exc.strerror or exc}") from None
    ctx.out.write(render(report, args.output))
    return 1 if report.fails(args.fail_on) else 0
