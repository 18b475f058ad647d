"""The page's reasons are the engine's: each side's words per pair, and the pairs the engine answers first.

The report ships, per side, a reason id for every (class, class or external range) pair into one table of
texts (netpol/report/reasons.py), and the pod pairs the engine lists as exceptions; the page only looks them
up (tests/report/page.py reads them back as the script does). Hand-derived cases pin the words; a property
over random clusters with NetworkPolicies, Admin and Baseline tiers, named ports and hostNetwork pods pins
that the grouping never merges two pairs the engine words differently.
"""

from __future__ import annotations

import itertools
import random

import pytest

from netpol.engine import Endpoint, verdict
from netpol.explain import side_words
from netpol.manifests import load_paths
from netpol.pipeline import Analysis, analyze
from netpol.report import report_html
from tests.helpers import analyze_objects, namespace, pod, policy
from tests.netpol.test_engine_vs_reference import LABEL_VALUES, NS_LABEL_VALUES, PORT_NAMES, _selector, random_cluster
from tests.report.page import Page, read_page

SEED = "samples/seed-lab"
ANP_API = "policy.networking.k8s.io/v1alpha1"


def _page(analysis: Analysis) -> Page:
    return read_page(report_html(analysis, ["x"]))


def _words(page: Page, a: Analysis, src: str, dst: str) -> dict[str, list[str]]:
    """Both sides' words the page shows for two pods (or an external range as "atom:K"), as the script reads them."""
    r = a.reachability

    def end(name: str) -> tuple[int | None, int | None]:
        if name.startswith("atom:"):
            return None, int(name[5:])
        return r.pod_class(r.pod_index[name]), None

    (sc, sa), (dc, da) = end(src), end(dst)
    atom = sa if sa is not None else da
    return {d: page.side_words(d, sc, dc, atom) for d in ("egress", "ingress")}


def test_seed_lab_sides_name_the_rule_whose_peer_holds_the_source() -> None:
    """web/web1-allow-test selects web/web1 and admits `run: test` pods of its own namespace on TCP 80 (a
    podSelector alone means the policy's namespace: Kubernetes docs, concepts/services-networking/
    network-policies, "Behavior of to and from selectors"); no policy selects anything else."""
    a = analyze(load_paths([SEED]))
    page = _page(a)
    assert _words(page, a, "web/test", "web/web1") == {
        "egress": ["not isolated"],
        "ingress": ["web/web1-allow-test ingress rule #1 (TCP 80)"],
    }
    # web2 and cyh/test are held by no peer of the only rule: isolated, nothing allows
    denied = {"egress": ["not isolated"], "ingress": ["isolated by web/web1-allow-test; no rule allows it"]}
    assert _words(page, a, "web/web2", "web/web1") == denied
    assert _words(page, a, "cyh/test", "web/web1") == denied
    assert _words(page, a, "web/web1", "web/web2") == {"egress": ["not isolated"], "ingress": ["not isolated"]}
    # an external range: nothing of ours filters on its side
    assert _words(page, a, "atom:0", "web/web1") == {
        "egress": ["external"],
        "ingress": ["isolated by web/web1-allow-test; no rule allows it"],
    }


def _named_port_cluster() -> Analysis:
    http = [{"name": "http", "containerPort": 8080, "protocol": "TCP"}]
    return analyze_objects(
        namespace("a"),
        pod("a", "srv1", {"app": "srv"}, ports=http),
        pod("a", "srv2", {"app": "srv"}),  # no port named http
        pod("a", "client", {"app": "client"}),
        policy(
            "a",
            "to-srv",
            {
                "podSelector": {"matchLabels": {"app": "srv"}},
                "ingress": [
                    {"from": [{"podSelector": {"matchLabels": {"app": "client"}}}], "ports": [{"port": "http"}]}
                ],
            },
        ),
        policy(
            "a",
            "client-out",
            {
                "podSelector": {"matchLabels": {"app": "client"}},
                "policyTypes": ["Egress"],
                "egress": [{"to": [{"podSelector": {"matchLabels": {"app": "srv"}}}], "ports": [{"port": "http"}]}],
            },
        ),
    )


def test_a_named_port_that_resolves_nowhere_on_the_destination_is_no_reason() -> None:
    """A named port is looked up on the destination pod ("a named port on a pod", NetworkPolicyPort.port in
    k8s.io/api networking/v1 types.go); on a pod without that name the rule allows nothing, so the page must
    not name it there (the old JavaScript matcher listed it, having no port check). Both sides: ingress resolves
    on the owner (srv1 has http = TCP 8080, srv2 none), egress on the peer."""
    a = _named_port_cluster()
    page = _page(a)
    assert _words(page, a, "a/client", "a/srv1") == {
        "egress": ["a/client-out egress rule #1 (TCP 8080)"],
        "ingress": ["a/to-srv ingress rule #1 (TCP 8080)"],
    }
    assert _words(page, a, "a/client", "a/srv2") == {
        "egress": ["isolated by a/client-out; no rule allows it"],
        "ingress": ["isolated by a/to-srv; no rule allows it"],
    }


