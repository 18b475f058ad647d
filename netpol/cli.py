"""The composition root: parses the command line, wires the scheduler in, maps errors to exit codes.

Exit codes: 0 ran and nothing to report; 1 the question's answer is negative; 2 usage or input error.
Errors never print a traceback.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import sys
from collections.abc import Sequence
from typing import NoReturn

from netpol import __version__
from netpol.errors import NetpolError
from netpol.gcpause import gc_paused, keep_built_objects
from netpol.readout.textsafe import text_safe

# subcommand → (module, help). A command's module is imported only when that command is asked for.
COMMANDS: dict[str, tuple[str, str]] = {
    "matrix": ("netpol.commands.matrix", "the pod-to-pod reachability matrix"),
    "schedule": ("netpol.commands.schedule", "place pods on nodes like kube-scheduler; show Pending reasons"),
    "tui": ("netpol.commands.tui", "explore the reachability graph in a terminal UI"),
    "who-can-reach": ("netpol.commands.who_can_reach", "every source that can reach a target, and the rules why"),
    "can-reach": ("netpol.commands.can_reach", "every destination a source can reach, and the rules why"),
    "explain": ("netpol.commands.explain", "why one endpoint can or cannot reach another"),
    "audit": ("netpol.commands.audit", "namespace isolation report and policy findings (txt, json, md, sarif)"),
    "check": ("netpol.commands.check", "evaluate allow/deny expectations (YAML); exit 1 when one fails"),
    "diff": ("netpol.commands.diff", "the semantic reachability difference between two sets of manifests"),
    "report": ("netpol.commands.report", "one self-contained HTML report: summary, heatmap, pods, findings, graph"),
    "exposure": (
        "netpol.commands.exposure",
        "what reaches each pod from outside the cluster, through which door, and why",
    ),
}


# Each command's reference page in the source tree (docs/; tests/docs/test_links.py checks that it exists), and
# the topic pages its options lean on. `netpol COMMAND --help` ends with them.
DOC_PAGES: dict[str, str] = {"can-reach": "docs/commands/who-can-reach.md"}
DOC_TOPICS: dict[str, tuple[str, ...]] = {
    "matrix": ("docs/input.md", "docs/endpoints.md"),
    "schedule": ("docs/what-if.md",),
    "tui": ("docs/ui.md",),
    "who-can-reach": ("docs/endpoints.md",),
    "can-reach": ("docs/endpoints.md",),
    "explain": ("docs/endpoints.md", "docs/semantics.md"),
    "check": ("docs/endpoints.md", "docs/ci.md"),
    "audit": ("docs/ci.md", "docs/exposure.md"),
    "exposure": ("docs/exposure.md", "docs/endpoints.md"),
}


def doc_page(command: str) -> str:
    return DOC_PAGES.get(command, f"docs/commands/{command}.md")


def epilog(command: str) -> str:
    pages = "".join(f"\n  {page}" for page in (doc_page(command), *DOC_TOPICS.get(command, ())))
    return f"documentation, in the kube-reach source tree:{pages}"


# `netpol --help` ends with these (kubectl's layout: a comment, then the command): the README's three jobs.
EXAMPLES = """\
examples:
  # every allowed connection of the bundled sample cluster (no PATH: the same)
  netpol matrix samples/seed-lab

  # who can reach web1, on which ports, and the rules on both sides
  netpol who-can-reach web1
  netpol explain cyh/test web/web1 --port 80

  # a namespace's isolation and the policies' findings; exit 1 on a medium one
  netpol audit manifests/ -n web --fail-on medium

  # CI: expectations (exit 1 when one breaks), and what a change opens or closes
  netpol check manifests/ --expect expectations.yaml --junit junit.xml
  netpol diff base/manifests/ manifests/ --exit-code

  # explore in the terminal (? lists the keys); the same on a live cluster
  netpol tui manifests/
  kubectl netpol who-can-reach web1

