"""Issue 24: the upstream rules the exposure analysis follows, each pinned on a small cluster.

Services: kubernetes.io/docs/concepts/services-networking/service; Ingress: .../ingress; the Gateway API:
kubernetes-sigs/gateway-api apis/v1 (gateway_types.go, shared_types.go, referencegrant_types.go); OpenShift's
Route: openshift/api route/v1/types.go; exposure beyond the input: np-guard/netpol-analyzer
docs/exposure_analysis.md. Expectations are derived by hand in the comments.
"""

from __future__ import annotations

import pytest
import yaml

from netpol.exposure import EVERYWHERE, ExposureOptions, analyze_exposure, find_doors
from netpol.exposure.doors import hostnames_intersect
from netpol.exposure.standins import satisfying
from netpol.manifests import load_text
from netpol.model.labels import Labels, LabelSelector, LabelSelectorRequirement
from tests.helpers import analyze_objects, namespace, pod, policy


def service(ns: str, name: str, selector: dict, ports: list[dict], **spec: object) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "namespace": ns},
        "spec": {"selector": selector, "ports": ports, **spec},
    }


def obj(api: str, kind: str, ns: str | None, name: str, spec: dict, **meta: object) -> dict:
    metadata: dict[str, object] = {"name": name, **meta}
    if ns is not None:
        metadata["namespace"] = ns
    return {"apiVersion": api, "kind": kind, "metadata": metadata, "spec": spec}


GW = "gateway.networking.k8s.io/v1"
WEB = pod("web", "front", {"app": "front"}, [{"containerPort": 8080, "name": "http"}])
FRONT = service("web", "front", {"app": "front"}, [{"name": "http", "port": 80, "targetPort": "http"}])


def paths(*objs: dict, **options: object) -> dict[tuple[str, str], str]:
    e = analyze_exposure(analyze_objects(*objs), ExposureOptions(**options))  # type: ignore[arg-type]
    return {(p.door.object + " " + p.door.entry, p.pod or p.problem): p.verdict for p in e.paths}


# ------------------------------------------------------------------------------------------------ Services


def test_policies_see_the_target_port_never_the_service_port() -> None:
    """A LoadBalancer's port 80 reaches the pod's 8080 after DNAT: a rule admitting 80 does not admit it."""
    lb = service("web", "front", {"app": "front"}, [{"port": 80, "targetPort": 8080}], type="LoadBalancer",
                 externalTrafficPolicy="Local", allocateLoadBalancerNodePorts=False)  # fmt: skip
    only80 = policy("web", "only-80", {"podSelector": {}, "ingress": [{"ports": [{"port": 80}]}]})
    assert paths(WEB, lb, only80) == {("Service web/front port 80", "web/front"): "blocked"}
    only8080 = policy("web", "only-8080", {"podSelector": {}, "ingress": [{"ports": [{"port": 8080}]}]})
    assert paths(WEB, lb, only8080) == {("Service web/front port 80", "web/front"): "allowed"}


def test_which_services_are_doors() -> None:
    """LoadBalancer: its port, and its nodePorts unless allocateLoadBalancerNodePorts is false; NodePort: the
    nodePort on every node; externalIPs on any type; ExternalName: a DNS alias, no door; ClusterIP: none."""
    ports = [{"port": 80, "targetPort": 8080}]
    doors = find_doors(
        load_text(
            "---\n".join(
                yaml.safe_dump(o)
                for o in (
                    service("web", "lb", {"app": "front"}, ports, type="LoadBalancer"),
                    service("web", "lb-no-np", {"app": "front"}, ports, type="LoadBalancer", allocateLoadBalancerNodePorts=False),
                    service("web", "np", {"app": "front"}, [{"port": 80, "nodePort": 30080}], type="NodePort"),
                    service("web", "ext", {"app": "front"}, ports, externalIPs=["192.0.2.1"]),
                    service("web", "plain", {"app": "front"}, ports),
                    {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "alias", "namespace": "web"},
                     "spec": {"type": "ExternalName", "externalName": "example.com"}},
                )
            )
        )
    )  # fmt: skip
    assert [(d.kind, d.object, d.entry_port) for d in doors] == [
        ("ExternalIP", "Service web/ext", 80),
        ("LoadBalancer", "Service web/lb", 80),
        ("NodePort", "Service web/lb", None),
        ("LoadBalancer", "Service web/lb-no-np", 80),
        ("NodePort", "Service web/np", 30080),
    ]


