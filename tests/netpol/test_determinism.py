"""Issue 16 item 8: outputs do not depend on the hash seed, connections not on the order of the input.

The CLI runs as a subprocess under several PYTHONHASHSEED values (set and dict orders of strings change
with it) and with the files of a real app given in reverse order. Same order: every format byte for
byte. Reversed order: the same allowed connections (addresses assigned in creation order may differ).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REAL_APPS, ROOT

APPS = ["online-boutique", "npg-acs-security-demos", "netpol-recipes"]
SEEDS = ["0", "1", "4242"]


def run(args: list[str], seed: str) -> str:
    env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
    r = subprocess.run(
        [sys.executable, "-m", "netpol.cli", *args], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120
    )
    assert r.returncode in (0, 1), r.stderr
    return r.stdout


def files(app: str) -> list[str]:
    return sorted(str(p) for p in (REAL_APPS / app).rglob("*") if p.suffix in (".yaml", ".yml", ".json"))


@pytest.fixture
def apps(real_apps: Path) -> list[str]:
    return [a for a in APPS if (real_apps / a).is_dir()]


@pytest.mark.parametrize("fmt", ["txt", "json", "md", "grid", "csv", "dot"])
def test_every_format_is_byte_identical_across_hash_seeds(apps: list[str], fmt: str) -> None:
    app = str(REAL_APPS / apps[0])
    outputs = {seed: run(["matrix", app, "-o", fmt], seed) for seed in SEEDS}
    assert len(set(outputs.values())) == 1
    assert outputs["0"]


def test_audit_and_schedule_are_byte_identical_across_hash_seeds(apps: list[str]) -> None:
    for app in apps:
        for cmd in (["audit", "-o", "json"], ["schedule", "-o", "json"]):
            outs = {run([cmd[0], str(REAL_APPS / app), *cmd[1:]], seed) for seed in SEEDS[:2]}
            assert len(outs) == 1, (app, cmd)


def connections(text: str) -> set[tuple[str, str, str]]:
    return {(c["src"], c["dst"], c["text"]) for c in json.loads(text)["connections"]}


def test_connections_do_not_depend_on_the_order_of_the_files(apps: list[str]) -> None:
    for app in apps:
        given = files(app)
        forward = run(["matrix", *given, "-o", "json"], "0")
        backward = run(["matrix", *reversed(given), "-o", "json"], "1")
        assert connections(forward) == connections(backward), app
        assert connections(forward)
