"""`netpol diff OLD NEW` or `netpol diff --old PATH... --new PATH...`: what the change opens or closes."""

from __future__ import annotations

import argparse

from netpol.commands._questions import intermixed
from netpol.commands.context import Context, add_input_arguments
from netpol.diff import FORMATS, diff, render
from netpol.errors import UsageError


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("sides", nargs="*", metavar="OLD NEW", help="the two versions (a file or folder each)")
    p.add_argument("--old", nargs="+", metavar="PATH", help="the old version as several paths")
    p.add_argument("--new", nargs="+", metavar="PATH", help="the new version as several paths")
    p.add_argument(
        "-o",
        "--output",
        choices=(*FORMATS, "html"),
        default="txt",
        help="output format (default txt; html: netpol report)",
    )
    p.add_argument("--exit-code", action="store_true", help="exit 1 when there is a difference (like git diff)")
    add_input_arguments(p, paths=False)
    intermixed(p)


def run(args: argparse.Namespace, ctx: Context) -> int:
    if args.old or args.new:
        if not (args.old and args.new):
            raise UsageError("give both --old PATH... and --new PATH...")
        if args.sides:
            raise UsageError("give the versions either as OLD NEW or with --old/--new, not both")
        old_paths, new_paths = list(args.old), list(args.new)
    else:
        if len(args.sides) != 2:
            raise UsageError("netpol diff needs two versions: OLD NEW, or --old PATH... --new PATH...")
        old_paths, new_paths = [args.sides[0]], [args.sides[1]]
    if (old_paths + new_paths).count("-") > 1:
        raise UsageError("stdin (-) can be only one of the versions")
    old = ctx.analyze(ctx.load(old_paths))
    new = ctx.analyze(ctx.load(new_paths))
    report = diff(old, new)
    if args.output == "html":  # the new version's report with the changes marked (netpol/report)
        from netpol.report import report_html

        title = f"netpol diff: {' '.join(old_paths)} → {' '.join(new_paths)}"
        ctx.out.write(report_html(new, new_paths, title=title, diff=report, old_sources=old_paths))
    else:
        ctx.out.write(render(report, args.output))
    return 1 if args.exit_code and not report.empty else 0