def test_load_balancer_source_ranges_limit_the_clients() -> None:
    """loadBalancerSourceRanges: only those clients reach the load balancer; the pod, not isolated, admits them."""
    lb = service("web", "front", {"app": "front"}, [{"port": 80, "targetPort": "http"}], type="LoadBalancer",
                 externalTrafficPolicy="Local", allocateLoadBalancerNodePorts=False,
                 loadBalancerSourceRanges=["192.0.2.0/24"])  # fmt: skip
    [p] = analyze_exposure(analyze_objects(WEB, lb)).paths
    # no ipBlock in the cluster: one IPv4 atom, of which the clients are 192.0.2.0/24
    assert (p.verdict, p.hops[0].admitted, p.hops[0].refused) == ("allowed", ("192.0.2.0-192.0.2.255",), ())


@pytest.mark.parametrize(("source", "verdict"), [("node", "restricted"), ("client", "blocked")])
def test_external_traffic_policy_cluster_is_judged_from_the_nodes_or_the_clients(source: str, verdict: str) -> None:
    """externalTrafficPolicy Cluster: kube-proxy masquerades the client as the forwarding node
    (tutorials/services/source-ip); a pod's own node is always allowed (concepts/services-networking/
    network-policies), another node only as its address. The pod runs on n1; a default deny admits nothing:
    from the nodes, only n1 gets through (restricted); from the clients, none (blocked)."""
    nodes = [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": n},
         "status": {"addresses": [{"type": "InternalIP", "address": ip}], "allocatable": {"cpu": "2", "memory": "2Gi", "pods": "10"}}}
        for n, ip in (("n1", "10.0.0.1"), ("n2", "10.0.0.2"))
    ]  # fmt: skip
    bound = {**WEB, "spec": {**WEB["spec"], "nodeName": "n1"}}
    np = service(
        "web", "front", {"app": "front"}, [{"port": 80, "targetPort": "http", "nodePort": 30080}], type="NodePort"
    )
    deny = policy("web", "deny", {"podSelector": {}, "policyTypes": ["Ingress"]})
    [p] = analyze_exposure(analyze_objects(*nodes, bound, np, deny), ExposureOptions(source)).paths  # type: ignore[arg-type]
    assert p.verdict == verdict
    if source == "node":
        assert p.hops[0].admitted == ("node n1 (its own node: always allowed)",)
        assert p.hops[0].refused == ("node n2 (10.0.0.2)",)


# ------------------------------------------------------------------------------------------------- Ingress


def ingress(name: str, spec: dict, **meta: object) -> dict:
    return obj("networking.k8s.io/v1", "Ingress", "web", name, spec, **meta)


def ingress_class(name: str, controller: str, default: bool = False) -> dict:
    meta = {"annotations": {"ingressclass.kubernetes.io/is-default-class": "true"}} if default else {}
    return obj("networking.k8s.io/v1", "IngressClass", None, name, {"controller": controller}, **meta)


BACKEND = {"service": {"name": "front", "port": {"name": "http"}}}


def test_an_ingress_without_a_class_goes_through_the_default_class() -> None:
    """concepts/services-networking/ingress "Default IngressClass": an Ingress naming no class is served by the
    IngressClass annotated ingressclass.kubernetes.io/is-default-class; two such classes: no one default."""
    e = analyze_exposure(
        analyze_objects(
            WEB,
            FRONT,
            ingress("site", {"defaultBackend": BACKEND}),
            ingress_class("nginx", "k8s.io/ingress-nginx", True),
        )
    )
    assert {p.door.proxy.key for p in e.paths if p.door.proxy} == {"ingressclass/nginx"}
    two = analyze_exposure(analyze_objects(WEB, FRONT, ingress("site", {"defaultBackend": BACKEND}),
                                           ingress_class("a", "x.io/a", True), ingress_class("b", "x.io/b", True)))  # fmt: skip
    [proxy] = two.proxies.values()
    assert proxy.unknown and "several IngressClasses are marked default" in proxy.ref.why_unknown


