"""Issue 24 on third-party apps: npg-acs-security-demos' two OpenShift Routes are doors with the verdicts its
StackRox-generated policies give (derived by hand below), online-boutique's LoadBalancer reaches its frontend,
and `netpol exposure` answers every real app without a crash."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import run_cli

ROOT = Path(__file__).resolve().parents[2]
REAL_APPS = ROOT / "tests" / "data" / "real-apps"
ACS = REAL_APPS / "npg-acs-security-demos"
ROUTER = "[the OpenShift default router: an unknown in-cluster proxy]"


def exposure(path: Path, *args: str) -> dict:
    out = run_cli("exposure", str(path), "-o", "json", "-q", *args)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_acs_routes_are_doors_through_the_router_with_the_verdicts_its_policies_give() -> None:
    """frontend/asset-cache/route.yaml and frontend/webapp/route.yaml: Routes (route.openshift.io/v1, no tls:
    HTTP 80 on the router) to asset-cache-service and webapp-service with port.targetPort `http`, the name of
    each Service's only port (8080 → targetPort 8080). Derived by hand from acs_netpols.yaml:
    - the router is not in the input: its stand-in is a pod of openshift-ingress labelled as OpenShift's router
      (openshift/api route/v1; OpenShift docs "About network policy"); no policy of the input selects it, so
      its egress is not isolated and its ingress admits every client (the app has no ipBlock: one IPv4 atom);
    - asset-cache is isolated by asset-cache-netpol and default-deny-in-namespace-frontend; asset-cache-netpol's
      ingress rule #1 admits `namespaceSelector: {}` (every pod of every namespace, the router's included) on
      TCP 8080, so the router reaches asset-cache:8080 (the rule that decides: asset-cache-netpol ingress rule #1);
    - webapp likewise through webapp-netpol's ingress rule #1 (`namespaceSelector: {}`, TCP 8080).
    netpol-analyzer reports the same two connections from its `{ingress-controller}` for this app
    (np-guard/netpol-analyzer test_outputs/connlist/acs-security-demos_exposure_output.txt)."""
    doc = exposure(ACS)
    got = {
        (p["door"]["kind"], p["door"]["object"], p["door"]["entry"], p["proxy"], p["service"], p["service_port"],
         p["pod"].rsplit("-", 2)[0], p["target"], p["verdict"])
        for p in doc["paths"]
    }  # fmt: skip
    assert got == {
        ("Route", "Route frontend/asset-cache", "HTTP 80", ROUTER, "frontend/asset-cache-service", 8080,
         "frontend/asset-cache", "TCP 8080", "allowed"),
        ("Route", "Route frontend/webapp", "HTTP 80", ROUTER, "frontend/webapp-service", 8080,
         "frontend/webapp", "TCP 8080", "allowed"),
    }  # fmt: skip
    rules = {p["door"]["object"]: [(h["egress_rules"], h["ingress_rules"]) for h in p["hops"]] for p in doc["paths"]}
    assert rules["Route frontend/asset-cache"] == [
        (["outside the cluster: no policy of it filters there"], ["not isolated"]),
        (["not isolated"], ["frontend/asset-cache-netpol ingress rule #1 (TCP 8080)"]),
    ]
    assert rules["Route frontend/webapp"][1] == (
        ["not isolated"],
        ["frontend/webapp-netpol ingress rule #1 (TCP 8080)"],
    )
    assert all(p["hops"][0]["admitted"] == ["0.0.0.0-255.255.255.255"] for p in doc["paths"])
    [router] = doc["proxies"]
    assert (router["key"], router["in_input"], router["unknown"]) == ("openshift-router", False, True)
    assert router["assumed"] == "the OpenShift default router"


def test_acs_beyond_the_input_is_netpol_analyzers_exposure() -> None:
    """netpol-analyzer's exposure for this app (test_outputs/connlist/acs-security-demos_exposure_output.txt):
    asset-cache and webapp admit the entire cluster on TCP 8080 (`namespaceSelector: {}`); checkout,
    recommendation, reports, webapp and gateway reach the entire cluster on UDP 5353 (egress `namespaceSelector:
    {}`). Every other peer of the policies names a namespace of the input by kubernetes.io/metadata.name or a
    pod of the policy's namespace that exists."""
    got = {
        (b["pod"].rsplit("-", 2)[0], b["direction"], b["peer"], b["text"])
        for b in exposure(ACS)["beyond"]
        if b["isolated"]
    }
    everywhere = "any pod in any namespace (the whole cluster)"
    assert got == {
        ("frontend/asset-cache", "ingress", everywhere, "TCP 8080"),
        ("frontend/webapp", "ingress", everywhere, "TCP 8080"),
        ("backend/checkout", "egress", everywhere, "UDP 5353"),
        ("backend/recommendation", "egress", everywhere, "UDP 5353"),
        ("backend/reports", "egress", everywhere, "UDP 5353"),
        ("frontend/webapp", "egress", everywhere, "UDP 5353"),
        ("payments/gateway", "egress", everywhere, "UDP 5353"),
    }


def test_online_boutique_load_balancer_reaches_the_frontend() -> None:
    """kubernetes-manifests.yaml: Service frontend-external, type LoadBalancer (externalTrafficPolicy unset:
    Cluster; nodePorts allocated), port 80 → targetPort 8080 of app=frontend. network-policy-frontend.yaml's
    `ingress: [{}]` admits every source, so with the clients kept every address gets through, by that rule."""
    doc = exposure(REAL_APPS / "online-boutique", "--cluster-traffic-source", "client")
    got = {(p["door"]["kind"], p["door"]["entry"], p["target"], p["verdict"]) for p in doc["paths"]}
    assert got == {
        ("LoadBalancer", "port 80", "TCP 8080", "allowed"),
        ("NodePort", "an allocated nodePort", "TCP 8080", "allowed"),
    }
    for p in doc["paths"]:
        assert p["hops"][0]["ingress_rules"] == ["default/frontend ingress rule #1 (TCP 8080)"]
        assert p["hops"][0]["admitted"] == ["0.0.0.0-255.255.255.255"]


@pytest.mark.parametrize("app", sorted(p.name for p in REAL_APPS.iterdir() if p.is_dir()))
def test_exposure_answers_every_real_app(app: str) -> None:
    for fmt in ("txt", "md", "json"):
        out = run_cli("exposure", str(REAL_APPS / app), "-q", "-o", fmt)
        assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