documentation: README.md and docs/ in the kube-reach source tree;
netpol COMMAND --help ends with its page"""


# options that mean something only when reading a live cluster: (option, dest, default)
LIVE_ONLY = (("--context", "context", None), ("--kubeconfig", "kubeconfig", None), ("--kubectl", "kubectl", "kubectl"))


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The full parser; with `only`, just that subcommand's arguments are loaded (fast start-up)."""
    parser = argparse.ArgumentParser(
        prog="netpol",
        description="Kubernetes NetworkPolicy and connectivity analyzer",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"netpol {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        p = sub.add_parser(
            name,
            help=help_text,
            description=help_text,
            epilog=epilog(name),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        if only is None or name == only:
            importlib.import_module(module).add_arguments(p)
    return parser


def _chosen_command(argv: Sequence[str]) -> str | None:
    for arg in argv:
        if arg in COMMANDS:
            return arg
        if not arg.startswith("-"):
            return None
    return None


PIPE_BYTES = 1 << 20  # Linux's default pipe-max-size for unprivileged processes


def _widen_stdout_pipe() -> None:
    """Give a stdout pipe 1 MiB instead of 64 KiB: `netpol matrix -o json | …` writes gigabytes at 10,000 pods,
    and a small pipe costs a context switch per 64 KiB (5.3 s → 4.1 s for 1.6 GB, benchmarks/bench_matrix.py)."""
    try:
        import fcntl
        import os
        import stat

        fd = sys.stdout.fileno()
        if stat.S_ISFIFO(os.fstat(fd).st_mode):
            fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    except (ImportError, AttributeError, OSError, ValueError):  # not Linux, not a real file, or not allowed
        pass


# Commands that multiply float matrices (the report's workload graph, also `diff -o html`): only they use BLAS.
BLAS_COMMANDS = frozenset({"report", "diff"})
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def _one_blas_thread(command: str | None) -> None:
    """Ask numpy's BLAS for one thread before numpy is imported: OpenBLAS otherwise starts a thread per core at
    import, whose spinning costs about 40 ms of CPU per run, and the engine does no BLAS work (bitwise
    numpy only). A user's own setting wins; once numpy is loaded (tests calling main) it would change nothing."""
    if command in BLAS_COMMANDS or "numpy" in sys.modules:
        return
    import os

    for name in BLAS_THREADS:
        os.environ.setdefault(name, "1")


def main(argv: Sequence[str] | None = None) -> int:
    from_argv = argv is None  # the process's own command line: it may settle the heap (netpol/gcpause.py)
    argv = list(sys.argv[1:] if argv is None else argv)
    chosen = _chosen_command(argv)
    _one_blas_thread(chosen)
    with gc_paused():  # importing the command's modules makes thousands of objects and no garbage: ~5 ms of GC
        parser = build_parser(only=chosen or "")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    if not args.command:
        parser.print_help()
        return 2
    if from_argv and args.command != "tui":
        keep_built_objects()
    if not getattr(args, "live", True):
        for opt, dest, default in LIVE_ONLY:
            if getattr(args, dest, default) != default:
                print(f"netpol {args.command}: error: argument {opt}: only with --live", file=sys.stderr)
                return 2
    from netpol.commands.context import Context

    module = importlib.import_module(COMMANDS[args.command][0])
    if args.command != "tui":
        _widen_stdout_pipe()
    ctx = Context(args, settle_heap=from_argv)
    try:
        if hasattr(args, "cluster_cidr"):  # checked together (the mask must fit the CIDR) before any command runs
            ctx.network()
        return int(module.run(args, ctx))
    except NetpolError as exc:  # control characters from the input never reach the terminal raw
        print("error: " + "\n".join(map(text_safe, str(exc).split("\n"))), file=sys.stderr)
        return 2
    except MemoryError as exc:  # numpy's _ArrayMemoryError too: a figure, never a traceback
        print(
            f"error: out of memory ({exc or 'allocation failed'}); the cluster is too large for this machine",
            file=sys.stderr,
        )
        return 2
    except BrokenPipeError:  # `netpol matrix | head`
        return 0
    except KeyboardInterrupt:
        return 130


def run() -> NoReturn:
    """The `netpol` program (console script, `python -m netpol`): main(), then exit. The interpreter's exit
    ends with a full garbage collection that walks every object the analysis left, to find no cycle (~10 ms
    at 1,000 pods); frozen objects are not walked. Only here: a process that goes on after main() keeps a
    collector that sees everything."""
    code = main()
    gc.freeze()
    sys.exit(code)


if __name__ == "__main__":  # pragma: no cover
    run()
