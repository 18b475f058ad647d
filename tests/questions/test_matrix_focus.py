"""netpol matrix: --direction, --by workload, -o graphml (issue 4 item 7)."""

from __future__ import annotations

import io

import networkx as nx

from tests.helpers import run_cli


def test_direction_ingress_with_focus() -> None:
    out = run_cli("matrix", "--focus", "web/web1", "--direction", "ingress")
    assert out.returncode == 0, out.stderr
    assert out.stdout == "web/test => web/web1 : TCP 80\n"


def test_direction_egress_with_namespace_reaches_outside() -> None:
    lines = run_cli("matrix", "-n", "cyh", "--direction", "egress").stdout.splitlines()
    assert lines and all(line.startswith("cyh/test => ") for line in lines)
    assert "cyh/test => web/web2 : All Connections" in lines and "cyh/test => web/web1 : TCP 80" not in lines


def test_direction_needs_focus_or_namespace() -> None:
    out = run_cli("matrix", "--direction", "ingress")
    assert out.returncode == 2 and "Traceback" not in out.stderr


def test_by_workload_aggregates_replicas(real_apps) -> None:
    out = run_cli(
        "matrix",
        str(real_apps / "npg-onlineboutique-workloads"),
        "--by",
        "workload",
        "--focus",
        "default/frontend[Deployment]",
        "--direction",
        "ingress",
    )
    assert out.returncode == 0, out.stderr
    assert "default/loadgenerator[Deployment] => default/frontend[Deployment] : TCP 8080" in out.stdout
    assert all("[" in line.split(" => ")[0] or line[0].isdigit() for line in out.stdout.splitlines())


def test_by_workload_seed_lab_bare_pods() -> None:
    out = run_cli("matrix", "--by", "workload", "--no-external")
    assert "web/test[Pod] => web/web1[Pod] : TCP 80" in out.stdout


def test_graphml_parses_back() -> None:
    out = run_cli("matrix", "-o", "graphml")
    assert out.returncode == 0, out.stderr
    g = nx.read_graphml(io.BytesIO(out.stdout.encode()))
    assert g.is_directed()
    assert g.edges["web/test", "web/web1"]["conn"] == "TCP 80"
    assert not g.has_edge("cyh/test", "web/web1")
    assert g.nodes["0.0.0.0-255.255.255.255"]["kind"] == "external"
