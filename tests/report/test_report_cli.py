"""`netpol report` and `netpol diff -o html` as a user runs them: the real entry point in a subprocess."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import run_cli
from tests.report.page import read_page

ROOT = Path(__file__).resolve().parent.parent.parent


def test_report_writes_one_html_file(tmp_path: Path) -> None:
    out = tmp_path / "seed.html"
    res = run_cli("report", "samples/seed-lab", "-o", str(out), cwd=ROOT)
    assert res.returncode == 0, res.stderr
    assert res.stdout == ""
    assert f"wrote {out}" in res.stderr
    page = read_page(out.read_text(encoding="utf-8"))
    assert page.data["counts"]["pods"] == 4
    assert page.data["sources"] == ["samples/seed-lab"]


def test_report_to_stdout_with_dash() -> None:
    res = run_cli("report", "-o", "-", cwd=ROOT)  # no PATH: the bundled seed lab
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("<!DOCTYPE html>")
    assert read_page(res.stdout).data["counts"]["namespaces"] == 2


def test_report_needs_an_output_file() -> None:
    res = run_cli("report", "samples/seed-lab", cwd=ROOT)
    assert res.returncode == 2
    assert "-o" in res.stderr


def test_report_into_a_folder_is_a_usage_error(tmp_path: Path) -> None:
    res = run_cli("report", "samples/seed-lab", "-o", str(tmp_path), cwd=ROOT)
    assert res.returncode == 2
    assert "is a folder" in res.stderr and "Traceback" not in res.stderr


def test_report_on_a_bad_manifest_names_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: Pod\nmetadata: {name: x\n")  # unclosed flow mapping
    res = run_cli("report", str(bad), "-o", str(tmp_path / "r.html"), cwd=ROOT)
    assert res.returncode == 2
    assert "bad.yaml" in res.stderr and "Traceback" not in res.stderr
    assert not (tmp_path / "r.html").exists()


def test_diff_html_marks_gained_and_lost_connections(tmp_path: Path) -> None:
    # old: web1 admits run=test only; new: the policy is gone, so web2 gains web1 (and cyh/test gains it too)
    new = tmp_path / "new"
    new.mkdir()
    (new / "cluster.yaml").write_text((ROOT / "samples/seed-lab/cluster.yaml").read_text())
    res = run_cli("diff", "samples/seed-lab", str(new), "-o", "html", cwd=ROOT)
    assert res.returncode == 0, res.stderr
    page = read_page(res.stdout)
    changes = {(c[0], c[1], c[2]) for c in page.data["diff"]["changes"]}
    assert ("a", "web/web2", "web/web1") in changes
    assert ("a", "cyh/test", "web/web1") in changes
    assert page.data["diff"]["old"] == ["samples/seed-lab"]
    assert page.data["counts"]["policies"] == 0  # the page shows the new version


def test_a_cluster_beyond_the_pages_class_limit_is_refused_with_the_figures(monkeypatch, capsys) -> None:  # noqa: ANN001
    """Refused before building (exit 2, no traceback), naming the classes, the cells and the way out."""
    import netpol.report.data as data
    from netpol.cli import main

    monkeypatch.setattr(data, "MAX_REPORT_CLASSES", 3)
    seed_lab = Path(__file__).resolve().parents[2] / "samples" / "seed-lab"
    assert main(["report", str(seed_lab), "-o", "-"]) == 2
    err = capsys.readouterr().err
    assert "equivalence classes" in err and "holds at most 3 classes" in err and "--compact" in err
    assert "Traceback" not in err
