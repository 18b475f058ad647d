#!/usr/bin/env python3
"""What `--live` costs on a recorded 10,000-pod cluster: the real kubectl against the stand-in API server.

Prints, per run, the time split of a live read: kubectl (discovery + every `kubectl get`, run together,
pages of 500), JSON parse, building the cluster model, then the analysis (placement of the bound pods and
reachability), and the peak RSS. Run from the checkout root:

    python benchmarks/bench_live.py [--pods 10000] [--policies 2000] [--nodes 50] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from netpol.commands.context import Context  # noqa: E402
from netpol.loading.live import LiveOptions, read_live_detailed  # noqa: E402
from tests.live.fixtures import large_cluster_objects  # noqa: E402
from tests.live.standin import StandIn  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pods", type=int, default=10_000)
    ap.add_argument("--policies", type=int, default=2_000)
    ap.add_argument("--nodes", type=int, default=50)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)

    objs = large_cluster_objects(args.pods, args.policies, args.nodes)
    server = StandIn().start()
    server.load(objs)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["KUBECACHEDIR"] = str(Path(tmp) / "cache")
        kubeconfig = server.kubeconfig(Path(tmp) / "kubeconfig")
        print(f"{args.pods} pods, {args.policies} policies, {args.nodes} nodes; kubectl {_kubectl_version()}")
        for run in range(1, args.runs + 1):
            server.requests.clear()
            start = time.perf_counter()
            read = read_live_detailed(LiveOptions(kubeconfig=str(kubeconfig), timeout=600))
            t = read.timings
            ctx = Context(argparse.Namespace(live=True))
            a0 = time.perf_counter()
            analysis = ctx.analyze(read.cluster)
            analysis.reachability  # noqa: B018
            a1 = time.perf_counter()
            pages = sum(1 for r in server.requests if r.path == "/api/v1/pods")
            print(
                f"run {run}: kubectl {t['kubectl']:.2f} s  parse {t['parse']:.2f} s  build {t['build']:.2f} s"
                f"  (read {a0 - start:.2f} s, {len(server.requests)} requests, {pages} pod pages)"
                f"  analysis {a1 - a0:.2f} s  peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MiB"
            )
    server.stop()
    return 0


def _kubectl_version() -> str:
    import subprocess

    out = subprocess.run(["kubectl", "version", "--client"], capture_output=True, text=True, check=False).stdout
    return out.splitlines()[0].split(":", 1)[-1].strip() if out else "?"


if __name__ == "__main__":
    sys.exit(main())