def _anp(name: str, priority: int, subject_ns: str, ingress: list[dict]) -> dict:
    return {
        "apiVersion": ANP_API,
        "kind": "AdminNetworkPolicy",
        "metadata": {"name": name},
        "spec": {
            "priority": priority,
            "subject": {"namespaces": {"matchLabels": {"kubernetes.io/metadata.name": subject_ns}}},
            "ingress": ingress,
        },
    }


def _from_ns(ns: str) -> list[dict]:
    return [{"namespaces": {"matchLabels": {"kubernetes.io/metadata.name": ns}}}]


def test_admin_tier_rules_that_decided_are_the_reason() -> None:
    """network-policy-api v1alpha1 (AdminNetworkPolicy API reference, "priority" and "action"): ANPs are
    evaluated before NetworkPolicies; a Deny decides, a Pass hands the traffic on to the NetworkPolicy tier.
    x/a: NetworkPolicy `allow` admits every source on TCP 443 (so x/a is isolated for ingress). From y, ANP
    `deny-y` (priority 1) denies everything first: its rule is the reason, `allow` decided nothing. From z, ANP
    `pass-z` passes everything, then `allow` admits TCP 443 and the isolation denies the rest."""
    a = analyze_objects(
        namespace("x"),
        namespace("y"),
        namespace("z"),
        pod("x", "a"),
        pod("y", "b"),
        pod("z", "c"),
        policy("x", "allow", {"podSelector": {}, "ingress": [{"ports": [{"port": 443}]}]}),
        _anp("deny-y", 1, "x", [{"name": "d", "action": "Deny", "from": _from_ns("y")}]),
        _anp("pass-z", 2, "x", [{"name": "p", "action": "Pass", "from": _from_ns("z")}]),
    )
    page = _page(a)
    assert _words(page, a, "y/b", "x/a")["ingress"] == ["ANP deny-y ingress rule #1 'd' (Deny): Deny (All Connections)"]
    assert _words(page, a, "z/c", "x/a")["ingress"] == [
        "x/allow ingress rule #1 (TCP 443)",
        "ANP pass-z ingress rule #1 'p' (Pass): Pass (All Connections)",
    ]
    assert _words(page, a, "x/a", "y/b") == {"egress": ["not isolated"], "ingress": ["not isolated"]}


def test_anp_demo_reasons_per_pair_are_the_engines(real_apps) -> None:  # noqa: ANN001
    """Every pod pair of tests/data/real-apps/npg-anp-demo (four ANPs, a BANP, two NetworkPolicies)."""
    a = analyze(load_paths([str(real_apps / "npg-anp-demo")]))
    _assert_every_pair_is_the_engines(a, _page(a))


HOST_NETWORK = [
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}},
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n2"}},
    namespace("a"),
    namespace("b"),
    pod("a", "agent", nodeName="n1", hostNetwork=True),
    pod("b", "x", nodeName="n1"),
    pod("b", "y", nodeName="n2"),
    policy("b", "deny", {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]}),
]


def test_exceptions_are_listed_by_the_engine_with_their_words() -> None:
    """ "Traffic to and from the node where a Pod is running is always allowed" and a pod reaching itself is
    not filtered (Kubernetes docs, concepts/services-networking/network-policies): a hostNetwork pod speaks
    with its node's address, so a/agent and b/x (same node n1) reach each other both ways despite b's
    deny-all; b/y (node n2) does not. The page gets these pairs, their kind and their connection from the
    engine's list, never from a rule of its own."""
    a = analyze_objects(*HOST_NETWORK)
    page = _page(a)
    r = a.reachability
    agent, x, y = (r.pod_index[k] for k in ("a/agent", "b/x", "b/y"))
    everything = page.data["conns"][page.data["all_id"]]
    exc = {pair: (kind, page.data["conns"][c]) for pair, (kind, c) in page.exceptions().items()}
    assert exc == {
        (agent, agent): ("loopback", everything),
        (x, x): ("loopback", everything),
        (y, y): ("loopback", everything),
        (agent, x): ("node-local", everything),
        (x, agent): ("node-local", everything),
    }
    kinds = {k["name"]: k for k in page.data["exceptions"]}
    assert kinds["node-local"]["ingress"] == ["traffic to and from a pod's own node is always allowed"]
    assert page.conn(y, agent) == "" and page.conn(agent, y) == ""
    assert _words(page, a, "b/y", "a/agent")["egress"] == ["isolated by b/deny; no rule allows it"]


