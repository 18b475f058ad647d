"""`netpol matrix -o grid` stays legible like the UI's matrix (issue 11, item 4): column numbers never run
together (past 99 columns too), a legend line names the columns, a band per namespace spans its columns, and
row labels are cut in the middle, not at the start. Driven through the CLI as a subprocess."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from netpol.readout.grid import LABEL_MAX
from tests.conftest import ROOT
from tests.helpers import grid_cells, run_cli

BOUTIQUE = str(ROOT / "tests" / "data" / "real-apps" / "online-boutique")


def grid_text(*args: str) -> str:
    r = run_cli("matrix", *args, "-o", "grid")
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    return r.stdout


def table(text: str) -> tuple[list[str], str, str, list[str], list[str]]:
    """(comment lines, band line, number line, rows, full names from the legend below) of a grid."""
    lines = text.splitlines()
    comments = [line for line in lines if line.startswith("# ")]
    body = [line for line in lines if not line.startswith("# ")]
    blank = body.index("")
    names = [line.split(" = ", 1)[1] for line in body[blank + 1 :]]
    return comments, body[0], body[1], body[2:blank], names


def column_starts(numbers: str) -> tuple[list[int], int]:
    """Where each column begins and how wide a column is, read off the number line."""
    ends = [m.end() for m in re.finditer(r"\d+", numbers)]
    cell = ends[1] - ends[0]
    return [e - cell + 1 for e in ends], cell


def cut_labels(rows: list[str], names: list[str]) -> list[str]:
    """Each row label is its full name, or the name's start and end around one `…` (never `…tservice-…`);
    returns the cut ones."""
    cut = []
    for row, name in zip(rows, names, strict=True):
        label = row[: LABEL_MAX + 1].rstrip()
        if label == name:
            continue
        head, sep, tail = label.partition("…")
        assert sep and len(head) >= LABEL_MAX // 3 and len(tail) >= LABEL_MAX // 3, (label, name)
        assert name.startswith(head) and name.endswith(tail) and len(label) == LABEL_MAX, (label, name)
        cut.append(label)
    return cut


def assert_cells_agree_with_txt(text: str, path: str) -> None:
    """One legend everywhere (issue 25 item 10): `.` every port (txt's `All Connections`, and a pod to itself),
    `~` some ports (any other listed connection), `X` nothing listed."""
    r = run_cli("matrix", path, "-o", "txt")
    listed = {tuple(line.split(" : ")[0].split(" => ")): line.split(" : ", 1)[1] for line in r.stdout.splitlines()}
    cells = grid_cells(text)
    assert cells
    for (s, d), c in cells.items():
        conn = listed.get((s, d))
        want = "." if s == d or conn == "All Connections" else "~" if conn is not None else "X"
        assert c == want, (s, d, c, conn)


def test_online_boutique_grid_names_its_columns_bands_the_namespace_and_cuts_long_labels_in_the_middle() -> None:
    text = grid_text(BOUTIQUE)
    comments, bands, numbers, rows, names = table(text)
    assert len(names) == 12
    legend = next(c for c in comments if c.startswith("# columns: "))
    # each workload has one pod here: the legend names the columns by workload
    assert legend.startswith("# columns: 0 adservice  1 cartservice  2 checkoutservice  3 currencyservice"), legend
    assert legend.endswith("10 redis-cart  11 shippingservice"), legend
    assert numbers.split() == [str(i) for i in range(12)]
    starts, _ = column_starts(numbers)
    assert bands[starts[0] :].startswith("default ───")  # the band begins over the first column
    cut = cut_labels(rows, names)
    # the two longest names (46 characters) are cut, keeping workload and hashes: `default/productcata…ice-…`
    assert sorted(label.split("-")[0] for label in cut) == ["default/productcata…ice", "default/recommendat…ice"]
    labels = [row[:LABEL_MAX] for row in rows]
    assert len(set(labels)) == len(labels)
    assert_cells_agree_with_txt(text, BOUTIQUE)


@pytest.fixture(scope="module")
def big_cluster(tmp_path_factory: pytest.TempPathFactory) -> str:
    """130 pods in several namespaces, from the benchmark's seeded generator."""
    path = tmp_path_factory.mktemp("grid") / "cluster.yaml"
    gen = ROOT / "benchmarks" / "generate_cluster.py"
    args = ["--pods", "130", "--policies", "25", "--seed", "7", "-q", "-o", str(path)]
    r = subprocess.run([sys.executable, str(gen), *args], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return str(path)


def test_past_99_columns_numbers_stay_apart_and_each_cell_sits_under_its_number(big_cluster: str) -> None:
    text = grid_text(big_cluster)
    comments, _, numbers, rows, names = table(text)
    n = len(names)
    assert n > 100
    assert numbers.split() == [str(i) for i in range(n)]  # `99 100 101`, never `100101`
    starts, cell = column_starts(numbers)
    assert cell == 4 and all(b - a == cell for a, b in zip(starts, starts[1:], strict=False))
    assert_cells_agree_with_txt(text, big_cluster)  # read under the last digit of each number
    legend = next(c for c in comments if c.startswith("# columns: "))
    assert [int(k) for k in re.findall(r"(?:^# columns: |  )(\d+) ", legend)] == list(range(n))
    assert cut_labels(rows, names)


def test_each_namespace_band_starts_over_its_first_column(big_cluster: str) -> None:
    _, bands, numbers, _, names = table(grid_text(big_cluster))
    starts, cell = column_starts(numbers)
    first: dict[str, int] = {}
    count: dict[str, int] = {}
    for k, name in enumerate(names):
        ns = name.partition("/")[0]
        first.setdefault(ns, k)
        count[ns] = count.get(ns, 0) + 1
    assert len(first) >= 3
    for ns, k in first.items():
        at = bands[starts[k] : starts[k] + cell * count[ns]]
        if len(ns) + 2 < len(at):
            assert at.startswith(ns + " ─") and at.rstrip().endswith("─"), (ns, at)
        else:  # a narrow band: the name cut in the middle
            assert "…" in at or at.strip() == ns, (ns, at)


def test_grid_uses_the_ui_and_report_legend() -> None:
    """Issue 25 item 10: `.` every port, `~` some ports, `X` denied, as the UI (tui.model.GLYPHS) and the report
    (its legend) draw them. Seed lab, by hand: web/web1's policy admits web/test on TCP 80 only → `~`; the
    other pairs are either fully open (no policy isolates them) `.` or not admitted by web1's policy `X`."""
    r = run_cli("matrix", "-o", "grid")
    assert r.stdout.splitlines()[0] == "# . every port   ~ some ports   X denied"
    cells = grid_cells(r.stdout)
    assert cells[("web/test", "web/web1")] == "~"
    assert cells[("cyh/test", "web/web1")] == "X" and cells[("web/web2", "web/web1")] == "X"
    assert cells[("web/web1", "web/web2")] == "." and cells[("cyh/test", "web/test")] == "."
    probe = grid_cells(run_cli("matrix", "-o", "grid", "--port", "80").stdout)
    assert probe[("web/test", "web/web1")] == "."  # the one port asked is open
