"""What `netpol matrix -o json` loads: only what that output needs (issue 9: the whole process at 1,000 pods is a
start-up budget). Modules of other commands, other formats and --live are imported where they are used; these
tests pin it on the real entry point, as `python -X importtime` sees it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from netpol.commands.context import DEFAULT_TIMEOUT

ROOT = Path(__file__).resolve().parents[2]

# Loaded only by the commands, formats and options that use them.
LAZY = (
    "networkx",  # -o dot/graphml (netpol.readout.graph)
    "textual",  # netpol tui
    "tui",
    "jsonschema",  # tests only
    "netpol.readout.graph",
    "netpol.report",  # netpol report, diff -o html
    "netpol.explain",  # explain, who-can-reach, can-reach
    "netpol.audit",
    "netpol.exposure",  # netpol exposure, audit, explain, who-can-reach --from internet
    "netpol.readout.compact",  # -o json --compact
    "netpol.loading.live",  # --live: kubectl, threads
    "netpol.loading.kubectl",
    "netpol.loading.apilists",
    "concurrent.futures",
    "subprocess",
    "csv",  # -o csv
)


def imported(*args: str) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """Run `python -X importtime ARGS`; the modules it imported that a bare interpreter does not."""

    def run(*argv: str) -> tuple[subprocess.CompletedProcess[str], set[str]]:
        done = subprocess.run(
            [sys.executable, "-X", "importtime", *argv], capture_output=True, text=True, cwd=ROOT, timeout=120
        )
        names = {line.split("|")[2].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
        return done, names - {"imported package"}

    _, bare = run("-c", "pass")  # whatever this machine's site imports is not the CLI's doing
    done, names = run(*args)
    return done, names - bare


def loaded(names: set[str], prefix: str) -> bool:
    return any(n == prefix or n.startswith(prefix + ".") for n in names)


def test_matrix_json_imports_nothing_it_does_not_use() -> None:
    done, names = imported("-m", "netpol.cli", "matrix", "samples/seed-lab", "-o", "json")
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["connections"]
    assert {"numpy", "netpol.engine", "netpol.readout.export"} <= names  # the listing is read right
    assert [m for m in LAZY if loaded(names, m)] == []


def test_matrix_txt_imports_nothing_it_does_not_use() -> None:
    done, names = imported("-m", "netpol.cli", "matrix", "samples/seed-lab")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "web/test => web/web1 : TCP 80" in done.stdout
    assert [m for m in LAZY if loaded(names, m)] == []


def test_csv_is_loaded_when_asked_for() -> None:
    done, names = imported("-m", "netpol.cli", "matrix", "samples/seed-lab", "-o", "csv")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("src,dst,conn\n")
    assert "csv" in names


def test_help_and_version_load_no_command() -> None:
    for args in (["--version"], ["--help"], []):
        done, names = imported("-m", "netpol.cli", *args)
        assert "netpol" in done.stdout
        assert not loaded(names, "numpy") and not loaded(names, "netpol.commands"), args


def test_live_reader_still_loads_for_live() -> None:
    """--live imports the reader where it is used: a kubectl that is not there is kubectl's error, exit 2."""
    done = subprocess.run(
        [sys.executable, "-m", "netpol.cli", "matrix", "--live", "--kubectl", "/nonexistent/kubectl"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and "kubectl" in done.stderr


def test_kubectl_timeout_default_is_kubectls() -> None:
    """The parser names --kubectl-timeout's default without importing kubectl; both must say the same."""
    from netpol.loading.kubectl import DEFAULT_TIMEOUT as KUBECTL_DEFAULT

    assert DEFAULT_TIMEOUT == KUBECTL_DEFAULT


BLAS_PROBE = (
    "import os, sys\n"
    "from netpol.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "print(os.environ.get('OPENBLAS_NUM_THREADS'), file=sys.stderr)\n"
)


def blas_threads(*args: str, env_value: str | None = None) -> str:
    env = {k: v for k, v in __import__("os").environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if env_value is not None:
        env["OPENBLAS_NUM_THREADS"] = env_value
    done = subprocess.run(
        [sys.executable, "-c", BLAS_PROBE, *args], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120
    )
    return done.stderr.strip().splitlines()[-1]


def test_blas_gets_one_thread_unless_the_user_or_the_command_says_otherwise(tmp_path: Path) -> None:
    """numpy's OpenBLAS starts a thread per core at import; the engine does no BLAS work, the report does."""
    assert blas_threads("matrix", "samples/seed-lab", "-o", "json") == "1"
    assert blas_threads("matrix", "samples/seed-lab", "-o", "json", env_value="4") == "4"
    assert blas_threads("report", "samples/seed-lab", "-O", str(tmp_path / "r.html")) == "None"


def test_program_entries_exit_with_mains_code() -> None:
    """`netpol` (pyproject's console script), `python -m netpol` and `python -m netpol.cli` all go through
    netpol.cli.run: main()'s exit code, then the exit without the last full collection."""
    import tomllib

    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert scripts["netpol"] == "netpol.cli:run"
    denied = ["explain", "web/test", "web/web1", "--port", "81", "samples/seed-lab"]  # the seed lab allows only 80
    for module in ("netpol", "netpol.cli"):
        for args, code in ((denied, 1), (denied[:4] + ["80", "samples/seed-lab"], 0), (["matrix", "/nonexistent"], 2)):
            done = subprocess.run(
                [sys.executable, "-m", module, *args], capture_output=True, text=True, cwd=ROOT, timeout=120
            )
            assert done.returncode == code, (module, args, done.stderr[-500:])