def test_an_ingress_serves_http_and_https_for_tls_and_forwards_to_each_backend_port() -> None:
    """HTTP 80 always, HTTPS 443 with spec.tls; a backend port by name is the Service port of that name."""
    ing = ingress("site", {"ingressClassName": "nginx", "tls": [{"hosts": ["a.example.com"]}],
                           "rules": [{"http": {"paths": [{"path": "/", "pathType": "Prefix", "backend": BACKEND}]}}]})  # fmt: skip
    doors = analyze_exposure(analyze_objects(WEB, FRONT, ing)).doors
    assert [(d.entry, d.backends[0].port.port if d.backends[0].port else None) for d in doors] == [
        ("HTTP 80", 80),
        ("HTTPS 443", 80),
    ]


# ------------------------------------------------------------------------------------------------ Gateway API


@pytest.mark.parametrize(
    ("listener", "route", "share"),
    [
        ("*.example.com", "test.example.com", True),
        ("*.example.com", "foo.test.example.com", True),  # a suffix match on whole labels
        ("*.example.com", "example.com", False),  # … never the bare domain
        ("foo.example.com", "*.example.com", True),  # a route wildcard covering the listener's host
        ("*.example.com", "*.foo.example.com", True),
        ("a.example.com", "b.example.com", False),
    ],
)
def test_listener_and_route_hostnames_must_intersect(listener: str, route: str, share: bool) -> None:
    """apis/v1 Listener.Hostname: "`*.example.com` would match both `test.example.com`, and
    `foo.test.example.com`, but not `example.com`"; a route attaches only when both hostnames intersect."""
    assert hostnames_intersect(listener, route) is share


def gateway(listeners: list[dict]) -> dict:
    return obj(GW, "Gateway", "infra", "gw", {"gatewayClassName": "c", "listeners": listeners})


def route(kind: str, ns: str, spec: dict) -> dict:
    return obj(GW if kind in ("HTTPRoute", "GRPCRoute") else "gateway.networking.k8s.io/v1alpha2", kind, ns, "r", spec)


TO_FRONT = [{"backendRefs": [{"name": "front", "port": 80}]}]


@pytest.mark.parametrize(
    ("allowed", "route_ns", "attached"),
    [
        (None, "web", False),  # AllowedRoutes default: from Same (the Gateway's namespace, infra)
        ({"namespaces": {"from": "All"}}, "web", True),
        ({"namespaces": {"from": "Selector", "selector": {"matchLabels": {"gw": "yes"}}}}, "web", True),
        ({"namespaces": {"from": "Selector", "selector": {"matchLabels": {"gw": "no"}}}}, "web", False),
        ({"namespaces": {"from": "All"}, "kinds": [{"kind": "TCPRoute"}]}, "web", False),
    ],
)
def test_a_route_attaches_where_the_listener_allows_it(allowed: dict | None, route_ns: str, attached: bool) -> None:
    """apis/v1 AllowedRoutes: namespaces (from Same by default, All, Selector) and kinds (by protocol when empty)."""
    listener: dict = {"name": "http", "port": 80, "protocol": "HTTP", **({"allowedRoutes": allowed} if allowed else {})}
    objs = [namespace("web", {"gw": "yes"}), namespace("infra"), WEB, FRONT, gateway([listener])]
    r = route("HTTPRoute", route_ns, {"parentRefs": [{"name": "gw", "namespace": "infra"}], "rules": TO_FRONT})
    e = analyze_exposure(analyze_objects(*objs, r))
    assert [bool(not p.problem) for p in e.paths] == [attached]


def test_a_grpc_route_attaches_to_http_listeners_and_a_tcp_route_to_tcp_ones() -> None:
    """Listener protocol → route kinds when allowedRoutes.kinds is empty: HTTP admits HTTPRoute and GRPCRoute,
    TCP admits TCPRoute."""
    listeners = [{"name": "http", "port": 80, "protocol": "HTTP", "allowedRoutes": {"namespaces": {"from": "All"}}},
                 {"name": "tcp", "port": 9000, "protocol": "TCP", "allowedRoutes": {"namespaces": {"from": "All"}}}]  # fmt: skip
    for kind, entry in (("GRPCRoute", "listener http (HTTP 80)"), ("TCPRoute", "listener tcp (TCP 9000)")):
        r = route(kind, "web", {"parentRefs": [{"name": "gw", "namespace": "infra"}], "rules": TO_FRONT})
        [door] = analyze_exposure(analyze_objects(WEB, FRONT, gateway(listeners), r)).doors
        assert door.entry.endswith(entry)


