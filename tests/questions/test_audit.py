"""Every audit finding pinned by a sample that triggers it and one that does not; SARIF and exit codes."""

from __future__ import annotations

import json

import pytest

from netpol.audit import RULES, audit, render, sarif
from tests.helpers import run_cli
from tests.questions.conftest import AUDIT, SEED, analyze_path

# finding id → the sample that triggers it (seed lab: no default deny anywhere).
TRIGGERS = {
    "NP001": SEED,
    "NP002": SEED,
    "NP003": SEED,
    "NP004": SEED,
    "NP010": AUDIT / "np010-policy-selects-no-pod.yaml",
    "NP011": AUDIT / "np011-peer-matches-nothing.yaml",
    "NP020": AUDIT / "np020-rule-allows-all-peers.yaml",
    "NP021": AUDIT / "np021-peer-all-namespaces.yaml",
    "NP022": AUDIT / "np022-peer-all-pods.yaml",
    "NP023": AUDIT / "np023-peer-world-cidr.yaml",
    "NP024": AUDIT / "np024-rule-all-ports.yaml",
    "NP030": AUDIT / "np030-egress-without-dns.yaml",
    "NP040": AUDIT / "np040-named-port-unresolved.yaml",
    "NP050": AUDIT / "np050-ipblock-overlaps-cluster.yaml",
    "NP060": AUDIT / "np060-redundant-policy.yaml",
    "NP070": AUDIT / "np070-host-network-pod.yaml",
    "NP080": AUDIT / "np080-policy-not-evaluated.yaml",
    "CIL001": AUDIT / "cil001-cilium-port-only-rule.yaml",
    "CIL002": AUDIT / "cil002-cilium-world-peer.yaml",
    "CIL003": AUDIT / "cil003-cilium-unplaceable-peer.yaml",
    "CIL004": AUDIT / "cil004-cilium-l7-filter.yaml",
    "CIL005": AUDIT / "cil005-cilium-namespace-labels-ignored.yaml",
    "CAL001": AUDIT / "cal001-calico-policy-selects-no-endpoint.yaml",
    "CAL002": AUDIT / "cal002-calico-rule-never-reached.yaml",
    "CAL003": AUDIT / "cal003-calico-rule-allows-everything.yaml",
    "CAL004": AUDIT / "cal004-calico-rule-partly-evaluated.yaml",
    "CNP010": AUDIT / "cnp010-rule-shadowed.yaml",
    "CNP020": AUDIT / "cnp020-priority-tie.yaml",
    "CNP030": AUDIT / "cnp030-pass-without-networkpolicy.yaml",
    "NP090": AUDIT / "np090-exposed-to-internet.yaml",
    "NP091": AUDIT / "np091-door-without-reachable-backend.yaml",
    "NP092": AUDIT / "np092-exposed-to-unknown-namespaces.yaml",
}


def test_every_finding_has_a_trigger_sample() -> None:
    assert set(TRIGGERS) == set(RULES)


@pytest.mark.parametrize("rule", sorted(TRIGGERS))
def test_sample_triggers_finding(rule: str) -> None:
    report = audit(analyze_path(TRIGGERS[rule]))
    hits = [f for f in report.findings if f.rule == rule]
    assert hits, f"{TRIGGERS[rule].name} should trigger {rule}"
    for f in hits:
        assert f.severity in ("info", "low", "medium", "high") and f.objects and f.fix and f.message


@pytest.mark.parametrize("rule", sorted(TRIGGERS))
def test_clean_namespace_does_not_trigger_finding(rule: str) -> None:
    report = audit(analyze_path(AUDIT / "clean.yaml"), ["app"])
    assert [f for f in report.findings if f.rule == rule] == []


def test_clean_namespace_report() -> None:
    report = audit(analyze_path(AUDIT / "clean.yaml"), ["app"])
    [ns] = report.namespaces
    assert ns.default_deny_ingress == ["app/default-deny"] and ns.default_deny_egress == ["app/default-deny"]
    assert ns.unprotected_ingress == [] and ns.unprotected_egress == []
    assert ns.reach_in == []  # nothing outside app reaches in


def test_seed_lab_report_shows_reach_in_and_default_deny_absent(seed) -> None:
    report = audit(seed, ["web"])
    [ns] = report.namespaces
    assert ns.default_deny_ingress == [] and ns.unprotected_ingress == ["web/test", "web/web2"]
    assert [src for src, _ in ns.reach_in] == ["cyh", "0.0.0.0-255.255.255.255"]
    assert not any(f.rule == "NP060" for f in report.findings)  # the one policy isolates web1: not redundant


