"""How kubectl is run: its reason on one line, a timeout that kills its whole process group, the ≥ 10,000-pod
recorded cluster read page by page (limit/continue)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from netpol.loading.live import PAGE_LIMIT, LiveError, LiveOptions, one_line_reason, read_live_detailed, run_kubectl
from tests.live.conftest import needs_kubectl
from tests.live.fixtures import large_cluster_objects
from tests.live.standin import StandIn

# What kubectl 1.32 printed against a server answering 404 to discovery (captured from the real binary).
KLOG_STDERR = """\
E1201 00:45:22.792531   12272 memcache.go:265] "Unhandled Error" err="couldn't get current server API group list: the server could not find the requested resource"
E1201 00:45:22.797035   12272 memcache.go:265] "Unhandled Error" err="couldn't get current server API group list: the server could not find the requested resource"
E1201 00:45:22.801251   12272 memcache.go:265] "Unhandled Error" err="couldn't get current server API group list: the server could not find the requested resource"
Error from server (NotFound): the server could not find the requested resource
"""


def test_kubectls_reason_is_its_last_own_line_not_the_klog_repeats() -> None:
    assert (
        one_line_reason(KLOG_STDERR) == "Error from server (NotFound): the server could not find the requested resource"
    )
    only_klog = "\n".join(KLOG_STDERR.splitlines()[:2])
    assert (
        one_line_reason(only_klog)
        == "couldn't get current server API group list: the server could not find the requested resource"
    )
    assert one_line_reason('error: context "x" does not exist\n') == 'context "x" does not exist'
    assert one_line_reason("", 7) == "kubectl exited with status 7"


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def test_a_timeout_kills_kubectls_whole_process_group(tmp_path: Path) -> None:
    """kubectl may have started an exec credential plugin; none of it may outlive the timeout."""
    pid_file = tmp_path / "child.pid"
    fake = tmp_path / "kubectl"
    fake.write_text(f"#!/bin/sh\nsleep 300 &\necho $! > {pid_file}\nwait\n")
    fake.chmod(0o755)
    with pytest.raises(LiveError, match=r"kubectl did not answer within 0.5 s \(--kubectl-timeout\)"):
        run_kubectl(LiveOptions(kubectl=str(fake), timeout=0.5), ["api-versions"])
    child = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while _alive(child) and time.monotonic() < deadline:  # SIGKILL is delivered asynchronously
        time.sleep(0.01)
    assert not _alive(child)


@needs_kubectl
def test_ten_thousand_pods_are_read_page_by_page(standin: StandIn, kubeconfig: Path) -> None:
    standin.load(large_cluster_objects(pods=10_000, policies=200, nodes=50))
    read = read_live_detailed(LiveOptions(kubeconfig=str(kubeconfig), timeout=300))
    assert len(read.cluster.pods) == 10_000
    assert len(read.cluster.nodes) == 50
    pages = [r for r in standin.requests if r.path == "/api/v1/pods"]
    assert len(pages) == 10_000 // PAGE_LIMIT and all(r.query.get("limit") == str(PAGE_LIMIT) for r in pages)
    assert sum("continue" in r.query for r in pages) == len(pages) - 1
    assert standin.methods() == {"GET"}
    assert set(read.timings) == {"kubectl", "parse", "build"}


def test_kubectl_missing_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(LiveError, match="--live needs"):
        run_kubectl(LiveOptions(kubectl=str(tmp_path / "missing")), ["api-versions"])
    assert os.path.exists(tmp_path) and not (tmp_path / "missing").exists()


@pytest.mark.parametrize("mode", ["not-executable", "no-interpreter-line", "folder"])
def test_a_kubectl_that_cannot_be_run_is_a_usage_error_naming_why(tmp_path: Path, mode: str) -> None:
    """Issue 16's crash site: a non-executable --kubectl raised PermissionError/OSError as a traceback."""
    target = tmp_path / "kubectl"
    if mode == "folder":
        target.mkdir()
    else:
        target.write_text("plain text, not a program\n")
        target.chmod(0o644 if mode == "not-executable" else 0o755)
    with pytest.raises(LiveError, match=r"cannot be run: (Permission denied|Exec format error)"):
        run_kubectl(LiveOptions(kubectl=str(target)), ["api-versions"])
