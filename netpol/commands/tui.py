"""`netpol tui`: the terminal UI. Textual (the `tui` package) is imported only when this command runs."""

from __future__ import annotations

import argparse
import io
import os
from pathlib import Path

from netpol.commands.context import Context, add_input_arguments
from netpol.errors import UsageError


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_input_arguments(p)
    p.add_argument("--watch", action="store_true", help="reload when a manifest under PATH changes (polls mtimes)")
    p.add_argument("--interval", type=float, default=1.0, help="--watch poll interval in seconds (default 1)")


def file_stamp(paths: list[str]) -> tuple[tuple[str, int, int], ...]:
    """(path, mtime_ns, size) of every manifest under the paths: what --watch compares."""
    out = []
    for root in paths:
        p = Path(root)
        files = [p] if p.is_file() else sorted(q for q in p.rglob("*") if q.suffix in (".yaml", ".yml", ".json"))
        for f in files:
            try:
                st = os.stat(f)
            except OSError:
                continue
            out.append((str(f), st.st_mtime_ns, st.st_size))
    return tuple(out)


def run(args: argparse.Namespace, ctx: Context) -> int:
    paths = ctx.paths()
    if "-" in paths:
        raise UsageError(
            "netpol tui reads its keys from the terminal, so it cannot read manifests from stdin; pass files"
        )
    if args.interval <= 0:
        raise UsageError(f"--interval must be positive, got {args.interval}")
    ctx.err = io.StringIO()  # warnings would scribble over the screen; the analysis keeps them

    def loader():  # noqa: ANN202 - runs in the UI's worker thread, fresh from disk each time
        return ctx.analyze(ctx.load(paths))

    from tui.app import ReachApp  # lazy: CI commands never import Textual

    ReachApp(loader, stamp=lambda: file_stamp(paths), watch=args.watch, interval=args.interval).run()
    return 0
