"""Third-party apps (tests/data/real-apps, see its SOURCES.md): every scenario loads and analyses through the
real command, and the facts their own policies and descriptions state hold.

Each fact carries a one-line comment saying where it comes from (the policy file, the recipe page's
intent as SOURCES.md summarises it, or a comment in the manifests). Facts name pods by their labels,
never by generated names or IPs.
"""

from __future__ import annotations

import functools
import ipaddress
import json
from pathlib import Path

import pytest
import yaml

from netpol.manifests import load_paths
from tests.conftest import REAL_APPS
from tests.helpers import run_cli

RECIPES = "netpol-recipes"
STARWARS = "cilium-starwars"  # one scenario per policy of Cilium's demo: l3-l4, l7, deny
EVERYWHERE = "0.0.0.0-255.255.255.255"


def scenario_dirs() -> list[str]:
    if not REAL_APPS.is_dir():
        return []
    out = []
    for d in sorted(p for p in REAL_APPS.iterdir() if p.is_dir()):
        if d.name in (RECIPES, STARWARS):
            out += [f"{d.name}/{r.name}" for r in sorted(d.iterdir()) if r.is_dir()]
        else:
            out.append(d.name)
    return out


@functools.cache
def matrix(scenario: str) -> tuple[int, str, str]:
    r = run_cli("matrix", str(REAL_APPS / scenario), "-o", "json")
    return r.returncode, r.stdout, r.stderr


class App:
    """The json output of one scenario, queried by labels."""

    def __init__(self, scenario: str) -> None:
        code, stdout, stderr = matrix(scenario)
        assert code == 0, stderr
        self.data = json.loads(stdout)
        self.labels = {p["name"]: p["labels"] for p in self.data["pods"]}
        self.conns = {(c["src"], c["dst"]): c for c in self.data["connections"]}

    def pods(self, ns: str | None = None, **labels: str) -> list[str]:
        out = [
            n
            for n, lab in self.labels.items()
            if (ns is None or n.split("/")[0] == ns) and all(lab.get(k) == v for k, v in labels.items())
        ]
        return sorted(out)

    def one(self, ns: str | None = None, **labels: str) -> str:
        found = self.pods(ns, **labels)
        assert len(found) == 1, (ns, labels, found)
        return found[0]

    def text(self, src: str, dst: str) -> str | None:
        c = self.conns.get((src, dst))
        return c["text"] if c else None

    def allows(self, src: str, dst: str, protocol: str, port: int) -> bool:
        c = self.conns.get((src, dst))
        if c is None:
            return False
        if c["conn"] == "all":
            return True
        for entry in c["conn"]:
            if entry["protocol"] == protocol:
                if entry["ports"] == "all" or any(lo <= port <= hi for lo, hi in entry["ports"]):
                    return True
        return False

    def sources(self, dst: str) -> set[str]:
        return {s for s, d in self.conns if d == dst}

    def destinations(self, src: str) -> set[str]:
        return {d for s, d in self.conns if s == src}

    def pod_sources(self, dst: str) -> set[str]:
        return {s for s in self.sources(dst) if s in self.labels}


def host_network_pods(scenario: str) -> set[str]:
    return {p.key for p in load_paths([str(REAL_APPS / scenario)]).pods if p.host_network}


@pytest.fixture
def app(real_apps: Path):  # noqa: ARG001 - the fixture names the data these facts read
    return App


# ---------------------------------------------------------------------------------------------- every scenario


@pytest.mark.parametrize("scenario", scenario_dirs() or ["<real-apps absent>"])
def test_scenario_loads_and_analyses_through_the_cli(real_apps: Path, scenario: str) -> None:
    code, stdout, stderr = matrix(scenario)
    assert code == 0, stderr
    assert "Traceback" not in stderr
    data = json.loads(stdout)
    assert data["pods"], "every scenario has pods"


def test_every_documented_scenario_is_present(real_apps: Path) -> None:
    names = scenario_dirs()
    assert len([n for n in names if n.startswith(RECIPES)]) == 15  # SOURCES.md: 15 recipe scenarios
    for d in ("online-boutique", "bookinfo", "npg-acs-security-demos", "npg-test-with-named-ports"):
        assert d in names


# ---------------------------------------------------------------------------------------------- recipes


def R(n: str) -> str:
    return next(s for s in scenario_dirs() if s.startswith(f"{RECIPES}/{n}-"))


def test_recipe_01_nothing_reaches_web(app) -> None:
    a = app(R("01"))
    web = a.one("default", app="web")
    assert a.sources(web) == set()  # web-deny-all: `ingress: []` selects app=web, admits nothing
    assert a.destinations(web)  # ingress-only policy: web's egress is untouched


