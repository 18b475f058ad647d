"""Issue 24: the doors are read as strictly as every kind. Ingress and IngressClass (networking.k8s.io/v1), the Gateway
API kinds (gateway.networking.k8s.io) and OpenShift's Route are modelled, no longer counted as ignored; the
fields deciding where traffic goes are validated as the API server or the CRD schema validates them, an error
naming the file, the object and the field (exit 2); unknown fields elsewhere are warnings; a kind of that name
from another API is named in a warning, never read as ours."""

from __future__ import annotations

import pytest

from netpol.errors import InputError
from netpol.manifests import load_text
from tests.helpers import run_cli

INGRESS = """
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: site, namespace: web}
spec:
  ingressClassName: nginx
  rules:
  - host: a.example.com
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: front, port: {number: 80}}}}
"""
GATEWAY = """
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: eg
  listeners: [{name: http, port: 80, protocol: HTTP}]
"""
HTTPROUTE = """
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: web}
spec:
  parentRefs: [{name: gw, namespace: infra}]
  rules: [{backendRefs: [{name: front, port: 80}]}]
"""
ROUTE = """
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: rt, namespace: web}
spec: {to: {kind: Service, name: front}, port: {targetPort: http}}
"""


def test_doors_are_read_not_counted_as_ignored() -> None:
    cluster = load_text("---".join((INGRESS, GATEWAY, HTTPROUTE, ROUTE)))
    assert [i.key for i in cluster.ingresses] == ["web/site"]
    assert [g.key for g in cluster.gateways] == ["infra/gw"]
    assert [(r.kind, r.key) for r in cluster.gateway_routes] == [("HTTPRoute", "web/r")]
    assert [r.key for r in cluster.routes] == ["web/rt"]
    assert not any(w.code == "ignored-kinds" for w in cluster.warnings)


@pytest.mark.parametrize(
    ("doc", "old", "new", "field", "words"),
    [
        # pkg/apis/networking/validation: a backend is a Service or a resource, a port a name or a number
        (INGRESS, "port: {number: 80}", "port: {number: 80, name: http}", "backend.service.port", "cannot set both"),
        (INGRESS, "port: {number: 80}", "port: {}", "backend.service.port", "port name or number is required"),
        (INGRESS, "port: {number: 80}", "port: {number: 0}", "port.number", "between 1 and 65535"),
        (INGRESS, "pathType: Prefix", "pathType: Regex", "pathType", 'Unsupported value: "Regex"'),
        (INGRESS, "path: /,", "path: a,", ".path", "must be an absolute path"),
        (INGRESS, "{service: {name: front", "{servce: {name: front", "backend", 'unknown field "spec.rules[0]'),
        # gateway-api apis/v1 gateway_types.go: port 1-65535, a protocol, unique listener names
        (GATEWAY, "port: 80", "port: 0", "listeners[0].port", "between 1 and 65535"),
        (GATEWAY, ", protocol: HTTP", "", "listeners[0].protocol", "Required value"),
        (
            GATEWAY,
            "protocol: HTTP}",
            "protocol: HTTP, allowedRoutes: {namespaces: {from: Some}}}",
            "from",
            "Unsupported value",
        ),
        (
            GATEWAY,
            "protocol: HTTP}",
            "protocol: HTTP, allowedRoutes: {namespaces: {from: Selector}}}",
            "selector",
            "Required",
        ),
        # a Service backendRef needs a port (CEL on BackendRef); weights 0-1,000,000
        (HTTPROUTE, "port: 80}", "}", "backendRefs[0].port", "a Service backend needs a port"),
        (HTTPROUTE, "port: 80}", "port: 80, weight: -1}", "weight", "between 0 and 1000000"),
        (
            HTTPROUTE,
            "port: 80}",
            "port: 80, prot: 1}",
            "backendRefs[0]",
            'unknown field "spec.rules[0].backendRefs[0].prot"',
        ),
        # openshift/api route/v1: only Service targets, weights 0-256
        (ROUTE, "kind: Service", "kind: Deployment", "spec.to.kind", 'Unsupported value: "Deployment"'),
        (ROUTE, "name: front}", "name: front, weight: 300}", "spec.to.weight", "between 0 and 256"),
    ],
)
def test_a_field_that_decides_the_path_is_an_error_naming_it(
    doc: str, old: str, new: str, field: str, words: str
) -> None:
    assert old in doc
    with pytest.raises(InputError) as err:
        load_text(doc.replace(old, new, 1), "doors.yaml")
    text = str(err.value)
    assert "doors.yaml, document 1" in text and field in text and words in text, text


def test_an_unknown_field_outside_the_deciding_parts_is_a_warning() -> None:
    """kubectl's strict field validation (KEP-2885), as for every kind: a warning, an error under --strict."""
    doc = HTTPROUTE.replace("rules: [{backendRefs", "rules: [{matches: [{pth: {value: /}}], backendRefs")
    cluster = load_text(doc)
    assert any('unknown field "spec.rules[0].matches[0].pth"' in w.message for w in cluster.warnings)


def test_a_kind_of_that_name_from_another_api_is_warned_about_not_read() -> None:
    """Istio's networking.istio.io Gateway and the removed extensions/v1beta1 Ingress are other APIs."""
    istio = "apiVersion: networking.istio.io/v1beta1\nkind: Gateway\nmetadata: {name: g, namespace: web}\nspec: {}\n"
    old = INGRESS.replace("networking.k8s.io/v1", "extensions/v1beta1")
    cluster = load_text(istio + "---" + old)
    assert cluster.gateways == () and cluster.ingresses == ()
    messages = [w.message for w in cluster.warnings if w.code == "skipped-kind"]
    assert any("Gateway of apiVersion networking.istio.io/v1beta1 is not modelled" in m for m in messages)
    assert any("Ingress of apiVersion extensions/v1beta1 is not modelled" in m for m in messages)


def test_service_fields_of_a_door() -> None:
    """core/v1 ServiceSpec: externalTrafficPolicy Cluster (default) or Local, only on externally-accessible
    Services (validateServiceExternalTrafficPolicy); loadBalancerSourceRanges are CIDRs, or the older annotation."""
    svc = """
apiVersion: v1
kind: Service
metadata: {name: s, namespace: web, annotations: {service.beta.kubernetes.io/load-balancer-source-ranges: "10.0.0.0/8, 192.0.2.0/24"}}
spec: {type: LoadBalancer, externalTrafficPolicy: Local, selector: {app: s}, ports: [{port: 80}]}
"""
    [s] = load_text(svc).services
    assert s.external_traffic_policy == "Local"
    assert s.load_balancer_source_ranges == ("10.0.0.0/8", "192.0.2.0/24")
    with pytest.raises(InputError, match="may only be set for externally-accessible services"):
        load_text(svc.replace("type: LoadBalancer, ", ""))
    with pytest.raises(InputError, match="must be a valid CIDR"):
        load_text(svc.replace('"10.0.0.0/8, 192.0.2.0/24"', '"ten"'))


def test_a_bad_door_exits_2_without_a_traceback(tmp_path) -> None:  # noqa: ANN001
    (tmp_path / "r.yaml").write_text(HTTPROUTE.replace("port: 80}", "}"))
    out = run_cli("exposure", str(tmp_path))
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "HTTPRoute web/r" in out.stderr and "spec.rules[0].backendRefs[0].port" in out.stderr
