#!/usr/bin/env python3
"""`netpol report` at scale: time and size of the written page against `netpol matrix -o json`, and how the
page behaves in headless Chromium (first paint, data read, a heatmap click, a pod search).

    python benchmarks/bench_report.py --pods 10000 --policies 2000        # prints the figures

For the issue's yardstick use farm-bench on the two commands (see benchmarks/README.md):

    farm-bench -n 3 --timeout 600 -- sh -c 'exec python3 -m netpol.cli report /tmp/c.yaml -o /tmp/c.html' \\
        --vs "sh -c 'exec python3 -m netpol.cli matrix /tmp/c.yaml -o json >/dev/null'"
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip


def _timed(cmd: list[str], stdout=subprocess.DEVNULL) -> float:  # noqa: ANN001
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=stdout, stderr=subprocess.DEVNULL, cwd=ROOT)
    return time.perf_counter() - t


def _browser(page_path: Path, chromium: str) -> dict[str, float]:
    from playwright.sync_api import sync_playwright

    out: dict[str, float] = {}
    with sync_playwright() as p, tempfile.TemporaryDirectory() as profile:
        ctx = p.chromium.launch_persistent_context(
            profile, executable_path=chromium, headless=True, args=FLAGS, viewport={"width": 1400, "height": 900}
        )
        page = ctx.new_page()
        t = time.perf_counter()
        page.goto(page_path.as_uri())
        page.wait_for_selector("body[data-ready='1']", timeout=300_000)
        out["ready_s"] = time.perf_counter() - t
        out["first_contentful_paint_ms"] = page.evaluate(
            "performance.getEntriesByType('paint').find(e => e.name === 'first-contentful-paint').startTime"
        )
        t = time.perf_counter()
        if page.locator("#heat-canvas").count():  # many namespaces: the heatmap is a canvas (14 px cells)
            n = page.evaluate("JSON.parse(document.getElementById('report-data').textContent).ns.length")
            page.locator("#heat-canvas").click(position={"x": 170 + 14 * (n // 2) + 7, "y": 170 + 14 * (n // 2) + 7})
        else:
            cells = page.locator("#heat td[data-a]")
            cells.nth(cells.count() // 2).click()
        page.wait_for_selector("#pm td")
        out["heatmap_click_to_pod_matrix_s"] = time.perf_counter() - t
        t = time.perf_counter()
        page.fill("#pod-search", "gateway")
        page.locator("button.pod").first.click()
        page.wait_for_selector("#reach-in")
        out["search_and_open_pod_s"] = time.perf_counter() - t
        ctx.close()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pods", type=int, default=10000)
    ap.add_argument("--policies", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--chromium", default="/usr/bin/chromium", help="browser for the page figures ('' to skip)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        cluster = Path(tmp) / "cluster.yaml"
        subprocess.run(
            [sys.executable, "benchmarks/generate_cluster.py", "--pods", str(args.pods), "--policies",
             str(args.policies), "--seed", str(args.seed), "-q", "-o", str(cluster)],
            check=True, cwd=ROOT,
        )  # fmt: skip
        page = Path(tmp) / "report.html"
        matrix = _timed([sys.executable, "-m", "netpol.cli", "matrix", str(cluster), "-o", "json"])
        report = _timed([sys.executable, "-m", "netpol.cli", "report", str(cluster), "-O", str(page)])
        print(f"{args.pods} pods / {args.policies} policies (seed {args.seed})")
        print(f"netpol matrix -o json: {matrix:.1f} s")
        print(f"netpol report:         {report:.1f} s  ({report / matrix:.2f}x the matrix)")
        print(f"report size:           {page.stat().st_size / 2**20:.1f} MiB")
        if args.chromium and Path(args.chromium).is_file():
            for name, value in _browser(page, args.chromium).items():
                print(f"browser {name}: {value:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
