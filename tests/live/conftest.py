"""The stand-in API server and a kubeconfig pointing the real kubectl at it."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.live.fixtures import seed_lab_objects
from tests.live.standin import StandIn

KUBECTL = shutil.which("kubectl")
needs_kubectl = pytest.mark.skipif(
    KUBECTL is None and not os.environ.get("CI"), reason="kubectl is not installed (.ci/run installs it)"
)


@pytest.fixture
def standin() -> Iterator[StandIn]:
    server = StandIn().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def seed_standin(standin: StandIn) -> StandIn:
    standin.load(seed_lab_objects())
    return standin


@pytest.fixture
def kubeconfig(standin: StandIn, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A kubeconfig for the stand-in; kubectl's discovery cache goes to tmp, never to the user's home."""
    monkeypatch.setenv("KUBECACHEDIR", str(tmp_path / "kube-cache"))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("KUBECONFIG", raising=False)
    return standin.kubeconfig(tmp_path / "kubeconfig")
