"""What the Cilium compiler hands the engine: tiers, keys, isolation, per-peer masks with their words and notes,
L7 marks, and what it asks the engine to tell apart (label keys, service accounts, address and port cuts).
Expected values are read off each small manifest by hand (comments)."""

from __future__ import annotations

import numpy as np
import yaml

from netpol.engine.compile.cilium import CILIUM_DENY_TIER, CILIUM_NEVER_TIER, CiliumCompiler
from netpol.engine.tiers import DEFAULT_TIER
from netpol.manifests import load_text
from netpol.pipeline import prepare
from tests.netpol.cilium_cases import ccnp, cnode, cnp, cns, cpod, csvc, tcp, tiered


def compiler_of(*objs: dict) -> CiliumCompiler:
    cluster, _ = prepare(load_text(yaml.safe_dump_all(list(objs))))
    return CiliumCompiler(cluster.cilium_policies, cluster.services)


BASE = [
    cnode("n1", "192.168.0.1"),
    cns("a", {"team": "red"}),
    cpod("a", "web", {"app": "web"}, "10.0.1.1", ports=[{"name": "http", "containerPort": 8080}]),
    cpod("a", "cli", {"app": "cli", "version": "v1"}, "10.0.1.2", sa="robot"),
    cpod("a", "agent", {"app": "agent"}, "192.168.0.1", host_network=True),
]


def test_what_it_asks_the_engine_to_tell_apart() -> None:
    """Pod label keys its selectors read (sources stripped, Cilium's own identity labels left out), the
    Service selector keys of toServices, service accounts when a selector reads them, CIDRs and node
    addresses, port boundaries (ANY on all three protocols, names resolved on the classes)."""
    pol = cnp(
        "a",
        "p",
        {
            "endpointSelector": {"matchLabels": {"k8s:app": "web", "io.cilium.k8s.policy.serviceaccount": "robot"}},
            "ingress": [{"fromCIDRSet": [{"cidr": "10.0.0.0/8", "except": ["10.96.0.0/12"]}]}],
            "egress": [
                {
                    "toServices": [{"k8sService": {"serviceName": "db", "namespace": "a"}}],
                    "toPorts": [{"ports": [tcp(5432, None), tcp("http")]}],
                }
            ],
        },
    )
    c = compiler_of(*BASE, csvc("a", "db", {"role": "db"}), pol)
    assert list(c.label_keys()) == ["app", "role"]  # app (k8s:app), role (the Service's selector)
    assert c.splits_by_service_account()
    blocks = {(b.cidr, b.except_) for b in c.ip_blocks(c_nodes())}
    assert blocks == {("10.0.0.0/8", ("10.96.0.0/12",)), ("192.168.0.1/32", ())}  # the CIDRSet; the node: a CIDR peer
    t = tiered([*BASE, csvc("a", "db", {"role": "db"}), pol])
    cuts = set(c.port_cuts(t.universe))
    assert {("TCP", 5432, 5432), ("UDP", 5432, 5432), ("SCTP", 5432, 5432), ("TCP", 8080, 8080)} <= cuts


def c_nodes():  # noqa: ANN201
    return load_text(yaml.safe_dump(cnode("n1", "192.168.0.1"))).nodes


def test_allow_and_deny_halves_go_to_their_tiers_with_unique_keys() -> None:
    """Deny Policies: the deny rules of a spec form their own policy in CILIUM_DENY_TIER (before the
    NetworkPolicy tier); each entry of `specs` is its own policy, keyed `<key> specs[i]`."""
    specs = [
        {
            "endpointSelector": {"matchLabels": {"app": "web"}},
            "ingress": [{}],
            "ingressDeny": [{"fromEntities": ["world"]}],
        },
        {"endpointSelector": {"matchLabels": {"app": "cli"}}, "egress": [{"toEntities": ["all"]}]},
    ]
    t = tiered(
        [
            *BASE,
            cnp("a", "two", specs=specs),
            ccnp("cw", {"endpointSelector": {}, "egressDeny": [{"toEntities": ["world"]}]}),
        ]
    )
    got = {(p.key, p.tier.name, tuple(sorted(p.isolates))) for p in t.policies}
    assert got == {
        ("cnp a/two specs[0]", "default", ("ingress",)),
        ("cnp a/two specs[0] deny", "cilium-deny", ()),
        ("cnp a/two specs[1]", "default", ("egress",)),
        ("ccnp cw", "default", ("egress",)),  # a deny-only spec still enables default deny (Deny Policies table)
        ("ccnp cw deny", "cilium-deny", ()),
    }
    assert CILIUM_DENY_TIER.order < DEFAULT_TIER.order and CILIUM_DENY_TIER.end == "Pass"
    assert t.selected_pods("cnp a/two specs[0]") == ["a/web"]
    assert t.selected_pods("ccnp cw") == ["a/cli", "a/web"]  # never the hostNetwork pod: not an endpoint


