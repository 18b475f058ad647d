"""The audit with Cilium's policies: their default deny counts as isolation (NP001–NP004, NP030 read the
engine's isolation), the Cilium findings name the rule in the policy's own words, and a policy read but not
evaluated (a host policy) is in every format, not only on stderr (issue 22 item 6)."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from netpol.audit import audit, render
from netpol.manifests import load_text
from netpol.pipeline import analyze
from tests.netpol.cilium_cases import ccnp, cnp, cns, cpod
from tests.questions.conftest import AUDIT, analyze_path


def _analysis(*objs: dict):  # noqa: ANN202
    return analyze(load_text(yaml.safe_dump_all(list(objs))))


def test_a_cilium_default_deny_is_the_namespaces_default_deny() -> None:
    """intro.rst "Endpoint default policy": endpointSelector {} with `ingress: [{}]` and `egress: [{}]` puts every
    pod of the namespace in default deny both ways and allows nothing: NP001/NP002 do not fire, NP030 does
    (egress isolated without DNS)."""
    report = audit(
        _analysis(
            cns("t"),
            cpod("t", "a", {"app": "a"}, "10.0.0.1"),
            cnp("t", "deny-all", {"endpointSelector": {}, "ingress": [{}], "egress": [{}]}),
        )
    )
    [ns] = report.namespaces
    assert ns.policies == ["cnp t/deny-all"]
    assert ns.default_deny_ingress == ["cnp t/deny-all"] and ns.default_deny_egress == ["cnp t/deny-all"]
    assert ns.unprotected_ingress == [] and ns.unprotected_egress == []
    rules = {f.rule for f in report.findings}
    assert not rules & {"NP001", "NP002", "NP003", "NP004"} and "NP030" in rules


def test_a_clusterwide_default_deny_covers_every_namespace() -> None:
    objs = [cns("t"), cns("u"), cpod("t", "a", {}, "10.0.0.1"), cpod("u", "b", {}, "10.0.0.2")]
    report = audit(_analysis(*objs, ccnp("lockdown", {"endpointSelector": {}, "ingress": [{}]})))
    assert [n.default_deny_ingress for n in report.namespaces] == [["ccnp lockdown"], ["ccnp lockdown"]]


def test_the_demo_deny_policy_isolates_the_empire_only(real_apps: Path) -> None:
    """sw_deny_policy.yaml selects org=empire: those pods are isolated for ingress, xwing is not (NP003)."""
    report = audit(analyze_path(real_apps / "cilium-starwars" / "deny"))
    [np003] = [f for f in report.findings if f.rule == "NP003"]
    assert np003.objects == ("Pod/default/xwing",)


def test_cilium_findings_speak_in_the_policys_words() -> None:
    report = audit(analyze_path(AUDIT / "cil001-cilium-port-only-rule.yaml"))
    [f] = [f for f in report.findings if f.rule == "CIL001"]
    assert f.message == (
        "cnp t/a-port-80 ingress[0] has toPorts and no from peer: it allows every endpoint and every address on TCP 80"
    )
    assert f.severity == "high" and f.objects == ("CiliumNetworkPolicy/t/a-port-80",)
    report = audit(analyze_path(AUDIT / "cil003-cilium-unplaceable-peer.yaml"))
    [f] = [f for f in report.findings if f.rule == "CIL003"]
    assert "to FQDN matchName api.example.com, which netpol cannot place: DNS names resolve at run time" in f.message


def test_a_policy_not_evaluated_is_in_every_format() -> None:
    report = audit(analyze_path(AUDIT / "np080-cilium-host-policy.yaml"))
    [f] = [f for f in report.findings if f.rule == "NP080"]
    assert f.objects == ("CiliumClusterwideNetworkPolicy/lock-down-nodes",)
    assert "host policy (nodeSelector)" in f.message
    assert "NP080" in render(report, "txt") and "NP080" in render(report, "md")
    assert any(x["id"] == "NP080" for x in json.loads(render(report, "json"))["findings"])
    sarif = json.loads(render(report, "sarif"))
    assert any(res["ruleId"] == "NP080" for res in sarif["runs"][0]["results"])
