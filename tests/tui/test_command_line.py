"""`netpol tui`'s command line: which version is shown and which it is compared with, and stdin."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from netpol.cli import build_parser
from netpol.commands.context import Context
from netpol.commands.tui import build_app
from netpol.errors import UsageError
from tests.helpers import run_cli

ROOT = Path(__file__).resolve().parents[2]
SEED = str(ROOT / "samples" / "seed-lab")
VARIANT = str(ROOT / "samples" / "seed-lab-variants" / "10-default-deny-ingress")


def _args(*argv: str):  # noqa: ANN202 - argparse.Namespace
    return build_parser("tui").parse_args(["tui", *argv])


def test_against_takes_one_path_so_a_path_after_it_stays_the_path() -> None:
    """Issue 25 item 6: `--against` had `nargs='+'`, so `tui --against NEW OLD` read OLD as a second NEW and
    compared both with the bundled sample. One path per `--against` (repeat it for several)."""
    args = _args("--against", VARIANT, SEED)
    assert args.against == [VARIANT] and args.paths == [SEED]
    twice = _args(SEED, "--against", VARIANT, "--against", SEED)
    assert twice.against == [VARIANT, SEED] and twice.paths == [SEED]


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param([SEED, "--against", VARIANT], id="PATH --against NEW"),
        pytest.param(["--against", VARIANT, SEED], id="--against NEW PATH"),
        pytest.param(["--old", SEED, "--new", VARIANT], id="--old --new"),
    ],
)
def test_the_title_names_the_version_shown_and_the_one_it_is_compared_with(argv: list[str]) -> None:
    """`netpol diff`'s words: NEW is shown, OLD is what its changes are marked against."""
    args = _args(*argv)
    app = build_app(args, Context(args))
    assert app.origin == f"new {VARIANT} · old {SEED}"
    assert app.compare_label == f"old {SEED}"


def test_old_without_new_or_with_a_path_is_refused() -> None:
    for argv in (["--old", SEED], [SEED, "--old", SEED, "--new", VARIANT]):
        args = _args(*argv)
        with pytest.raises(UsageError):
            build_app(args, Context(args))


def test_help_offers_stdin_as_it_works() -> None:
    """Issue 25: `tui --help` offered `-` for stdin, and the command then refused it; now it reads it (the
    terminal test pipes manifests in) and the help says how."""
    out = run_cli("tui", "--help")
    flat = " ".join(out.stdout.split())
    assert out.returncode == 0 and "- reads stdin once" in flat and "keys then come from the terminal" in flat


def test_stdin_with_no_terminal_for_the_keys_exits_2(tmp_path: Path) -> None:
    """`netpol tui -` in a job without a terminal (a new session has no controlling terminal): the manifests are
    read, then there is nowhere to read keys from; exit 2 saying so, never a UI on a pipe."""
    seed = "".join((Path(SEED) / f).read_text() + "\n---\n" for f in ("cluster.yaml",))
    out = subprocess.run(
        [sys.executable, "-m", "netpol.cli", "tui", "-"],
        input=seed,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
        start_new_session=True,
    )
    assert out.returncode == 2, out.stderr
    assert out.stderr.startswith("error: netpol tui -: the manifests came on stdin and there is no terminal")
    assert "Traceback" not in out.stderr