def test_recipe_02_only_bookstore_pods_reach_the_api(app) -> None:
    a = app(R("02"))
    api = a.one("default", app="bookstore", role="api")
    bookstore = set(a.pods("default", app="bookstore")) - {api}
    assert a.sources(api) == bookstore  # api-allow: from podSelector app=bookstore (own namespace only)
    assert all(a.text(s, api) == "All Connections" for s in bookstore)  # the rule has no ports
    assert a.text(a.one("default", app="web"), api) is None


def test_recipe_02a_allow_all_wins_over_deny_all(app) -> None:
    a = app(R("02a"))
    web = a.one("default", app="web")
    assert a.text(EVERYWHERE, web) == "All Connections"  # web-allow-all `ingress: [{}]`; policies are additive
    assert a.pod_sources(web) == set(a.labels) - {web}


def test_recipe_03_no_pod_of_default_receives_anything(app) -> None:
    a = app(R("03"))
    for p in a.pods("default"):
        assert a.sources(p) == set()  # default-deny-all: podSelector {} with `ingress: []`
    assert a.text(a.one("default", app="web"), a.one("prod", run="test")) == "All Connections"  # other ns open


def test_recipe_04_other_namespaces_cannot_reach_the_policy_namespace(app) -> None:
    # The recipe page uses namespace `secondary`; the policy file as taken says `namespace: default`.
    a = app(R("04"))
    web = a.one("default", app="web")
    assert a.pod_sources(web) == set(a.pods("default")) - {web}  # from podSelector {} = same namespace
    assert a.text(a.one("foo", run="test"), web) is None
    assert EVERYWHERE not in a.sources(web)  # a podSelector peer never matches external addresses


def test_recipe_05_every_namespace_reaches_web(app) -> None:
    a = app(R("05"))
    web = a.one("default", app="web")
    assert a.pod_sources(web) == set(a.labels) - {web}  # namespaceSelector {} = all namespaces
    assert EVERYWHERE not in a.sources(web)  # ...but not external addresses


def test_recipe_06_only_production_namespaces_reach_web(app) -> None:
    a = app(R("06"))
    web = a.one("default", app="web")
    assert a.pod_sources(web) == set(a.pods("prod"))  # namespaceSelector purpose=production
    assert a.text(a.one("dev", run="test"), web) is None  # dev is purpose=testing


def test_recipe_07_namespace_and_pod_selector_are_anded(app) -> None:
    a = app(R("07"))
    web = a.one("default", app="web")
    assert a.pod_sources(web) == {a.one("other", type="monitoring")}  # team=operations AND type=monitoring
    assert a.text(a.one("other", run="test"), web) is None  # right namespace, wrong pod
    assert a.text(a.one("default", type="monitoring"), web) is None  # right pod, wrong namespace


def test_recipe_08_web_is_reachable_from_outside(app) -> None:
    a = app(R("08"))
    web = a.one("default", app="web")
    assert a.text(EVERYWHERE, web) == "All Connections"  # web-allow-external: `ingress: [{}]`


def test_recipe_09_only_port_5000_from_monitoring(app) -> None:
    a = app(R("09"))
    api = a.one("default", app="apiserver")
    mon = a.one("default", role="monitoring")
    assert a.text(mon, api) == "TCP 5000"  # api-allow-5000: port 5000 (TCP by default) from role=monitoring
    assert not a.allows(mon, api, "TCP", 8000)  # the other port of app-on-two-ports stays closed
    assert a.sources(api) == {mon}


def test_recipe_10_three_selectors_are_ored(app) -> None:
    a = app(R("10"))
    db = a.one("default", app="bookstore", role="db")
    allowed = {
        a.one("default", app="bookstore", role="search"),
        a.one("default", app="bookstore", role="api"),
        a.one("default", app="inventory", role="web"),
    }
    assert a.sources(db) == allowed  # redis-allow-services: three podSelector peers
    assert a.text(a.one("default", app="bookstore", role="frontend"), db) is None


def test_recipe_11a_foo_sends_nothing(app) -> None:
    a = app(R("11a"))
    foo = a.one("default", app="foo")
    assert a.destinations(foo) == set()  # foo-deny-egress: policyTypes [Egress], `egress: []`
    assert a.text(a.one("default", app="web"), foo) == "All Connections"  # ingress untouched


