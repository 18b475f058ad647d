"""`netpol diff OLD NEW` or `netpol diff --old PATH... --new PATH...`: what the change opens or closes.

`--drain-new NODE` / `--cordon-new NODE` apply a what-if to the NEW side only, so `netpol diff PATH
--drain-new NODE` (one version: compared with itself) shows which connections draining NODE changes.
"""

from __future__ import annotations

import argparse

from netpol.commands._questions import intermixed
from netpol.commands._types import existing_path_arg, node_arg
from netpol.commands._whatif import add_what_if_arguments
from netpol.commands.context import Context, add_input_arguments
from netpol.diff import FORMATS, diff, render
from netpol.errors import UsageError


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("sides", nargs="*", metavar="OLD NEW", help="the two versions (a file or folder each)")
    p.add_argument("--old", type=existing_path_arg, nargs="+", metavar="PATH", help="the old version as several paths")
    p.add_argument("--new", type=existing_path_arg, nargs="+", metavar="PATH", help="the new version as several paths")
    p.add_argument(
        "-o",
        "--output",
        choices=(*FORMATS, "html"),
        default="txt",
        help="output format (default txt; html: netpol report)",
    )
    p.add_argument("--exit-code", action="store_true", help="exit 1 when there is a difference (like git diff)")
    add_input_arguments(p, paths=False)
    add_what_if_arguments(p)
    p.add_argument(
        "--cordon-new", type=node_arg, action="append", default=[], metavar="NODE", help="cordon NODE on the new side"
    )
    p.add_argument(
        "--drain-new",
        type=node_arg,
        action="append",
        default=[],
        metavar="NODE",
        help="drain NODE on the new side only: with one version, what the drain changes",
    )
    intermixed(p)


def run(args: argparse.Namespace, ctx: Context) -> int:
    what_if_new = bool(args.drain_new or args.cordon_new)
    if args.old or args.new:
        if not (args.old and args.new):
            raise UsageError("give both --old PATH... and --new PATH...")
        if args.sides:
            raise UsageError("give the versions either as OLD NEW or with --old/--new, not both")
        old_paths, new_paths = list(args.old), list(args.new)
    elif len(args.sides) == 1 and what_if_new:
        old_paths, new_paths = [args.sides[0]], [args.sides[0]]  # the same version, before and after the what-if
    else:
        if len(args.sides) != 2:
            raise UsageError(
                "netpol diff needs two versions: OLD NEW, or --old PATH... --new PATH... "
                "(or one version with --drain-new/--cordon-new NODE)"
            )
        old_paths, new_paths = [args.sides[0]], [args.sides[1]]
    if (old_paths + new_paths).count("-") > 1:
        raise UsageError("stdin (-) can be only one of the versions")
    old_cluster = ctx.load(old_paths)
    old = ctx.analyze(old_cluster)
    new_ctx = ctx
    if what_if_new:
        new_args = argparse.Namespace(
            **{**vars(args), "drain": [*args.drain, *args.drain_new], "cordon": [*args.cordon, *args.cordon_new]}
        )
        new_ctx = Context(new_args, ctx.out, ctx.err)
    new = new_ctx.analyze(old_cluster if new_paths == old_paths else ctx.load(new_paths))
    report = diff(old, new)
    if args.output == "html":  # the new version's report with the changes marked (netpol/report)
        from netpol.report import report_html

        title = f"netpol diff: {' '.join(old_paths)} → {' '.join(new_paths)}"
        ctx.out.write(report_html(new, new_paths, title=title, diff=report, old_sources=old_paths))
    else:
        ctx.out.write(render(report, args.output))
    return 1 if args.exit_code and not report.empty else 0
