"""Outputs never replace inputs (issue 25 item 2): `report -O`, `audit --write-baseline` and `check --junit` given
one of the inputs, or a manifest-suffixed file inside an input folder (the loader, like `kubectl apply -f DIR`,
would read it next time), exit 2 naming the option and the input, and leave the file as it was; `--overwrite`
is the way to mean it. The CLI as a subprocess, as a user or CI runs it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.helpers import run_cli

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "samples" / "seed-lab"
EXPECT = ROOT / "samples" / "expectations" / "seed-lab.yaml"


@pytest.fixture()
def lab(tmp_path: Path) -> Path:
    """A copy of the seed lab, so a failed refusal would damage only the copy."""
    folder = tmp_path / "lab"
    shutil.copytree(SEED, folder)
    return folder


def manifest(lab: Path) -> Path:
    return lab / "cluster.yaml"  # the pods (policy-web1-allow-test.yaml beside it holds the policy)


WRITERS = {
    "report": lambda target: ["report", "-O", str(target)],
    "report (old -o FILE)": lambda target: ["report", "-o", str(target)],
    "audit": lambda target: ["audit", "--write-baseline", str(target)],
    "check": lambda target: ["check", "--expect", str(EXPECT), "--junit", str(target)],
}
OPTION = {"report": "-O", "report (old -o FILE)": "-o", "audit": "--write-baseline", "check": "--junit"}


@pytest.mark.parametrize("writer", WRITERS)
def test_an_output_that_is_an_input_file_is_refused_and_the_file_kept(lab: Path, writer: str) -> None:
    target = manifest(lab)
    before = target.read_bytes()
    r = run_cli(*WRITERS[writer](target), str(target))
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert f"{OPTION[writer]} {target}: is the input {target}; writing it would replace a manifest" in r.stderr
    assert "--overwrite" in r.stderr and "Traceback" not in r.stderr
    assert target.read_bytes() == before


@pytest.mark.parametrize("writer", WRITERS)
def test_an_output_that_the_input_folder_would_read_next_time_is_refused(lab: Path, writer: str) -> None:
    """A baseline.json or junit.yaml written into the folder given as input would be read as a manifest by the
    next run over that folder (MANIFEST_SUFFIXES .yaml/.yml/.json, as kubectl's resource visitor)."""
    target = lab / "sub" / "out.json"
    target.parent.mkdir()
    r = run_cli(*WRITERS[writer](target), str(lab))
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert f"is inside the input folder {lab}; the next run would read it as a manifest" in r.stderr
    assert not target.exists()


def test_a_link_to_an_input_is_the_input(lab: Path, tmp_path: Path) -> None:
    link = tmp_path / "elsewhere.yaml"
    link.symlink_to(manifest(lab))
    r = run_cli("audit", str(manifest(lab)), "--write-baseline", str(link))
    assert r.returncode == 2 and f"is the input {manifest(lab)}" in r.stderr


def test_the_expectations_file_is_an_input_of_check(lab: Path) -> None:
    expect = lab.parent / "expect.yaml"
    shutil.copy(EXPECT, expect)
    r = run_cli("check", str(lab), "--expect", str(expect), "--junit", str(expect))
    assert r.returncode == 2 and f"--junit {expect}: is the input {expect}" in r.stderr
    assert expect.read_text() == EXPECT.read_text()


def test_a_report_page_inside_the_input_folder_is_fine(lab: Path) -> None:
    """.html is never read as a manifest: writing the page next to the manifests is what people do."""
    r = run_cli("report", str(lab), "-O", str(lab / "report.html"))
    assert r.returncode == 0, r.stderr
    assert (lab / "report.html").read_text().startswith("<!DOCTYPE html>")


def test_overwrite_means_it(lab: Path) -> None:
    target = manifest(lab)
    r = run_cli("audit", str(target), "--write-baseline", str(target), "--overwrite")
    assert r.returncode == 0, r.stderr
    assert target.read_text().lstrip().startswith("{")  # the baseline (JSON) replaced the manifest, as asked


def test_updating_a_baseline_in_place_is_not_an_input_overwrite(lab: Path, tmp_path: Path) -> None:
    """--baseline is read, then --write-baseline records today's findings: the same file is the normal way to
    move a baseline forward, not a manifest being replaced."""
    baseline = tmp_path / "baseline.json"
    assert run_cli("audit", str(lab), "--write-baseline", str(baseline)).returncode == 0
    r = run_cli("audit", str(lab), "--baseline", str(baseline), "--write-baseline", str(baseline))
    assert r.returncode == 0, r.stderr