def test_recipe_11b_foo_may_only_resolve_dns(app) -> None:
    a = app(R("11b"))
    foo = a.one("default", app="foo")
    dns = a.one("kube-system", **{"k8s-app": "kube-dns"})
    assert a.destinations(foo) == {dns}  # foo-deny-egress (2nd block): only kube-system/kube-dns
    assert a.text(foo, dns) == "TCP 53,UDP 53"  # ports 53 UDP and TCP


def test_recipe_12_no_pod_of_default_sends_anything(app) -> None:
    a = app(R("12"))
    for p in a.pods("default"):
        assert a.destinations(p) == set()  # default-deny-all-egress: podSelector {}, `egress: []`
    assert a.text(a.one("prod", run="test"), a.one("default", app="web")) == "All Connections"


def test_recipe_14_foo_reaches_no_external_address(app) -> None:
    a = app(R("14"))
    foo = a.one("default", app="foo")
    assert a.destinations(foo) == {a.one("kube-system", **{"k8s-app": "kube-dns"})}  # DNS only
    assert not [d for d in a.destinations(foo) if d not in a.labels]  # nothing external


# ---------------------------------------------------------------------------------------------- bookinfo


def test_bookinfo_reviews_v1_cannot_reach_ratings_but_v2_and_v3_can(app) -> None:
    a = app("bookinfo")
    ratings = a.one(app="ratings")
    for v in ("v2", "v3"):
        assert a.text(a.one(app="reviews", version=v), ratings) == "TCP 9080"  # ratings admits version NotIn [v1]
    assert a.text(a.one(app="reviews", version="v1"), ratings) is None  # ...so reviews-v1 is denied by ratings
    assert a.sources(ratings) == {a.one(app="reviews", version="v2"), a.one(app="reviews", version="v3")}


def test_bookinfo_productpage_is_the_only_entry_and_calls_details_and_reviews(app) -> None:
    a = app("bookinfo")
    page = a.one(app="productpage")
    assert a.allows(EVERYWHERE, page, "TCP", 9080)  # productpage: ingress ports 9080 from anyone
    assert a.text(page, a.one(app="details")) == "TCP 9080"  # productpage egress to details/reviews on 9080
    for r in a.pods(app="reviews"):
        assert a.text(page, r) == "TCP 9080"
    assert a.destinations(a.one(app="details")) == set()  # default-deny-all egress; the DNS rule matches no pod


# ---------------------------------------------------------------------------------------------- online boutique


def test_online_boutique_frontend_is_reachable_from_outside_on_8080(app) -> None:
    a = app("online-boutique")
    frontend = a.one(app="frontend")
    assert a.allows(EVERYWHERE, frontend, "TCP", 8080)  # network-policy-frontend.yaml: `ingress: [{}]`
    assert a.allows(a.one(app="loadgenerator"), frontend, "TCP", 8080)  # loadgenerator drives the frontend
    for p in set(a.labels) - {frontend}:
        assert a.sources(p) <= set(a.labels)  # deny-all: only the frontend admits external traffic


def test_online_boutique_checkout_chain(app) -> None:
    a = app("online-boutique")
    checkout = a.one(app="checkoutservice")
    assert a.text(a.one(app="frontend"), checkout) == "TCP 5050"  # network-policy-checkoutservice.yaml
    chain = {  # network-policy-<service>.yaml: each admits checkoutservice on its port
        "paymentservice": 50051,
        "emailservice": 8080,
        "shippingservice": 50051,
        "currencyservice": 7000,
        "cartservice": 7070,
        "productcatalogservice": 3550,
    }
    for svc, port in chain.items():
        assert a.text(checkout, a.one(app=svc)) == f"TCP {port}", svc
    assert a.sources(a.one(app="paymentservice")) == {checkout}  # only checkout pays
    assert a.sources(a.one(app="redis-cart")) == {a.one(app="cartservice")}  # network-policy-redis.yaml


# ---------------------------------------------------------------------------------------------- np-guard scenarios


def test_acs_security_demos_cross_namespace_paths(app) -> None:
    a = app("npg-acs-security-demos")
    webapp = a.one("frontend", app="webapp")
    checkout = a.one("backend", app="checkout")
    gateway = a.one("payments", app="gateway")
    assert a.text(webapp, checkout) == "TCP 8080"  # webapp egress + checkout ingress (ns frontend AND app=webapp)
    assert a.text(checkout, gateway) == "TCP 8080"  # checkout egress + gateway ingress (ns backend AND checkout)
    for proc in ("visa-processor", "mastercard-processor"):
        assert a.text(gateway, a.one("payments", app=proc)) == "TCP 8080"  # gateway → processors
    assert a.text(webapp, gateway) is None  # gateway admits only backend/checkout
    assert a.text(a.one("backend", app="reports"), a.one("backend", app="catalog")) == "TCP 8080"
    assert a.destinations(a.one("backend", app="catalog")) == set()  # default-deny egress, no egress rules
    assert a.destinations(a.one("frontend", app="asset-cache")) == set()  # Egress type, no egress rules
    for p in a.labels:
        assert a.sources(p) <= set(a.labels)  # no ipBlock anywhere: nothing external gets in
        assert not a.allows(a.one("frontend", app="webapp"), p, "UDP", 5353)  # DNS egress, but no pod admits it


