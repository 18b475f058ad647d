"""Every command with `--live`, run as a user runs it: the CLI as a subprocess, the real kubectl, the stand-in
API server on 127.0.0.1 serving the seed lab as its cluster would. The request log proves read-only."""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path

import pytest

from tests.helpers import run_cli
from tests.live.conftest import needs_kubectl
from tests.live.fixtures import BIG_POD_MESSAGE, running_status, seed_lab_objects
from tests.live.standin import StandIn

pytestmark = needs_kubectl

EXPECT = "samples/expectations/seed-lab.yaml"

# (command line, expected exit code): each command that takes --live, once.
LIVE_COMMANDS = [
    (["matrix"], 0),
    (["matrix", "-o", "json"], 0),
    (["who-can-reach", "web1"], 0),
    (["can-reach", "web/test"], 0),
    (["explain", "cyh/test", "web/web1", "--port", "80"], 1),
    (["audit"], 0),
    (["check", "--expect", EXPECT], 0),
    (["schedule"], 0),
    (["schedule", "-o", "nodes"], 0),
    (["report", "-O", "-"], 0),
]


def live(kubeconfig: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, "--live", "--kubeconfig", str(kubeconfig))


def test_every_live_command_reads_the_cluster_with_get_requests_only(seed_standin: StandIn, kubeconfig: Path) -> None:
    for args, code in LIVE_COMMANDS:
        out = live(kubeconfig, *args)
        assert out.returncode == code, (args, out.stderr)
        assert "Traceback" not in out.stderr
    methods = seed_standin.methods()
    assert methods == {"GET"}, methods
    paths = set(seed_standin.paths())
    assert {"/api/v1/pods", "/apis/networking.k8s.io/v1/networkpolicies", "/api/v1/nodes"} <= paths


@pytest.mark.parametrize(
    "args",
    [["matrix"], ["who-can-reach", "web1"], ["explain", "web/test", "web/web1"], ["audit"], ["schedule"]],
    ids=lambda a: a[0],
)
def test_the_live_cluster_gives_the_same_answer_as_its_manifests(
    seed_standin: StandIn, kubeconfig: Path, args: list[str]
) -> None:
    from_files = run_cli(*args, "samples/seed-lab")
    from_cluster = live(kubeconfig, *args)
    assert from_cluster.returncode == from_files.returncode, from_cluster.stderr
    if args == ["schedule"]:  # the cluster also holds web/big, Pending with its scheduler's message
        extra = [line for line in from_cluster.stdout.splitlines() if "big" in line]
        assert len(extra) == 1 and "Pending" in extra[0]
        lines = [line for line in from_cluster.stdout.splitlines() if "big" not in line]
        assert "\n".join(lines) + "\n" == from_files.stdout
    else:
        assert from_cluster.stdout == from_files.stdout


def test_a_pending_pod_shows_what_the_clusters_scheduler_said(seed_standin: StandIn, kubeconfig: Path) -> None:
    out = live(kubeconfig, "matrix", "-o", "json")
    assert out.returncode == 0, out.stderr
    pending = json.loads(out.stdout)["pending"]
    assert pending == [{"name": "web/big", "reason": BIG_POD_MESSAGE}]


def test_schedule_live_is_a_what_if_that_keeps_bound_pods(seed_standin: StandIn, kubeconfig: Path) -> None:
    """Bound pods stay where the cluster runs them; web/big is re-placed by the simulator (and still fits
    nowhere), with the cluster's own word on it as a note."""
    out = live(kubeconfig, "schedule", "-o", "json")
    assert out.returncode == 0, out.stderr
    pods = {p["name"]: p for p in json.loads(out.stdout)["pods"]}
    assert pods["web/web1"]["node"] == "worker31.cyh.cloud" and pods["web/web1"]["phase"] == "Running"
    assert pods["web/big"]["phase"] == "Pending"
    assert "Insufficient cpu" in pods["web/big"]["reason"]
    assert f"note: web/big is Pending in the cluster: {BIG_POD_MESSAGE}" in out.stderr.splitlines()


