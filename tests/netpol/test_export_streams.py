"""The streamed exports (numpy-joined rows, netpol/readout/export.py) write exactly what their plain definitions
write: per allowed edge a line, the JSON document of `matrix_json`, per probe pair a line."""

from __future__ import annotations

import csv
import fcntl
import io
import json
import subprocess
import sys

import pytest

from netpol.manifests import load_paths
from netpol.pipeline import analyze
from netpol.readout.export import MatrixView, matrix_json, probe_pairs, render, render_probe
from tests.conftest import SAMPLES

VIEWS = [
    {},
    {"include_external": False},
    {"namespaces": ("web",)},
    {"focus": "web/web1"},
    {"focus": "web/web1", "direction": "ingress"},
    {"focus": "web/test", "direction": "egress"},
]


def plain_lines(view: MatrixView, fmt: str) -> str:
    edges = view.sorted_edges()
    if fmt == "txt":
        return "".join(f"{e.src} => {e.dst} : {e.conn.render()}\n" for e in edges)
    if fmt == "md":
        return "| src | dst | conn |\n|-----|-----|------|\n" + "".join(
            f"| {e.src} | {e.dst} | {e.conn.render()} |\n" for e in edges
        )
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["src", "dst", "conn"])
    for e in edges:
        w.writerow([e.src, e.dst, e.conn.render()])
    return buf.getvalue()


def plain_probe(view: MatrixView, fmt: str, protocol: str, port: int) -> str:
    pairs = probe_pairs(view, protocol, port, loopback=False)  # listings leave self pairs out (docs/commands/matrix.md)
    if fmt == "json":
        return json.dumps({"port": port, "protocol": protocol, "allowed": [list(p) for p in pairs]}, indent=2) + "\n"
    if fmt == "txt":
        return "".join(f"{s} => {d} : {protocol} {port}\n" for s, d in pairs)
    if fmt == "md":
        return "| src | dst |\n|-----|-----|\n" + "".join(f"| {s} | {d} |\n" for s, d in pairs)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["src", "dst"])
    w.writerows(pairs)
    return buf.getvalue()


def _check(analysis, options: dict) -> None:  # noqa: ANN001
    view = MatrixView(analysis, **options)
    assert render(view, "json") == json.dumps(matrix_json(view), indent=2) + "\n"
    for fmt in ("txt", "csv", "md"):
        assert render(view, fmt) == plain_lines(view, fmt), fmt
    for fmt in ("json", "txt", "csv", "md"):
        assert render_probe(view, fmt, "TCP", 80) == plain_probe(view, fmt, "TCP", 80), fmt


@pytest.mark.parametrize("options", VIEWS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "all")
def test_streamed_exports_equal_their_definitions_on_the_seed_lab(options: dict) -> None:
    analysis = analyze(load_paths([str(SAMPLES / "seed-lab")]))
    view = MatrixView(analysis, **options)
    assert view.sorted_edges() or options.get("direction") == "ingress"
    _check(analysis, options)


@pytest.mark.parametrize("app", ["online-boutique", "npg-acs-security-demos", "npg-ipblockstest"])
def test_streamed_exports_equal_their_definitions_on_real_apps(real_apps, app: str) -> None:  # noqa: ANN001
    analysis = analyze(load_paths([str(real_apps / app)]))
    assert analysis.reachability.pods
    _check(analysis, {})
    _check(analysis, {"include_external": False})


@pytest.mark.skipif(not hasattr(fcntl, "F_GETPIPE_SZ"), reason="Linux pipes only")
def test_cli_widens_a_stdout_pipe_for_large_exports() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "netpol.cli", "matrix", str(SAMPLES / "seed-lab"), "-o", "json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdout is not None
    out = proc.stdout.read()
    assert proc.wait(timeout=60) == 0 and json.loads(out)["connections"]
    assert fcntl.fcntl(proc.stdout.fileno(), fcntl.F_GETPIPE_SZ) == 1 << 20
    proc.stdout.close()


def test_a_host_network_pod_reaches_its_own_nodes_pods_in_every_export() -> None:
    from tests.helpers import analyze_objects, pod, policy

    a = analyze_objects(
        {**pod("x", "agent", host_network=None), "spec": {"hostNetwork": True, "nodeName": "n1", "containers": []}},
        {**pod("x", "web", {"app": "web"}), "spec": {"nodeName": "n1", "containers": [{"name": "c"}]}},
        {**pod("x", "far", {"app": "web"}), "spec": {"nodeName": "n2", "containers": [{"name": "c"}]}},
        policy("x", "deny", {"podSelector": {}}),  # isolates every pod both ways
    )
    view = MatrixView(a, include_external=False)
    lines = render(view, "txt").splitlines()
    assert "x/agent => x/web : All Connections" in lines
    assert not any(line.startswith("x/agent => x/far") for line in lines)
    probe = render_probe(view, "txt", "TCP", 80).splitlines()
    assert "x/agent => x/web : TCP 80" in probe and "x/agent => x/far : TCP 80" not in probe
    _check(a, {"include_external": False})
