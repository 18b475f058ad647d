"""Issue 24 on samples/exposure: every path from outside the cluster, its verdict and the rules deciding each hop,
derived by hand from the manifests (the derivation is in the comments), through `netpol exposure` as a subprocess.

Upstream semantics these verdicts rest on:
- Service doors: kubernetes.io/docs/concepts/services-networking/service ("type: LoadBalancer",
  "type: NodePort", "External IPs", "Traffic policies"): a LoadBalancer also opens its nodePorts unless
  allocateLoadBalancerNodePorts is false; loadBalancerSourceRanges restrict the load balancer's clients;
  externalTrafficPolicy Local keeps the client address, Cluster masquerades it as the forwarding node
  (kubernetes.io/docs/tutorials/services/source-ip).
- NetworkPolicy: traffic from a pod's own node is always allowed (concepts/services-networking/network-policies);
  policies see the pod's targetPort after DNAT, never the Service port or the nodePort.
- Ingress (concepts/services-networking/ingress): HTTP 80, HTTPS 443 for spec.tls, through the IngressClass's
  controller (ingress-nginx's pods as its deploy manifests label them).
- Gateway API (gateway-api apis/v1 gateway_types.go AllowedRoutes, shared_types.go ParentReference,
  referencegrant_types.go): a route attaches to a listener its parentRef names, whose allowedRoutes admit its
  kind (by protocol when unset) and namespace; a backend in another namespace needs a ReferenceGrant there;
  the Gateway's pods carry GEP-1762's gateway.networking.k8s.io/gateway-name label.
- OpenShift Route (openshift/api route/v1 types.go): port.targetPort names the pods' port; the router's pods and
  their namespace's policy-group labels (OpenShift docs, "About network policy").

IP atoms of the sample: its ipBlocks are 203.0.113.0/25 (shop/frontend-from-clients) and 192.168.1.0/24
(shop/legacy-from-nodes), so the IPv4 space is cut into 0.0.0.0-192.168.0.255, 192.168.1.0-192.168.1.255,
192.168.2.0-203.0.112.255, 203.0.113.0-203.0.113.127 and 203.0.113.128-255.255.255.255; no IPv6 address is
involved, so the clients' ::/0 overlaps no atom.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import run_cli

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "samples" / "exposure"
EVERYONE = ["0.0.0.0-255.255.255.255"]

# (door object, door entry, backend pod) → (verdict, proxy, target, the entry hop's admitted and refused
# sources). Default assumption: --cluster-traffic-source node.
NODE = {
    # LoadBalancer shop/frontend, Local, loadBalancerSourceRanges 203.0.113.0/24: the clients are
    # 203.0.113.0-203.0.113.255, split by the atoms at .128; frontend-from-clients admits 203.0.113.0/25 on
    # TCP 8080 (the targetPort `http`), so the first half gets through, the second does not.
    ("Service shop/frontend", "port 80", "shop/frontend"): (
        "restricted",
        None,
        "TCP 8080",
        ["203.0.113.0-203.0.113.127"],
        ["203.0.113.128-203.0.113.255"],
    ),
    # its nodePort 30080 (allocateLoadBalancerNodePorts unset: true) takes every client, still Local.
    ("Service shop/frontend", "nodePort 30080", "shop/frontend"): (
        "restricted",
        None,
        "TCP 8080",
        ["203.0.113.0-203.0.113.127"],
        ["0.0.0.0-203.0.112.255", "203.0.113.128-255.255.255.255"],
    ),
    # NodePort shop/legacy, Cluster: the sources are the nodes. legacy runs on node-b (its own node: always
    # allowed); node-a's 192.168.1.10 is in legacy-from-nodes' 192.168.1.0/24: every node gets through.
    ("Service shop/legacy", "nodePort 30090", "shop/legacy"): (
        "allowed",
        None,
        "TCP 9090",
        ["node node-b (its own node: always allowed)", "node node-a (192.168.1.10)"],
        [],
    ),
    # externalIPs of shop/admin, Cluster: admin runs on node-a (always allowed); node-b's 192.168.1.11 is no
    # pod labelled role=ops in shop (admin-from-ops' only peer): refused. Reachable only through its own node.
    ("Service shop/admin", "externalIPs 198.51.100.7 port 443", "shop/admin"): (
        "restricted",
        None,
        "TCP 8443",
        ["node node-a (its own node: always allowed)"],
        ["node node-b (192.168.1.11)"],
    ),
    # ingress-nginx's own LoadBalancer (Local, no nodePorts): the controller pod is isolated by no policy.
    ("Service ingress-nginx/ingress-nginx-controller", "port 80", "ingress-nginx/ingress-nginx-controller"): (
        "allowed",
        None,
        "TCP 80",
        EVERYONE,
        [],
    ),
    ("Service ingress-nginx/ingress-nginx-controller", "port 443", "ingress-nginx/ingress-nginx-controller"): (
        "allowed",
        None,
        "TCP 443",
        EVERYONE,
        [],
    ),
    # Ingress shop/site (class nginx → k8s.io/ingress-nginx → the controller pod, found by its labels), HTTP 80
    # and HTTPS 443 (spec.tls). The controller is reached through its Local LoadBalancer (port 80 → http = 80,
    # 443 → https = 443) from everyone; it reaches api (api-from-ingress admits ingress-nginx's pods on 8080)
    # but not admin (only pods labelled role=ops of shop).
    ("Ingress shop/site", "HTTP 80", "shop/api"): (
        "allowed",
        "ingress-nginx/ingress-nginx-controller",
        "TCP 8080",
        EVERYONE,
        [],
    ),
    ("Ingress shop/site", "HTTPS 443", "shop/api"): (
        "allowed",
        "ingress-nginx/ingress-nginx-controller",
        "TCP 8080",
        EVERYONE,
        [],
    ),
    ("Ingress shop/site", "HTTP 80", "shop/admin"): (
        "blocked",
        "ingress-nginx/ingress-nginx-controller",
        "TCP 8443",
        EVERYONE,
        [],
    ),
    ("Ingress shop/site", "HTTPS 443", "shop/admin"): (
        "blocked",
        "ingress-nginx/ingress-nginx-controller",
        "TCP 8443",
        EVERYONE,
        [],
    ),
    # Ingress apps/legacy-ingress, class traefik (traefik.io/ingress-controller): no convention, so an unknown
    # in-cluster proxy, a pod with no labels in a namespace the input lacks. web-from-gateway admits the
    # Gateway's pods and namespaces labelled policy-group.network.openshift.io/ingress: neither. Blocked.
    ("Ingress apps/legacy-ingress", "HTTP 80", "apps/web"): (
        "blocked",
        "[IngressClass traefik (traefik.io/ingress-controller): an unknown in-cluster proxy]",
        "TCP 8080",
        EVERYONE,
        [],
    ),
    # OpenShift Route apps/web: targetPort 8080 is the targetPort of Service web's port 80. The router is not
    # in the input: its stand-in runs in openshift-ingress, labelled as OpenShift labels it, which
    # web-from-gateway's rule #2 admits.
    ("Route apps/web", "HTTP 80", "apps/web"): (
        "allowed",
        "[the OpenShift default router: an unknown in-cluster proxy]",
        "TCP 8080",
        EVERYONE,
        [],
    ),
    # Gateway infra/gw (class gw-class: a controller with no convention of its own, so GEP-1762's label):
    # infra/gw-proxy, in the input, isolated by nothing, with no Service of its own (clients kept).
    # HTTPRoute apps/web-route: parentRef sectionName http; listener http admits All namespaces and (HTTP)
    # HTTPRoute; web-from-gateway rule #1 admits the Gateway's pods on 8080.
    ("HTTPRoute apps/web-route", "Gateway infra/gw listener http (HTTP 80)", "apps/web"): (
        "allowed",
        "infra/gw-proxy",
        "TCP 8080",
        EVERYONE,
        [],
    ),
    # GRPCRoute apps/grpc-route: no sectionName; of the four listeners only http (HTTP) admits GRPCRoute.
    # grpc is isolated by nothing.
    ("GRPCRoute apps/grpc-route", "Gateway infra/gw listener http (HTTP 80)", "apps/grpc"): (
        "allowed",
        "infra/gw-proxy",
        "TCP 50051",
        EVERYONE,
        [],
    ),
    # TCPRoute data/pg-route on listener postgres (from Selector gateway-access=true: data carries it);
    # postgres-from-gateway admits the Gateway's pods on 5432 through data's default deny.
    ("TCPRoute data/pg-route", "Gateway infra/gw listener postgres (TCP 5432)", "data/postgres"): (
        "allowed",
        "infra/gw-proxy",
        "TCP 5432",
        EVERYONE,
        [],
    ),
    # UDPRoute infra/dns-route on listener dns; its backend data/dns is granted by data/allow-infra-udp
    # (from UDPRoute in infra, to every Service); dns-from-gateway admits UDP 53.
    ("UDPRoute infra/dns-route", "Gateway infra/gw listener dns (UDP 53)", "data/dns"): (
        "allowed",
        "infra/gw-proxy",
        "UDP 53",
        EVERYONE,
        [],
    ),
}
# Doors that forward nothing: (door object, entry) → why (a substring of the path's problem).
NOT_ROUTED = {
    # TLSRoute infra/tls-route attaches to listener tls (hostname *.example.com covers admin.example.com), but
    # its backend Service shop/admin is in shop, where no ReferenceGrant trusts TLSRoutes of infra.
    ("TLSRoute infra/tls-route", "Gateway infra/gw listener tls (TLS 8443)"): "no ReferenceGrant in namespace shop",
    # HTTPRoute shop/orphan names listener postgres, which admits TCPRoute only.
    ("HTTPRoute shop/orphan", "parentRef Gateway infra/gw/postgres"): "postgres: admits TCPRoute, not HTTPRoute",
}
# With --cluster-traffic-source client, the Cluster-policy doors are judged from the clients instead of the
# nodes; every other path is the same.
CLIENT = {
    **NODE,
    # legacy-from-nodes admits only 192.168.1.0/24 of all clients.
    ("Service shop/legacy", "nodePort 30090", "shop/legacy"): (
        "restricted",
        None,
        "TCP 9090",
        ["192.168.1.0-192.168.1.255"],
        ["0.0.0.0-192.168.0.255", "192.168.2.0-255.255.255.255"],
    ),
    # admin-from-ops admits no address at all.
    ("Service shop/admin", "externalIPs 198.51.100.7 port 443", "shop/admin"): (
        "blocked",
        None,
        "TCP 8443",
        [],
        EVERYONE,
    ),
}


def exposure(*args: str) -> dict:
    out = run_cli("exposure", str(SAMPLE), "-o", "json", *args)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def table(doc: dict) -> tuple[dict, dict]:
    routed, not_routed = {}, {}
    for p in doc["paths"]:
        door = p["door"]
        if p["verdict"] == "not-routed":
            not_routed[(door["object"], door["entry"])] = p["problem"]
            continue
        entry = p["hops"][0]
        routed[(door["object"], door["entry"], p["pod"])] = (
            p["verdict"],
            p["proxy"],
            p["target"],
            entry["admitted"],
            entry["refused"],
        )
    return routed, not_routed


@pytest.mark.parametrize(("assumption", "expected"), [("node", NODE), ("client", CLIENT)])
def test_every_path_and_verdict_matches_the_table_derived_by_hand(assumption: str, expected: dict) -> None:
    routed, not_routed = table(exposure("--cluster-traffic-source", assumption))
    assert routed == expected
    assert set(not_routed) == set(NOT_ROUTED)
    for key, why in NOT_ROUTED.items():
        assert why in not_routed[key]


def hop_rules(doc: dict, obj: str, entry: str, pod: str) -> list[tuple[list[str], list[str]]]:
    [p] = [p for p in doc["paths"] if p["door"]["object"] == obj and p["door"]["entry"] == entry and p["pod"] == pod]
    return [(h["egress_rules"], h["ingress_rules"]) for h in p["hops"]]


def test_each_hop_names_the_rules_that_decide_it() -> None:
    doc = exposure()
    # the Route's second hop is admitted by web-from-gateway's rule #2 (the router's namespace labels), the
    # HTTPRoute's by rule #1 (the Gateway's pods): the engine's provenance, not a match redone here
    route = hop_rules(doc, "Route apps/web", "HTTP 80", "apps/web")
    assert route[1] == (["not isolated"], ["apps/web-from-gateway ingress rule #2 (TCP 8080)"])
    http = hop_rules(doc, "HTTPRoute apps/web-route", "Gateway infra/gw listener http (HTTP 80)", "apps/web")
    assert http == [
        (["outside the cluster: no policy of it filters there"], ["not isolated"]),
        (["not isolated"], ["apps/web-from-gateway ingress rule #1 (TCP 8080)"]),
    ]
    # a blocked hop says which policies isolate and that none of their rules admits it
    blocked = hop_rules(doc, "Ingress shop/site", "HTTP 80", "shop/admin")
    assert blocked[1] == (["not isolated"], ["isolated by shop/admin-from-ops: no rule admits it"])
    # the client hop of the restricted LoadBalancer is decided by the ipBlock rule
    [lb] = hop_rules(doc, "Service shop/frontend", "port 80", "shop/frontend")
    assert lb[1] == ["shop/frontend-from-clients ingress rule #1 (TCP 8080)"]
    # from the nodes: the own node's exception, then the rule admitting the other node's address
    [nodes] = hop_rules(doc, "Service shop/legacy", "nodePort 30090", "shop/legacy")
    assert nodes[1] == [
        "traffic from a pod's own node is always allowed",
        "shop/legacy-from-nodes ingress rule #1 (TCP 9090)",
    ]


def test_each_path_says_which_source_address_it_assumed() -> None:
    sources = {(p["door"]["object"], p["door"]["entry"]): p["source"] for p in exposure()["paths"] if p["source"]}
    assert "node addresses (externalTrafficPolicy Cluster" in sources[("Service shop/legacy", "nodePort 30090")]
    assert "client addresses (externalTrafficPolicy Local" in sources[("Service shop/frontend", "port 80")]
    assert sources[("Ingress shop/site", "HTTP 80")].startswith(
        "Service ingress-nginx/ingress-nginx-controller: client"
    )
    client = {
        (p["door"]["object"], p["door"]["entry"]): p["source"]
        for p in exposure("--cluster-traffic-source", "client")["paths"]
        if p["source"]
    }
    assert "assumed kept: --cluster-traffic-source client" in client[("Service shop/legacy", "nodePort 30090")]


def test_proxies_say_whether_they_are_in_the_input_and_how_they_were_found() -> None:
    """A proxy whose pods the input lacks is an unknown in-cluster proxy, asked about with its project's
    identity when its controller has a convention (the OpenShift router), with none when not (traefik)."""
    proxies = {p["key"]: p for p in exposure()["proxies"]}
    assert proxies["ingressclass/nginx"]["pods"] == ["ingress-nginx/ingress-nginx-controller"]
    assert proxies["gateway/infra/gw"]["pods"] == ["infra/gw-proxy"]
    assert not proxies["gateway/infra/gw"]["unknown"]
    router, traefik = proxies["openshift-router"], proxies["ingressclass/traefik"]
    assert (router["in_input"], router["unknown"], router["assumed"]) == (False, True, "the OpenShift default router")
    assert (traefik["in_input"], traefik["unknown"], traefik["assumed"]) == (False, True, None)
    assert "no known convention for controller traefik.io/ingress-controller" in traefik["how"]


def test_beyond_the_input_lists_what_isolated_pods_admit_that_the_input_lacks() -> None:
    """np-guard/netpol-analyzer docs/exposure_analysis.md: a rule whose selectors match pods or namespaces the
    input does not contain exposes its pods to them. Derived by hand: web-from-gateway rule #2 admits namespaces
    labelled policy-group.network.openshift.io/ingress (none in the input) on 8080; admin-from-ops admits pods
    labelled role=ops of shop (none in the input) on 8443; every other peer selector matches a pod of the input
    (api-from-ingress: the controller; the Gateway's pods), and ipBlocks are not peers of that kind."""
    beyond = [
        (b["pod"], b["direction"], b["peer"], b["text"], b["rules"]) for b in exposure()["beyond"] if b["isolated"]
    ]
    assert beyond == [
        (
            "apps/web",
            "ingress",
            "any pod in namespaces labelled policy-group.network.openshift.io/ingress=",
            "TCP 8080",
            ["apps/web-from-gateway ingress rule #2 (TCP 8080)"],
        ),
        (
            "shop/admin",
            "ingress",
            "pods labelled role=ops in namespace shop (none in the input)",
            "TCP 8443",
            ["shop/admin-from-ops ingress rule #1 (TCP 8443)"],
        ),
    ]


def test_focus_and_namespace_keep_the_paths_to_those_pods() -> None:
    focused = exposure("--focus", "apps/web")
    assert {p["pod"] for p in focused["paths"]} == {"apps/web"}
    assert len(focused["paths"]) == 3  # HTTPRoute, Route, the unknown proxy's Ingress
    in_shop = exposure("-n", "shop")
    objects = {p["door"]["object"] for p in in_shop["paths"]}
    # TLSRoute infra/tls-route is kept: its backend, refused, is a Service of shop
    assert objects == {
        "Service shop/frontend",
        "Service shop/legacy",
        "Service shop/admin",
        "Ingress shop/site",
        "HTTPRoute shop/orphan",
        "TLSRoute infra/tls-route",
    }


def test_text_output_shows_the_path_the_verdict_and_the_hops() -> None:
    out = run_cli("exposure", str(SAMPLE), "--focus", "shop/admin")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert (
        "BLOCKED     internet → Ingress shop/site (HTTP 80) → ingress-nginx/ingress-nginx-controller → "
        "svc/shop/admin:443 (https) → shop/admin : TCP 8443"
    ) in lines
    assert "  hop 2: ingress-nginx/ingress-nginx-controller => shop/admin : TCP 8443 blocked" in lines
    assert "    ingress: isolated by shop/admin-from-ops: no rule admits it" in lines
    assert any(line.startswith("RESTRICTED  internet → ExternalIP shop/admin") for line in lines)
    md = run_cli("exposure", str(SAMPLE), "--focus", "shop/admin", "-o", "md").stdout
    assert md.startswith("## exposure\n\n| verdict | path | hops (deciding rules) |")
    assert "| blocked | internet → Ingress shop/site (HTTP 80)" in md


def test_who_can_reach_from_internet_lists_the_paths_to_the_target() -> None:
    out = run_cli("who-can-reach", "apps/web", str(SAMPLE), "--from", "internet", "-o", "json")
    assert out.returncode == 0
    doc = json.loads(out.stdout)
    assert {(p["door"]["object"], p["verdict"]) for p in doc["paths"]} == {
        ("HTTPRoute apps/web-route", "allowed"),
        ("Route apps/web", "allowed"),
        ("Ingress apps/legacy-ingress", "blocked"),
    }
    # --port on a Service: its port 80 is web's 8080; nothing reaches web on 81, and the exit says so
    assert (
        len(
            json.loads(
                run_cli(
                    "who-can-reach", "svc/apps/web", str(SAMPLE), "--from", "internet", "--port", "80", "-o", "json"
                ).stdout
            )["paths"]
        )
        == 3
    )
    none = run_cli("who-can-reach", "apps/web", str(SAMPLE), "--from", "internet", "--port", "81")
    assert none.returncode == 1 and "no path from outside the cluster" in none.stdout
    # only blocked paths lead to shop/admin once the client address is assumed kept
    blocked = run_cli(
        "who-can-reach", "shop/admin", str(SAMPLE), "--from", "internet", "--cluster-traffic-source", "client"
    )
    assert blocked.returncode == 1 and "BLOCKED     internet → ExternalIP shop/admin" in blocked.stdout


def test_proxy_pods_option_names_a_proxy_the_conventions_do_not_find() -> None:
    """With --proxy-pods the traefik Ingress forwards through infra/gw-proxy, whose pods web admits (rule #1)."""
    doc = exposure("--proxy-pods", "ingressclass/traefik=infra:gateway.networking.k8s.io/gateway-name=gw")
    [p] = [p for p in doc["paths"] if p["door"]["object"] == "Ingress apps/legacy-ingress"]
    assert (p["proxy"], p["verdict"]) == ("infra/gw-proxy", "allowed")
    bad = run_cli("exposure", str(SAMPLE), "--proxy-pods", "ingressclass/haproxy=infra/gw-proxy")
    assert bad.returncode == 2 and "no door forwards through it" in bad.stderr