@pytest.mark.parametrize(
    "args",
    [
        ["matrix", "samples/seed-lab"],
        ["who-can-reach", "web1", "samples/seed-lab"],
        ["can-reach", "web/test", "samples/seed-lab"],
        ["explain", "web/test", "web/web1", "samples/seed-lab"],
        ["audit", "samples/seed-lab"],
        ["check", "--expect", EXPECT, "samples/seed-lab"],
        ["schedule", "samples/seed-lab"],
        ["tui", "samples/seed-lab"],
        ["report", "-O", "-", "samples/seed-lab"],
        ["diff", "samples/seed-lab", "samples/seed-lab"],
    ],
    ids=lambda a: a[0],
)
def test_live_together_with_paths_is_refused(seed_standin: StandIn, kubeconfig: Path, args: list[str]) -> None:
    out = live(kubeconfig, *args)
    assert out.returncode == 2
    assert out.stderr.startswith("error: --live reads the cluster kubectl points at: give no PATH with it (got ")
    assert seed_standin.requests == []  # refused before asking the cluster anything


def test_a_wrong_context_is_kubectls_one_line_reason(seed_standin: StandIn, kubeconfig: Path) -> None:
    out = run_cli("matrix", "--live", "--kubeconfig", str(kubeconfig), "--context", "does-not-exist")
    assert out.returncode == 2
    assert out.stderr == 'error: kubectl: context "does-not-exist" does not exist\n'


def test_a_failing_server_is_reported_once_on_one_line(standin: StandIn, kubeconfig: Path) -> None:
    """kubectl logs a failed discovery five times through klog before its own error: one line survives."""
    standin.fail_all = True
    out = live(kubeconfig, "matrix")
    assert out.returncode == 2
    assert len(out.stderr.splitlines()) == 1, out.stderr
    assert out.stderr.startswith("error: kubectl: ")
    assert "document" not in out.stderr and "memcache" not in out.stderr


def test_an_unreachable_server_is_reported_once_on_one_line(standin: StandIn, kubeconfig: Path) -> None:
    url = standin.url
    standin.stop()
    out = live(kubeconfig, "who-can-reach", "web1")
    assert out.returncode == 2
    assert len(out.stderr.splitlines()) == 1, out.stderr
    assert url.removeprefix("http://") in out.stderr and "refused" in out.stderr  # wording varies by kubectl version


def test_a_slow_cluster_hits_the_kubectl_timeout(seed_standin: StandIn, kubeconfig: Path) -> None:
    seed_standin.delay["pods"] = 30.0
    out = run_cli("matrix", "--live", "--kubeconfig", str(kubeconfig), "--kubectl-timeout", "2")
    assert out.returncode == 2
    assert out.stderr == ("error: kubectl did not answer within 2 s (--kubectl-timeout); is the cluster reachable?\n")


def test_schedule_live_places_new_pods_on_the_live_snapshot(
    seed_standin: StandIn, kubeconfig: Path, tmp_path: Path
) -> None:
    new = tmp_path / "new.yaml"
    new.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api, namespace: web}\n"
        "spec:\n  replicas: 2\n  selector: {matchLabels: {app: api}}\n"
        "  template:\n    metadata: {labels: {app: api}}\n"
        "    spec: {containers: [{name: c, image: nginx, resources: {requests: {cpu: '1'}}}]}\n"
    )
    out = live(kubeconfig, "schedule", "-o", "json", "--add", str(new))
    assert out.returncode == 0, out.stderr
    pods = {p["name"]: p for p in json.loads(out.stdout)["pods"]}
    api = [p for name, p in pods.items() if name.startswith("web/api-")]
    assert len(api) == 2 and all(p["phase"] == "Running" for p in api)
    assert {p["node"] for p in api} == {"worker31.cyh.cloud", "worker32.cyh.cloud"}  # spread, not the tainted master
    assert pods["web/web1"]["node"] == "worker31.cyh.cloud"  # bound pods stay
    again = live(kubeconfig, "schedule", "--add", "samples/seed-lab")
    assert again.returncode == 2
    assert "exists already" in again.stderr
    assert seed_standin.methods() == {"GET"}


def test_what_runs_in_the_cluster_runs_in_the_answer(seed_standin: StandIn, kubeconfig: Path) -> None:
    """A pod the cluster runs is never re-judged: here one whose requests exceed its node's allocatable
    (a static pod, an overcommitted node, a resize) stays Running instead of being rejected by a simulation."""
    hog = next(o for o in seed_lab_objects() if o["kind"] == "Pod" and o["metadata"]["name"] == "web2")
    hog = copy.deepcopy(hog)
    hog["metadata"].update(name="hog", uid="hog-uid", labels={"run": "hog"})
    hog["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "64", "memory": "1Ti"}}
    hog["status"] = running_status("10.224.2.9")
    seed_standin.load([hog])
    out = live(kubeconfig, "matrix", "-o", "json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert "web/hog" in {p["name"] for p in doc["pods"]}
    assert [p["name"] for p in doc["pending"]] == ["web/big"]