def test_end_port_ranges_covering_every_port_equal_all_connections(app) -> None:
    a = app("npg-with-end-port-example")
    targets = set(a.pods("kube-system")) - host_network_pods("npg-with-end-port-example")
    assert targets
    for dst in targets:  # netpol.yaml: UDP, TCP and SCTP 1-65535 from anyone = everything
        for src in set(a.labels) - {dst}:
            assert a.text(src, dst) == "All Connections", (src, dst)


def test_named_ports_resolve_only_on_pods_that_define_them(app) -> None:
    scenario = "npg-test-with-named-ports"
    a = app(scenario)
    ns = "kube-system-dummy-to-ignore"
    cluster = load_paths([str(REAL_APPS / scenario)])
    named = {p.key: {(n, proto): num for n, proto, num in p.named_ports()} for p in cluster.pods if p.namespace == ns}
    hosts = host_network_pods(scenario)
    src = min(p for p in a.labels if not p.startswith(ns) and p not in hosts)
    defining = 0
    for pod, ports in named.items():
        if pod in hosts or pod not in a.labels:
            continue
        want = []  # policies.yaml: ports dns-local/UDP and dns-tcp-local/TCP, resolved on each destination
        if ("dns-tcp-local", "TCP") in ports:
            want.append(f"TCP {ports[('dns-tcp-local', 'TCP')]}")
        if ("dns-local", "UDP") in ports:
            want.append(f"UDP {ports[('dns-local', 'UDP')]}")
        if want:
            defining += 1
            assert a.text(src, pod) == ",".join(want), pod
        else:
            assert a.sources(pod) <= hosts, pod  # isolated, and no port name resolves on it
    assert defining >= 1


def test_ipblock_excepts_keep_internal_ranges_out(app) -> None:
    scenario = "npg-ipblockstest"
    a = app(scenario)
    hosts = host_network_pods(scenario)
    selected = set(a.pods("kube-system", tier="frontend")) - hosts  # hostNetwork pods are not selected
    assert selected
    for dst in selected:  # netpols.yaml: from 0.0.0.0/0 except 10/8, 172.21/16, 172.30/16, UDP 53
        assert a.text("0.0.0.0-9.255.255.255", dst) == "UDP 53"
        assert a.text("11.0.0.0-172.20.255.255", dst) == "UDP 53"
        for excepted in ("10.0.0.0-10.255.255.255", "172.21.0.0-172.21.255.255", "172.30.0.0-172.30.255.255"):
            assert a.text(excepted, dst) is None
        node = {p["name"]: p["node"] for p in a.data["pods"]}
        for src in a.pod_sources(dst):  # every pod IP is in an except: only the own-node rule lets pods in
            assert src in hosts and node[src] == node[dst], src


def test_egress_to_ipblocks_only_reaches_addresses_inside_them(app) -> None:
    scenario = "npg-ipblockstest-4"
    a = app(scenario)
    text = (REAL_APPS / scenario / "withIpBlock-networkpolicy.yaml").read_text()
    pol = next(d for d in yaml.safe_load_all(text) if d and d.get("kind") == "NetworkPolicy")
    nets = [ipaddress.ip_network(p["ipBlock"]["cidr"]) for r in pol["spec"]["egress"] for p in r["to"]]
    hosts = host_network_pods(scenario)
    selected = set(a.pods("kube-system", tier="frontend")) - hosts
    assert selected
    node = {p["name"]: p["node"] for p in a.data["pods"]}
    for src in selected:
        dests = a.destinations(src)
        # Traffic to and from a pod's own node is always allowed (concepts/services-networking/network-policies):
        # the hostNetwork pods of src's node speak with the node's address. No other pod IP is in the blocks.
        node_local = {d for d in dests & set(a.labels) if d in hosts and node[d] == node[src]}
        dests -= node_local
        assert dests and not dests & set(a.labels)  # no pod IP lies in any of the blocks
        for rng in dests:
            first, last = (ipaddress.ip_address(x) for x in rng.split("-"))
            assert any(first in n and last in n for n in nets), rng
