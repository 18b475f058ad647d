#!/usr/bin/env python3
"""How fast the terminal UI opens and answers key presses on a large cluster (Textual run_test + Pilot).

    python benchmarks/bench_tui.py [--pods 10000] [--policies 1000] [--seed 1]

Prints: analysis time (not the UI's), time from app start to the pods table showing the cluster (target
< 3 s), and per key press the time until the screen has processed it (target < 100 ms). The cluster comes
from benchmarks/generate_cluster.py when present, else from a small inline generator.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from netpol.manifests import load_text  # noqa: E402
from netpol.pipeline import analyze  # noqa: E402


def inline_cluster(pods: int, policies: int, seed: int) -> str:
    """Fallback: namespaces of 100 bare pods with app/tier labels, per-namespace deny + allow policies."""
    import random

    rng = random.Random(seed)
    docs: list[dict] = []
    n_ns = max(1, pods // 100)
    for k in range(n_ns):
        ns = f"team-{k:03d}"
        docs.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns, "labels": {"team": ns}}})
        for i in range(min(100, pods - k * 100)):
            app = f"app{i % 10}"
            docs.append(
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "metadata": {
                        "name": f"{app}-{i}",
                        "namespace": ns,
                        "labels": {"app": app, "tier": rng.choice(["web", "db"])},
                    },
                    "spec": {
                        "containers": [
                            {"name": "c", "image": "nginx", "ports": [{"containerPort": 8080, "name": "http"}]}
                        ]
                    },
                }
            )
    for p in range(policies):
        ns = f"team-{p % n_ns:03d}"
        docs.append(
            {
                "apiVersion": "networking.k8s.io/v1",
                "kind": "NetworkPolicy",
                "metadata": {"name": f"allow-{p}", "namespace": ns},
                "spec": {
                    "podSelector": {"matchLabels": {"app": f"app{p % 10}"}},
                    "ingress": [
                        {"from": [{"podSelector": {"matchLabels": {"tier": "web"}}}], "ports": [{"port": "http"}]}
                    ],
                },
            }
        )
    return yaml.safe_dump_all(docs)


def cluster_text(pods: int, policies: int, seed: int) -> tuple[str, str]:
    try:
        from generate_cluster import generate_yaml
    except ImportError:
        return inline_cluster(pods, policies, seed), "inline generator"
    return generate_yaml(pods, policies, seed), "benchmarks/generate_cluster.py"


async def drive(analysis, keys: list[tuple[str, list[str]]]) -> tuple[float, list[tuple[str, float]]]:
    from tui.app import ReachApp

    start = time.perf_counter()
    app = ReachApp(lambda: analysis)
    timings: list[tuple[str, float]] = []
    async with app.run_test(size=(160, 48)) as pilot:
        while app.model is None or app.loading_now:
            await pilot.pause(0.005)
        await pilot.pause()
        opened = time.perf_counter() - start
        for label, seq in keys:
            for k in seq:
                t = time.perf_counter()
                await pilot.press(k)
                timings.append((f"{label}:{k}", time.perf_counter() - t))
    return opened, timings


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pods", type=int, default=10000)
    ap.add_argument("--policies", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)

    t = time.perf_counter()
    text, origin = cluster_text(args.pods, args.policies, args.seed)
    gen = time.perf_counter() - t
    t = time.perf_counter()
    analysis = analyze(load_text(text))
    analysis_s = time.perf_counter() - t
    r = analysis.reachability
    print(
        f"cluster: {len(r.pods)} running pods, {r.universe.class_count} classes, {len(r.policies)} policies ({origin}, {gen:.1f} s)"
    )
    print(f"analysis (load + matrix, not the UI): {analysis_s:.2f} s")

    keys = [
        ("pods", ["down", "down", "pagedown", "pagedown", "end", "home"]),
        ("filter", ["slash", "a", "p", "p", "backspace", "enter"]),
        ("open pod", ["enter"]),
        ("detail", ["down", "down", "tab", "down", "enter"]),
        ("back", ["escape", "escape"]),
        ("command", ["colon", "m", "x", "enter"]),
        ("matrix", ["down", "right", "right", "pagedown", "enter"]),
        ("explain back", ["escape"]),
        ("matrix port", ["p", "8", "0", "enter", "w"]),
        ("audit", ["colon", "a", "u", "d", "i", "t", "enter", "down"]),
        ("nodes", ["colon", "n", "o", "enter"]),
        ("policies", ["colon", "n", "p", "enter", "down", "down"]),
        ("help", ["question_mark", "escape"]),
    ]
    opened, timings = asyncio.run(drive(analysis, keys))
    print(f"UI open (app start → pods table with the cluster): {opened:.2f} s (target < 3 s)")
    ms = [s * 1000 for _, s in timings]
    print(f"key presses: {len(ms)}, median {statistics.median(ms):.0f} ms, max {max(ms):.0f} ms (target < 100 ms)")
    for label, s in sorted(timings, key=lambda x: -x[1])[:8]:
        print(f"  slowest  {label:<22} {s * 1000:6.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
