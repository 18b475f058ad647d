"""Kubernetes NetworkPolicy semantics, one named behaviour per test (the traps of DESIGN.md)."""

from __future__ import annotations

from tests.helpers import allowed, analyze_objects, conn, namespace, pod, policy

HTTP = [{"containerPort": 80, "name": "http"}]


def test_no_policy_means_all_connections() -> None:
    a = analyze_objects(pod("x", "a"), pod("x", "b"))
    assert conn(a, "x/a", "x/b").is_all


def test_ingress_rules_allow_only_listed_peer_and_port() -> None:
    a = analyze_objects(
        pod("x", "a", {"app": "a"}),
        pod("x", "b", {"app": "b"}),
        pod("x", "c", {"app": "c"}),
        policy(
            "x",
            "p",
            {
                "podSelector": {"matchLabels": {"app": "a"}},
                "ingress": [{"from": [{"podSelector": {"matchLabels": {"app": "b"}}}], "ports": [{"port": 80}]}],
            },
        ),
    )
    assert conn(a, "x/b", "x/a").render() == "TCP 80"
    assert conn(a, "x/c", "x/a").is_empty
    assert conn(a, "x/a", "x/b").is_all  # b is not selected: not isolated


def test_not_in_matches_pods_without_the_key() -> None:
    a = analyze_objects(
        pod("x", "a", {"app": "a"}),
        pod("x", "nolabel"),
        pod("x", "v1", {"version": "v1"}),
        policy(
            "x",
            "p",
            {
                "podSelector": {"matchLabels": {"app": "a"}},
                "ingress": [
                    {
                        "from": [
                            {
                                "podSelector": {
                                    "matchExpressions": [{"key": "version", "operator": "NotIn", "values": ["v1"]}]
                                }
                            }
                        ]
                    }
                ],
            },
        ),
    )
    assert conn(a, "x/nolabel", "x/a").is_all
    assert conn(a, "x/v1", "x/a").is_empty


def test_does_not_exist_matches_pods_without_the_key() -> None:
    a = analyze_objects(
        pod("x", "a", {"app": "a"}),
        pod("x", "plain"),
        pod("x", "tagged", {"tier": "x"}),
        policy(
            "x",
            "p",
            {
                "podSelector": {"matchLabels": {"app": "a"}},
                "ingress": [
                    {"from": [{"podSelector": {"matchExpressions": [{"key": "tier", "operator": "DoesNotExist"}]}}]}
                ],
            },
        ),
    )
    assert conn(a, "x/plain", "x/a").is_all
    assert conn(a, "x/tagged", "x/a").is_empty


def test_namespace_and_pod_selector_in_one_peer_are_anded() -> None:
    objs = [
        namespace("x", {"team": "a"}),
        namespace("y", {"team": "b"}),
        pod("x", "target", {"app": "t"}),
        pod("x", "client", {"role": "client"}),
        pod("y", "client", {"role": "client"}),
        pod("y", "other"),
    ]
    and_peer = {"namespaceSelector": {"matchLabels": {"team": "b"}}, "podSelector": {"matchLabels": {"role": "client"}}}
    a = analyze_objects(
        *objs, policy("x", "p", {"podSelector": {"matchLabels": {"app": "t"}}, "ingress": [{"from": [and_peer]}]})
    )
    assert conn(a, "y/client", "x/target").is_all
    assert conn(a, "y/other", "x/target").is_empty
    assert conn(a, "x/client", "x/target").is_empty


def test_two_peers_are_ored() -> None:
    objs = [
        namespace("x"),
        namespace("y", {"team": "b"}),
        pod("x", "target", {"app": "t"}),
        pod("x", "client", {"role": "client"}),
        pod("y", "other"),
    ]
    peers = [
        {"namespaceSelector": {"matchLabels": {"team": "b"}}},
        {"podSelector": {"matchLabels": {"role": "client"}}},
    ]
    a = analyze_objects(
        *objs, policy("x", "p", {"podSelector": {"matchLabels": {"app": "t"}}, "ingress": [{"from": peers}]})
    )
    assert conn(a, "y/other", "x/target").is_all
    assert conn(a, "x/client", "x/target").is_all


def test_pod_selector_alone_means_the_policys_namespace() -> None:
    a = analyze_objects(
        pod("x", "target", {"app": "t"}),
        pod("x", "client", {"role": "c"}),
        pod("y", "client", {"role": "c"}),
        policy(
            "x",
            "p",
            {
                "podSelector": {"matchLabels": {"app": "t"}},
                "ingress": [{"from": [{"podSelector": {"matchLabels": {"role": "c"}}}]}],
            },
        ),
    )
    assert conn(a, "x/client", "x/target").is_all
    assert conn(a, "y/client", "x/target").is_empty


def test_policy_types_default_to_ingress_only_without_egress_rules() -> None:
    a = analyze_objects(pod("x", "a"), pod("x", "b"), policy("x", "deny-in", {"podSelector": {}}))
    assert conn(a, "x/a", "x/b").is_empty
    assert a.reachability.isolated_egress.sum() == 0


def test_egress_rules_without_egress_policy_type_have_no_effect() -> None:
    a = analyze_objects(
        pod("x", "a"),
        pod("x", "b"),
        policy("x", "p", {"podSelector": {}, "policyTypes": ["Ingress"], "ingress": [{}], "egress": []}),
    )
    assert conn(a, "x/a", "x/b").is_all


