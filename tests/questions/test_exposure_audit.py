"""Issue 24's audit findings on samples/exposure, in text and in SARIF (validated by the OASIS SARIF 2.1.0 schema,
as tests/questions/test_audit_gating.py validates every audit): NP090 exposed to the internet (graded by door and
port), NP091 door with no reachable backend, NP092 exposed to unknown namespaces; accepted on the door object."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest

from tests.helpers import run_cli

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "samples" / "exposure"
SCHEMAS = ROOT / "tests" / "data" / "schemas"

# (rule, severity, the door or namespace it is about), derived by hand from the paths of
# tests/questions/test_exposure_sample.py and the grades of netpol/audit/rules.py:
# - a Service door or a TCP/UDP/TLS listener forwards to the pod's port: `direct` (high), `direct-web` when
#   that port (the Service port; the listener's port) is 80 or 443 (medium); one level lower when only some
#   clients or nodes get through (restricted);
# - an Ingress, a Route or an HTTP/HTTPS listener's routes go through an HTTP proxy: `proxied` (low).
EXPECTED = {
    # restricted, Service port 80: direct-web-restricted
    ("NP090", "low", "LoadBalancer Service shop/frontend (port 80)"),
    ("NP090", "low", "NodePort Service shop/frontend (nodePort 30080)"),
    # allowed from every node, Service port 9090: direct
    ("NP090", "high", "NodePort Service shop/legacy (nodePort 30090)"),
    # only through its own node, Service port 443: direct-web-restricted
    ("NP090", "low", "ExternalIP Service shop/admin (externalIPs 198.51.100.7 port 443)"),
    # the controller's own LoadBalancer on 80 and 443, every client: direct-web
    ("NP090", "medium", "LoadBalancer Service ingress-nginx/ingress-nginx-controller (port 80)"),
    ("NP090", "medium", "LoadBalancer Service ingress-nginx/ingress-nginx-controller (port 443)"),
    # through ingress-nginx to api (admin is blocked, api is not): proxied
    ("NP090", "low", "Ingress shop/site (HTTP 80)"),
    ("NP090", "low", "Ingress shop/site (HTTPS 443)"),
    # the router, and the Gateway's HTTP listener: proxied
    ("NP090", "low", "Route apps/web (HTTP 80)"),
    ("NP090", "low", "HTTPRoute apps/web-route (Gateway infra/gw listener http (HTTP 80))"),
    ("NP090", "low", "GRPCRoute apps/grpc-route (Gateway infra/gw listener http (HTTP 80))"),
    # TCP 5432 and UDP 53 listeners, every client: direct
    ("NP090", "high", "TCPRoute data/pg-route (Gateway infra/gw listener postgres (TCP 5432))"),
    ("NP090", "high", "UDPRoute infra/dns-route (Gateway infra/gw listener dns (UDP 53))"),
    # every path blocked (the unknown proxy) or not routed (a refused reference, no listener): medium
    ("NP091", "medium", "Ingress apps/legacy-ingress (HTTP 80)"),
    ("NP091", "medium", "TLSRoute infra/tls-route (Gateway infra/gw listener tls (TLS 8443))"),
    ("NP091", "medium", "HTTPRoute shop/orphan (parentRef Gateway infra/gw/postgres)"),
    # web-from-gateway rule #2 admits namespaces labelled policy-group.network.openshift.io/ingress: labelled
    ("NP092", "low", "apps/web"),
}


def findings(*args: str) -> list[dict]:
    out = run_cli("audit", str(SAMPLE), "-o", "json", "--no-redundancy", *args)
    assert out.returncode == 0, out.stderr
    return [f for f in json.loads(out.stdout)["findings"] if f["id"] in ("NP090", "NP091", "NP092")]


def test_the_exposure_findings_and_their_severities() -> None:
    got = {
        (f["id"], f["severity"], f["message"].split(" exposes ")[0].split(" reaches no pod")[0].split(" admits ")[0])
        for f in findings()
    }
    assert got == EXPECTED


def test_text_audit_shows_the_exposure_findings() -> None:
    out = run_cli("audit", str(SAMPLE), "--no-redundancy", "--fail-on", "high")
    assert out.returncode == 1  # NP090 high: the postgres and DNS listeners, the legacy NodePort
    assert (
        "[HIGH] NP090 exposed-to-internet: TCPRoute data/pg-route (Gateway infra/gw listener postgres (TCP 5432)) "
        "exposes data/postgres (TCP 5432) to the internet through infra/gw-proxy"
    ) in out.stdout
    assert (
        "[MEDIUM] NP091 door-without-reachable-backend: Ingress apps/legacy-ingress (HTTP 80) reaches no pod"
        in out.stdout
    )
    assert (
        "[LOW] NP092 exposed-to-unknown-namespaces: apps/web admits any pod in namespaces labelled "
        "policy-group.network.openshift.io/ingress=, not in the input, on TCP 8080"
    ) in out.stdout
    quiet = run_cli("audit", str(SAMPLE), "--no-redundancy", "--no-exposure")
    assert "NP08" not in quiet.stdout


@pytest.fixture(scope="module")
def sarif_validator() -> jsonschema.protocols.Validator:
    schema = json.loads((SCHEMAS / "sarif-schema-2.1.0.json").read_text())
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def test_sarif_of_the_exposure_findings_is_valid_and_points_at_the_door(sarif_validator) -> None:  # noqa: ANN001
    out = run_cli("audit", str(SAMPLE), "--no-redundancy", "-o", "sarif")
    doc = json.loads(out.stdout)
    assert not sorted(sarif_validator.iter_errors(doc), key=str)
    run = doc["runs"][0]
    rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
    assert rules["NP090"]["properties"]["security-severity"] == "8.0"  # its highest grade
    [pg] = [r for r in run["results"] if r["ruleId"] == "NP090" and "pg-route" in r["message"]["text"]]
    assert pg["level"] == "error"
    where = pg["locations"][0]["physicalLocation"]
    assert where["artifactLocation"]["uri"].endswith("samples/exposure/data.yaml")
    lines = (SAMPLE / "data.yaml").read_text().splitlines()
    assert lines[where["region"]["startLine"] - 1] == "metadata: {name: pg-route, namespace: data}"
    assert {r["ruleId"] for r in run["results"]} >= {"NP090", "NP091", "NP092"}


def test_a_public_door_is_accepted_on_the_door_object(tmp_path: Path, sarif_validator) -> None:  # noqa: ANN001
    """README "Accepting a finding on one object": kube-reach.io/accept.NP090 on the Service itself."""
    copy = tmp_path / "exposure"
    shutil.copytree(SAMPLE, copy)
    shop = copy / "shop.yaml"
    shop.write_text(
        shop.read_text().replace(
            "metadata: {name: legacy, namespace: shop}\nspec:\n  type: NodePort",
            'metadata: {name: legacy, namespace: shop, annotations: {kube-reach.io/accept.NP090: "partners, reviewed"}}\n'
            "spec:\n  type: NodePort",
        )
    )
    out = run_cli("audit", str(copy), "--no-redundancy", "-o", "json")
    [legacy] = [f for f in json.loads(out.stdout)["findings"] if f["id"] == "NP090" and "shop/legacy" in f["message"]]
    assert legacy["accepted"] == {"by": "Service/shop/legacy", "reason": "partners, reviewed"}
    sarif = json.loads(run_cli("audit", str(copy), "--no-redundancy", "-o", "sarif").stdout)
    assert not list(sarif_validator.iter_errors(sarif))
    assert any(r.get("suppressions") and "shop/legacy" in r["message"]["text"] for r in sarif["runs"][0]["results"])