def test_world_cidr_is_high_on_ingress() -> None:
    report = audit(analyze_path(TRIGGERS["NP023"]))
    assert [f.severity for f in report.findings if f.rule == "NP023"] == ["high"]
    assert report.fails("high") and not audit(analyze_path(AUDIT / "clean.yaml"), ["app"]).fails("low")


PASS_ALL_ANP = """
apiVersion: policy.networking.k8s.io/v1alpha1
kind: AdminNetworkPolicy
metadata: {name: pass-all}
spec:
  priority: 10
  subject: {namespaces: {}}
  ingress:
  - {name: pass, action: Pass, from: [{namespaces: {}}]}
"""


def test_redundancy_check_runs_at_any_size_without_admin_tiers() -> None:
    report = audit(analyze_path(TRIGGERS["NP060"]), max_pods=1, max_policies=1)
    assert any(f.rule == "NP060" for f in report.findings) and not report.notes


def test_redundancy_check_skipped_above_threshold_with_admin_tiers_with_a_note(tmp_path) -> None:  # noqa: ANN001
    anp = tmp_path / "anp.yaml"
    anp.write_text(PASS_ALL_ANP)
    analysis = analyze_path(TRIGGERS["NP060"], anp)
    assert analysis.reachability.layered
    assert any(f.rule == "NP060" for f in audit(analysis).findings)  # within the limits: checked
    report = audit(analysis, max_pods=1)
    assert not any(f.rule == "NP060" for f in report.findings)
    assert any("NP060" in n and "skipped" in n for n in report.notes)


def test_dns_rule_to_absent_kube_dns_is_not_a_dead_peer(real_apps) -> None:
    report = audit(analyze_path(real_apps / "npg-onlineboutique-workloads"))
    assert not any(f.rule == "NP011" for f in report.findings)
    # those policies allow UDP 53 but not TCP 53 to kube-dns
    assert any(f.rule == "NP030" and "without TCP 53" in f.message for f in report.findings)


def _check_sarif(doc: dict) -> None:
    """The SARIF 2.1.0 schema's required properties, and what code-scanning uploads need."""
    assert doc["version"] == "2.1.0" and doc["$schema"].endswith("sarif-2.1.0.json")
    assert isinstance(doc["runs"], list) and doc["runs"]
    for run in doc["runs"]:
        driver = run["tool"]["driver"]
        assert driver["name"] == "netpol"
        ids = [r["id"] for r in driver["rules"]]
        for res in run["results"]:
            assert res["ruleId"] in ids and driver["rules"][res["ruleIndex"]]["id"] == res["ruleId"]
            assert isinstance(res["message"]["text"], str) and res["message"]["text"]
            assert res["level"] in ("none", "note", "warning", "error")
            assert res["locations"]
            for loc in res["locations"]:
                if "physicalLocation" in loc:
                    phys = loc["physicalLocation"]
                    assert phys["artifactLocation"]["uri"]
                    assert phys["region"]["startLine"] >= 1


def test_sarif_structure() -> None:
    report = audit(analyze_path(TRIGGERS["NP023"]))
    doc = sarif(report)
    _check_sarif(doc)
    assert json.loads(render(report, "sarif")) == doc
    [res] = [r for r in doc["runs"][0]["results"] if r["ruleId"] == "NP023"]
    assert res["level"] == "error"
    region = res["locations"][0]["physicalLocation"]["region"]
    lines = TRIGGERS["NP023"].read_text().splitlines()
    assert lines[region["startLine"] - 1] == "metadata: {name: a-from-world, namespace: t}"


def test_cli_audit_fail_on_and_formats() -> None:
    out = run_cli("audit", str(TRIGGERS["NP023"]), "--fail-on", "high")
    assert out.returncode == 1 and "[HIGH] NP023" in out.stdout
    assert run_cli("audit", str(AUDIT / "clean.yaml"), "-n", "app", "--fail-on", "low").returncode == 0
    assert run_cli("audit", "--fail-on", "high").returncode == 0  # seed lab: medium at worst
    assert run_cli("audit", "--fail-on", "medium").returncode == 1
    # the seed lab's NodePort Service web/web2 is a door: web2 (not isolated) is reached on its Service port 80
    # through every node, NP090 graded direct-web (medium)
    ignore = ("--ignore", "NP001", "--ignore", "NP003", "--ignore", "NP090")
    assert run_cli("audit", "--fail-on", "medium", *ignore).returncode == 0
    data = json.loads(run_cli("audit", "-o", "json").stdout)
    assert {n["namespace"] for n in data["namespaces"]} == {"cyh", "web"}
    _check_sarif(json.loads(run_cli("audit", "-o", "sarif").stdout))
    assert "| severity | id |" in run_cli("audit", "-o", "md").stdout
    bad = run_cli("audit", "-n", "nope")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
