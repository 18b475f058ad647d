"""Every (format × mode) combination of `netpol matrix` works or exits 2 naming what it does not support
(issue 13, item 2): formats × --port × --focus × --direction × --by, on the seed lab.

One subprocess per format runs the real entry point (`netpol.cli.main`) for each mode and reports the exit
code and both streams; the assertions compare the formats with each other (the same pairs in txt, csv, md,
json, dot and graphml; grid cells agreeing with them) and with docs/commands/matrix.md's promises (self pairs never listed;
--focus keeps only pairs involving the focus, --direction only those into / out of it).
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import subprocess
import sys
from functools import cache

import networkx as nx
import pytest

from tests.conftest import ROOT
from tests.helpers import grid_cells

FORMATS = ("txt", "grid", "csv", "json", "md", "dot", "graphml")
PORTS = (None, "80")
FOCUS = (None, "web1", "8.8.8.8")
DIRECTIONS = (None, "ingress", "egress")
BYS = ("pod", "workload")
MODES = list(itertools.product(PORTS, FOCUS, DIRECTIONS, BYS))
FOCUS_NAMES = {"web1": {"web/web1", "web/web1[Pod]"}, "8.8.8.8": {"0.0.0.0-255.255.255.255"}}

DRIVER = """
import contextlib, io, json, sys
from netpol.cli import main
for argv in json.loads(sys.argv[1]):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(argv)
    print(json.dumps({"argv": argv, "rc": rc, "out": out.getvalue(), "err": err.getvalue()}))
"""


def argv(fmt: str, port: str | None, focus: str | None, direction: str | None, by: str) -> list[str]:
    a = ["matrix", "-o", fmt, "--by", by]
    a += ["--port", port] if port else []
    a += ["--focus", focus] if focus else []
    a += ["--direction", direction] if direction else []
    return a


@cache
def run_format(fmt: str) -> dict[tuple, dict]:
    todo = [argv(fmt, *m) for m in MODES]
    proc = subprocess.run(
        [sys.executable, "-c", DRIVER, json.dumps(todo)], capture_output=True, text=True, cwd=ROOT, timeout=600
    )
    assert proc.returncode == 0, proc.stderr
    results = [json.loads(line) for line in proc.stdout.splitlines()]
    return {m: r for m, r in zip(MODES, results, strict=True)}


def unsupported(fmt: str, port: str | None, focus: str | None, direction: str | None) -> str | None:
    """What the command must refuse (exit 2), and a word its message must contain."""
    if direction and not focus:
        return "--direction needs --focus"
    if focus == "8.8.8.8" and (port or fmt == "grid"):
        return "is an external address"
    return None


def pairs_of(fmt: str, text: str) -> set[tuple[str, str]]:
    """The (source, destination) pairs a listing format shows."""
    match fmt:
        case "txt":
            return {tuple(line.split(" : ")[0].split(" => ")) for line in text.splitlines()}  # type: ignore[misc]
        case "csv":
            rows = list(csv.reader(io.StringIO(text)))
            return {(r[0], r[1]) for r in rows[1:]}
        case "md":
            return {tuple(c.strip() for c in line.strip("|").split("|")[:2]) for line in text.splitlines()[2:]}  # type: ignore[misc]
        case "json":
            doc = json.loads(text)
            if "allowed" in doc:
                return {tuple(p) for p in doc["allowed"]}  # type: ignore[misc]
            return {(c["src"], c["dst"]) for c in doc["connections"]}
        case "dot":
            assert text.startswith("digraph netpol {")
            return {
                tuple(x.strip().strip('"') for x in line.split(" [label=")[0].split(" -> "))  # type: ignore[misc]
                for line in text.splitlines()
                if " -> " in line
            }
        case "graphml":
            g = nx.read_graphml(io.BytesIO(text.encode()))
            return set(g.edges())
    raise AssertionError(fmt)


@pytest.mark.parametrize("mode", MODES, ids=lambda m: "-".join(str(x) for x in m))
@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_and_mode_works_or_says_what_is_unsupported(fmt: str, mode: tuple) -> None:
    port, focus, direction, by = mode
    r = run_format(fmt)[mode]
    assert "Traceback" not in r["err"]
    refused = unsupported(fmt, port, focus, direction)
    if refused:
        assert r["rc"] == 2 and r["err"].startswith("error: ") and refused in r["err"], r
        return
    assert r["rc"] == 0, r
    if fmt == "grid":
        cells = grid_cells(r["out"])
        listed = pairs_of("txt", run_format("txt")[mode]["out"])
        names = {s for s, _ in cells}
        for (s, d), c in cells.items():
            if s == d:
                assert c in (".", " ")  # loopback, blank when out of the focus
            elif (s, d) in listed:  # one legend (issue 25 item 10): `.` every port, `~` some (a probe: `.`)
                every = port is not None or f"{s} => {d} : All Connections" in run_format("txt")[mode]["out"]
                assert c == ("." if every else "~"), (s, d, r["out"])
            else:  # not listed: denied, or out of the focus (blank), never drawn allowed
                assert c == "X" or (focus and c == " "), (s, d, r["out"])
        assert names
        return
    pairs = pairs_of(fmt, r["out"])
    assert all(s != d for s, d in pairs), "self pairs are never listed (docs/commands/matrix.md)"
    if focus:
        f = FOCUS_NAMES[focus]
        for s, d in pairs:
            if direction == "ingress":
                assert d in f, (s, d)
            elif direction == "egress":
                assert s in f, (s, d)
            else:
                assert s in f or d in f, (s, d)
        if direction and not port:
            assert pairs, "a focus with a direction answers (the seed lab has traffic both ways)"
    # every listing format shows the same pairs as txt
    assert pairs == pairs_of("txt", run_format("txt")[mode]["out"]), fmt


def test_focus_grid_draws_allowed_pairs_as_allowed() -> None:
    """`--focus web/web1 -o grid` drew cyh/test → web/test (allowed) as X: pairs outside the focus are now
    left blank, the focus's own row and column are exact."""
    out = subprocess.run(
        [sys.executable, "-m", "netpol.cli", "matrix", "--focus", "web/web1", "-o", "grid"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    cells = grid_cells(out.stdout)
    assert cells[("cyh/test", "web/test")] == " "
    # web/web1 admits web/test on TCP 80 only: some ports, `~` (the UI's and the report's legend)
    assert cells[("web/test", "web/web1")] == "~" and cells[("cyh/test", "web/web1")] == "X"
    assert cells[("web/web1", "cyh/test")] == "."


def test_dot_with_port_is_dot() -> None:
    r = run_format("dot")[("80", None, None, "pod")]
    assert r["out"].startswith("digraph netpol {") and '"web/test" -> "web/web1" [label="TCP 80"];' in r["out"]