def test_peers_keep_their_own_words_and_what_cannot_be_placed() -> None:
    pol = cnp(
        "a",
        "p",
        {
            "endpointSelector": {"matchLabels": {"app": "cli"}},
            "egress": [
                {"toEndpoints": [{"matchLabels": {"app": "web"}}]},
                {"toFQDNs": [{"matchPattern": "*.example.com"}]},
                {"toEntities": ["kube-apiserver", "world"]},
                {"toCIDR": ["10.0.0.0/16"]},
                {"toServices": [{"k8sService": {"serviceName": "ext", "namespace": "a"}}]},
            ],
        },
    )
    t = tiered([*BASE, csvc("a", "ext", None), pol])
    policy = t.policy("cnp a/p")
    rules = policy.egress
    words = [(policy.rule_label(r), [(p.text, p.note) for p in r.peers]) for r in rules]
    assert words[0] == ("cnp a/p egress rule #1 (Allow)", [("toEndpoints app=web (namespace a, the policy's own)", "")])
    # the peer's conditions, each with its own mask (explain words a near miss from them)
    assert [(p.kind, p.text) for p in rules[0].peers[0].parts] == [
        ("namespace", "the policy's namespace a"),
        ("pod", "toEndpoints app=web"),
    ]
    assert [p.kind for p in rules[3].peers[0].parts] == ["address"]
    assert words[1][1][0][0] == "toFQDNs matchPattern *.example.com"
    assert "resolved at run time" in words[1][1][0][1]
    assert [p[0] for p in words[2][1]] == ["toEntities kube-apiserver", "toEntities world"]
    assert "not placeable statically" in words[2][1][0][1] and words[2][1][1][1] == ""
    assert "covers pod addresses" in words[3][1][0][1]  # 10.0.0.0/16 holds a/web and a/cli
    assert "a/ext: no selector" in words[4][1][0][1]
    # masks: FQDN and kube-apiserver hold nothing; world holds no pod; the CIDR no pod either
    fqdn, api, world, cidr, ext = (
        rules[1].peers[0],
        rules[2].peers[0],
        rules[2].peers[1],
        rules[3].peers[0],
        rules[4].peers[0],
    )
    for peer in (fqdn, api, ext):
        assert not peer.classes.any() and not peer.atoms.any()
    assert not world.classes.any() and world.atoms.any() and not cidr.classes.any()
    node_atom = t.atom("192.168.0.1")
    assert not world.atoms[node_atom] and not cidr.atoms[node_atom]  # a node is no part of the world


def test_l7_rules_are_their_own_compiled_rules_marked_with_the_filter() -> None:
    """layer7.rst: a toPorts entry with `rules` admits its ports through the filter; a plain entry of the same
    rule stays a plain allow."""
    rule = {
        "fromEndpoints": [{"matchLabels": {"app": "cli"}}],
        "toPorts": [
            {"ports": [tcp(80)], "rules": {"http": [{"method": "POST", "path": "/v1/request-landing"}]}},
            {"ports": [tcp(443)]},
        ],
    }
    t = tiered([*BASE, cnp("a", "l7", {"endpointSelector": {"matchLabels": {"app": "web"}}, "ingress": [rule]})])
    got = [(r.ports_text, r.l7, r.index) for r in t.policy("cnp a/l7").ingress]
    assert got == [("TCP 443", "", 0), ("TCP 80", "HTTP POST /v1/request-landing", 0)]


def test_the_empty_rule_and_the_port_only_rule() -> None:
    """intro.rst / layer4.rst: `{}` has no peer (admits nothing, says so); toPorts alone holds every class and
    every address."""
    spec = {"endpointSelector": {"matchLabels": {"app": "web"}}, "ingress": [{}, {"toPorts": [{"ports": [tcp(80)]}]}]}
    t = tiered([*BASE, cnp("a", "p", spec)])
    empty, port_only = t.policy("cnp a/p").ingress
    assert empty.peers == () and "admits nothing" in empty.note
    (anyone,) = port_only.peers
    assert anyone.classes.all() and anyone.atoms.all() and anyone.text == "any peer (toPorts without a peer field)"


def test_enforcement_modes_add_their_policies() -> None:
    """intro.rst "Policy Enforcement Modes": `always` isolates every endpoint (pods, not hostNetwork ones)
    both ways; `never` is one tier before all others allowing everything, and nothing else is compiled."""
    pol = cnp("a", "p", {"endpointSelector": {}, "ingressDeny": [{"fromEntities": ["all"]}]})
    always = tiered([*BASE, pol], "always").policy("cilium policyEnforcementMode always")
    assert always.isolates == {"ingress", "egress"} and always.tier == DEFAULT_TIER
    t = tiered([*BASE, pol], "never")
    assert [p.key for p in t.policies] == ["cilium policyEnforcementMode never"]
    (never,) = t.policies
    assert never.tier == CILIUM_NEVER_TIER and never.selected.all()
    assert all(
        r.action == "Allow" and np.array_equal(r.static_bits, t.ports.all_bits) for r in (*never.ingress, *never.egress)
    )
