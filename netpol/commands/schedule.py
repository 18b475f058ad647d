"""`netpol schedule`: delegates to the scheduler package's command."""

from __future__ import annotations

import argparse

from netpol.commands.context import Context, add_input_arguments


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_input_arguments(p)
    from scheduling import command

    command.add_arguments(p)


def run(args: argparse.Namespace, ctx: Context) -> int:
    from netpol.workloads import expand_workloads
    from scheduling import command

    return command.run(args, expand_workloads(ctx.cluster), ctx.out)
