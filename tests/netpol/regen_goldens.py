"""Regenerate the seed-lab variant goldens: samples/seed-lab-variants/<NN-name>/expected.txt.

Run by hand from anywhere, after a deliberate change of output (never to make a failing test pass
without reading the diff):

    python -m tests.netpol.regen_goldens          # rewrite every expected.txt
    python -m tests.netpol.regen_goldens --check  # exit 1 and list the variants whose output changed

Each expected.txt is exactly the stdout of

    netpol matrix samples/seed-lab/cluster.yaml samples/seed-lab-variants/<NN-name>

run from the repository root (the lab's cluster plus one variant folder; never the whole samples/seed-lab
folder, which carries its own default policy). Review the change with `git diff samples/seed-lab-variants`.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
CLUSTER = Path("samples/seed-lab/cluster.yaml")
VARIANTS = Path("samples/seed-lab-variants")


def variant_dirs() -> list[Path]:
    return sorted(p.relative_to(ROOT) for p in (ROOT / VARIANTS).iterdir() if p.is_dir())


def matrix_txt(variant: Path) -> subprocess.CompletedProcess[str]:
    """The real command, as a user types it from the repository root."""
    return subprocess.run(
        [sys.executable, "-m", "netpol.cli", "matrix", str(CLUSTER), str(variant)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )


def main(argv: list[str]) -> int:
    check = "--check" in argv
    changed = []
    for variant in variant_dirs():
        r = matrix_txt(variant)
        if r.returncode != 0:
            print(f"{variant}: exit {r.returncode}\n{r.stderr}", file=sys.stderr)
            return 2
        golden = ROOT / variant / "expected.txt"
        if not golden.exists() or golden.read_text() != r.stdout:
            changed.append(variant)
            if not check:
                golden.write_text(r.stdout)
    for v in changed:
        print(f"{'differs' if check else 'rewrote'}: {v}/expected.txt")
    return 1 if check and changed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
