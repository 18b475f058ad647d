"""Artifacts are never silent about what was not evaluated (issue 25 item 4): a policy of a kind netpol does not
evaluate is named, with the pods it may apply to, in audit txt/md/json/SARIF (rule NP080, high) and in the HTML
report; `--fail-on high` fails on it, `--strict` refuses it, `-q` only quiets stderr.

The kinds used stay unevaluated whatever else gets evaluated: Istio's AuthorizationPolicy (security.istio.io;
"If the policy is in the root namespace, the policy applies to all namespaces in a mesh",
istio.io/latest/docs/reference/config/security/authorization-policy/) and OpenShift's EgressNetworkPolicy (one per
project, no selector: every pod of the namespace, docs.openshift.com "Configuring an egress firewall"). One test
walks whatever UNEVALUATED_POLICY_KINDS holds when it runs, so the mechanism is not tied to a kind.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from netpol.loading.kinds import CLUSTER_SCOPED_POLICY_KINDS, UNEVALUATED_POLICY_KINDS
from tests.helpers import namespace, pod, run_cli
from tests.report.page import read_page

AUTHZ = {
    "apiVersion": "security.istio.io/v1",
    "kind": "AuthorizationPolicy",
    "metadata": {"name": "deny-b", "namespace": "shop"},
    "spec": {"selector": {"matchLabels": {"app": "cart"}}, "action": "DENY", "rules": [{}]},
}
EGRESS = {
    "apiVersion": "network.openshift.io/v1",
    "kind": "EgressNetworkPolicy",
    "metadata": {"name": "default", "namespace": "bank"},
    "spec": {"egress": [{"type": "Deny", "to": {"cidrSelector": "0.0.0.0/0"}}]},
}


def cluster(tmp_path: Path, *extra: dict) -> str:
    """shop: cart, cart-2 (app=cart) and web (app=web); bank: teller. No NetworkPolicy at all."""
    docs = [
        namespace("shop"),
        namespace("bank"),
        pod("shop", "cart", {"app": "cart"}),
        pod("shop", "cart-2", {"app": "cart"}),
        pod("shop", "web", {"app": "web"}),
        pod("bank", "teller", {"app": "teller"}),
        *extra,
    ]
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    return str(path)


def findings(stdout: str, rule: str = "NP080") -> list[dict]:
    return [f for f in json.loads(stdout)["findings"] if f["id"] == rule]


def test_audit_txt_names_the_policy_and_the_pods_whose_answers_may_be_wrong(tmp_path: Path) -> None:
    """By hand: the AuthorizationPolicy is namespaced in shop with spec.selector matchLabels app=cart → shop/cart
    and shop/cart-2 (web has app=web). The EgressNetworkPolicy in bank has no selector → every pod of bank:
    bank/teller."""
    r = run_cli("audit", cluster(tmp_path, AUTHZ, EGRESS), "-q")
    assert r.returncode == 0 and r.stderr == ""
    out = r.stdout
    assert (
        "[HIGH] NP080 policy-not-evaluated: AuthorizationPolicy shop/deny-b (security.istio.io/v1) is an Istio "
        "policy, which netpol does not evaluate; it selects 2 pods of namespace shop by spec.selector app=cart "
        "(shop/cart, shop/cart-2): their answers here may be wrong"
    ) in out
    assert (
        "[HIGH] NP080 policy-not-evaluated: EgressNetworkPolicy bank/default (network.openshift.io/v1) is an "
        "OpenShift policy, which netpol does not evaluate; it may apply to every pod of namespace bank (1 running) "
        "(bank/teller): their answers here may be wrong"
    ) in out
    shop = out[out.index("namespace shop:") :]
    assert "  not evaluated: AuthorizationPolicy/shop/deny-b\n  answers may be wrong for: shop/cart, shop/cart-2\n" in (
        shop
    )
    bank = out[out.index("namespace bank:") : out.index("namespace shop:")]
    assert "  not evaluated: EgressNetworkPolicy/bank/default\n  answers may be wrong for: bank/teller\n" in bank


def test_audit_json_md_and_sarif_carry_them(tmp_path: Path) -> None:
    path = cluster(tmp_path, AUTHZ)
    j = run_cli("audit", path, "-o", "json")
    (f,) = findings(j.stdout)
    assert f["severity"] == "high" and f["namespace"] == "shop"
    assert f["objects"] == ["AuthorizationPolicy/shop/deny-b", "Pod/shop/cart", "Pod/shop/cart-2"]
    shop = next(n for n in json.loads(j.stdout)["namespaces"] if n["namespace"] == "shop")
    assert shop["not_evaluated"] == [
        {"policy": "AuthorizationPolicy/shop/deny-b", "pods": ["shop/cart", "shop/cart-2"]}
    ]
    assert shop["answers_may_be_wrong"] == ["shop/cart", "shop/cart-2"]

    md = run_cli("audit", path, "-o", "md").stdout
    assert "| high | NP080 policy-not-evaluated | AuthorizationPolicy shop/deny-b" in md
    assert "not evaluated: AuthorizationPolicy/shop/deny-b<br>answers may be wrong for: shop/cart, shop/cart-2" in md

    run = json.loads(run_cli("audit", path, "-o", "sarif").stdout)["runs"][0]
    rules = {x["id"]: x for x in run["tool"]["driver"]["rules"]}
    assert rules["NP080"]["name"] == "policy-not-evaluated"
    assert rules["NP080"]["defaultConfiguration"]["level"] == "error"
    (res,) = [x for x in run["results"] if x["ruleId"] == "NP080"]
    assert res["level"] == "error" and run["tool"]["driver"]["rules"][res["ruleIndex"]]["id"] == "NP080"
    names = [loc["name"] for loc in res["locations"][0]["logicalLocations"]]
    assert names == ["AuthorizationPolicy/shop/deny-b", "Pod/shop/cart", "Pod/shop/cart-2"]
    assert res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("c.yaml")


def test_fail_on_high_fails_and_quiet_does_not_hide_it(tmp_path: Path) -> None:
    """Before: `audit --fail-on high -q` printed nothing about the skipped policy and exited 0."""
    r = run_cli("audit", cluster(tmp_path, AUTHZ), "--fail-on", "high", "-q")
    assert r.returncode == 1
    assert "NP080" in r.stdout and r.stderr == ""


def test_strict_refuses_them(tmp_path: Path) -> None:
    r = run_cli("audit", cluster(tmp_path, AUTHZ), "--strict")
    assert r.returncode == 2
    assert "AuthorizationPolicy shop/deny-b" in r.stderr and "is an Istio policy" in r.stderr
    assert "(--strict)" in r.stderr and "Traceback" not in r.stderr


def test_a_root_namespace_policy_may_apply_to_every_pod(tmp_path: Path) -> None:
    """Istio's root namespace: the policy reaches every namespace, so every running pod is named."""
    mesh = {**AUTHZ, "metadata": {"name": "mesh-deny", "namespace": "istio-system"}}
    r = run_cli("audit", cluster(tmp_path, namespace("istio-system"), mesh), "-o", "json", "-q")
    (f,) = findings(r.stdout)
    assert "in the mesh's root namespace istio-system, it may apply to possibly every pod (4 running)" in f["message"]
    assert f["objects"][1:] == ["Pod/bank/teller", "Pod/shop/cart", "Pod/shop/cart-2", "Pod/shop/web"]