def test_empty_ingress_rule_allows_everything() -> None:
    a = analyze_objects(pod("x", "a"), pod("y", "b"), policy("x", "allow", {"podSelector": {}, "ingress": [{}]}))
    assert conn(a, "y/b", "x/a").is_all


def test_egress_and_ingress_must_both_allow() -> None:
    a = analyze_objects(
        pod("x", "a", {"app": "a"}, HTTP),
        pod("x", "b", {"app": "b"}, HTTP),
        policy(
            "x",
            "egress-80",
            {
                "podSelector": {"matchLabels": {"app": "a"}},
                "policyTypes": ["Egress"],
                "egress": [{"ports": [{"port": 80}, {"port": 81}]}],
            },
        ),
        policy(
            "x",
            "ingress-81",
            {"podSelector": {"matchLabels": {"app": "b"}}, "ingress": [{"ports": [{"port": 81}, {"port": 82}]}]},
        ),
    )
    assert conn(a, "x/a", "x/b").render() == "TCP 81"


def test_named_port_resolves_on_destination_pod() -> None:
    a = analyze_objects(
        pod("x", "a", {"app": "srv"}, [{"containerPort": 8080, "name": "web"}]),
        pod("x", "b", {"app": "srv"}, [{"containerPort": 9090, "name": "web"}]),
        pod("x", "c", {"app": "srv"}),
        pod("x", "client"),
        policy("x", "p", {"podSelector": {"matchLabels": {"app": "srv"}}, "ingress": [{"ports": [{"port": "web"}]}]}),
    )
    assert conn(a, "x/client", "x/a").render() == "TCP 8080"
    assert conn(a, "x/client", "x/b").render() == "TCP 9090"
    assert conn(a, "x/client", "x/c").is_empty  # unresolved name matches nothing


def test_named_port_needs_matching_protocol() -> None:
    a = analyze_objects(
        pod("x", "dns", {"app": "dns"}, [{"containerPort": 53, "name": "dns", "protocol": "UDP"}]),
        pod("x", "client"),
        policy(
            "x",
            "p",
            {
                "podSelector": {"matchLabels": {"app": "dns"}},
                "ingress": [{"ports": [{"port": "dns", "protocol": "TCP"}]}],
            },
        ),
    )
    assert conn(a, "x/client", "x/dns").is_empty


def test_egress_named_port_resolves_on_the_peer() -> None:
    a = analyze_objects(
        pod("x", "client", {"app": "client"}),
        pod("x", "srv", {"app": "srv"}, [{"containerPort": 8443, "name": "api"}]),
        policy(
            "x",
            "p",
            {
                "podSelector": {"matchLabels": {"app": "client"}},
                "policyTypes": ["Egress"],
                "egress": [{"ports": [{"port": "api"}]}],
            },
        ),
    )
    assert conn(a, "x/client", "x/srv").render() == "TCP 8443"


def test_end_port_range_is_inclusive() -> None:
    a = analyze_objects(
        pod("x", "a", {"app": "a"}),
        pod("x", "b"),
        policy(
            "x",
            "p",
            {"podSelector": {"matchLabels": {"app": "a"}}, "ingress": [{"ports": [{"port": 32000, "endPort": 32768}]}]},
        ),
    )
    assert allowed(a, "x/b", "x/a", 32000) and allowed(a, "x/b", "x/a", 32768)
    assert not allowed(a, "x/b", "x/a", 31999) and not allowed(a, "x/b", "x/a", 32769)


def test_ipblock_except_carves_out_pod_ips() -> None:
    a = analyze_objects(
        pod("x", "a", {"app": "a"}),
        {**pod("x", "in"), "status": {"podIP": "10.1.8.10"}},
        {**pod("x", "out"), "status": {"podIP": "10.1.8.130"}},
        policy(
            "x",
            "p",
            {
                "podSelector": {"matchLabels": {"app": "a"}},
                "ingress": [{"from": [{"ipBlock": {"cidr": "10.1.8.0/24", "except": ["10.1.8.128/26"]}}]}],
            },
        ),
    )
    assert conn(a, "x/in", "x/a").is_all
    assert conn(a, "x/out", "x/a").is_empty


def test_pod_reaching_itself_is_always_allowed() -> None:
    a = analyze_objects(pod("x", "a"), policy("x", "deny", {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]}))
    assert conn(a, "x/a", "x/a").is_all


def test_external_ranges_are_the_ipblock_partition() -> None:
    a = analyze_objects(
        pod("x", "a", {"app": "a"}),
        policy(
            "x",
            "p",
            {"podSelector": {}, "ingress": [{"from": [{"ipBlock": {"cidr": "10.0.0.0/8"}}], "ports": [{"port": 80}]}]},
        ),
    )
    r = a.reachability
    rendered = {atom.render(): r.ingress_from_atom(i, 0).render() for i, atom in enumerate(r.atoms)}
    assert rendered == {
        "0.0.0.0-9.255.255.255": "No Connections",
        "10.0.0.0-10.255.255.255": "TCP 80",
        "11.0.0.0-255.255.255.255": "No Connections",
    }
