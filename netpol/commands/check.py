"""`netpol check [PATH...] --expect FILE [--junit FILE]`: assertions about reachability; exit 1 on a failure."""

from __future__ import annotations

import argparse

from netpol.commands._questions import intermixed
from netpol.commands._types import readable_file_arg, writable_file_arg
from netpol.commands._whatif import add_what_if_arguments
from netpol.commands.context import Context, add_input_arguments
from netpol.errors import UsageError
from netpol.expect import check, junit_xml, load_expectations, render
from netpol.outputs import add_overwrite_argument, check_output


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_input_arguments(p)
    add_what_if_arguments(p)
    p.add_argument(
        "--expect",
        required=True,
        type=readable_file_arg,
        metavar="FILE",
        help="expectations file (YAML; see docs/commands/check.md)",
    )
    p.add_argument(
        "--junit", type=writable_file_arg, metavar="FILE", help="also write the results as JUnit XML to FILE"
    )
    p.add_argument("-o", "--output", choices=("txt", "json", "md"), default="txt", help="output format (default txt)")
    add_overwrite_argument(p)
    intermixed(p)


def run(args: argparse.Namespace, ctx: Context) -> int:
    check_output(args.junit, ctx.input_paths(), "--junit", overwrite=args.overwrite)
    assertions = load_expectations(args.expect)
    results = check(ctx.analysis, assertions, getattr(args, "cluster_cidr", None))
    if args.junit:
        try:
            with open(args.junit, "w", encoding="utf-8") as fh:
                fh.write(junit_xml(results))
        except OSError as exc:
            raise UsageError(f"--junit {args.junit}: cannot write: {exc}") from None
    ctx.out.write(render(results, args.output))
    return 0 if all(r.passed for r in results) else 1
