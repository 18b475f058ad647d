"""`netpol tui`: the terminal UI. Textual (the `tui` package) is imported only when this command runs."""

from __future__ import annotations

import argparse
import io
import itertools
import os
import sys
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import TYPE_CHECKING

from netpol.commands._types import existing_path_arg
from netpol.commands.context import Context, add_input_arguments
from netpol.errors import NetpolError, UsageError
from netpol.pipeline import Analysis

if TYPE_CHECKING:
    from tui.app import ReachApp

FILE_INTERVAL = 1.0  # polling mtimes is cheap
LIVE_INTERVAL = 10.0  # a re-read lists every pod of the cluster
STDIN = "-"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_input_arguments(p)
    for action in p._actions:  # the UI reads `-` once, then its keys from the terminal: say so where - is offered
        if action.dest == "paths":
            action.help = (
                "manifest files or folders (recursive); - reads stdin once (r re-analyses that text; keys then come "
                "from the terminal); default: the bundled seed-lab sample"
            )
    p.add_argument(
        "--against",
        type=existing_path_arg,
        action="append",
        metavar="NEW",
        help="show NEW (a file or folder; repeat the option for several) with its differences from PATH marked, "
        "as in what-if mode: the same as --old PATH --new NEW",
    )
    p.add_argument(
        "--old",
        type=existing_path_arg,
        nargs="+",
        metavar="PATH",
        help="with --new: the version the changes are marked against (as netpol diff --old)",
    )
    p.add_argument(
        "--new",
        type=existing_path_arg,
        nargs="+",
        metavar="PATH",
        help="with --old: the version shown, its differences from --old marked (as netpol diff --new)",
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
    """(path, mtime_ns, size) of every manifest under the paths: what --watch compares (stdin never changes)."""
    out = []
    for root in paths:
        if root == STDIN:
            continue
        p = Path(root)
        files = [p] if p.is_file() else sorted(q for q in p.rglob("*") if q.suffix in (".yaml", ".yml", ".json"))
        for f in files:
            try:
                st = os.stat(f)
            except OSError:
                continue
            out.append((str(f), st.st_mtime_ns, st.st_size))
    return tuple(out)


class Said:
    """What each load prints on stderr (warnings, notes), kept for the UI to show (`:warnings`): on the terminal
    the screen would cover it at once. `start` before a load, call after it."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.start()

    def start(self) -> None:
        self.buffer = io.StringIO()
        self.ctx.err = self.buffer

    def __call__(self) -> tuple[str, ...]:
        entries: list[str] = []
        for line in self.buffer.getvalue().splitlines():
            if entries and not line.startswith(("warning:", "note:", "error:")):
                entries[-1] += "\n" + line  # a message on several lines stays one entry
            elif line.strip():
                entries.append(line)
        return tuple(entries)


def _versions(args: argparse.Namespace, ctx: Context) -> tuple[list[str], list[str] | None]:
    """(the paths shown, the paths they are compared with or None): `PATH`, `OLD --against NEW`, `--old --new`."""
    against, old, new = getattr(args, "against", None), getattr(args, "old", None), getattr(args, "new", None)
    if old or new:
        if not (old and new):
            raise UsageError("give both --old PATH... and --new PATH... (or PATH --against NEW)")
        if against or getattr(args, "paths", None):
            raise UsageError("give the versions either as --old PATH... --new PATH... or as PATH --against NEW")
        shown, reference = list(new), list(old)
    elif against:
        shown, reference = list(against), ctx.paths()
    else:
        return ctx.paths(), None
    if (shown + reference).count(STDIN) > 1:
        raise UsageError("stdin (-) can be only one of the versions")
    return shown, reference


def _check_paths(paths: list[str]) -> None:
    """A path that does not exist is a usage error, as for every other command (exit 2 before any screen)."""
    for p in paths:
        if p != STDIN and not os.path.exists(p):
            raise UsageError(f"no such file or directory: {p}")


def _label(paths: list[str]) -> str:
    return " ".join("<stdin>" if p == STDIN else p for p in paths)


def _live_context(ctx: Context) -> str:
    """The kubeconfig context the UI reads (`--context`, else kubectl's current one): the title says it, so that
    prod and staging never look alike."""
    given = getattr(ctx.args, "context", None)
    if given:
        return str(given)
    from netpol.loading.live import LiveOptions, run_kubectl

    options = LiveOptions(
        kubeconfig=getattr(ctx.args, "kubeconfig", None),
        kubectl=getattr(ctx.args, "kubectl", "kubectl"),
        timeout=getattr(ctx.args, "kubectl_timeout", 60.0),
    )
    try:
        return run_kubectl(options, ["config", "current-context"]).strip() or "?"
    except NetpolError:  # kubectl's LiveError: the read itself worked, so say live without a name
        return "?"


def read_stdin_then_keys() -> str:
    """`netpol tui -`: the manifests from stdin, read once; then the terminal becomes stdin, for the keys.

    Textual reads keys from file descriptor 0 (`sys.__stdin__`); when that was a pipe, the controlling terminal
    (/dev/tty) is put in its place, as pagers do."""
    from netpol.loading.documents import read_text

    text = read_text(STDIN)
    if not os.isatty(0):
        try:
            tty = os.open("/dev/tty", os.O_RDWR)
        except OSError as exc:
            raise UsageError(
                f"netpol tui -: the manifests came on stdin and there is no terminal to read keys from ({exc.strerror})"
            ) from None
        os.dup2(tty, 0)
        os.close(tty)
    return text


def build_app(args: argparse.Namespace, ctx: Context, stdin_text: str | None = None) -> ReachApp:
    """The app, its loader and its watch stamp. With --live the cluster is read once before the UI opens,
    so a wrong context or an unreachable cluster exits 2 with kubectl's reason instead of showing a screen.
    `stdin_text`: what `-` stands for (read by `run` before the UI takes the terminal)."""
    interval = args.interval if args.interval is not None else (LIVE_INTERVAL if ctx.live else FILE_INTERVAL)
    if interval <= 0:
        raise UsageError(f"--interval must be positive, got {interval:g}")
    loader: Callable[[], Analysis]
    stamp: Callable[[], Hashable]
    said = Said(ctx)  # warnings and notes would scribble over the screen: the UI shows them (:warnings)
    compare: Callable[[], Analysis] | None = None
    origin = compare_label = ""
    if ctx.live:
        if any(getattr(args, k, None) for k in ("against", "old", "new")):
            raise UsageError("--against/--old/--new compare manifests: they cannot be used with --live")
        try:
            first = [ctx.analyze(ctx.load())]  # raises (exit 2) before any screen is drawn
        except NetpolError:
            sys.stderr.write(said.buffer.getvalue())  # what it said before failing, as the CLI says it
            raise
        origin = f"live {_live_context(ctx)}"

        def loader() -> Analysis:  # runs in the UI's worker thread: the first read, then fresh reads
            if first:
                return first.pop()
            said.start()
            return ctx.analyze(ctx.load())

        stamp = itertools.count().__next__  # every tick is news: the cluster is re-read each interval
    else:
        shown, reference = _versions(args, ctx)
        _check_paths(shown + (reference or []))
        if STDIN in shown + (reference or []):
            if stdin_text is None:
                raise UsageError("netpol tui reads - before it opens: run it as `… | netpol tui -`")
            if args.watch and all(p == STDIN for p in shown + (reference or [])):
                raise UsageError("--watch follows files: stdin is read once (give files or folders)")

        def loader() -> Analysis:  # runs in the UI's worker thread, fresh from disk each time
            said.start()
            return ctx.analyze(ctx.load(shown, stdin_text=stdin_text))

        if reference is not None:  # the UI shows `shown`, marked against `reference` (read again on each reload too)
            old = reference

            def compare() -> Analysis:
                return ctx.analyze(ctx.load(old, stdin_text=stdin_text))

            origin = f"new {_label(shown)} · old {_label(old)}"
            compare_label = f"old {_label(old)}"

        def stamp() -> Hashable:
            return file_stamp(shown + (reference or []))

    from tui.app import ReachApp  # lazy: CI commands never import Textual

    return ReachApp(
        loader,
        stamp=stamp,
        watch=args.watch,
        interval=interval,
        compare=compare,
        compare_label=compare_label,
        origin=origin,
        said=said,
    )


def run(args: argparse.Namespace, ctx: Context) -> int:
    paths = list(getattr(args, "paths", None) or []) + list(getattr(args, "old", None) or [])
    paths += list(getattr(args, "new", None) or []) + list(getattr(args, "against", None) or [])
    stdin_text = read_stdin_then_keys() if STDIN in paths and not ctx.live else None
    build_app(args, ctx, stdin_text).run()
    return 0
