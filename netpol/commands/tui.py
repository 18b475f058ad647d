"""`netpol tui`: the terminal UI. Textual (the `tui` package) is imported only when this command runs."""

from __future__ import annotations

import argparse
import io
import itertools
import os
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import TYPE_CHECKING

from netpol.commands._types import existing_path_arg
from netpol.commands.context import Context, add_input_arguments
from netpol.errors import UsageError
from netpol.pipeline import Analysis

if TYPE_CHECKING:
    from tui.app import ReachApp

FILE_INTERVAL = 1.0  # polling mtimes is cheap
LIVE_INTERVAL = 10.0  # a re-read lists every pod of the cluster


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_input_arguments(p)
    p.add_argument(
        "--against",
        type=existing_path_arg,
        nargs="+",
        metavar="NEW",
        help="open NEW (files or folders) with its differences from PATH marked, as in what-if mode",
    )
    p.add_argument(
        "--watch",
        action="store_true",
        help="reload when a manifest under PATH changes (polls mtimes); with --live re-read the cluster",
    )
    p.add_argument(
        "--interval",
        type=float,
        default=None,
        metavar="S",
        help=f"--watch interval in seconds (default {FILE_INTERVAL:g}; {LIVE_INTERVAL:g} with --live)",
    )


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


def build_app(args: argparse.Namespace, ctx: Context) -> ReachApp:
    """The app, its loader and its watch stamp. With --live the cluster is read once before the UI opens,
    so a wrong context or an unreachable cluster exits 2 with kubectl's reason instead of showing a screen."""
    interval = args.interval if args.interval is not None else (LIVE_INTERVAL if ctx.live else FILE_INTERVAL)
    if interval <= 0:
        raise UsageError(f"--interval must be positive, got {interval:g}")
    loader: Callable[[], Analysis]
    stamp: Callable[[], Hashable]
    if ctx.live:
        first = [ctx.analyze(ctx.load())]  # raises (exit 2) before any screen is drawn
        ctx.err = io.StringIO()  # later notes and warnings would scribble over the screen

        def loader() -> Analysis:  # runs in the UI's worker thread: the first read, then fresh reads
            return first.pop() if first else ctx.analyze(ctx.load())

        stamp = itertools.count().__next__  # every tick is news: the cluster is re-read each interval
    else:
        paths = ctx.paths()
        if "-" in paths:
            raise UsageError(
                "netpol tui reads its keys from the terminal, so it cannot read manifests from stdin; pass files"
            )
        ctx.err = io.StringIO()  # warnings would scribble over the screen; the analysis keeps them

        def loader() -> Analysis:  # runs in the UI's worker thread, fresh from disk each time
            return ctx.analyze(ctx.load(paths))

        def stamp() -> Hashable:
            return file_stamp(paths)

    from tui.app import ReachApp  # lazy: CI commands never import Textual

    against = getattr(args, "against", None)
    if against:  # `PATH --against NEW`: the UI shows NEW, compared with PATH (read again on each reload too)
        if ctx.live:
            raise UsageError("--against compares manifests: it cannot be used with --live")
        new_paths = list(against)

        def new_loader() -> Analysis:
            return ctx.analyze(ctx.load(new_paths))

        def both() -> Hashable:
            return (file_stamp(ctx.paths()), file_stamp(new_paths))

        return ReachApp(
            new_loader,
            stamp=both,
            watch=args.watch,
            interval=interval,
            compare=loader,
            compare_label=" ".join(ctx.paths()),
        )
    return ReachApp(loader, stamp=stamp, watch=args.watch, interval=interval)


def run(args: argparse.Namespace, ctx: Context) -> int:
    build_app(args, ctx).run()
    return 0
