"""Issue 13's port grammar leftovers: `matrix --port LO-HI`, `matrix --port NAME` and `can-reach --port NAME`
are computed (they were refused: "the matrix probes one numbered port", "give the number").

A named port means a number only on a pod that names it, and NetworkPolicy resolves it on the destination
(networking/v1 NetworkPolicyPort: "a named port on a pod"; the upstream e2e suite's "should allow ingress
access from updated pod" family uses named ports): so a name is resolved on each destination pod, and the
same name may mean different numbers. The cluster (tests/data/named-ports) names `http` 80 on a/web1 and
8080 on a/web2; a policy admits only TCP 8080 from app=cli into app=web.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import ROOT
from tests.helpers import run_cli

CLUSTER = str(ROOT / "tests" / "data" / "named-ports")
NO_NAME_NOTE = (
    "note: 2 destination pods reached by some pair define no TCP port named http: pairs to them are not listed "
    "(a/cli, a/db)\nnote: external ranges have no port named http: pairs to them are not listed\n"
)


def test_matrix_port_name_is_resolved_on_each_destination() -> None:
    """web1's http (80) is denied, web2's http (8080) is what the policy admits: only cli => web2 is listed."""
    r = run_cli("matrix", "--port", "http", CLUSTER)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "a/cli => a/web2 : TCP 8080\n"
    assert r.stderr == NO_NAME_NOTE


def test_matrix_port_range_lists_the_allowed_part_of_the_range() -> None:
    r = run_cli("matrix", "--port", "8000-9000", "--no-external", CLUSTER)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "a/cli => a/db : TCP 8000-9000",
        "a/cli => a/web1 : TCP 8080",
        "a/cli => a/web2 : TCP 8080",
        "a/db => a/cli : TCP 8000-9000",
        "a/web1 => a/cli : TCP 8000-9000",
        "a/web1 => a/db : TCP 8000-9000",
        "a/web2 => a/cli : TCP 8000-9000",
        "a/web2 => a/db : TCP 8000-9000",
    ]


def test_a_range_outside_every_allowed_port_of_a_pod_leaves_its_pairs_out() -> None:
    r = run_cli("matrix", "--port", "81-8079", "--no-external", "--focus", "a/web2", CLUSTER)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["a/web2 => a/cli : TCP 81-8079", "a/web2 => a/db : TCP 81-8079"]


@pytest.mark.parametrize("fmt", ["txt", "csv", "md", "json", "dot", "graphml", "grid"])
@pytest.mark.parametrize("port", ["http", "8000-9000", "http/TCP"])
def test_every_format_takes_a_range_or_a_name(fmt: str, port: str) -> None:
    r = run_cli("matrix", "--port", port, "--no-external", "-o", fmt, CLUSTER)
    assert r.returncode == 0, r.stderr
    assert "a/cli" in r.stdout and "a/web2" in r.stdout
    if fmt == "json":
        doc = json.loads(r.stdout)
        assert doc["port"] == port.split("/")[0] and doc["protocol"] == "TCP"
        pairs = {(e["src"], e["dst"]): e["text"] for e in doc["allowed"]}
        assert pairs[("a/cli", "a/web2")] == "TCP 8080"
        assert (("a/cli", "a/web1") in pairs) == (port == "8000-9000")


def test_matrix_port_name_by_workload() -> None:
    r = run_cli("matrix", "--port", "http", "--by", "workload", "--no-external", CLUSTER)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "a/cli[Pod] => a/web2[Pod] : TCP 8080\n"


def test_matrix_port_name_that_no_pod_defines_is_exit_2_naming_the_defined_ones() -> None:
    r = run_cli("matrix", "--port", "nope", CLUSTER)
    assert r.returncode == 2
    assert r.stderr == (
        "error: --port nope/TCP: no pod names a TCP port so (port names: http); give a number, or one of those names\n"
    )


def test_compact_json_still_takes_one_numbered_port() -> None:
    r = run_cli("matrix", "--port", "http", "-o", "json", "--compact", CLUSTER)
    assert r.returncode == 2
    assert r.stderr == "error: --compact probes one numbered port, not TCP http\n"


def test_can_reach_port_name_is_resolved_on_each_destination() -> None:
    r = run_cli("can-reach", "a/cli", "--port", "http", CLUSTER)
    assert r.returncode == 0, r.stderr
    assert r.stdout == (
        "a/cli => a/web2 : TCP 8080\n"
        "    egress:  not isolated\n"
        "    ingress: a/web ingress rule #1 (TCP 8080)\n"
        "note: 1 destination pod defines no TCP port named http; not listed\n"
        "note: external addresses have no port named http; not listed\n"
    )


def test_can_reach_port_name_json_names_the_port() -> None:
    r = run_cli("can-reach", "a/cli", "--port", "http", "-o", "json", CLUSTER)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["port"] == {"port": "http", "protocol": "TCP"}
    assert [(c["dst"], c["text"]) for c in doc["connections"]] == [("a/web2", "TCP 8080")]


def test_can_reach_port_name_denied_everywhere_is_a_negative_answer() -> None:
    r = run_cli("can-reach", "a/db", "--port", "http", CLUSTER)
    assert r.returncode == 1
    assert r.stdout.startswith("(nothing is reachable from a/db on TCP http)\n")


def test_can_reach_port_name_that_no_pod_defines_is_exit_2() -> None:
    r = run_cli("can-reach", "a/cli", "--port", "nope", CLUSTER)
    assert r.returncode == 2
    assert r.stderr == (
        "error: --port nope/TCP: no pod names a TCP port so (port names: http); give a number, or one of those names\n"
    )


def test_who_can_reach_and_can_reach_agree_on_a_named_port() -> None:
    """The same question asked from both ends: who reaches web2 on http, and what cli reaches on http."""
    who = run_cli("who-can-reach", "a/web2", "--port", "http", "-o", "json", CLUSTER)
    can = run_cli("can-reach", "a/cli", "--port", "http", "-o", "json", CLUSTER)
    into_web2 = {(c["src"], c["text"]) for c in json.loads(who.stdout)["connections"]}
    from_cli = {(c["dst"], c["text"]) for c in json.loads(can.stdout)["connections"]}
    assert ("a/cli", "TCP 8080") in into_web2 and ("a/web2", "TCP 8080") in from_cli


def test_the_grid_of_a_range_marks_every_port_and_some_ports_as_the_ui_does() -> None:
    """One legend (issue 25 item 10): by the listing above, a/db → a/cli allows all of TCP 8000-9000 (`.`) while
    a/cli → a/web1 allows only 8080 of it (`~`); a name means one port on each destination: `.` where allowed."""
    from tests.helpers import grid_cells

    r = run_cli("matrix", "--port", "8000-9000", "--no-external", "-o", "grid", CLUSTER)
    assert "# . every port of TCP/8000-9000   ~ some of them   X denied" in r.stdout
    cells = grid_cells(r.stdout)
    assert cells[("a/db", "a/cli")] == "." and cells[("a/cli", "a/web1")] == "~"
    named = grid_cells(run_cli("matrix", "--port", "http", "--no-external", "-o", "grid", CLUSTER).stdout)
    assert named[("a/cli", "a/web2")] == "." and named[("a/cli", "a/web1")] == "X"
