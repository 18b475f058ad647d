"""`netpol report PATH... -o FILE.html`: the whole analysis as one self-contained HTML page."""

from __future__ import annotations

import argparse
from pathlib import Path

from netpol.commands._questions import intermixed
from netpol.commands.context import Context, add_input_arguments
from netpol.errors import UsageError
from netpol.report import report_html


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_input_arguments(p)
    p.add_argument("-o", "--output", required=True, metavar="FILE.html", help="the HTML file to write (- for stdout)")
    p.add_argument("--title", help="the page title (default: netpol report and the paths)")
    intermixed(p)


def run(args: argparse.Namespace, ctx: Context) -> int:
    sources = ["--live"] if args.live else ctx.paths()
    title = args.title or f"netpol report: {' '.join(sources)}"
    page = report_html(ctx.analysis, sources, title=title)
    if args.output == "-":
        ctx.out.write(page)
        return 0
    out = Path(args.output)
    if out.is_dir():
        raise UsageError(f"-o {args.output}: is a folder; give a file name such as report.html")
    try:
        out.write_text(page, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"-o {args.output}: cannot write: {exc.strerror}") from exc
    print(f"wrote {out} ({len(page.encode('utf-8')) // 1024} KiB)", file=ctx.err)
    return 0