def test_a_backend_in_another_namespace_needs_a_reference_grant_there() -> None:
    """apis/v1beta1 ReferenceGrant: a route may refer to a Service of another namespace only when a grant in that
    namespace trusts its kind and namespace (`to.name` empty: every Service)."""
    listener = {"name": "http", "port": 80, "protocol": "HTTP", "allowedRoutes": {"namespaces": {"from": "All"}}}
    r = route("HTTPRoute", "other", {"parentRefs": [{"name": "gw", "namespace": "infra"}],
                                     "rules": [{"backendRefs": [{"name": "front", "namespace": "web", "port": 80}]}]})  # fmt: skip
    base = [WEB, FRONT, gateway([listener]), r]
    [refused] = analyze_exposure(analyze_objects(*base)).paths
    assert refused.verdict == "not-routed" and "RefNotPermitted" in refused.problem
    grant = obj("gateway.networking.k8s.io/v1beta1", "ReferenceGrant", "web", "g",
                {"from": [{"group": "gateway.networking.k8s.io", "kind": "HTTPRoute", "namespace": "other"}],
                 "to": [{"group": "", "kind": "Service", "name": "front"}]})  # fmt: skip
    [granted] = analyze_exposure(analyze_objects(*base, grant)).paths
    assert granted.pod == "web/front" and granted.target == "TCP 8080"
    wrong_kind = {
        **grant,
        "spec": {
            **grant["spec"],
            "from": [{"group": "gateway.networking.k8s.io", "kind": "GRPCRoute", "namespace": "other"}],
        },
    }
    [still] = analyze_exposure(analyze_objects(*base, wrong_kind)).paths
    assert still.verdict == "not-routed"


def test_a_zero_weight_backend_receives_nothing() -> None:
    """BackendRef.weight 0 and RouteTargetReference.weight 0: no traffic is sent there."""
    r = obj("route.openshift.io/v1", "Route", "web", "rt", {"to": {"kind": "Service", "name": "front", "weight": 0}})
    [p] = analyze_exposure(analyze_objects(WEB, FRONT, r)).paths
    assert (p.verdict, p.problem) == ("not-routed", "weight 0: it receives no traffic")


# ----------------------------------------------------------------------------------------- OpenShift Route


@pytest.mark.parametrize(
    ("target_port", "service_ports"),
    [
        ("http", [80]),  # a name: the Service port of that name (the endpoints' port list)
        (8080, [80]),  # a number: the pods' port, the targetPort of Service port 80
        (None, [80, 9090]),  # none: every port of the Service
    ],
)
def test_a_route_port_names_the_service_port(target_port: object, service_ports: list[int]) -> None:
    """openshift/api route/v1 RoutePort.targetPort: "the target port on pods selected by the service this route
    points to. If this is a string, it will be looked up as a named port in the target endpoints port list"."""
    svc = service("web", "front", {"app": "front"}, [{"name": "http", "port": 80, "targetPort": 8080},
                                                      {"name": "admin", "port": 9090}])  # fmt: skip
    spec: dict = {"to": {"kind": "Service", "name": "front"}}
    if target_port is not None:
        spec["port"] = {"targetPort": target_port}
    [door] = analyze_exposure(analyze_objects(WEB, svc, obj("route.openshift.io/v1", "Route", "web", "rt", spec))).doors
    assert sorted(b.port.port for b in door.backends if b.port) == service_ports


# -------------------------------------------------------------------------------------- beyond the input


@pytest.mark.parametrize(
    ("selector", "labels"),
    [
        (LabelSelector(Labels({"app": "a"})), {"app": "a"}),
        (LabelSelector(match_expressions=(LabelSelectorRequirement("tier", "In", ("b", "a")),)), {"tier": "a"}),
        # NotIn and DoesNotExist match a pod without the key (apimachinery labels.Requirement.Matches)
        (LabelSelector(match_expressions=(LabelSelectorRequirement("env", "NotIn", ("prod",)),)), {}),
        (LabelSelector(match_expressions=(LabelSelectorRequirement("env", "DoesNotExist"),)), {}),
        (
            LabelSelector(
                match_expressions=(
                    LabelSelectorRequirement("env", "Exists"),
                    LabelSelectorRequirement("env", "NotIn", ("any",)),
                )
            ),
            {"env": "any-1"},
        ),
        (LabelSelector(Labels({"env": "prod"}), (LabelSelectorRequirement("env", "NotIn", ("prod",)),)), None),
    ],
)
def test_a_representative_carries_labels_its_selector_matches(selector: LabelSelector, labels: dict | None) -> None:
    got = satisfying(selector)
    assert (dict(got) if got is not None else None) == labels
    if got is not None:
        assert selector.matches(got)


