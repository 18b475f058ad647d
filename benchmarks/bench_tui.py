#!/usr/bin/env python3
"""How fast the terminal UI opens and answers key presses on a large cluster (Textual run_test + Pilot).

    python benchmarks/bench_tui.py [--pods 10000] [--policies 1000] [--seed 1] [--repeat 3] [--all]

Prints: analysis time (not the UI's), time from app start to the pods table showing the cluster with every
view composed (target < 3 s), the time of a what-if edit (target <= 200 ms), and per key press (target < 100 ms):
  app-side  from the key entering the app's queue to the last frame painted in answer (probe on the event
            loop's callbacks and on App._display; see Probe), and how much of that the loop was busy;
  Pilot     the round-trip of `await pilot.press(key)`, which adds Pilot's idle detection (>= 40 ms).
The same journey on a --baseline-pods cluster (default 200) shows the cost that does not depend on size.
The cluster comes from benchmarks/generate_cluster.py when present, else from a small inline generator.
"""

from __future__ import annotations

import argparse
import asyncio
import os
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


class Probe:
    """App-side timing, on the event loop's clock: every callback the loop runs for the app, every frame.

    A key press is answered when the app has done all the work it caused and painted the result. The
    answer ends with the last frame of the burst of loop activity that follows the key: callbacks (message
    handlers, idle work, compose and mount of a new screen, refreshes) separated by less than GAP. The
    benchmark's own task (Pilot) is left out; a cursor blink 0.5 s later is not part of the answer. Time the
    key waits in the queue (e.g. for a worker thread holding the GIL) counts. Pilot's round-trip adds its own
    idle detection (sleeps of >= 20 ms and a CPU-time check), so it never reads below ~40 ms.
    """

    GAP = 0.05

    def __init__(self) -> None:
        self.busy: list[tuple[float, float]] = []  # (start, end) of every loop callback run for the app
        self.paints: list[float] = []
        self.harness: asyncio.Task | None = None

    def install(self, app) -> None:  # noqa: ANN001
        import asyncio.events
        import asyncio.futures

        probe = self
        run = asyncio.events.Handle._run
        display = type(app)._display
        wake = asyncio.futures._set_result_unless_cancelled

        def timed_run(handle):  # noqa: ANN001, ANN202
            cb = handle._callback
            if cb is wake or getattr(cb, "__self__", None) is probe.harness:
                return run(handle)
            t = time.perf_counter()
            try:
                return run(handle)
            finally:
                probe.busy.append((t, time.perf_counter()))

        def timed_display(self_, screen, renderable):  # noqa: ANN001, ANN202
            display(self_, screen, renderable)
            probe.paints.append(time.perf_counter())

        asyncio.events.Handle._run = timed_run  # type: ignore[method-assign]
        app._display = timed_display.__get__(app)
        self._restore = lambda: setattr(asyncio.events.Handle, "_run", run)

    def uninstall(self) -> None:
        self._restore()

    def answer(self, sent: float) -> tuple[float, float]:
        """(seconds from `sent` to the last frame of the burst of activity it started, seconds the loop was
        busy in that burst). The difference is waiting: frame pacing (Textual paints at most 60 times a
        second, and a refresh that causes another waits for the next frame) and the loop's own sleeps."""
        end = sent
        work = 0.0
        for start, stop in sorted(x for x in self.busy if x[1] >= sent):
            if start - end > self.GAP:
                break
            work += stop - max(start, end) if stop > end else 0.0
            end = max(end, stop)
        frames = [t for t in self.paints if sent <= t <= end]
        return (max(frames) if frames else end) - sent, work


Timing = tuple[str, float, float, float]  # key, app-side seconds, of which the loop was busy, Pilot round-trip


async def drive(analysis, keys: list[tuple[str, list[str]]]) -> tuple[float, list[Timing]]:
    """(seconds to open, [(label, app-side seconds, busy seconds, Pilot round-trip seconds)])."""
    from tui.app import ReachApp

    start = time.perf_counter()
    app = ReachApp(lambda: analysis)
    probe = Probe()
    probe.install(app)
    probe.harness = asyncio.current_task()
    timings: list[Timing] = []
    try:
        async with app.run_test(size=(160, 48)) as pilot:
            await app.settled.wait()  # the model is shown and every view composed
            await pilot.pause()
            opened = time.perf_counter() - start
            for label, seq in keys:
                for k in seq:
                    t = time.perf_counter()
                    await pilot.press(k)
                    pilot_s = time.perf_counter() - t
                    timings.append((f"{label}:{k}", *probe.answer(t), pilot_s))
    finally:
        probe.uninstall()
    return opened, timings


