"""`netpol report PATH... -O FILE.html`: the whole analysis as one self-contained HTML page.

`-o/--output` is the format, as on every other command (html, the only one); `-O/--output-file` the file to
write (`-` or none: stdout, unless stdout is a terminal). The old spelling `-o FILE.html` still works, with a
note: a value of -o that is not a format name is taken as the file.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from netpol.commands._questions import intermixed
from netpol.commands._types import writable_file_arg
from netpol.commands.context import Context, add_input_arguments
from netpol.errors import UsageError
from netpol.outputs import add_overwrite_argument, check_output
from netpol.report import report_html

FORMATS = ("html",)


def output_arg(text: str) -> str:
    """-o: a format; or, the old spelling, a file name (it has a `.` or a `/`, or is `-`): `-o json` is a request
    for a format report does not write, never a file called `json`."""
    if text in FORMATS or text == "-":
        return text
    if "." in text or "/" in text:
        return writable_file_arg(text)
    raise argparse.ArgumentTypeError(
        f"{text!r} is not a format report writes ({', '.join(FORMATS)}); the file is -O FILE.html"
    )


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_input_arguments(p)
    p.add_argument(
        "-o",
        "--output",
        type=output_arg,
        default="html",
        metavar="FORMAT",
        help="output format: html (the default and only one; as -o on every command)",
    )
    p.add_argument(
        "-O",
        "--output-file",
        type=writable_file_arg,
        metavar="FILE.html",
        help="the file to write (default: stdout when it is not a terminal); refused if it is one of the inputs",
    )
    p.add_argument("--title", help="the page title (default: netpol report and the paths)")
    add_overwrite_argument(p)
    intermixed(p)


def output_file(args: argparse.Namespace, err: TextIO) -> str | None:
    """Where the page goes: -O, or the old `-o FILE` (with a note), or None for stdout."""
    fmt = args.output
    if fmt in FORMATS:
        return args.output_file
    if args.output_file is not None:
        raise UsageError(f"-o {fmt}: not a format (html), and -O {args.output_file} names the file already")
    print(f"note: -o {fmt}: -o is the format now, as on every command; write -O {fmt} for the file", file=err)
    return fmt


def run(args: argparse.Namespace, ctx: Context) -> int:
    target = output_file(args, ctx.err)
    option = "-O" if target == args.output_file else "-o"
    check_output(target, ctx.input_paths(), option, overwrite=args.overwrite)
    if target is None or target == "-":
        if target is None and sys.stdout.isatty() and ctx.out is sys.stdout:
            raise UsageError("give -O FILE.html (the page is one long line of HTML), or redirect stdout")
        target = None
    elif Path(target).is_dir():
        raise UsageError(f"{option} {target}: is a folder; give a file name such as report.html")
    sources = ["--live"] if args.live else ctx.paths()
    title = args.title or f"netpol report: {' '.join(sources)}"
    page = report_html(ctx.analysis, sources, title=title)
    if target is None:
        ctx.out.write(page)
        return 0
    out = Path(target)
    try:
        out.write_text(page, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{option} {target}: cannot write: {exc.strerror}") from exc
    print(f"wrote {out} ({len(page.encode('utf-8')) // 1024} KiB)", file=ctx.err)
    return 0
