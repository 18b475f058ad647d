"""Every `$ netpol …` example of README and docs/ runs and prints what the page shows (issue 25: keep every
example checked where it moves; "facts only": a page that drifts from the program fails here).

Each example runs as a user types it, in a shell at the repository's root, `netpol` being this checkout's
entry point; its standard output is compared with the lines the page shows under it (pages.shown_pattern:
`…` stands for lines or the rest of a line the page leaves out). `netpol --help`'s examples run too, with
the placeholder paths they name replaced by the bundled sample.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.docs.pages import Example, examples, pages, shown_pattern
from tests.helpers import run_cli

EXAMPLES = [e for page in pages() for e in examples(page)]


@pytest.fixture(scope="module")
def netpol_on_path(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """An environment whose `netpol` is this checkout's (what `pip install -e .` puts on PATH)."""
    bin_dir = tmp_path_factory.mktemp("bin")
    shim = bin_dir / "netpol"
    shim.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m netpol.cli "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "PYTHONPATH": str(ROOT)}


def test_the_pages_have_examples() -> None:
    """The README's and the command pages' examples are found (a parsing slip would make the test vacuous)."""
    found = {e.page for e in EXAMPLES}
    assert {"README.md", "docs/commands/schedule.md", "docs/commands/explain.md", "docs/semantics.md"} <= found
    assert all(e.shown for e in EXAMPLES)


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: f"{e.page}: {e.command}")
def test_example_prints_what_its_page_shows(example: Example, netpol_on_path: dict[str, str]) -> None:
    assert example.command.startswith("netpol "), "examples run the netpol command"
    done = subprocess.run(
        ["bash", "-o", "pipefail", "-c", example.command],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=netpol_on_path,
        timeout=300,
    )
    assert done.returncode in (0, 1), f"{example.command}: exit {done.returncode}\n{done.stderr}"
    out = "".join(line.rstrip() + "\n" for line in done.stdout.splitlines())
    assert shown_pattern(example.shown).fullmatch(out), (
        f"{example.page}: `{example.command}` prints\n{out}\nwhere the page shows\n" + "\n".join(example.shown)
    )


# Placeholders of `netpol --help`'s examples → the bundled files that stand for them.
HELP_PLACEHOLDERS = {
    "base/manifests/": "samples/seed-lab",
    "manifests/": "samples/seed-lab",
    "expectations.yaml": "samples/expectations/seed-lab.yaml",
}


def help_examples() -> list[str]:
    done = run_cli("--help")
    assert done.returncode == 0, done.stderr
    section = done.stdout[done.stdout.index("examples:") :]
    return re.findall(r"^  ((?:kubectl )?netpol \S.*)$", section, flags=re.M)


def test_help_examples_run_on_the_bundled_sample(tmp_path: Path) -> None:
    """Each example of `netpol --help` runs (exit 0 or 1, never a usage error) once its placeholder paths
    name the bundled sample; `tui` (a terminal program, tested in tests/tui) and `kubectl netpol` (tested
    against the stand-in API server in tests/live) are only parsed."""
    commands = help_examples()
    assert len(commands) >= 6 and any(c.startswith("kubectl netpol") for c in commands)
    for command in commands:
        words = shlex.split(command)
        words = [HELP_PLACEHOLDERS.get(w, w) for w in words]
        # run from a scratch folder (--junit writes a file): the checkout's samples by their full path
        words = [str(ROOT / w) if w.startswith("samples/") else w for w in words]
        if words[0] == "kubectl":
            words = words[1:]
        if words[1] == "tui":
            from netpol.cli import build_parser

            build_parser(only="tui").parse_args(words[1:])
            continue
        done = subprocess.run(
            [sys.executable, "-m", "netpol.cli", *words[1:]],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            timeout=300,
        )
        assert done.returncode in (0, 1), f"{command}: exit {done.returncode}\n{done.stderr}"
