"""`kubectl netpol …` through the real kubectl's plugin discovery (an executable `kubectl-netpol` on PATH).

The installed console script exists only after `pip install -e`; the test puts its own `kubectl-netpol` on
PATH, a shim that runs this checkout's `netpol.kubectl_plugin` with this interpreter."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.live.conftest import KUBECTL, needs_kubectl
from tests.live.standin import StandIn

pytestmark = needs_kubectl

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def plugin_env(tmp_path: Path) -> dict[str, str]:
    shim_dir = tmp_path / "bin"
    shim_dir.mkdir()
    shim = shim_dir / "kubectl-netpol"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m netpol.kubectl_plugin "$@"\n')
    shim.chmod(0o755)
    kubectl_dir = str(Path(KUBECTL or shutil.which("kubectl") or "/usr/bin/kubectl").parent)
    return {
        **os.environ,
        "PATH": os.pathsep.join([str(shim_dir), kubectl_dir, os.environ.get("PATH", "")]),
        "PYTHONPATH": str(ROOT),
    }


def kubectl(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["kubectl", *args], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)


def test_kubectl_finds_the_plugin(plugin_env: dict[str, str]) -> None:
    out = kubectl(plugin_env, "plugin", "list")
    assert "kubectl-netpol" in out.stdout, out.stderr


def test_kubectl_netpol_reads_the_current_context(
    seed_standin: StandIn, kubeconfig: Path, plugin_env: dict[str, str]
) -> None:
    env = {**plugin_env, "KUBECONFIG": str(kubeconfig)}  # no flag at all: kubectl's current context
    out = kubectl(env, "netpol", "who-can-reach", "web1")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("web/test => web/web1 : TCP 80\n")
    assert seed_standin.methods() == {"GET"} and "/api/v1/pods" in seed_standin.paths()


def test_kubectl_netpol_passes_context_kubeconfig_and_namespace_through(
    seed_standin: StandIn, kubeconfig: Path, plugin_env: dict[str, str]
) -> None:
    seed_standin.allowed_namespaces = {"web"}
    out = kubectl(plugin_env, "netpol", "matrix", "--kubeconfig", str(kubeconfig), "--context", "standin", "-n", "web")
    assert out.returncode == 0, out.stderr
    assert "web/test => web/web1 : TCP 80" in out.stdout and "cyh/" not in out.stdout
    assert "/api/v1/namespaces/web/pods" in seed_standin.paths()
    wrong = kubectl(plugin_env, "netpol", "matrix", "--kubeconfig", str(kubeconfig), "--context", "elsewhere")
    assert wrong.returncode == 2
    assert wrong.stderr == 'error: kubectl: context "elsewhere" does not exist\n'


def test_kubectl_netpol_without_a_command_shows_its_usage(plugin_env: dict[str, str]) -> None:
    out = kubectl(plugin_env, "netpol")
    assert out.returncode == 2
    assert out.stdout.startswith("usage: kubectl netpol COMMAND")
