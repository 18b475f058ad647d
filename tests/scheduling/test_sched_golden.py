"""Golden tests: every folder of samples/scheduling schedules exactly as its expected.golden pins.

Regenerate after a deliberate behaviour change with `python tests/scheduling/test_sched_golden.py --update`
and review the diff: each expected.golden is the scenario's documented outcome.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples" / "scheduling"
sys.path.insert(0, str(ROOT))

from netpol.manifests import load_paths  # noqa: E402
from netpol.workloads import expand_workloads  # noqa: E402
from scheduling import DrainOptions, schedule  # noqa: E402
from scheduling.output import owner_of  # noqa: E402

SCENARIOS = sorted(p.name for p in SAMPLES.iterdir() if p.is_dir())


def manifests(folder: Path) -> list[str]:
    """The scenario folder, as a user passes it (expected.golden has no manifest suffix, so it is not read)."""
    return [str(folder)]


def outcome(folder: Path, args: dict) -> dict:
    cluster = expand_workloads(load_paths(manifests(folder)))
    result = schedule(
        cluster,
        cordon=tuple(args.get("cordon", ())),
        drain=tuple(args.get("drain", ())),
        drain_options=DrainOptions(
            ignore_daemonsets=args.get("ignore_daemonsets", False),
            delete_emptydir_data=args.get("delete_emptydir_data", False),
            force=args.get("force", False),
        ),
    )
    pods = [
        {
            "name": p.key,
            "owner": owner_of(p, cluster.workloads),
            "node": p.node_name or None,
            "phase": p.phase,
            "reason": p.reason or None,
        }
        for p in sorted(result.cluster.pods, key=lambda p: p.key)
    ]
    d = result.drain
    return {
        "args": args,
        "pods": pods,
        "not_created": sorted(k for k, t in result.traces.items() if t.how == "waiting"),
        "drain": {
            "evicted": [{"pod": e.pod, "replacement": e.replacement} for e in d.evicted],
            "blocked": [{"pod": b.pod, "reason": b.reason} for b in d.blocked],
            "errors": list(d.errors),
        },
        "evictions": [{"pod": e.pod, "taint": e.taint, "afterSeconds": e.after_seconds} for e in result.evictions],
        "preemptions": [
            {"pod": p.pod, "node": p.node, "victims": list(p.victims), "replacements": list(p.replacements)}
            for p in result.preemptions
        ],
    }


def expected(name: str) -> dict:
    return json.loads((SAMPLES / name / "expected.golden").read_text())


@pytest.mark.parametrize("name", SCENARIOS)
def test_sample_schedules_as_pinned(name: str) -> None:
    want = expected(name)
    assert outcome(SAMPLES / name, want["args"]) == want


def test_every_sample_has_expected_json() -> None:
    assert SCENARIOS
    for name in SCENARIOS:
        assert (SAMPLES / name / "expected.golden").is_file(), name


def test_taint_message_is_the_source_materials_exact_text() -> None:
    """The source material's text, then the sentence DefaultPreemption's PostFilter appends (FitError.Error adds
    " " + PostFilterMsg; taints are UnschedulableAndUnresolvable, so preemption cannot help on any node)."""
    pods = expected("taints-pending")["pods"]
    assert pods[0]["reason"] == (
        "0/3 nodes are available: 1 node(s) had untolerated taint {CPU: L1}, 1 node(s) had untolerated taint "
        "{CPU: L2}, 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }."
        " preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
    )


def update() -> None:
    for name in SCENARIOS:
        path = SAMPLES / name / "expected.golden"
        args = json.loads(path.read_text())["args"] if path.exists() else {}
        path.write_text(json.dumps(outcome(SAMPLES / name, args), indent=2) + "\n")
        print("wrote", path)


if __name__ == "__main__":
    if "--update" in sys.argv:
        update()
