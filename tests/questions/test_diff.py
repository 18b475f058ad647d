"""netpol diff: semantic difference by pod names and ConnectionSets, never by policy identity."""

from __future__ import annotations

import csv
import io
import json
import shutil

import yaml

from netpol.diff import diff, render
from netpol.manifests import load_text
from netpol.pipeline import analyze
from tests.helpers import namespace, pod, policy, run_cli
from tests.questions.conftest import SEED

BASE = [namespace("x"), pod("x", "a", {"app": "a"}), pod("x", "b", {"app": "b"}), pod("x", "c", {"app": "c"})]


def _a(*objs):
    return analyze(load_text(yaml.safe_dump_all([*BASE, *objs])))


def _allow_b_to_a(name: str = "p", ports=(80,)) -> dict:
    return policy(
        "x",
        name,
        {
            "podSelector": {"matchLabels": {"app": "a"}},
            "ingress": [
                {"from": [{"podSelector": {"matchLabels": {"app": "b"}}}], "ports": [{"port": p} for p in ports]}
            ],
        },
    )


def test_equivalent_rewrite_rename_and_reorder_give_no_difference() -> None:
    old = _a(
        _allow_b_to_a("p"), policy("x", "q", {"podSelector": {"matchLabels": {"app": "c"}}, "policyTypes": ["Ingress"]})
    )
    rewritten = policy(
        "x",
        "renamed",
        {
            "podSelector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["a"]}]},
            "policyTypes": ["Ingress"],
            "ingress": [
                {"from": [{"podSelector": {"matchLabels": {"app": "b"}}}], "ports": [{"port": 80, "protocol": "TCP"}]},
                {"from": [{"podSelector": {"matchLabels": {"app": "b"}}}], "ports": [{"port": 80, "endPort": 80}]},
            ],
        },
    )
    new = _a(policy("x", "q2", {"podSelector": {"matchLabels": {"app": "c"}}}), rewritten)
    report = diff(old, new)
    assert report.empty and render(report, "txt") == "no difference in reachability\n"


def test_added_removed_changed_connections() -> None:
    old = _a(_allow_b_to_a(ports=(80,)))
    new = _a(_allow_b_to_a(ports=(80, 443)))
    report = diff(old, new)
    assert [(c.kind, c.src, c.dst, c.old.render(), c.new.render()) for c in report.changes] == [
        ("changed", "x/b", "x/a", "TCP 80", "TCP 80,443")
    ]
    report = diff(_a(), old)
    kinds = {(c.src, c.dst): c.kind for c in report.changes}
    assert kinds[("x/b", "x/a")] == "changed" and kinds[("x/c", "x/a")] == "removed"
    assert kinds[("0.0.0.0-255.255.255.255", "x/a")] == "removed"
    report = diff(old, _a())
    assert {(c.src, c.dst): c.kind for c in report.changes}[("x/c", "x/a")] == "added"


def test_pods_added_and_removed() -> None:
    old = _a()
    new = analyze(load_text(yaml.safe_dump_all([*BASE, pod("x", "d")])))
    report = diff(old, new)
    assert report.pods_added == ["x/d"] and report.pods_removed == []
    assert ("x/d", "x/a") in {(c.src, c.dst) for c in report.changes}
    assert diff(new, old).pods_removed == ["x/d"]


def test_external_ranges_compared_on_common_refinement() -> None:
    def ext(cidr: str) -> dict:
        return policy(
            "x",
            "e",
            {"podSelector": {"matchLabels": {"app": "a"}}, "ingress": [{"from": [{"ipBlock": {"cidr": cidr}}]}]},
        )

    report = diff(
        _a(ext("10.0.0.0/8")),
        _a(ext("10.0.0.0/9"), ext("10.128.0.0/9") | {"metadata": {"name": "f", "namespace": "x"}}),
    )
    assert report.empty  # the same addresses, cut differently
    report = diff(_a(ext("10.0.0.0/8")), _a(ext("10.0.0.0/9")))
    ext_changes = [(c.src, c.dst, c.kind) for c in report.changes if c.src[0].isdigit()]
    assert ext_changes == [("10.128.0.0-10.255.255.255", "x/a", "removed")]


def test_cli_diff_two_paths_and_sets(tmp_path) -> None:
    new = tmp_path / "new"
    new.mkdir()
    shutil.copy(SEED / "cluster.yaml", new / "cluster.yaml")
    out = run_cli("diff", str(SEED), str(new), "--exit-code")
    assert out.returncode == 1, out.stderr
    assert "+ cyh/test => web/web1 : All Connections" in out.stdout
    assert "~ web/test => web/web1 : TCP 80 -> All Connections" in out.stdout
    same = run_cli(
        "diff",
        "--old",
        str(SEED / "cluster.yaml"),
        str(SEED / "policy-web1-allow-test.yaml"),
        "--new",
        str(SEED),
        "--exit-code",
    )
    assert same.returncode == 0 and same.stdout == "no difference in reachability\n"
    assert run_cli("diff", str(SEED), str(new)).returncode == 0  # without --exit-code
    rows = list(csv.reader(io.StringIO(run_cli("diff", str(SEED), str(new), "-o", "csv").stdout)))
    assert (
        rows[0] == ["change", "src", "dst", "old", "new"]
        and ["added", "cyh/test", "web/web1", "-", "All Connections"] in rows
    )
    data = json.loads(run_cli("diff", str(SEED), str(new), "-o", "json").stdout)
    assert {c["change"] for c in data["connections"]} == {"added", "changed"}
    assert "| added | cyh/test | web/web1 |" in run_cli("diff", str(SEED), str(new), "-o", "md").stdout


def test_cli_diff_usage_errors() -> None:
    for args in (("diff", str(SEED)), ("diff", "--old", str(SEED)), ("diff", str(SEED), "/nonexistent")):
        out = run_cli(*args)
        assert out.returncode == 2 and "Traceback" not in out.stderr
