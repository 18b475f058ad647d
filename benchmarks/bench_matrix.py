#!/usr/bin/env python3
"""Wall time and peak memory of `netpol matrix` on generated clusters of 1k, 10k (and 100k) pods.

For each size the cluster is generated first (not timed; benchmarks/generate_cluster.py, fixed seed), then
measured in fresh subprocesses:

  (a) engine: `load_paths` + `pipeline.analyze` in a child Python, phase by phase (load, expand = workloads
      expanded and pod IPs assigned, analyze = the reachability engine), then the JSON export
      (`export.render(view, "json")`) and the `--port 80` probe export; peak RSS = the child's
      `ru_maxrss` after analyze and after export;
  (b) the real CLI: `netpol matrix FILE -o json > /dev/null` and `netpol matrix FILE --port 80 --protocol
      TCP -o json > /dev/null`, wall time and peak RSS from `/usr/bin/time -v` (or, without it,
      `getrusage(RUSAGE_CHILDREN)` of a one-child launcher). Output bytes are counted, not stored.

Targets (issue 2, item 11): 1,000 pods / 200 policies in under 1 s; 10,000 pods / 2,000 policies in under
5 s and 2 GiB. PASS/MISS is printed; nothing here ever fails on timing.

    python benchmarks/bench_matrix.py                 # 1k and 10k
    python benchmarks/bench_matrix.py --sizes 1k      # one size
    python benchmarks/bench_matrix.py --large         # 1k, 10k, 30k, 100k and 150k
    python benchmarks/bench_matrix.py --sizes 100k --workdir benchmarks/out --skip-cli
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

SIZES: dict[str, tuple[int, int]] = {
    "1k": (1_000, 200),
    "10k": (10_000, 2_000),
    "30k": (30_000, 6_000),
    "100k": (100_000, 10_000),
    "150k": (150_000, 15_000),
}
# Targets per size (issue 9): (seconds, bytes or None) for load + analysis (and, at 1k, the whole CLI process).
TARGETS: dict[str, tuple[float, int | None]] = {
    "1k": (0.25, None),
    "10k": (5.0, 2 << 30),
    "100k": (10.0, 4 << 30),
    "150k": (20.0, 6 << 30),
}
QUESTION_TARGET_S = 2.0  # --port probe, who-can-reach, explain, each after the analysis (100k)
PLAIN_EXPORT_MAX_PODS = 10_000  # larger matrices are exported in the compact form (-o json --compact)
DEFAULT_CIDR = "10.244.0.0/16"  # netpol's default; holds 65,534 pods when no nodes are given
LARGE_CIDR = "10.128.0.0/14"  # for clusters larger than a /16 (100k)
MIB = 1 << 20


def size_spec(size: str) -> tuple[int, int]:
    """'1k', '10k', '100k' (the issue's sizes) or any 'Nk': N×1000 pods and one policy per 5 pods."""
    if size in SIZES:
        return SIZES[size]
    if size.endswith("k"):
        try:
            pods = int(float(size[:-1]) * 1000)
        except ValueError:
            pass
        else:
            if pods >= 10:
                return pods, pods // 5
    raise ValueError(f"unknown size {size!r}: use 1k, 10k, 100k or any Nk")


# ------------------------------------------------------------------------------------------------ child


def child_main(path: str, cluster_cidr: str, export: bool) -> int:
    """Runs inside a fresh interpreter: phases of load + analyze (+ export), JSON result on stdout."""
    t0 = time.perf_counter()
    from netpol import pipeline
    from netpol.commands.context import Context
    from netpol.engine import EngineOptions
    from netpol.manifests import load_paths

    out: dict[str, Any] = {"import_s": time.perf_counter() - t0}
    phases: dict[str, float] = {}

    def timed(name: str, fn: Any) -> Any:
        def wrapper(*a: Any, **kw: Any) -> Any:
            t = time.perf_counter()
            try:
                return fn(*a, **kw)
            finally:
                phases[name] = phases.get(name, 0.0) + time.perf_counter() - t

        return wrapper

    # analyze() looks these up at call time: wrap them to split its wall time into phases
    pipeline.prepare = timed("expand", pipeline.prepare)
    pipeline.build_reachability = timed("analyze", pipeline.build_reachability)

    def emit() -> None:
        out["expand_s"] = phases.get("expand")
        out["analyze_s"] = phases.get("analyze")
        out["rss_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(json.dumps(out), flush=True)  # one line per stage: the parent keeps the last

    t = time.perf_counter()
    cluster = load_paths([path])
    out["load_s"] = time.perf_counter() - t
    out["policies"] = len(cluster.policies)
    emit()
    placer = Context(argparse.Namespace(seed=None)).placer()  # what the CLI wires in (unused without nodes)
    t = time.perf_counter()
    try:
        analysis = pipeline.analyze(cluster, placer, EngineOptions(), cluster_cidr)
    except MemoryError as exc:
        out["error"] = f"MemoryError in {'analyze' if 'analyze' in phases else 'expand'}: {exc}"[:300]
        emit()
        return 1
    out["analyze_total_s"] = time.perf_counter() - t
    out["expand_s"] = phases.get("expand", 0.0)
    out["analyze_s"] = phases.get("analyze", 0.0)
    out["rss_analyze_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # What `netpol`'s own run does once the analysis is built (Context.settle_heap): the collector no longer
    # walks the analysed heap, which the engine built with it paused. Without this, the first question pays
    # for a full collection of millions of objects (1.2 s at 100k pods), which no CLI command pays.
    from netpol.gcpause import settle_heap

    settle_heap()
    r = analysis.reachability
    out.update(
        pods=len(r.pods),
        policies=len(analysis.cluster.policies),
        namespaces=len(analysis.cluster.namespaces),
        classes=r.pod_classes.class_count,
        ip_atoms=len(r.atoms),
        port_atoms=r.ports.count,
        port_words=r.ports.words,
        warnings=len(analysis.warnings),
    )
    # what the old dense tensors would have taken (ingress (C+E)×C, egress C×(C+E), class matrix C×C);
    # the engine streams blocks of rows instead (netpol/engine/ENGINE.md)
    c, e, w = out["classes"], out["ip_atoms"], out["port_words"]
    out["dense_tensor_mib"] = (2 * (c + e) * c + c * c) * w * 8 / MIB
    try:  # allowed ordered pod pairs, counted over classes block by block (no per-pair work)
        import numpy as np

        sizes = np.bincount(r.pod_classes.pod_class, minlength=r.pod_classes.class_count).astype(np.int64)
        pairs = class_pairs = 0
        for lo, block in r.stream_class_blocks():
            ok = block.any(axis=2)
            pairs += int(sizes[lo : lo + len(ok)] @ ok @ sizes)
            class_pairs += int(ok.sum())
        out["allowed_pairs"], out["allowed_class_pairs"] = pairs, class_pairs
    except Exception as exc:  # pragma: no cover - diagnostics only
        out["allowed_pairs_error"] = repr(exc)
    emit()  # the export may run out of time or memory: report the engine first
    questions(analysis, out)
    emit()
    if export:
        from netpol.readout.export import MatrixView, write, write_compact, write_probe

        view = MatrixView(analysis)
        compact = len(r.pods) > PLAIN_EXPORT_MAX_PODS
        out["export_form"] = "compact" if compact else "plain"
        sink = _Count()
        t = time.perf_counter()
        write_compact(view, sink) if compact else write(view, "json", sink)
        out["export_s"] = time.perf_counter() - t
        out["export_bytes"] = sink.n
        sink = _Count()
        t = time.perf_counter()
        write_compact(view, sink, ("TCP", 80)) if compact else write_probe(view, "json", "TCP", 80, sink)
        out["probe_s"] = time.perf_counter() - t
        out["probe_bytes"] = sink.n
        out["rss_final_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        emit()
    return 0


class _Count:
    """A text sink that only counts what is written (the output's cost without keeping it)."""

    def __init__(self) -> None:
        self.n = 0

    def write(self, text: str) -> int:
        self.n += len(text)
        return len(text)


def questions(analysis: Any, out: dict[str, Any]) -> None:
    """The one-pod questions after the analysis: who-can-reach a pod, can-reach from it, explain one pair."""
    from netpol.engine import Endpoint
    from netpol.explain import explain_pair, reach
    from netpol.targets import Target

    r = analysis.reachability
    if len(r.pods) < 2:
        return
    d, s = len(r.pods) // 2, len(r.pods) // 3
    anchor = Target(text=r.pods[d].key, pods=(d,))
    for name, fn in (
        ("who_can_reach_s", lambda: reach(analysis, anchor, "in")),
        ("can_reach_s", lambda: reach(analysis, Target(text=r.pods[s].key, pods=(s,)), "out")),
        ("explain_s", lambda: explain_pair(analysis, Endpoint(pod=s), Endpoint(pod=d)).lines()),
    ):
        t = time.perf_counter()
        got = fn()
        out[name] = time.perf_counter() - t
        if name != "explain_s":
            out[name.replace("_s", "_entries")] = len(got.entries)


# ------------------------------------------------------------------------------------------------ parent


@dataclass
class Run:
    wall_s: float | None = None
    rss_kib: int | None = None
    rc: int | None = None
    out_bytes: int = 0
    error: str = ""
    stdout: bytes = b""


def _limit(mem_bytes: int | None):  # noqa: ANN202
    def apply() -> None:
        if mem_bytes:
            resource.setrlimit(resource.RLIMIT_AS, (mem_bytes, mem_bytes))

    return apply


def _parse_time_v(text: str) -> tuple[float | None, int | None]:
    wall = rss = None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("Elapsed (wall clock) time"):
            value = line.rsplit(": ", 1)[1]
            parts = [float(x) for x in value.split(":")]
            wall = 0.0
            for x in parts:
                wall = wall * 60 + x
        elif line.startswith("Maximum resident set size (kbytes)"):
            rss = int(line.rsplit(": ", 1)[1])
    return wall, rss


_LAUNCHER = """
import json, resource, subprocess, sys, time
t = time.perf_counter()
rc = subprocess.call(sys.argv[2:])
wall = time.perf_counter() - t
with open(sys.argv[1], "w") as fh:
    json.dump({"wall": wall, "rss": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, "rc": rc}, fh)
sys.exit(rc)
"""


def run_measured(
    cmd: list[str],
    *,
    timeout: float,
    mem_bytes: int | None,
    keep_stdout: bool = False,
    use_time: bool = True,
    env: dict[str, str] | None = None,
) -> Run:
    """Run `cmd` in its own process group; count (or keep) its stdout; peak RSS and wall of the command."""
    time_bin = shutil.which("time", path="/usr/bin") if use_time else None
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        report = os.path.join(tmp, "report")
        if time_bin:
            full = [time_bin, "-v", "-o", report, *cmd]
        else:
            full = [sys.executable, "-c", _LAUNCHER, report, *cmd]
        errf = open(os.path.join(tmp, "stderr"), "w+b")  # noqa: SIM115
        run = Run()
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            full,
            stdout=subprocess.PIPE,
            stderr=errf,
            preexec_fn=_limit(mem_bytes),
            start_new_session=True,
            env=env,
        )
        timed_out = threading.Event()

        def kill() -> None:
            timed_out.set()
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # the group this call created, by its id
            except ProcessLookupError:
                pass

        timer = threading.Timer(timeout, kill)
        timer.start()
        chunks = []
        try:
            assert proc.stdout is not None
            while True:
                chunk = proc.stdout.read(1 << 20)
                if not chunk:
                    break
                run.out_bytes += len(chunk)
                if keep_stdout:
                    chunks.append(chunk)
            run.rc = proc.wait()
        finally:
            timer.cancel()
        parent_wall = time.perf_counter() - t0
        run.stdout = b"".join(chunks)
        if os.path.exists(report) and os.path.getsize(report):
            text = open(report).read()
            if time_bin:
                run.wall_s, run.rss_kib = _parse_time_v(text)
            else:
                data = json.loads(text)
                run.wall_s, run.rss_kib = data["wall"], data["rss"]
        if run.wall_s is None:
            run.wall_s = parent_wall
        errf.seek(0)
        err = errf.read().decode(errors="replace")
        errf.close()
        # /usr/bin/time reports a non-zero child status in its own output; look at what the command said
        if timed_out.is_set():
            run.error = f"timeout after {timeout:.0f} s"
        elif run.rc != 0:
            tail = [ln for ln in err.strip().splitlines() if ln.strip()][-1:] or ["(no stderr)"]
            memerr = "MemoryError" in err or "Unable to allocate" in err or "Cannot allocate" in err
            run.error = f"exit {run.rc}" + (" (out of memory limit)" if memerr else "") + f": {tail[0][:160]}"
        return run


def netpol_command() -> list[str]:
    """The installed console script next to this interpreter (no pyenv shim in the timing), else -m."""
    script = Path(sys.executable).parent / "netpol"
    if script.exists():
        return [str(script)]
    found = shutil.which("netpol")
    return [found] if found else [sys.executable, "-m", "netpol.cli"]


def measure(size: str, args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    from generate_cluster import dump_yaml, generate_objects

    pods, policies = size_spec(size)
    path = workdir / f"cluster-{size}-seed{args.seed}.yaml"
    res: dict[str, Any] = {"size": size, "target_pods": pods, "target_policies": policies, "file": str(path)}
    t = time.perf_counter()
    if not path.exists() or args.regenerate:
        objs, stats = generate_objects(pods, policies, args.seed)
        path.write_text(dump_yaml(objs), encoding="utf-8")
        res["generated"] = stats.render()
    res["generate_s"] = time.perf_counter() - t
    res["file_mib"] = path.stat().st_size / MIB
    cidr = DEFAULT_CIDR if pods < 60_000 else LARGE_CIDR
    res["cluster_cidr"] = cidr
    mem = int(args.mem_limit_gib * (1 << 30)) if args.mem_limit_gib else None
    say = (lambda *a: print(*a, file=sys.stderr, flush=True)) if not args.quiet else (lambda *a: None)
    env = None
    if args.netpol_path:  # measure another checkout of netpol (e.g. `git archive HEAD` unpacked somewhere)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (args.netpol_path, env.get("PYTHONPATH", "")) if p)

    # (a) engine phases in a fresh interpreter
    best: dict[str, Any] | None = None
    for i in range(args.repeat):
        say(f"[{size}] engine run {i + 1}/{args.repeat} …")
        child = [sys.executable, str(Path(__file__).resolve()), "--child", str(path), "--cluster-cidr", cidr]
        if args.no_export:
            child.append("--no-export")
        run = run_measured(child, timeout=args.timeout, mem_bytes=mem, keep_stdout=True, use_time=False, env=env)
        lines = [ln for ln in run.stdout.decode().splitlines() if ln.startswith("{")]
        data = json.loads(lines[-1]) if lines else {}
        if run.error and not data.get("error"):
            data["error"] = f"export: {run.error}" if "analyze_total_s" in data else run.error
        if best is None or data.get("analyze_total_s", 1e9) < best.get("analyze_total_s", 1e9):
            best = data
    res["engine"] = best or {}

    # (b) the CLI
    cli = netpol_command()
    extra = [] if cidr == DEFAULT_CIDR else ["--cluster-cidr", cidr]
    compact = ["--compact"] if pods > PLAIN_EXPORT_MAX_PODS else []  # pair by pair would be tens of GiB
    for name, cmd_args in (
        ("cli_json", ["matrix", str(path), "-o", "json", *compact, *extra]),
        ("cli_probe", ["matrix", str(path), "--port", "80", "--protocol", "TCP", "-o", "json", *compact, *extra]),
    ):
        if args.skip_cli:
            break
        runs = []
        for i in range(args.repeat):
            say(f"[{size}] {name} run {i + 1}/{args.repeat} …")
            runs.append(run_measured([*cli, *cmd_args], timeout=args.timeout, mem_bytes=mem, env=env))
        ok = [r for r in runs if not r.error] or runs
        r = min(ok, key=lambda r: r.wall_s or 1e9)
        res[name] = {"wall_s": r.wall_s, "rss_mib": (r.rss_kib or 0) / 1024, "out_bytes": r.out_bytes, "error": r.error}
        res[name]["command"] = "netpol " + " ".join(cmd_args)
    return res


# ------------------------------------------------------------------------------------------------ report


def _f(x: Any, fmt: str = "{:.2f}") -> str:
    return "-" if x is None else fmt.format(x)


def verdict(size: str, wall: float | None, rss_mib: float | None, error: str = "") -> str:
    if size not in TARGETS:
        return "n/a"
    if error or wall is None:
        return "MISS"
    secs, mem = TARGETS[size]
    ok = wall < secs and (mem is None or (rss_mib is not None and rss_mib * MIB < mem))
    return "PASS" if ok else "MISS"


def table(results: list[dict[str, Any]]) -> str:
    head = [
        "size", "pods", "policies", "classes", "load s", "expand s", "analyze s", "who s", "can s", "explain s",
        "export s",
        "MiB@analyze", "MiB@export", "cli json s", "cli json MiB", "json out", "cli probe s", "cli probe MiB",
    ]  # fmt: skip
    rows = []
    for r in results:
        e = r.get("engine", {})
        cj, cp = r.get("cli_json", {}), r.get("cli_probe", {})
        rows.append([
            r["size"], str(e.get("pods", "-")), str(e.get("policies", "-")), str(e.get("classes", "-")),
            _f(e.get("load_s")), _f(e.get("expand_s")), _f(e.get("analyze_s")),
            _f(e.get("who_can_reach_s")), _f(e.get("can_reach_s")), _f(e.get("explain_s")),
            (_f(e.get("export_s")) + ("c" if e.get("export_form") == "compact" else ""))
            if "export_s" in e else ("ERR" if e.get("error") else "-"),
            _f(e.get("rss_analyze_kib", 0) / 1024 if e.get("rss_analyze_kib") else None, "{:.0f}"),
            _f(e.get("rss_final_kib", 0) / 1024 if e.get("rss_final_kib") else None, "{:.0f}"),
            ("ERR" if cj.get("error") else _f(cj.get("wall_s"))) if cj else "-",
            _f(cj.get("rss_mib"), "{:.0f}") if cj else "-",
            _f(cj.get("out_bytes", 0) / MIB, "{:.1f}M") if cj else "-",
            ("ERR" if cp.get("error") else _f(cp.get("wall_s"))) if cp else "-",
            _f(cp.get("rss_mib"), "{:.0f}") if cp else "-",
        ])  # fmt: skip
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(head)]
    lines = [" | ".join(h.rjust(w) for h, w in zip(head, widths, strict=True))]
    lines.append("-+-".join("-" * w for w in widths))
    lines += [" | ".join(c.rjust(w) for c, w in zip(row, widths, strict=True)) for row in rows]
    return "\n".join(lines)


def verdicts(results: list[dict[str, Any]]) -> str:
    lines = []
    for r in results:
        size = r["size"]
        if size not in TARGETS:
            continue
        secs, mem = TARGETS[size]
        goal = f"< {secs:g} s" + (f" and < {mem / (1 << 30):g} GiB" if mem else "")
        e = r.get("engine", {})
        eng_wall = (e.get("load_s") or 0) + (e.get("analyze_total_s") or 0) if "analyze_total_s" in e else None
        eng_mib = e.get("rss_analyze_kib", 0) / 1024 if e.get("rss_analyze_kib") else None
        parts = [f"engine load+analyze {_f(eng_wall)} s, {_f(eng_mib, '{:.0f}')} MiB: "
                 f"{verdict(size, eng_wall, eng_mib, e.get('error', '') if eng_wall is None else '')}"]  # fmt: skip
        for name, label in (("cli_json", "netpol matrix -o json"), ("cli_probe", "netpol matrix --port 80 -o json")):
            c = r.get(name)
            if not c:
                continue
            v = verdict(size, c.get("wall_s"), c.get("rss_mib"), c.get("error", ""))
            ratio = f" ({c['wall_s'] / secs:.1f}x the time target)" if c.get("wall_s") else ""
            err = f" [{c['error']}]" if c.get("error") else ""
            parts.append(f"{label} {_f(c.get('wall_s'))} s, {_f(c.get('rss_mib'), '{:.0f}')} MiB: {v}{ratio}{err}")
        q = [f"{k[:-2].replace('_', '-')} {_f(e.get(k))} s" for k in ("who_can_reach_s", "can_reach_s", "explain_s")]
        slow = [k for k in ("who_can_reach_s", "can_reach_s", "explain_s") if (e.get(k) or 0) > QUESTION_TARGET_S]
        parts.append(f"questions ({', '.join(q)}): {'MISS' if slow else 'PASS'} (each < {QUESTION_TARGET_S:g} s)")
        lines.append(f"{size} target {goal}:\n  " + "\n  ".join(parts))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--sizes",
        default=None,
        help="comma list of sizes: 1k, 10k, 30k, 100k, 150k or any Nk (N×1000 pods, one policy per 5 pods); "
        "default 1k,10k, with --large also 30k, 100k and 150k",
    )
    ap.add_argument("--large", action="store_true", help="include 30k/6k, 100k/10k and 150k/15k pods/policies")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=1, help="runs per measurement; the fastest is kept")
    ap.add_argument("--workdir", default=None, help="where generated clusters are kept (default a temp dir)")
    ap.add_argument("--regenerate", action="store_true", help="regenerate clusters already in --workdir")
    ap.add_argument("--timeout", type=float, default=900, help="seconds per subprocess (default 900)")
    ap.add_argument("--mem-limit-gib", type=float, default=12, help="RLIMIT_AS per subprocess (0: none)")
    ap.add_argument("--no-export", action="store_true", help="engine child: skip the JSON export phase")
    ap.add_argument("--skip-cli", action="store_true", help="only the engine child, not the CLI runs")
    ap.add_argument("--json-out", default=None, help="also write the raw results as JSON here")
    ap.add_argument("--netpol-path", default=None, help="put this checkout first on PYTHONPATH (default: installed)")
    ap.add_argument("-q", "--quiet", action="store_true")
    ap.add_argument("--child", metavar="FILE", help=argparse.SUPPRESS)
    ap.add_argument("--cluster-cidr", default=DEFAULT_CIDR, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        return child_main(args.child, args.cluster_cidr, export=not args.no_export)

    sizes = (
        args.sizes.split(",") if args.sizes else (["1k", "10k", "30k", "100k", "150k"] if args.large else ["1k", "10k"])
    )
    for s in sizes:
        try:
            size_spec(s)
        except ValueError as exc:
            ap.error(str(exc))
    tmp = None
    if args.workdir:
        workdir = Path(args.workdir)
        workdir.mkdir(parents=True, exist_ok=True)
    else:
        tmp = tempfile.TemporaryDirectory(prefix="kube-reach-bench-")
        workdir = Path(tmp.name)
    load0 = " ".join(f"{x:.1f}" for x in os.getloadavg())
    startup = None
    if not args.skip_cli:  # the fixed cost every CLI figure includes: interpreter + imports + argparse
        env = None
        if args.netpol_path:
            env = dict(os.environ)
            env["PYTHONPATH"] = os.pathsep.join(p for p in (args.netpol_path, env.get("PYTHONPATH", "")) if p)
        runs = [run_measured([*netpol_command(), "--version"], timeout=60, mem_bytes=None, env=env) for _ in range(3)]
        startup = min(r.wall_s or 0 for r in runs)
    results = []
    try:
        for s in sizes:
            results.append(measure(s, args, workdir))
    finally:
        if tmp is not None:
            tmp.cleanup()
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"netpol matrix benchmark — seed {args.seed}, {os.cpu_count()} CPUs, Python {sys.version.split()[0]}, "
        f"load average at start {load0}, at end {load}"
    )
    if startup is not None:
        print(f"CLI startup (`netpol --version`): {startup:.2f} s")
    print(table(results))
    print()
    for r in results:
        e = r.get("engine", {})
        notes = [
            f"file {r['file_mib']:.1f} MiB (generated in {r['generate_s']:.1f} s)",
            f"ip atoms {e.get('ip_atoms', '-')}, port atoms {e.get('port_atoms', '-')}",
            f"dense tensors would take {_f(e.get('dense_tensor_mib'), '{:.0f}')} MiB",
            f"allowed pod pairs {e.get('allowed_pairs', '-'):,}" if "allowed_pairs" in e else "",
            f"probe output {_f(e.get('probe_bytes', 0) / MIB, '{:.1f}')} MiB" if "probe_bytes" in e else "",
            f"cluster CIDR {r['cluster_cidr']}" if r["cluster_cidr"] != DEFAULT_CIDR else "",
            f"engine error: {e['error']}" if e.get("error") else "",
        ]
        for name in ("cli_json", "cli_probe"):
            if r.get(name, {}).get("error"):
                notes.append(f"{name}: {r[name]['error']}")
        print(f"{r['size']}: " + "; ".join(n for n in notes if n))
    print()
    print(verdicts(results))
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
