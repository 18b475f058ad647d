"""Arguments shared by the question commands (who-can-reach, can-reach, explain)."""

from __future__ import annotations

import argparse

from netpol.commands.context import add_input_arguments


def add_endpoint_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("-l", "--selector", help="a label selector instead of a name (kubectl syntax), with -n")
    p.add_argument("-n", "--namespace", action="append", default=[], help="namespace for -l or bare names (repeatable)")
    p.add_argument("--port", help="one destination port: P or P/PROTO (e.g. 80, 53/UDP); for svc/… the Service port")


def add_common(p: argparse.ArgumentParser, formats: tuple[str, ...] = ("txt", "json", "md")) -> None:
    p.add_argument("-o", "--output", choices=formats, default="txt", help="output format (default txt)")
    add_input_arguments(p)


class _IntermixedParser(argparse.ArgumentParser):
    """Lets positionals follow options: `netpol explain A B --port 80 manifests/` (argparse would stop at
    `--port`, leaving `manifests/` unrecognised). Guarded, since parse_known_intermixed_args calls back."""

    _busy = False

    def parse_known_args(self, args=None, namespace=None):  # type: ignore[override]
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