def test_accepting_it_on_the_object_stops_the_gate(tmp_path: Path) -> None:
    """Acceptance lives on the object (kube-reach.io/accept.NP080 with a reason), as for every rule."""
    accepted = {**AUTHZ, "metadata": {**AUTHZ["metadata"], "annotations": {"kube-reach.io/accept.NP080": "istio"}}}
    r = run_cli("audit", cluster(tmp_path, accepted), "--fail-on", "high", "-o", "json", "-q")
    assert r.returncode == 0, r.stdout
    (f,) = findings(r.stdout)
    assert f["accepted"] == {"by": "AuthorizationPolicy/shop/deny-b", "reason": "istio"}


@pytest.mark.parametrize("kind", sorted(UNEVALUATED_POLICY_KINDS))
def test_every_kind_netpol_does_not_evaluate_gets_a_finding(tmp_path: Path, kind: str) -> None:
    """Whatever UNEVALUATED_POLICY_KINDS holds when this runs: a namespaced one with a standard spec.podSelector
    selects the matching pods of its namespace; a cluster-scoped one may apply to every pod."""
    obj = {
        "apiVersion": "example.io/v1",
        "kind": kind,
        "metadata": {"name": "p"} if kind in CLUSTER_SCOPED_POLICY_KINDS else {"name": "p", "namespace": "shop"},
        "spec": {"podSelector": {"matchLabels": {"app": "web"}}},
    }
    r = run_cli("audit", cluster(tmp_path, obj), "-o", "json", "-q", "--fail-on", "high")
    assert r.returncode == 1
    (f,) = findings(r.stdout)
    if kind in CLUSTER_SCOPED_POLICY_KINDS:
        assert f["objects"][0] == f"{kind}/p" and len(f["objects"]) == 5  # the 4 pods
    else:
        assert f["objects"] == [f"{kind}/shop/p", "Pod/shop/web"]
    engine = UNEVALUATED_POLICY_KINDS[kind]
    assert f" is {'an' if engine[0] in 'AEIOU' else 'a'} {engine} policy" in f["message"]


@pytest.mark.parametrize(
    ("api", "said"),
    [("extensions/v1beta1", "is an extensions policy"), ("crd.antrea.io/v1beta1", "is an Antrea policy")],
)
def test_the_warning_uses_a_or_an_as_said(tmp_path: Path, api: str, said: str) -> None:
    """Was "is a extensions policy": one a/an helper (netpol.english.article)."""
    pol = {"apiVersion": api, "kind": "NetworkPolicy", "metadata": {"name": "x", "namespace": "shop"}, "spec": {}}
    r = run_cli("audit", cluster(tmp_path, pol))
    assert said in r.stderr


def test_the_html_report_lists_them_and_marks_the_pods(tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    r = run_cli("report", cluster(tmp_path, AUTHZ), "-O", str(out), "-q")
    assert r.returncode == 0, r.stderr
    page = read_page(out.read_text(encoding="utf-8"))
    keys = page.pod_keys()
    (u,) = page.data["unevaluated"]
    assert u["policy"] == "AuthorizationPolicy/shop/deny-b"
    assert sorted(keys[i] for i in u["pods"]) == ["shop/cart", "shop/cart-2"]
    assert page.data["counts"]["unevaluated"] == 1
    assert any(f["id"] == "NP080" for f in page.data["findings"])
