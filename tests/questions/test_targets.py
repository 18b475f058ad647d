"""Endpoint names: ns/name, bare names, workloads, Services, selectors, IPs and CIDRs."""

from __future__ import annotations

import pytest

from netpol.errors import UsageError
from netpol.targets import Probe, Resolver, parse_probe, workload_label
from tests.helpers import analyze_objects, namespace, pod, run_cli
from tests.questions.conftest import SEED


def _svc(ns: str, name: str, selector: dict, ports: list[dict]) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "namespace": ns},
        "spec": {"selector": selector, "ports": ports},
    }


def _deploy(ns: str, name: str, replicas: int, labels: dict) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": ns},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "c", "image": "x"}]}},
        },
    }


@pytest.fixture(scope="module")
def a():
    return analyze_objects(
        namespace("x"),
        namespace("y"),
        pod("x", "web", {"app": "web"}, [{"containerPort": 8080, "name": "http"}]),
        pod("y", "web", {"app": "web"}, [{"containerPort": 9090, "name": "http"}]),
        pod("x", "solo", {"app": "solo"}),
        _deploy("x", "front", 2, {"app": "front"}),
        _svc("x", "web", {"app": "web"}, [{"port": 80, "targetPort": "http"}, {"port": 443, "targetPort": 8443}]),
    )


def test_ns_slash_name_is_a_pod(a) -> None:
    t = Resolver(a).resolve("x/solo")
    assert [a.pods[i].key for i in t.pods] == ["x/solo"]


def test_bare_name_resolves_across_namespaces(a) -> None:
    t = Resolver(a).resolve("solo")
    assert [a.pods[i].key for i in t.pods] == ["x/solo"]


def test_ambiguous_bare_name_lists_the_candidates(a) -> None:
    with pytest.raises(UsageError, match=r"ambiguous: x/web, y/web"):
        Resolver(a).resolve("web")


def test_bare_name_with_namespace_is_not_ambiguous(a) -> None:
    t = Resolver(a).resolve("web", ["y"])
    assert [a.pods[i].key for i in t.pods] == ["y/web"]


def test_deploy_prefix_gives_the_replicas(a) -> None:
    t = Resolver(a).resolve("deploy/x/front")
    pods = [a.pods[i] for i in t.pods]
    assert len(pods) == 2 and {workload_label(p) for p in pods} == {"x/front[Deployment]"}


def test_unknown_pod_and_workload_are_usage_errors(a) -> None:
    with pytest.raises(UsageError, match="not found"):
        Resolver(a).resolve("x/nope")
    with pytest.raises(UsageError, match=r"StatefulSet x/front does not exist; did you mean deploy/x/front\?"):
        Resolver(a).resolve("sts/x/front")


def test_service_maps_service_port_to_named_target_port_per_pod(a) -> None:
    t = Resolver(a).resolve("svc/x/web")
    [i] = t.pods
    assert a.pods[i].key == "x/web"  # the selector is namespaced: y/web is not a backend
    assert t.dst_ports(a.pods[i], Probe("TCP", 80)).render() == "TCP 8080"
    assert t.dst_ports(a.pods[i], Probe("TCP", 443)).render() == "TCP 8443"
    assert t.dst_ports(a.pods[i], None).render() == "TCP 8080,8443"
    assert t.dst_ports(a.pods[i], Probe("TCP", 8080)).is_empty  # not a Service port


def test_selector_with_namespace(a) -> None:
    t = Resolver(a).selector("app=web", ["y"])
    assert [a.pods[i].key for i in t.pods] == ["y/web"]
    t = Resolver(a).selector("app in (web,solo)")
    assert sorted(a.pods[i].key for i in t.pods) == ["x/solo", "x/web", "y/web"]


def test_ip_and_cidr_are_external(a) -> None:
    t = Resolver(a).resolve("203.0.113.7")
    assert t.is_external and t.atoms == (0,)
    t = Resolver(a).resolve("10.0.0.0/8")
    assert t.is_external and t.cidr == "10.0.0.0/8"
    with pytest.raises(UsageError, match="not a valid"):
        Resolver(a).resolve("10.0.0.0/99")


@pytest.mark.parametrize(
    ("text", "probe"),
    [("80", Probe("TCP", 80)), ("53/udp", Probe("UDP", 53)), ("8080/TCP", Probe("TCP", 8080)), (None, None)],
)
def test_parse_probe(text, probe) -> None:
    assert parse_probe(text) == probe


@pytest.mark.parametrize("text", ["0", "70000", "80/ICMP", "90-80", "80-", "-80", "Http_x", "a/b/c"])
def test_parse_probe_rejects(text) -> None:
    with pytest.raises(UsageError):
        parse_probe(text)


def test_the_printed_range_form_is_an_endpoint() -> None:
    """Issue 25: every output prints external ranges as FIRST-LAST (`0.0.0.0-255.255.255.255`); that text, copied
    into a question, names the same endpoint instead of "no pod named …". Seed lab (no ipBlock): the whole
    address space is one external range, and web/test's egress is not isolated, so it reaches it."""
    printed = run_cli("can-reach", "web/test", str(SEED))
    assert printed.returncode == 0, printed.stderr
    (line,) = [x for x in printed.stdout.splitlines() if x.startswith("web/test => ") and "-" in x.split(" : ")[0]]
    rng = line.split(" => ")[1].split(" : ")[0]
    assert rng == "0.0.0.0-255.255.255.255"
    back = run_cli("who-can-reach", rng, str(SEED))
    assert back.returncode == 0, back.stderr
    assert f"web/test => {rng} : All Connections" in back.stdout
    focus = run_cli("matrix", "--focus", rng, str(SEED))
    assert focus.returncode == 0 and f"web/test => {rng} : All Connections" in focus.stdout


def test_a_range_of_one_address_is_that_address_and_a_reversed_range_is_refused() -> None:
    one = run_cli("who-can-reach", "8.8.8.8-8.8.8.8", str(SEED))
    assert one.returncode == 0, one.stderr
    assert one.stdout == run_cli("who-can-reach", "8.8.8.8", str(SEED)).stdout
    bad = run_cli("who-can-reach", "10.0.0.9-10.0.0.1", str(SEED))
    assert bad.returncode == 2
    assert "'10.0.0.9-10.0.0.1' is not a valid address range (FIRST-LAST" in bad.stderr
