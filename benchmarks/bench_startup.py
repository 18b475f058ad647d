#!/usr/bin/env python3
"""Whole-process cost of `netpol matrix FILE -o json`, start-up included, and where its imports go.

Issue 9's target: 1,001 pods / 200 policies, the whole process within 0.25 s on the 2-core box. This prints,
for the command and for `netpol --version` (the interpreter plus the CLI's own start):

  - N runs (after one warm-up that also writes the bytecode caches): wall, user and sys seconds, min and
    median (CPU from getrusage(RUSAGE_CHILDREN), which a busy machine disturbs less than the wall clock);
  - an import-time breakdown from `python -X importtime`, the minimum over the runs per module: self time
    summed per package (numpy, yaml, netpol.model, …) and the heaviest single modules.

Nothing here judges: compare figures between checkouts on the same machine (run it with PYTHONPATH or from
each checkout's root). The cluster is generated when no FILE is given (benchmarks/generate_cluster.py, seed 1).

    python3 benchmarks/bench_startup.py                      # the generated 1k cluster, 10 runs
    python3 benchmarks/bench_startup.py FILE -n 20 -o txt    # another input or format
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
TARGET_S = 0.25


def child_env() -> dict[str, str]:
    """The checkout first on sys.path; bytecode caches written, as an installed package has them."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    return env


def timed(argv: list[str]) -> tuple[float, float, float]:
    """(wall, user, sys) seconds of one run, output thrown away."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=child_env(), check=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime


def import_times(argv: list[str]) -> dict[str, tuple[int, int]]:
    """module → (self µs, cumulative µs) of one `-X importtime` run."""
    done = subprocess.run(
        [argv[0], "-X", "importtime", *argv[1:]],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=child_env(),
        check=True,
    )
    out: dict[str, tuple[int, int]] = {}
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        head, cumulative, name = line.split("|")
        out[name.strip()] = (int(head.split(":")[1]), int(cumulative))
    return out


def package_of(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] in ("netpol", "scheduling") else parts[0]


def report_runs(title: str, argv: list[str], runs: int) -> None:
    timed(argv)  # warm-up: bytecode caches, the file in the page cache
    figures = [timed(argv) for _ in range(runs)]
    print(f"\n{title}\n  {' '.join(argv[1:])}  ({runs} runs)")
    print(f"  {'':6} {'min':>8} {'median':>8}")
    for i, name in enumerate(("wall", "user", "sys")):
        values = [f[i] for f in figures]
        print(f"  {name:6} {min(values):8.3f} {statistics.median(values):8.3f}")
    cpu = [f[1] + f[2] for f in figures]
    print(f"  {'cpu':6} {min(cpu):8.3f} {statistics.median(cpu):8.3f}")


def report_imports(argv: list[str], runs: int, top: int) -> None:
    samples = [import_times(argv) for _ in range(runs)]
    modules = set().union(*samples)
    best = {m: (min(s[m][0] for s in samples if m in s), min(s[m][1] for s in samples if m in s)) for m in modules}
    by_package: dict[str, int] = defaultdict(int)
    for module, (self_us, _) in best.items():
        by_package[package_of(module)] += self_us
    total = sum(by_package.values())
    print(f"\nimports ({len(best)} modules, {total / 1000:.1f} ms self time in all, min of {runs} runs)")
    print("  by package (self time):")
    for package, us in sorted(by_package.items(), key=lambda kv: -kv[1])[:top]:
        print(f"    {us / 1000:7.1f} ms  {package}")
    print("  heaviest modules (self time; cumulative):")
    for module, (self_us, cum_us) in sorted(best.items(), key=lambda kv: -kv[1][0])[:top]:
        print(f"    {self_us / 1000:7.1f} ms  {cum_us / 1000:7.1f} ms  {module}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("path", nargs="?", help="cluster manifests (default: a generated 1,000-pod / 200-policy one)")
    ap.add_argument("-n", "--runs", type=int, default=10, help="counted runs of each command (default 10)")
    ap.add_argument("-o", "--output", default="json", help="the matrix format to time (default json)")
    ap.add_argument("--top", type=int, default=15, help="rows of the import breakdown (default 15)")
    ns = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as tmp:
        path = ns.path
        if path is None:
            path = str(Path(tmp) / "cluster-1k.yaml")
            gen = [sys.executable, str(HERE / "generate_cluster.py"), "--pods", "1000", "--policies", "200"]
            subprocess.run([*gen, "--seed", "1", "-q", "-o", path], check=True)
        matrix = [sys.executable, "-m", "netpol.cli", "matrix", path, "-o", ns.output]
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, checkout {ROOT}")
        report_runs(
            "netpol --version (interpreter and CLI start)", [sys.executable, "-m", "netpol.cli", "--version"], ns.runs
        )
        report_runs(f"netpol matrix -o {ns.output} (target {TARGET_S} s wall at 1k pods)", matrix, ns.runs)
        report_imports(matrix, min(ns.runs, 5), ns.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
