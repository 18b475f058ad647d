"""`netpol report` and `netpol diff -o html` as a user runs them: the real entry point in a subprocess."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import run_cli
from tests.report.page import read_page

ROOT = Path(__file__).resolve().parent.parent.parent


def test_report_writes_one_html_file(tmp_path: Path) -> None:
    out = tmp_path / "seed.html"
    res = run_cli("report", "samples/seed-lab", "-O", str(out), cwd=ROOT)
    assert res.returncode == 0, res.stderr
    assert res.stdout == ""
    assert f"wrote {out}" in res.stderr
    page = read_page(out.read_text(encoding="utf-8"))
    assert page.data["counts"]["pods"] == 4
    assert page.data["sources"] == ["samples/seed-lab"]


def test_report_o_is_the_format_as_on_every_command(tmp_path: Path) -> None:
    """Issue 25 item 9: `-o` names a format everywhere (`matrix -o json`, `audit -o sarif`); report writes html,
    so `-o html` is accepted and `-o json` is refused as a format, never written to a file called `json`."""
    out = tmp_path / "r.html"
    res = run_cli("report", "samples/seed-lab", "-o", "html", "--output-file", str(out), cwd=ROOT)
    assert res.returncode == 0, res.stderr
    assert read_page(out.read_text(encoding="utf-8")).data["counts"]["pods"] == 4
    refused = run_cli("report", "samples/seed-lab", "-o", "json", cwd=tmp_path)
    assert refused.returncode == 2
    assert "argument -o/--output: 'json' is not a format report writes (html); the file is -O FILE.html" in (
        refused.stderr
    )
    assert list(tmp_path.iterdir()) == [out]


def test_report_old_spelling_writes_the_file_with_a_note(tmp_path: Path) -> None:
    """`report -o FILE.html` (the spelling of earlier releases) keeps working and says what to write now."""
    out = tmp_path / "old.html"
    res = run_cli("report", "samples/seed-lab", "-o", str(out), cwd=ROOT)
    assert res.returncode == 0, res.stderr
    assert f"note: -o {out}: -o is the format now, as on every command; write -O {out} for the file" in res.stderr
    assert read_page(out.read_text(encoding="utf-8")).data["counts"]["pods"] == 4


def test_report_to_stdout_with_dash_or_without_a_file_when_piped() -> None:
    res = run_cli("report", "-O", "-", cwd=ROOT)  # no PATH: the bundled seed lab
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("<!DOCTYPE html>")
    assert read_page(res.stdout).data["counts"]["namespaces"] == 2
    piped = run_cli("report", "samples/seed-lab", cwd=ROOT)  # stdout is a pipe: `netpol report DIR > r.html`
    assert piped.returncode == 0 and read_page(piped.stdout).data["counts"]["pods"] == 4


def test_report_on_a_terminal_needs_an_output_file() -> None:
    """A page of HTML is no use on a terminal: with stdout a terminal and no -O, exit 2 saying what to give."""
    import os
    import pty
    import subprocess
    import sys

    leader, follower = pty.openpty()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "netpol.cli", "report", "samples/seed-lab"],
            stdout=follower, stderr=subprocess.PIPE, text=True, cwd=ROOT, timeout=120,
        )  # fmt: skip
    finally:
        os.close(follower)
        os.close(leader)
    assert proc.returncode == 2
    assert "give -O FILE.html" in proc.stderr


def test_report_into_a_folder_is_a_usage_error(tmp_path: Path) -> None:
    res = run_cli("report", "samples/seed-lab", "-O", str(tmp_path), cwd=ROOT)
    assert res.returncode == 2
    assert "a folder" in res.stderr and "Traceback" not in res.stderr


def test_report_on_a_bad_manifest_names_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: Pod\nmetadata: {name: x\n")  # unclosed flow mapping
    res = run_cli("report", str(bad), "-O", str(tmp_path / "r.html"), cwd=ROOT)
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
    assert main(["report", str(seed_lab), "-O", "-"]) == 2
    err = capsys.readouterr().err
    assert "equivalence classes" in err and "holds at most 3 classes" in err and "--compact" in err
    assert "Traceback" not in err
