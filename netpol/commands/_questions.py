"""Arguments shared by the question commands (who-can-reach, can-reach, explain) and their edge checks."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence

from netpol.commands._types import namespace_arg, port_arg, selector_arg
from netpol.commands._whatif import add_what_if_arguments
from netpol.commands.context import add_input_arguments
from netpol.errors import NetpolError, UsageError
from netpol.targets import Resolver, Target, is_endpoint_syntax


def add_endpoint_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "-l", "--selector", type=selector_arg, help="a label selector instead of a name (kubectl syntax), with -n"
    )
    p.add_argument(
        "-n",
        "--namespace",
        type=namespace_arg,
        action="append",
        default=[],
        help="namespace for -l or bare names (repeatable)",
    )
    add_port_argument(p)


def add_port_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--port",
        type=port_arg,
        metavar="PORT",
        help="destination port: P, P/PROTO, LO-HI or a port name (e.g. 80, 53/UDP, 8000-8080, http); "
        "for svc/… the Service port",
    )


def add_common(p: argparse.ArgumentParser, formats: tuple[str, ...] = ("txt", "json", "md")) -> None:
    p.add_argument("-o", "--output", choices=formats, default="txt", help="output format (default txt)")
    add_input_arguments(p)
    add_what_if_arguments(p)


def _exists(text: str) -> bool:
    return text != "-" and os.path.exists(text)


def check_positionals(usage: str, endpoints: Sequence[str | None], paths: Sequence[str]) -> None:
    """Before loading: an endpoint given where a PATH is expected, or the reverse, gets a hint (paths come last)."""
    missing = [p for p in paths if p != "-" and not os.path.exists(p)]
    if not missing:
        return
    misplaced = [e for e in endpoints if e and _exists(e)]
    if misplaced or is_endpoint_syntax(missing[0]):
        where = f" ({misplaced[0]} is a path)" if misplaced else ""
        raise UsageError(
            f"no such file or directory: {missing[0]}; it looks like an endpoint{where}: the endpoints come first, "
            f"the cluster PATHs last: {usage}"
        )


def resolve_positional(res: Resolver, text: str, namespaces: Sequence[str], usage: str) -> Target:
    """Resolve an endpoint positional; one that is in fact a file or folder says that paths come last."""
    try:
        return res.resolve(text, namespaces)
    except NetpolError as exc:
        if _exists(text):
            raise UsageError(
                f"{exc}\nhint: {text} is a file or folder: the endpoints come first, then PATHs: {usage}"
            ) from None
        raise


class _IntermixedParser(argparse.ArgumentParser):
    """Lets positionals follow options: `netpol explain A B --port 80 manifests/` (argparse would stop at
    `--port`, leaving `manifests/` unrecognised). Guarded, since parse_known_intermixed_args calls back."""

    _busy = False

    def parse_known_args(self, args=None, namespace=None):
        if self._busy:
            return super().parse_known_args(args, namespace)
        self._busy = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._busy = False


def intermixed(p: argparse.ArgumentParser) -> None:
    """Make a subcommand's parser accept options between its positionals (call after adding arguments)."""
    if type(p) is argparse.ArgumentParser:
        p.__class__ = _IntermixedParser
