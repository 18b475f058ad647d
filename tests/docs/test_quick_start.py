"""README's install command, run as written in a fresh clone (issue 25 item 12: "add a venv step to the quick
start: Debian's system pip refuses to install"): one line that makes a venv, installs, and runs the main job
on the bundled sample."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.conftest import ROOT
from tests.docs.pages import blocks


def quick_start() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Install and first run") :]
    [command] = [b.text.strip() for b in blocks(section)[:1]]
    return command


def test_quick_start_is_one_command_with_a_venv_that_installs_and_runs_the_matrix() -> None:
    command = quick_start()
    assert "\n" not in command
    steps = [s.strip() for s in command.split("&&")]
    assert steps[0].startswith("python3 -m venv ") and steps[1].startswith(". ")
    assert any(" pip install " in s for s in steps) and steps[-1] == "netpol matrix samples/seed-lab"


def test_quick_start_runs_as_written_in_a_fresh_clone(release: Path) -> None:
    """In the clone's root, with no virtual environment active and this checkout off PYTHONPATH: the venv is
    made, the install (the test extra from the package index or pip's cache, the C extension compiled when
    gcc is there) succeeds, and the seed lab's one policy shows: only web/test reaches web/web1, on TCP 80
    (samples/seed-lab/policy-web1-allow-test.yaml: podSelector run=test, port 80)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    done = subprocess.run(
        ["bash", "-c", quick_start()], cwd=release, env=env, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    into_web1 = [line for line in done.stdout.splitlines() if " => web/web1 " in line]
    assert into_web1 == ["web/test => web/web1 : TCP 80"], done.stdout
