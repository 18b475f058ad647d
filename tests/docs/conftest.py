"""A clone of this repository for the tests that install it as users do (pip, pre-commit, the README's
quick start): they read the committed state, never the working tree, as a user's clone would."""

from __future__ import annotations

import os
import subprocess
import tomllib
from pathlib import Path

import pytest

from tests.conftest import ROOT

VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
RELEASE = f"v{VERSION}"  # the tag a release makes (docs/ci.md)


def git(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=120)


@pytest.fixture
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A clone of this repository carrying the release tag docs/ci.md names: made in the clone when this
    checkout has none (a fresh clone in CI carries no tags; on main the release step makes it)."""
    if not (ROOT / ".git").exists():
        if os.environ.get("CI"):
            pytest.fail("CI runs in a clone of the repository; this checkout has no .git")
        pytest.skip("not a git checkout: nothing to clone")
    clone = tmp_path_factory.mktemp("release") / "kube-reach"
    done = git("clone", "--quiet", str(ROOT), str(clone), cwd=ROOT)
    assert done.returncode == 0, done.stderr
    if git("rev-parse", "--verify", "--quiet", f"refs/tags/{RELEASE}", cwd=clone).returncode != 0:
        assert git("tag", RELEASE, cwd=clone).returncode == 0
    return clone
