"""`--live`: the cluster read through kubectl (a stand-in kubectl script here: no cluster in tests)."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

from tests.helpers import run_cli

CLUSTER = {
    "apiVersion": "v1",
    "kind": "List",
    "items": [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "web"}},
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "web1", "namespace": "web", "labels": {"run": "web1"}},
            "spec": {"containers": [{"name": "c", "ports": [{"containerPort": 80}]}]},
            "status": {"phase": "Running", "podIP": "10.224.1.2"},
        },
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "test", "namespace": "web", "labels": {"run": "test"}},
            "spec": {"containers": [{"name": "c"}]},
            "status": {"phase": "Running", "podIP": "10.224.1.3"},
        },
        {
            "apiVersion": "networking.k8s.io/v1",
            "kind": "NetworkPolicy",
            "metadata": {"name": "deny", "namespace": "web"},
            "spec": {"podSelector": {"matchLabels": {"run": "web1"}}},
        },
    ],
}


def fake_kubectl(tmp_path: Path) -> Path:
    """Answers `get <core kinds>` with CLUSTER and fails for the admin-policy API, like a cluster without it."""
    (tmp_path / "cluster.json").write_text(json.dumps(CLUSTER))
    script = tmp_path / "kubectl"
    script.write_text(
        f"#!{sys.executable}\n"
        "import sys, pathlib\n"
        "args = sys.argv[1:]\n"
        "pathlib.Path(__file__).with_name('args.txt').write_text(' '.join(args))\n"
        "if 'adminnetworkpolicies' in args[1]:\n"
        "    sys.stderr.write('error: the server does not have a resource type\\n'); sys.exit(1)\n"
        "sys.stdout.write(pathlib.Path(__file__).with_name('cluster.json').read_text())\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


def test_live_reads_the_cluster_through_kubectl(tmp_path: Path) -> None:
    kubectl = fake_kubectl(tmp_path)
    out = run_cli("matrix", "--live", "--kubectl", str(kubectl), "--context", "prod", "--no-external")
    assert out.returncode == 0, out.stderr
    assert out.stdout == "web/web1 => web/test : All Connections\n"  # web1 admits nobody
    assert "no AdminNetworkPolicy API" in out.stderr
    assert "--context prod" in (tmp_path / "args.txt").read_text()


def test_live_without_kubectl_is_a_usage_error(tmp_path: Path) -> None:
    out = run_cli("matrix", "--live", "--kubectl", str(tmp_path / "missing"))
    assert out.returncode == 2
    assert "--live needs" in out.stderr and "Traceback" not in out.stderr


def test_live_refuses_paths_too(tmp_path: Path) -> None:
    out = run_cli("matrix", "--live", "--kubectl", str(fake_kubectl(tmp_path)), "samples/seed-lab")
    assert out.returncode == 2
    assert "give no PATH" in out.stderr
