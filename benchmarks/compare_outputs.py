"""Byte-compare what two checkouts of netpol print: every command's --help, and `netpol matrix` in each format
over the samples, the real apps and any extra inputs. Used to show that start-up work changed no output.

    python3 benchmarks/compare_outputs.py BEFORE_CHECKOUT AFTER_CHECKOUT [EXTRA_INPUT...]

Each checkout runs as `python3 -m netpol.cli` with its own root first on sys.path (so both need their C
extension built in place). Exit 0 when stdout, stderr and exit codes all match, else 1 with the differing cases.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

MATRIX_VARIANTS: tuple[tuple[str, ...], ...] = (
    ("-o", "json"),
    ("-o", "txt"),
    ("-o", "csv"),
    ("-o", "md"),
    ("-o", "grid"),
    ("-o", "dot"),
    ("-o", "graphml"),
    ("-o", "json", "--port", "80"),
    ("-o", "json", "--by", "workload"),
    ("-o", "json", "--port", "8000-9000"),
    ("-o", "json", "--compact"),
)


# Views of the seed lab (namespaces web and cyh): namespace, focus and direction filters.
SEED_LAB_VIEWS: tuple[tuple[str, ...], ...] = (
    ("-n", "web"),
    ("-n", "web", "--direction", "ingress"),
    ("-n", "web", "--direction", "egress", "-o", "json"),
    ("--focus", "web/web1"),
    ("--focus", "web/web1", "--direction", "ingress", "-o", "json"),
    ("--focus", "web/test", "--direction", "egress", "-o", "csv"),
    ("--focus", "web/test", "--no-external", "-o", "md"),
    ("--by", "workload", "-o", "txt"),
)


def inputs(root: Path) -> list[Path]:
    """Every sample and real-app folder of the checkout (the folders users and tests run matrix on)."""
    found = [p for p in sorted((root / "samples").iterdir()) if p.is_dir()]
    for group in ("samples/seed-lab-variants", "tests/data/real-apps", "tests/data/ci-apps"):
        found += [p for p in sorted((root / group).iterdir()) if p.is_dir()]
    return found


def run(root: Path, args: list[str]) -> tuple[int, bytes, bytes]:
    env = {**os.environ, "PYTHONPATH": str(root), "COLUMNS": "100"}
    done = subprocess.run([sys.executable, "-m", "netpol.cli", *args], cwd=root, env=env, capture_output=True)
    return done.returncode, done.stdout, done.stderr


def cases(root: Path, extra: list[str]) -> list[list[str]]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    listing = [sys.executable, "-c", "from netpol.cli import COMMANDS; print(*COMMANDS)"]
    commands = subprocess.run(listing, cwd=root, env=env, capture_output=True, text=True, check=True).stdout.split()
    out: list[list[str]] = [["--help"], ["--version"], []]
    out += [[name, "--help"] for name in commands]
    for path in [*(str(p.relative_to(root)) for p in inputs(root)), *extra]:
        out += [["matrix", path, *variant] for variant in MATRIX_VARIANTS]
    out += [["matrix", "samples/seed-lab", *view] for view in SEED_LAB_VIEWS]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("extra", nargs="*", help="more inputs (absolute paths) to run matrix on")
    ns = ap.parse_args()
    before, after = ns.before.resolve(), ns.after.resolve()
    differ = 0
    todo = cases(after, ns.extra)
    for args in todo:
        a, b = run(before, args), run(after, args)
        if a != b:
            differ += 1
            what = [k for k, x, y in zip(("exit code", "stdout", "stderr"), a, b, strict=True) if x != y]
            print(f"DIFFERS ({', '.join(what)}): netpol {' '.join(args)}")
    print(f"{len(todo)} cases, {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
