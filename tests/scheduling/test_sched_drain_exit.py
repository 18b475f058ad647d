"""`netpol schedule --drain` like `kubectl drain` (kubectl/pkg/drain/filters.go, cmd/drain/drain.go), and the exit
codes CI relies on (issue 10 item 4): a refused or blocked drain exits 1 with the error on stderr;
`--fail-on-pending` exits 1 listing the pods that stay Pending. Subprocess tests, as CI runs it."""

from __future__ import annotations

from pathlib import Path

from netpol.model.objects import OwnerRef
from scheduling.drain import LOCAL_STORAGE_WARNING, UNMANAGED_FATAL, UNMANAGED_WARNING, DrainOptions, drain_filter
from tests.helpers import run_cli
from tests.scheduling.manifests import node_doc, pod_doc, write
from tests.scheduling.sched_helpers import pod

MIRROR = {"kubernetes.io/config.mirror": "8f2c5c1d0d6b4c1f"}


def kubeadm_control_plane(tmp_path: Path) -> str:
    """A control-plane node running its static pods (mirror pods owned by the Node) and one Deployment pod."""
    return write(
        tmp_path / "cp.yaml",
        node_doc("master30", "10.1.8.30"),
        node_doc("worker31", "10.1.8.31"),
        pod_doc("kube-apiserver-master30", ns="kube-system", node="master30", owner=("Node", "master30"),
                annotations=MIRROR, phase="Running"),
        pod_doc("etcd-master30", ns="kube-system", node="master30", annotations=MIRROR, phase="Running"),
        pod_doc("web-7d4b9c-x2x9z", node="master30", owner=("ReplicaSet", "web-7d4b9c"), phase="Running"),
    )  # fmt: skip


def test_drain_skips_mirror_pods_silently(tmp_path: Path) -> None:
    """filters.go mirrorPodFilter: MakePodDeleteStatusSkip() for pods with the config.mirror annotation: no
    eviction, no error (even without --force for the one with no ownerReference), no warning."""
    r = run_cli("schedule", kubeadm_control_plane(tmp_path), "--drain", "master30")
    assert r.returncode == 0, r.stderr
    assert "pod/web-7d4b9c-x2x9z evicted" in r.stdout
    assert "kube-apiserver" not in r.stdout.split("node/master30 cordoned", 1)[1]
    assert "etcd" not in r.stdout.split("node/master30 cordoned", 1)[1]
    assert "node/master30 drained" in r.stdout
    rows = {line.split()[1]: line.split() for line in r.stdout.splitlines()[1:] if line.startswith("kube-system")}
    assert rows["kube-apiserver-master30"][2] == "Running" and rows["kube-apiserver-master30"][4] == "master30"
    assert rows["etcd-master30"][4] == "master30"


def test_drain_skips_pods_already_terminating(tmp_path: Path) -> None:
    """A pod with deletionTimestamp is being deleted already: kubectl waits for it (filters.go skipDeletedFilter
    skips it outright with --skip-wait-for-delete-timeout); nothing is evicted or recreated for it."""
    path = write(
        tmp_path / "t.yaml",
        node_doc("a", "10.1.0.1"),
        node_doc("b", "10.1.0.2"),
        pod_doc("going", node="a", deleting=True, phase="Running"),  # no controller: would need --force
        pod_doc("web-1", node="a", owner=("ReplicaSet", "web"), phase="Running"),
    )
    r = run_cli("schedule", path, "--drain", "a")
    assert r.returncode == 0, r.stderr
    assert "pod/going evicted" not in r.stdout and "pod/web-1 evicted" in r.stdout
    assert "declare no controller" not in r.stdout + r.stderr


def test_filters_keep_only_the_last_status_like_kubectl() -> None:
    """filters.go: the walk stops at the first filter that keeps a pod, and only the last status is retained, so
    the localStorage warning of a replicated pod is dropped by unreplicatedFilter's Okay (the TODO upstream)."""
    opts = DrainOptions(delete_emptydir_data=True, force=True)
    managed = pod("m", empty_dir=True, owner=OwnerRef("ReplicaSet", "r"))
    assert drain_filter(managed, opts) == (True, "ok", "")
    assert drain_filter(pod("bare", empty_dir=True), opts) == (True, "warning", UNMANAGED_WARNING)
    assert drain_filter(pod("bare"), DrainOptions()) == (False, "error", UNMANAGED_FATAL)
    assert LOCAL_STORAGE_WARNING != UNMANAGED_WARNING


def test_drain_refused_by_the_pod_filters_exits_1_with_the_error_on_stderr(tmp_path: Path) -> None:
    path = write(tmp_path / "d.yaml", node_doc("a", "10.1.0.1"), node_doc("b"), pod_doc("bare", node="a"))
    r = run_cli("schedule", path, "--drain", "a")
    assert r.returncode == 1
    assert "error: cannot delete Pods that declare no controller (use --force to override): default/bare" in r.stderr
    assert "There are pending nodes to be drained:\n a" in r.stderr
    assert "error" not in r.stdout and "node/a cordoned" in r.stdout and "node/a drained" not in r.stdout
    forced = run_cli("schedule", path, "--drain", "a", "--force")
    assert forced.returncode == 0 and "node/a drained" in forced.stdout


def test_fail_on_pending_exits_1_listing_the_pending_pods(tmp_path: Path) -> None:
    path = write(
        tmp_path / "p.yaml",
        node_doc("a", "10.1.0.1", cpu="1"),
        pod_doc("small", cpu="500m"),
        pod_doc("huge", cpu="8"),
    )
    r = run_cli("schedule", path, "--fail-on-pending")
    assert r.returncode == 1
    assert "error: 1 pod stays Pending (--fail-on-pending):" in r.stderr  # one pod: singular (issue 25)
    assert "  default/huge: 0/1 nodes are available: 1 Insufficient cpu." in r.stderr
    assert "default/small" not in r.stderr
    assert run_cli("schedule", path).returncode == 0  # without the flag Pending is an answer, not a failure
    fits = write(tmp_path / "ok.yaml", node_doc("a", "10.1.0.1"), pod_doc("small"))
    assert run_cli("schedule", fits, "--fail-on-pending").returncode == 0


def test_drain_warnings_go_to_stderr_not_stdout(tmp_path: Path) -> None:
    """cmd/drain/drain.go deleteOrEvictPodsSimple hands PodDeleteList.Warnings() to its WarningPrinter, built on
    ErrOut: `Warning: deleting Pods that declare no controller: default/bare` is on stderr; stdout (what a
    script reads) has only the cordon, eviction and drained lines (issue 25, small items)."""
    path = write(tmp_path / "w.yaml", node_doc("a", "10.1.0.1"), node_doc("b"), pod_doc("bare", node="a"))
    r = run_cli("schedule", path, "--drain", "a", "--force")
    assert r.returncode == 0, r.stderr
    assert f"Warning: {UNMANAGED_WARNING}: default/bare" in r.stderr.splitlines()
    assert "Warning" not in r.stdout and "node/a drained" in r.stdout
