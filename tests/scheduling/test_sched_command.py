"""`netpol schedule` output formats, through the CLI's entry point (in process) and as a subprocess."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path

from netpol.cli import main

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples" / "scheduling"


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["schedule", *argv])
    return code, out.getvalue(), err.getvalue()


def run(folder: str, *argv: str) -> str:
    code, out, err = cli(str(SAMPLES / folder), *argv)
    assert code == 0, err
    return out


def test_json_has_the_documented_shape() -> None:
    doc = json.loads(run("taints-tolerated", "-o", "json"))
    assert set(doc) == {"pods", "nodes", "drain", "evictions", "preemptions"}
    assert doc["pods"] == [
        {
            "name": "default/taint-pod",
            "owner": None,
            "node": "worker31.cyh.cloud",
            "ip": "10.244.1.2",
            "phase": "Running",
            "reason": None,
        }
    ]
    assert set(doc["drain"]) == {"evicted", "blocked", "errors"}
    assert doc["nodes"][1]["taints"] == ["CPU=L1:NoSchedule"]


def test_wide_shows_status_ip_node_and_pending_reason() -> None:
    text = run("taints-pending")
    assert text.splitlines()[0].split() == ["NAMESPACE", "NAME", "STATUS", "IP", "NODE", "REASON"]
    assert "Pending   <none>   <none>   0/3 nodes are available: 1 node(s) had untolerated taint {CPU: L1}" in text


def test_wide_reports_drain_progress_and_a_blocked_eviction_on_stderr_with_exit_1() -> None:
    """kubectl drain prints evictions on stdout, refused evictions on stderr, and exits 1 (issue 10 item 4)."""
    code, text, err = cli(
        str(SAMPLES / "drain-pdb-blocked"), "--drain", "worker31.cyh.cloud", "--drain", "worker32.cyh.cloud"
    )
    assert code == 1
    assert "pod/quorum-" in text and "evicted" in text
    assert "would violate the pod's disruption budget" in err and "would violate" not in text


def test_nodes_view_shows_allocated_resources_from_requests() -> None:
    text = run("statefulset-ordered", "-o", "nodes")
    assert "Allocated resources:" in text
    assert "  cpu                 1900m (95%)   0 (0%)" in text
    assert "Taints:             dedicated=db:NoSchedule" in text


def test_explain_prints_filters_and_scores() -> None:
    text = run("pod-affinity-os", "--explain", "test-busybox", "--explain", "default/affinity-8k85s6225l-kx2zz")
    assert "Pod default/test-busybox" in text and "Filter:" in text
    assert "Score (raw -> normalized x weight = weighted):" in text and "<- chosen" in text


def test_explain_unknown_pod_is_a_usage_error() -> None:
    code, _, err = cli(str(SAMPLES / "taints-pending"), "--explain", "default/nope")
    assert code == 2 and 'pods "default/nope" not found' in err


def test_yaml_output_parses() -> None:
    import yaml

    assert yaml.safe_load(run("daemonset", "-o", "yaml"))["pods"][0]["owner"] == "DaemonSet/log-agent"


def test_cli_subprocess_runs_and_maps_input_errors_to_exit_2(tmp_path: Path) -> None:
    ok = subprocess.run(
        [
            sys.executable,
            "-m",
            "netpol.cli",
            "schedule",
            str(SAMPLES / "taints-pending" / "nodes.yaml"),
            str(SAMPLES / "taints-pending" / "workloads.yaml"),
            "-o",
            "json",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["pods"][0]["phase"] == "Pending"
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n"
        "    resources: {requests: {cpu: 2x}}\n"
    )
    err = subprocess.run(
        [sys.executable, "-m", "netpol.cli", "schedule", str(bad)], capture_output=True, text=True, cwd=ROOT
    )
    assert err.returncode == 2 and "Traceback" not in err.stderr and "cpu" in err.stderr


def test_wide_and_json_report_preemptions() -> None:
    """-o wide ends with a "Preempted by …" line per victim; -o json lists each preemption with its victims."""
    code, text, _ = cli(str(SAMPLES / "preemption"))
    assert code == 0
    lines = [line for line in text.splitlines() if "Preempted by" in line]
    assert lines == [
        "pod/batch-6d5f8c-k2x7q -n default: Preempted by default/payments-hj8bnlzg87-cr6jb on node worker31.cyh.cloud"
        " (recreated as default/batch-6d5f8c-rzs6b)",
        "pod/batch-6d5f8c-m9z4t -n default: Preempted by default/payments-hj8bnlzg87-cr6jb on node worker31.cyh.cloud"
        " (recreated as default/batch-6d5f8c-nkgc9)",
    ]
    (pre,) = json.loads(run("preemption", "-o", "json"))["preemptions"]
    assert pre["pod"] == "default/payments-hj8bnlzg87-cr6jb" and pre["node"] == "worker31.cyh.cloud"
    assert [v["pod"] for v in pre["victims"]] == ["default/batch-6d5f8c-k2x7q", "default/batch-6d5f8c-m9z4t"]
