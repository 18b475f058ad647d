"""Reachability what-ifs (issue 13, item 9): --cordon/--drain on the reachability commands, computed by the
scheduler's own drain simulation (the one `netpol schedule --drain` uses), and `netpol diff --drain-new`.

samples/what-if/drain-ipblock: Deployment app/api lands on node-a (pod range 10.0.1.0/24); app/db admits
TCP 5432 only from ipBlock 10.0.1.0/24. Draining node-a moves api to node-b (10.0.2.0/24): the ipBlock no
longer matches it, so the connection is lost.
"""

from __future__ import annotations

import json

from tests.conftest import SAMPLES
from tests.helpers import run_cli

SAMPLE = str(SAMPLES / "what-if" / "drain-ipblock")


def test_matrix_after_a_drain_is_computed_on_the_moved_pods() -> None:
    before = run_cli("matrix", SAMPLE, "--no-external")
    after = run_cli("matrix", SAMPLE, "--no-external", "--drain", "node-a")
    assert before.returncode == 0 and after.returncode == 0, after.stderr
    assert any(line.endswith("=> app/db : TCP 5432") for line in before.stdout.splitlines())
    assert not any("=> app/db" in line for line in after.stdout.splitlines())
    assert "note: --drain node-a: app/api-" in after.stderr and "evicted, replaced by app/api-" in after.stderr


def test_explain_after_a_drain_names_the_new_address() -> None:
    out = run_cli("explain", "deploy/app/api", "app/db", SAMPLE, "--drain", "node-a", "--port", "5432")
    assert out.returncode == 1
    assert "10.0.2." in out.stdout and "is outside ipBlock 10.0.1.0/24" in out.stdout


def test_who_can_reach_and_check_take_the_what_if_too(tmp_path) -> None:
    who = run_cli("who-can-reach", "app/db", SAMPLE, "--drain", "node-a", "--port", "5432", "-o", "json")
    sources = [c["src"] for c in json.loads(who.stdout)["connections"]]
    assert sources == ["10.0.1.0-10.0.1.255"]  # only the (now podless) range the ipBlock names
    exp = tmp_path / "e.yaml"
    exp.write_text("expectations:\n  - {from: deploy/app/api, to: app/db, ports: [5432], expect: allow}\n")
    assert run_cli("check", SAMPLE, "--expect", str(exp)).returncode == 0
    assert run_cli("check", SAMPLE, "--expect", str(exp), "--drain", "node-a").returncode == 1


def test_diff_drain_new_shows_the_connections_a_drain_changes() -> None:
    out = run_cli("diff", SAMPLE, "--drain-new", "node-a")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert any(line.startswith("- app/api-") and line.endswith("=> app/db : TCP 5432") for line in lines)
    assert not any(line.startswith("+ app/api-") and "app/db" in line for line in lines)


def test_a_drain_kubectl_would_refuse_is_an_error() -> None:
    """kubectl drain refuses unmanaged pods without --force (kubectl/pkg/drain/filters.go): the answer would
    be about a node that was not drained, so the command exits 2 saying so."""
    out = run_cli("matrix", "--drain", "worker31.cyh.cloud")  # the seed lab's pods are bare
    assert out.returncode == 2 and "kubectl drain would refuse" in out.stderr and "--force" in out.stderr


def test_what_if_needs_nodes() -> None:
    out = run_cli("matrix", str(SAMPLES / "seed-lab" / "policy-web1-allow-test.yaml"), "--drain", "n1")
    assert out.returncode == 2 and "no Node objects" in out.stderr
