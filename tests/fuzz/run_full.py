#!/usr/bin/env python3
"""The full mutation fuzz run (issue 16 item 7): N inputs, each under a time and a memory limit.

    python3 tests/fuzz/run_full.py --count 20000 --seed 1 --workers 2

Each worker process reads inputs i ≡ w (mod workers), runs tests.fuzz.mutate.run_one on each (load, then
matrix, schedule and audit in-process) under an address-space limit of its start size + 1 GiB (an input
needing more raises MemoryError: counted as over-1-GiB) and an alarm of --timeout seconds (counted as a
hang); a worker that stops answering for 3 × --timeout is killed, its input counted as a hang, and a new
worker goes on. Prints the outcome table and every finding (index, seed folder, message); exit 1 if any
traceback, hang or over-memory run was seen.
"""

from __future__ import annotations

import argparse
import collections
import multiprocessing as mp
import os
import resource
import signal
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

GIB = 2**30


def _vm_size() -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def worker(w: int, workers: int, count: int, seed: int, start: int, timeout: float, results: mp.Queue) -> None:
    from tests.fuzz.mutate import inputs, run_one

    run_one  # noqa: B018 - imported before the limit is set
    import netpol.cli  # noqa: F401
    import scheduling  # noqa: F401

    limit = _vm_size() + GIB
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    def alarm(*_: object) -> None:
        raise TimeoutError

    signal.signal(signal.SIGALRM, alarm)
    folder = tempfile.mkdtemp(prefix="netpol-fuzz-")
    path = os.path.join(folder, "input.yaml")
    first = start if start % workers == w else start + (w - start) % workers
    for i, name, text in inputs(count, seed, first, workers):
        results.put(("start", w, i, name, ""))
        with open(path, "w", encoding="utf-8", errors="surrogateescape") as fh:
            fh.write(text)
        signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            outcome = run_one(path, text)
            kind, detail = outcome.kind, outcome.detail
        except TimeoutError:
            kind, detail = "hang", f"over {timeout:.0f} s"
        except MemoryError:
            kind, detail = "over-1GiB", "MemoryError under the 1 GiB address-space limit"
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        results.put(("done", w, i, name, f"{kind}\t{detail}"))
    results.put(("exit", w, -1, "", ""))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per input (default %(default)s)")
    args = ap.parse_args()
    ctx = mp.get_context("fork")
    results: mp.Queue = ctx.Queue()
    procs: dict[int, mp.Process] = {}
    current: dict[int, tuple[int, str, float]] = {}
    counts: collections.Counter[str] = collections.Counter()
    findings: list[str] = []
    t0 = time.monotonic()

    def spawn(w: int, start: int) -> None:
        p = ctx.Process(
            target=worker, args=(w, args.workers, args.count, args.seed, start, args.timeout, results), daemon=True
        )
        p.start()
        procs[w] = p

    for w in range(args.workers):
        spawn(w, 0)
    done = 0
    while procs:
        try:
            event, w, i, name, payload = results.get(timeout=1.0)
        except Exception:  # noqa: BLE001 - queue.Empty: check for stuck or dead workers
            event = ""
        if event == "start":
            current[w] = (i, name, time.monotonic())
        elif event == "done":
            kind, _, detail = payload.partition("\t")
            counts[kind] += 1
            done += 1
            current.pop(w, None)
            if kind not in ("ok", "error"):
                findings.append(f"{i}\t{name}\t{kind}\t{detail}")
            if done % 1000 == 0:
                print(f"{done} runs, {time.monotonic() - t0:.0f} s: {dict(counts)}", file=sys.stderr, flush=True)
        elif event == "exit":
            procs.pop(w).join()
        now = time.monotonic()
        for w, p in list(procs.items()):
            stuck = w in current and now - current[w][2] > 3 * args.timeout
            if stuck or not p.is_alive():
                if p.is_alive():
                    p.kill()
                p.join()
                i, name, _ = current.pop(w, (-1, "", 0.0))
                if i >= 0:
                    kind = "hang" if stuck else "killed"
                    counts[kind] += 1
                    done += 1
                    findings.append(f"{i}\t{name}\t{kind}\tworker {'stuck' if stuck else 'died'}")
                    spawn(w, i + 1)
                else:
                    procs.pop(w)
    elapsed = time.monotonic() - t0
    bad = counts["traceback"] + counts["hang"] + counts["over-1GiB"] + counts["killed"]
    print(f"mutation fuzz: seed {args.seed}, {args.workers} workers, {elapsed:.0f} s")
    print("| runs | ok | project error | bad field path | traceback | hang | over 1 GiB | worker killed |")
    print("|---|---|---|---|---|---|---|---|")
    print(
        f"| {done} | {counts['ok']} | {counts['error']} | {counts['bad-path']} | {counts['traceback']} | "
        f"{counts['hang']} | {counts['over-1GiB']} | {counts['killed']} |"
    )
    for f in findings[:200]:
        print(f)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