A_APP = pod("hello-world", "workload-a", {"app": "a-app"}, [{"containerPort": 8050}])
B_APP = pod("hello-world", "workload-b", {"app": "b-app"}, [{"containerPort": 8050}])


def beyond(*objs: dict) -> set[tuple[str, str, str, str]]:
    e = analyze_exposure(analyze_objects(*objs))
    return {(b.pod, a.direction, a.peer, a.conn.render()) for b in e.beyond() for a in b.admissions if a.isolated}


def test_netpol_analyzers_entire_cluster_example() -> None:
    """docs/exposure_analysis.md, "Example with exposure to entire cluster": workload-a admits b-app of its
    namespace (a pod of the input: no exposure), namespaces labelled foo.com/managed-state in (managed) on 8050
    and `namespaceSelector: {}` on 8050. netpol-analyzer reports `entire-cluster : TCP 8050` alone: the labelled
    namespaces are within the entire cluster on the same port."""
    pol = policy("hello-world", "combined-ingress-rules", {
        "podSelector": {"matchLabels": {"app": "a-app"}},
        "ingress": [
            {"from": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "hello-world"}},
                       "podSelector": {"matchLabels": {"app": "b-app"}}}]},
            {"from": [{"namespaceSelector": {"matchExpressions": [{"key": "foo.com/managed-state", "operator": "In", "values": ["managed"]}]}}],
             "ports": [{"port": 8050, "protocol": "TCP"}]},
            {"from": [{"namespaceSelector": {}}], "ports": [{"port": 8050, "protocol": "TCP"}]},
        ],
    })  # fmt: skip
    assert beyond(namespace("hello-world"), A_APP, B_APP, pol) == {
        ("hello-world/workload-a", "ingress", EVERYWHERE, "TCP 8050")
    }


def test_netpol_analyzers_namespace_and_pod_labels_example() -> None:
    """docs/exposure_analysis.md, "exposure from certain Namespace labels and Pod labels specified":
    `[namespace with {effect=NoSchedule}]/[pod with {role=monitoring}] : TCP 8050`."""
    pol = policy("hello-world", "allow-ingress-ns-and-pod-selectors", {
        "podSelector": {"matchLabels": {"app": "a-app"}},
        "policyTypes": ["Ingress"],
        "ingress": [{"from": [{"namespaceSelector": {"matchLabels": {"effect": "NoSchedule"}},
                               "podSelector": {"matchLabels": {"role": "monitoring"}}}],
                     "ports": [{"port": 8050, "protocol": "TCP"}]}],
    })  # fmt: skip
    assert beyond(namespace("hello-world"), A_APP, pol) == {
        (
            "hello-world/workload-a",
            "ingress",
            "pods labelled role=monitoring in namespaces labelled effect=NoSchedule",
            "TCP 8050",
        )
    }


def test_netpol_analyzers_new_pod_in_an_existing_namespace_example() -> None:
    """docs/exposure_analysis.md, "exposure to a certain workload with specified labels": namespace backend exists
    (its pods are app=backendservice), the rule admits app=backend-new there: `backend/[pod with
    {app=backend-new}] : TCP 8050`."""
    pol = policy("hello-world", "allow-ingress-to-unknown-ns", {
        "podSelector": {"matchLabels": {"app": "a-app"}},
        "policyTypes": ["Ingress", "Egress"],
        "ingress": [{"from": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "backend"}},
                               "podSelector": {"matchLabels": {"app": "backend-new"}}}],
                     "ports": [{"port": 8050, "protocol": "TCP"}]}],
        "egress": [{"to": [{"namespaceSelector": {}, "podSelector": {}}]}],
    })  # fmt: skip
    backend = pod("backend", "backend-app", {"app": "backendservice"}, [{"containerPort": 9090}])
    got = beyond(namespace("hello-world"), namespace("backend"), A_APP, backend, pol)
    assert got == {
        (
            "hello-world/workload-a",
            "ingress",
            "pods labelled app=backend-new in namespace backend (none in the input)",
            "TCP 8050",
        ),
        ("hello-world/workload-a", "egress", EVERYWHERE, "All Connections"),
    }