def _assert_every_pair_is_the_engines(a: Analysis, page: Page) -> None:
    """Each side's words the page looks up equal the engine's for that very pair (one provenance call per pair,
    no grouping), pod pairs and pod/external-range pairs alike; the exception list equals the engine's."""
    r = a.reachability
    exc = page.exceptions()
    for s, d in itertools.product(range(len(r.pods)), repeat=2):
        src, dst = Endpoint(pod=s), Endpoint(pod=d)
        kind = str(verdict(r, src, dst).exception)  # the engine's own classification of the pair
        assert (exc[(s, d)][0] if (s, d) in exc else "") == kind, (r.pods[s].key, r.pods[d].key)
        if kind:
            continue
        for direction in ("egress", "ingress"):
            got = page.side_words(direction, r.pod_class(s), r.pod_class(d))
            assert got == list(side_words(r, direction, src, dst)), (r.pods[s].key, r.pods[d].key, direction)
    for p, k in itertools.product(range(len(r.pods)), range(len(r.atoms))):
        for direction in ("egress", "ingress"):
            out = page.side_words(direction, r.pod_class(p), None, k)
            assert out == list(side_words(r, direction, Endpoint(pod=p), Endpoint(atom=k))), (p, k, direction)
            into = page.side_words(direction, None, r.pod_class(p), k)
            assert into == list(side_words(r, direction, Endpoint(atom=k), Endpoint(pod=p))), (k, p, direction)


def _admin_objects(rng: random.Random, namespaces: list[str]) -> list[dict]:
    """A few random v1alpha1 ANPs (distinct priorities: equal ones that overlap are undefined upstream) and
    maybe the BANP, with Allow/Deny/Pass rules over namespaces, pods, numbered and named ports."""
    ns_values = {**NS_LABEL_VALUES, "kubernetes.io/metadata.name": namespaces}

    def peer() -> dict:
        if rng.random() < 0.5:
            return {"namespaces": _selector(rng, ns_values, [])}
        return {
            "pods": {
                "namespaceSelector": _selector(rng, ns_values, []),
                "podSelector": _selector(rng, LABEL_VALUES, []),
            }
        }

    def ports() -> list[dict]:
        out = []
        for _ in range(rng.randint(1, 2)):
            kind = rng.random()
            if kind < 0.4:
                out.append({"portNumber": {"protocol": "TCP", "port": rng.choice([80, 443, 8080])}})
            elif kind < 0.75:
                out.append({"namedPort": rng.choice(PORT_NAMES)})
            else:
                out.append({"portRange": {"protocol": "TCP", "start": 80, "end": rng.choice([80, 443, 9000])}})
        return out

    def rules(key: str, actions: list[str]) -> list[dict]:
        out = []
        for i in range(rng.randint(0, 3)):
            rule: dict = {
                "name": f"r{i}",
                "action": rng.choice(actions),
                key: [peer() for _ in range(rng.randint(1, 2))],
            }
            if rng.random() < 0.6:
                rule["ports"] = ports()
            out.append(rule)
        return out

    def subject() -> dict:
        if rng.random() < 0.5:
            return {"namespaces": _selector(rng, ns_values, [])}
        return {
            "pods": {
                "namespaceSelector": _selector(rng, ns_values, []),
                "podSelector": _selector(rng, LABEL_VALUES, []),
            }
        }

    objs = []
    for k, priority in enumerate(rng.sample(range(1, 50), rng.randint(1, 3))):
        spec = {"priority": priority, "subject": subject()}
        spec["ingress"] = rules("from", ["Allow", "Deny", "Pass"])
        spec["egress"] = rules("to", ["Allow", "Deny", "Pass"])
        objs.append(
            {"apiVersion": ANP_API, "kind": "AdminNetworkPolicy", "metadata": {"name": f"anp{k}"}, "spec": spec}
        )
    if rng.random() < 0.6:
        spec = {
            "subject": subject(),
            "ingress": rules("from", ["Allow", "Deny"]),
            "egress": rules("to", ["Allow", "Deny"]),
        }
        objs.append(
            {"apiVersion": ANP_API, "kind": "BaselineAdminNetworkPolicy", "metadata": {"name": "default"}, "spec": spec}
        )
    return objs


@pytest.mark.parametrize("seed", range(8))
def test_random_tiered_clusters_every_pair_reads_back_as_the_engines_words(seed: int) -> None:
    """Random NetworkPolicies (tests/netpol/test_engine_vs_reference.py: selectors, ipBlocks, named ports that
    resolve on some pods only) plus random Admin and Baseline tiers and hostNetwork pods on two nodes."""
    objs = random_cluster(seed)
    rng = random.Random(1000 + seed)
    namespaces = [o["metadata"]["name"] for o in objs if o["kind"] == "Namespace"]
    objs += [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": n}} for n in ("n1", "n2")]
    for o in objs:
        if o["kind"] == "Pod":
            o["spec"]["nodeName"] = rng.choice(["n1", "n2"])
    objs.append(pod(namespaces[0], "agent", {"app": "web"}, nodeName="n1", hostNetwork=True))
    objs += _admin_objects(rng, namespaces)
    a = analyze_objects(*objs)
    _assert_every_pair_is_the_engines(a, _page(a))
