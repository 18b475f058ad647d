"""`kubectl netpol …`: the kubectl plugin (an executable named `kubectl-netpol` on PATH; kubectl finds it).

Every command reads the cluster of kubectl's current context (`--live` is implied); `--context`,
`--kubeconfig` and `-n` are netpol's own options and reach kubectl unchanged. kubectl does not hand its
global flags to plugins (`kubectl --context X netpol …` is refused by kubectl): put them after the command.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from netpol import cli

USAGE = """usage: kubectl netpol COMMAND [ARGS...] [--context CTX] [--kubeconfig FILE] [-n NS]...

Answers NetworkPolicy questions about the cluster of kubectl's current context (read-only: only GET
requests). Commands: {commands}. `kubectl netpol COMMAND --help` for each.
  kubectl netpol who-can-reach web1
  kubectl netpol explain web/test web/web1 --port 80
  kubectl netpol matrix -n web
"""


def plugin_argv(argv: Sequence[str]) -> list[str]:
    """netpol's argument list for a plugin invocation: the same, reading the live cluster."""
    args = list(argv)
    if "--live" not in args:
        args.append("--live")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        print(USAGE.format(commands=", ".join(c for c in cli.COMMANDS if c != "diff")), end="")
        return 0 if args else 2
    if args[0] == "diff":
        print(
            "error: kubectl netpol diff: diff compares two sets of manifests; use `netpol diff OLD NEW`",
            file=sys.stderr,
        )
        return 2
    if args[0] not in cli.COMMANDS or any(a in ("-h", "--help") for a in args[1:]):
        return cli.main(args)
    return cli.main(plugin_argv(args))


if __name__ == "__main__":  # pragma: no cover - `python -m netpol.kubectl_plugin`
    sys.exit(main())