KEYS = [
    ("pods", ["down", "down", "pagedown", "pagedown", "end", "home"]),
    ("filter", ["slash", "a", "p", "p", "backspace", "backspace", "enter"]),  # `a`: matches at 200 pods too
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


def run(pods: int, policies: int, seed: int, repeat: int = 1) -> tuple[float, list[Timing]]:
    """Open the UI and press KEYS `repeat` times (a fresh app each time); per key the median of each figure."""
    t = time.perf_counter()
    text, origin = cluster_text(pods, policies, seed)
    gen = time.perf_counter() - t
    t = time.perf_counter()
    analysis = analyze(load_text(text))
    analysis_s = time.perf_counter() - t
    r = analysis.reachability
    print(
        f"cluster: {len(r.pods)} running pods, {r.pod_classes.class_count} classes, {len(r.policies)} policies"
        f" ({origin}, {gen:.1f} s); analysis (load + matrix, not the UI): {analysis_s:.2f} s"
    )
    runs = [asyncio.run(drive(analysis, KEYS)) for _ in range(max(1, repeat))]
    opened = statistics.median(o for o, _ in runs)
    timings = [
        (per_key[0][0], *(statistics.median(t[k] for t in per_key) for k in (1, 2, 3)))
        for per_key in zip(*(ts for _, ts in runs), strict=True)
    ]
    return opened, timings  # type: ignore[return-value]


def load_average() -> str:
    """The machine's 1-minute load average: the box is shared, so every figure says how busy it was."""
    return f"load {os.getloadavg()[0]:.1f}"


def whatif_edits(analysis, repeat: int) -> list[tuple[str, float, float]]:  # noqa: ANN001 - Analysis
    """(edit, seconds incremental, seconds from scratch) per what-if edit as the UI's worker does it (the edited
    analysis + its view model), median of `repeat` runs; from scratch is the whole reachability recomputed."""
    from netpol.whatif import AddDefaultDeny, DisablePolicy, RemoveRule, apply_edits, recompute
    from tui.model import ViewModel

    policy = analysis.cluster.policies[0]
    ruled = next(p for p in analysis.cluster.policies if p.ingress or p.egress)
    direction = "ingress" if ruled.ingress else "egress"
    edits = {
        f"disable {policy.key}": [DisablePolicy(policy.key)],
        f"remove {ruled.key} {direction} rule #1": [RemoveRule(ruled.key, direction, 0)],
        f"default-deny both in {policy.namespace}": [AddDefaultDeny(policy.namespace, "both")],
        "all three at once": [
            DisablePolicy(policy.key),
            RemoveRule(ruled.key, direction, 0),
            AddDefaultDeny(policy.namespace, "both"),
        ],
    }
    loaded = ViewModel(analysis)
    out = []
    for label, edit in edits.items():
        fast, full = [], []
        for _ in range(max(1, repeat)):
            t = time.perf_counter()
            ViewModel(apply_edits(analysis, edit), like=loaded)
            fast.append(time.perf_counter() - t)
            t = time.perf_counter()
            ViewModel(recompute(analysis, edit))
            full.append(time.perf_counter() - t)
        out.append((label, statistics.median(fast), statistics.median(full)))
    return out


async def open_once(analysis, audit: bool = False) -> tuple[float, float | None, list[float]]:  # noqa: ANN001
    """(seconds from app start to the pods table showing the cluster with every view composed; with `audit`, then
    seconds until the Audit view lists the findings of every check but NP060, which runs in the same thread
    after the UI opened, and the app-side seconds of the key presses (down, up, …) answered meanwhile)."""
    import threading

    from tui.app import ReachApp

    listed = asyncio.Event()

    class Timed(ReachApp):
        CSS_PATH = str(ROOT / "tui" / "app.tcss")  # a relative path would be read next to this file

        def on_audit_progress(self, message) -> None:  # noqa: ANN001 - tui.messages.AuditProgress
            super().on_audit_progress(message)
            if message.model.base_ready or message.model.audit_error:
                listed.set()

    start = time.perf_counter()
    app = Timed(lambda: analysis)
    probe = Probe()
    probe.install(app)
    probe.harness = asyncio.current_task()
    keys: list[float] = []
    try:
        async with app.run_test(size=(160, 48)) as pilot:
            await app.settled.wait()
            await pilot.pause()
            opened = time.perf_counter() - start
            if not audit:
                return opened, None, keys
            while not listed.is_set() and not any(t.name == "netpol-audit" for t in threading.enumerate()):
                await asyncio.sleep(0.02)  # the audit thread starts once the keyboard was idle
            while not listed.is_set():
                sent = time.perf_counter()
                await pilot.press("down" if len(keys) % 2 == 0 else "up")
                if not listed.is_set():  # answered while the audit ran
                    keys.append(probe.answer(sent)[0])
            await listed.wait()
            return opened, time.perf_counter() - start - opened, keys
    finally:
        probe.uninstall()


def open_only(paths: list[str], repeat: int, cluster_cidr: str | None = None, audit: bool = False) -> int:
    """`--open PATH…`: read and analyse the manifests as `netpol tui PATH… [--cluster-cidr C]` does, then time
    the UI opening (and with `--audit` the findings' arrival after it; the audit thread starts once the views
    are ready and the keyboard is idle for ReachApp.IDLE_BEFORE_AUDIT)."""
    from netpol.commands.context import Context

    t = time.perf_counter()
    ctx = Context(argparse.Namespace(paths=paths, cluster_cidr=cluster_cidr))
    analysis = ctx.analyze(ctx.load())
    print(f"analysis of {len(analysis.pods)} pods: {time.perf_counter() - t:.1f} s ({load_average()})")
    for _ in range(max(1, repeat)):
        opened, findings, keys = asyncio.run(open_once(analysis, audit))
        print(f"UI open after analysis: {opened:.2f} s (target <= 5 s; {load_average()})")
        if findings is not None:
            print(f"  then the audit's findings (all but NP060) listed after {findings:.2f} s more")
        if keys:
            print(f"  keys pressed meanwhile: {len(keys)}, app-side {stats(keys)}")
    return 0


def stats(values: list[float]) -> str:
    ms = [v * 1000 for v in values]
    over = sum(1 for v in ms if v > 100)
    return f"median {statistics.median(ms):4.0f} ms  p90 {sorted(ms)[int(len(ms) * 0.9)]:4.0f} ms  max {max(ms):5.0f} ms  >100 ms: {over}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pods", type=int, default=10000)
    ap.add_argument("--policies", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--baseline-pods", type=int, default=200, help="small cluster: the harness's own cost (0: skip)")
    ap.add_argument("--all", action="store_true", help="print every key, not only the slowest")
    ap.add_argument("--repeat", type=int, default=3, help="runs per cluster; per key the median (default 3)")
    ap.add_argument("--whatif-only", action="store_true", help="only the what-if edit times")
    ap.add_argument("--open", nargs="+", metavar="PATH", help="only the UI opening time on these manifests")
    ap.add_argument("--cluster-cidr", help="with --open: as netpol tui's (10.128.0.0/14 for 100k pods)")
    ap.add_argument(
        "--audit",
        action="store_true",
        help="with --open: also time the audit's findings arriving (use --repeat 1: a run's NP060 thread outlives it)",
    )
    args = ap.parse_args(argv)
    if args.open:
        return open_only(args.open, args.repeat, args.cluster_cidr, args.audit)
    if args.whatif_only:
        text, _origin = cluster_text(args.pods, args.policies, args.seed)
        for label, fast, full in whatif_edits(analyze(load_text(text)), args.repeat):
            print(f"what-if edit ({label}): {fast * 1000:.0f} ms, from scratch {full * 1000:.0f} ms ({load_average()})")
        return 0

    opened, timings = run(args.pods, args.policies, args.seed, args.repeat)
    text, _origin = cluster_text(args.pods, args.policies, args.seed)
    for label, fast, full in whatif_edits(analyze(load_text(text)), args.repeat):
        print(f"what-if edit ({label}): {fast * 1000:.0f} ms (target <= 200 ms), from scratch {full * 1000:.0f} ms")
    base: dict[str, Timing] = {}
    if args.baseline_pods:
        small_policies = max(1, args.policies * args.baseline_pods // args.pods)
        _, small = run(args.baseline_pods, small_policies, args.seed, args.repeat)
        base = {t[0]: t for t in small}
    print(f"UI open (app start → pods table with the cluster): {opened:.2f} s (target < 3 s; {load_average()})")
    print(f"key presses: {len(timings)} (target: app-side < 100 ms for every key)")
    rows = [(args.pods, timings)] + ([(args.baseline_pods, list(base.values()))] if base else [])
    for what, k in (("app-side", 1), ("  of it busy", 2), ("Pilot trip", 3)):
        for pods, ts in rows:
            print(f"  {what:<12} {pods:>6} pods: {stats([t[k] for t in ts])}")
    shown = timings if args.all else sorted(timings, key=lambda x: -x[1])[:12]
    print(
        ("every key" if args.all else "slowest keys (app-side)")
        + f", {args.pods} pods"
        + (f" | {args.baseline_pods} pods" if base else "")
        + ":"
    )
    cols = f"{'app ms':>7} {'busy ms':>8} {'pilot ms':>9}"
    print(f"  {'key':<22} {cols}" + (f" | {cols}" if base else ""))
    for label, a, w, p in shown:
        line = f"  {label:<22} {a * 1000:7.0f} {w * 1000:8.0f} {p * 1000:9.0f}"
        if label in base:
            _, ba, bw, bp = base[label]
            line += f" | {ba * 1000:7.0f} {bw * 1000:8.0f} {bp * 1000:9.0f}"
        print(line + ("   > 100 ms" if a > 0.1 else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
