"""Output files never replace inputs: the one check every writer (`report -O`, `audit --write-baseline`,
`check --junit`) makes before any work, so a typo cannot turn a manifest into HTML, JSON or XML.

An output is refused when it is one of the inputs (the same file, through any path or link), or when it would
land inside an input folder with a manifest suffix: the next run would read it as a manifest. A report.html in
the folder is fine (never read). `--overwrite` lifts the refusal (`--force` already means kubectl drain's
--force on every command with what-if options).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterable
from dataclasses import dataclass

from netpol.errors import UsageError
from netpol.loading.documents import MANIFEST_SUFFIXES

OVERWRITE_OPTION = "--overwrite"


@dataclass(frozen=True, slots=True)
class Overlap:
    """Why an output path is an input: the input it collides with, and how."""

    input: str
    how: str

    def render(self) -> str:
        return f"{self.how} {self.input}"


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _inside(path: str, folder: str) -> bool:
    try:
        return os.path.commonpath([path, folder]) == folder
    except ValueError:  # different drives
        return False


def input_overlap(output: str, inputs: Iterable[str]) -> Overlap | None:
    """The input that `output` would replace or be read as next time, if any; `-` (stdout) is never one."""
    if output == "-":
        return None
    real = os.path.realpath(output)
    for given in inputs:
        if not given or given == "-":
            continue
        folder = os.path.realpath(given)
        if os.path.isdir(folder):
            if _inside(real, folder) and real.endswith(MANIFEST_SUFFIXES):
                return Overlap(given, "is inside the input folder")
        elif real == folder or _same_file(output, given):
            return Overlap(given, "is the input")
    return None


def check_output(output: str | None, inputs: Iterable[str], option: str, *, overwrite: bool = False) -> None:
    """Refuse (UsageError, exit 2) an output that is an input, unless `--overwrite`: say which and why."""
    if output is None or overwrite:
        return
    overlap = input_overlap(output, inputs)
    if overlap is None:
        return
    why = (
        "writing it would replace a manifest"
        if overlap.how == "is the input"
        else "the next run would read it as a manifest"
    )
    raise UsageError(
        f"{option} {output}: {overlap.render()}; {why}. Choose another file, or pass {OVERWRITE_OPTION} if you mean it"
    )


def add_overwrite_argument(p: argparse.ArgumentParser) -> None:
    """`--overwrite` on every command that writes a file."""
    p.add_argument(
        OVERWRITE_OPTION,
        action="store_true",
        help="let an output file replace one of the inputs (refused by default, exit 2)",
    )
