"""YAML reading speed: netpol's reader against `yaml.safe_load_all` (PyYAML's C loader) on the same file.

    python3 benchmarks/bench_yaml.py FILE [--reader netpol|python|safe] [--repeat N]

Prints the best in-process CPU time of N readings (default 3) and the speed-up over `safe_load_all`. With
`--reader` it reads with that one reader only, so a whole-process timer (`/usr/bin/time -v`, hyperfine)
can compare readers as processes:
- `netpol`: netpol.loading.yamlread.load_yaml (the C extension where built, else the Python path);
- `python`: the same reader's Python path (what it reads with when the extension is not built);
- `safe`: `yaml.load_all(text, Loader=yaml.CSafeLoader)`.
Generate inputs with benchmarks/generate_cluster.py (e.g. `--pods 10000 --policies 2000 -o c10k.yaml`).
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import yaml  # noqa: E402

from netpol.loading import yamlread  # noqa: E402


def readers() -> dict[str, Callable[[str], Any]]:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return {
        "netpol": yamlread.load_yaml,
        "python": lambda text: yamlread.load_yaml(text, fast=False),
        "safe": lambda text: list(yaml.load_all(text, Loader=loader)),
    }


def best_cpu(read: Callable[[str], Any], text: str, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        t = time.process_time()
        result = read(text)
        best = min(best, time.process_time() - t)
        del result
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--reader", choices=["netpol", "python", "safe"])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    text = Path(args.file).read_text(encoding="utf-8")
    table = readers()
    if args.reader:
        print(f"{args.reader}: {best_cpu(table[args.reader], text, args.repeat):.3f} s CPU")
        return 0
    c_built = yamlread._kyaml is not None
    print(f"{args.file}: {len(text) / 2**20:.1f} MiB; C extension {'built' if c_built else 'NOT built'}")
    times = {name: best_cpu(read, text, args.repeat) for name, read in table.items()}
    for name, s in times.items():
        print(f"  {name:7} {s:7.3f} s CPU   {times['safe'] / s:5.2f}x safe_load_all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
