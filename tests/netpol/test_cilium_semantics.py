"""Cilium's policy semantics (issue 22, Scope items 3–5), one small case per point, derived by hand.

Each case is checked against the independent reference evaluator, the compiled tiers walked pair by pair,
and the real pipeline once wired (tests/netpol/cilium_cases.py `check`). Expectations are written out
in the comments from the docs page each test cites (docs.cilium.io/en/stable/security/policy/...).
"""

from __future__ import annotations

from tests.netpol.cilium_cases import ccnp, check, cnode, cnp, cns, cpod, csvc, knp, tcp

ALL = "All Connections"
NONE = "No Connections"


def two_namespaces() -> list[dict]:
    """a/server (app=web), a/client (app=client), b/server (app=web), b/client (app=client)."""
    return [
        cns("a", {"team": "red"}),
        cns("b", {"team": "blue"}),
        cpod("a", "server", {"app": "web"}, "10.0.1.1"),
        cpod("a", "client", {"app": "client"}, "10.0.1.2", sa="leia"),
        cpod("b", "server", {"app": "web"}, "10.0.2.1"),
        cpod("b", "client", {"app": "client"}, "10.0.2.2", sa="luke"),
    ]


# ------------------------------------------------------------------------------------------ Scope 3: selection


def test_namespaced_policy_selects_in_its_own_namespace_and_its_peer_stays_there():
    """kubernetes.rst "Namespaces": a CiliumNetworkPolicy's endpointSelector applies to pods of its namespace;
    a fromEndpoints selector without `io.kubernetes.pod.namespace` stays in the policy's namespace (the trap:
    b/client carries app=client but is not admitted)."""
    objs = [
        *two_namespaces(),
        cnp(
            "a",
            "web",
            {
                "endpointSelector": {"matchLabels": {"app": "web"}},
                "ingress": [{"fromEndpoints": [{"matchLabels": {"app": "client"}}]}],
            },
        ),
    ]
    check(
        objs,
        {
            ("a/client", "a/server"): ALL,  # selected in a, peer app=client in a: every port (no toPorts)
            ("b/client", "a/server"): NONE,  # app=client, but in b: the implied namespace is a
            ("b/client", "b/server"): ALL,  # b/server is not selected: a policy of a does not reach b
            ("a/client", "b/server"): ALL,
        },
    )


def test_a_namespaced_policys_endpoint_selector_cannot_leave_its_namespace():
    """kubernetes.rst "Namespaces": "Kubernetes prohibits specifying the namespace in the endpointSelector ...
    The endpointSelector always applies to pods in the namespace associated with the CiliumNetworkPolicy"
    (utils.go ParseToCiliumRule writes the policy's namespace over a `k8s:io.kubernetes.pod.namespace` match
    label): a CNP of a naming namespace b selects a/server, not b/server; with the `any` source the
    label stays and, ANDed with namespace a, selects nothing."""
    k8s = {"matchLabels": {"k8s:io.kubernetes.pod.namespace": "b", "app": "web"}}
    objs = [*two_namespaces(), cnp("a", "web", {"endpointSelector": k8s, "ingress": [{}]})]
    check(objs, {("a/client", "a/server"): NONE, ("b/client", "b/server"): ALL})
    anysrc = {"matchLabels": {"io.kubernetes.pod.namespace": "b", "app": "web"}}
    objs = [*two_namespaces(), cnp("a", "web", {"endpointSelector": anysrc, "ingress": [{}]})]
    check(objs, {("a/client", "a/server"): ALL, ("b/client", "b/server"): ALL})


def test_peer_naming_the_namespace_reaches_across_namespaces():
    """kubernetes.rst "Example: Expose pods across namespaces": `k8s:io.kubernetes.pod.namespace: b` in
    fromEndpoints admits b's pods (and only them: a/client no longer matches)."""
    sel = {"matchLabels": {"k8s:io.kubernetes.pod.namespace": "b", "app": "client"}}
    objs = [
        *two_namespaces(),
        cnp("a", "web", {"endpointSelector": {"matchLabels": {"app": "web"}}, "ingress": [{"fromEndpoints": [sel]}]}),
    ]
    check(objs, {("b/client", "a/server"): ALL, ("a/client", "a/server"): NONE})


def test_clusterwide_policy_selects_and_admits_in_every_namespace():
    """kubernetes.rst "Clusterwide Policies": a CiliumClusterwideNetworkPolicy selects app=web in any
    namespace and admits app=client from any namespace."""
    objs = [
        *two_namespaces(),
        ccnp(
            "web",
            {
                "endpointSelector": {"matchLabels": {"app": "web"}},
                "ingress": [{"fromEndpoints": [{"matchLabels": {"app": "client"}}]}],
            },
        ),
    ]
    check(
        objs,
        {
            ("a/client", "b/server"): ALL,
            ("b/client", "a/server"): ALL,
            ("a/server", "b/server"): NONE,  # app=web is not app=client
        },
    )


def test_namespace_labels_select_namespaces_in_a_clusterwide_policy():
    """kubernetes.rst "Namespaces": `io.cilium.k8s.namespace.labels.<key>` matches the namespace's labels
    (a clusterwide policy): team=blue is namespace b only."""
    sel = {"matchLabels": {"io.cilium.k8s.namespace.labels.team": "blue"}}
    objs = [
        *two_namespaces(),
        ccnp("web", {"endpointSelector": {"matchLabels": {"app": "web"}}, "ingress": [{"fromEndpoints": [sel]}]}),
    ]
    check(objs, {("b/client", "a/server"): ALL, ("a/client", "a/server"): NONE, ("a/client", "b/server"): NONE})


def test_service_account_label_selects_pods_by_their_service_account():
    """kubernetes.rst "ServiceAccounts": `io.cilium.k8s.policy.serviceaccount: leia` is a/client's account."""
    sel = {"matchLabels": {"io.cilium.k8s.policy.serviceaccount": "leia"}}
    objs = [
        *two_namespaces(),
        ccnp("web", {"endpointSelector": {"matchLabels": {"app": "web"}}, "ingress": [{"fromEndpoints": [sel]}]}),
    ]
    check(objs, {("a/client", "b/server"): ALL, ("b/client", "b/server"): NONE})


def test_source_prefixes_k8s_and_any_read_pod_labels_reserved_reads_none():
    """language/intro "Endpoint Selector" and pkg/labels: `k8s:app` and `any:app` both read the pod label
    app; `reserved:` keys name reserved identities, which no pod carries."""
    objs = [
        *two_namespaces(),
        ccnp(
            "k8s",
            {
                "endpointSelector": {"matchLabels": {"k8s:app": "web"}},
                "ingress": [{"fromEndpoints": [{"matchLabels": {"any:app": "client"}}]}],
            },
        ),
    ]
    check(objs, {("a/client", "a/server"): ALL, ("a/server", "b/server"): NONE})
    objs = [*two_namespaces(), ccnp("r", {"endpointSelector": {"matchLabels": {"reserved:host": ""}}, "ingress": [{}]})]
    check(objs, {("a/client", "a/server"): ALL, ("b/client", "b/server"): ALL})  # selects no pod


def test_labels_left_out_of_identities_match_no_selector():
    """operations/performance/scalability "Limiting Identity-Relevant Labels": by default Cilium leaves
    `statefulset.kubernetes.io/pod-name`, `pod-template-hash`, … out of a pod's identity, so a fromEndpoints
    selector on them admits no one (In/Exists); `app.kubernetes.io/name` is kept."""
    objs = [
        cns("a"),
        cpod("a", "server", {"app": "web"}, "10.0.1.1"),
        cpod("a", "db-0", {"statefulset.kubernetes.io/pod-name": "db-0", "app.kubernetes.io/name": "db"}, "10.0.1.5"),
        cnp(
            "a",
            "web",
            {
                "endpointSelector": {"matchLabels": {"app": "web"}},
                "ingress": [{"fromEndpoints": [{"matchLabels": {"statefulset.kubernetes.io/pod-name": "db-0"}}]}],
            },
        ),
    ]
    check(objs, {("a/db-0", "a/server"): NONE})
    objs[-1]["spec"]["ingress"][0]["fromEndpoints"] = [{"matchLabels": {"app.kubernetes.io/name": "db"}}]
    check(objs, {("a/db-0", "a/server"): ALL})


def test_empty_to_endpoints_in_a_namespaced_policy_is_every_pod_of_its_namespace():
    """layer3.rst "Egress Allow All Endpoints": `toEndpoints: [{}]` allows all endpoints of the policy's
    namespace; nothing outside it (other namespaces, the world)."""
    objs = [
        *two_namespaces(),
        cnp("a", "out", {"endpointSelector": {"matchLabels": {"app": "client"}}, "egress": [{"toEndpoints": [{}]}]}),
    ]
    check(
        objs, {("a/client", "a/server"): ALL, ("a/client", "b/server"): NONE}, to_ip={("a/client", "203.0.113.7"): NONE}
    )


def test_cidr_rules_match_external_addresses_only():
    """layer3.rst "IP/CIDR based" (toCIDR, toCIDRSet with except): 10.0.0.0/8 except 10.96.0.0/12 admits
    10.200.0.1 and not 10.96.0.10; it does not admit a/server at 10.0.1.1 although the CIDR holds it ("By
    default, CIDR-based selectors do not match in-cluster entities (pods or nodes)"); toCIDR
    203.0.113.0/24 admits 203.0.113.7, not 198.51.100.1."""
    rules = [{"toCIDRSet": [{"cidr": "10.0.0.0/8", "except": ["10.96.0.0/12"]}]}, {"toCIDR": ["203.0.113.0/24"]}]
    objs = [
        *two_namespaces(),
        cnp("a", "out", {"endpointSelector": {"matchLabels": {"app": "client"}}, "egress": rules}),
    ]
    check(
        objs,
        {("a/client", "a/server"): NONE},
        to_ip={
            ("a/client", "10.200.0.1"): ALL,
            ("a/client", "10.96.0.10"): NONE,
            ("a/client", "203.0.113.7"): ALL,
            ("a/client", "198.51.100.1"): NONE,
        },
    )


def nodes_and_host_pods() -> list[dict]:
    """Two nodes (192.168.0.1, 192.168.0.2); a/server on n1; hostNetwork pods on each node."""
    return [
        cnode("n1", "192.168.0.1"),
        cnode("n2", "192.168.0.2"),
        cns("a"),
        cns("b"),
        cpod("a", "server", {"app": "web"}, "10.0.1.1", node="n1"),
        cpod("b", "client", {"app": "client"}, "10.0.2.2", node="n2"),
        cpod("b", "agent1", {"app": "agent"}, "192.168.0.1", node="n1", host_network=True),
        cpod("b", "agent2", {"app": "agent"}, "192.168.0.2", node="n2", host_network=True),
    ]


def test_entity_world_is_outside_the_cluster():
    """layer3.rst "Entities based": world is every endpoint outside the cluster (not pods, not nodes)."""
    objs = [*nodes_and_host_pods(), cnp("a", "w", {"endpointSelector": {}, "ingress": [{"fromEntities": ["world"]}]})]
    check(
        objs,
        {("b/client", "a/server"): NONE, ("b/agent2", "a/server"): NONE},
        from_ip={("203.0.113.7", "a/server"): ALL, ("192.168.0.2", "a/server"): NONE},
    )


def test_entity_cluster_is_every_pod_and_node():
    """layer3.rst "Entities based": cluster is every endpoint of the local cluster, nodes included, and
    not the world."""
    objs = [*nodes_and_host_pods(), cnp("a", "c", {"endpointSelector": {}, "ingress": [{"fromEntities": ["cluster"]}]})]
    check(
        objs,
        {("b/client", "a/server"): ALL, ("b/agent2", "a/server"): ALL},
        from_ip={("203.0.113.7", "a/server"): NONE, ("192.168.0.2", "a/server"): ALL},
    )


def test_entity_remote_node_is_the_nodes_and_their_host_network_pods():
    """layer3.rst "Entities based": remote-node is any node other than the local host, with the pods in
    host networking on it; b/agent1 on a/server's own node reaches it anyway (the local host is always
    allowed: "Access to/from local host")."""
    objs = [
        *nodes_and_host_pods(),
        cnp("a", "rn", {"endpointSelector": {}, "ingress": [{"fromEntities": ["remote-node"]}]}),
    ]
    check(
        objs,
        {("b/agent2", "a/server"): ALL, ("b/agent1", "a/server"): ALL, ("b/client", "a/server"): NONE},
        from_ip={("192.168.0.2", "a/server"): ALL, ("203.0.113.7", "a/server"): NONE},
    )


def test_entity_all_is_everything():
    """layer3.rst "Entities based": all is every known cluster and the world."""
    objs = [*nodes_and_host_pods(), cnp("a", "all", {"endpointSelector": {}, "ingress": [{"fromEntities": ["all"]}]})]
    check(objs, {("b/client", "a/server"): ALL}, from_ip={("203.0.113.7", "a/server"): ALL})


def test_entities_a_static_input_cannot_place_admit_nothing_here():
    """layer3.rst "Entities based": kube-apiserver, health, ingress, init, unmanaged are not pods or
    addresses of the input: the rule admits nothing netpol can place (the compiler names them in a note)."""
    entities = ["kube-apiserver", "health", "ingress", "init", "unmanaged"]
    objs = [*nodes_and_host_pods(), cnp("a", "e", {"endpointSelector": {}, "ingress": [{"fromEntities": entities}]})]
    check(
        objs,
        {("b/client", "a/server"): NONE, ("b/agent2", "a/server"): NONE},
        from_ip={("203.0.113.7", "a/server"): NONE},
    )


def test_to_services_admits_the_pods_the_service_selects_in_its_namespace():
    """layer3.rst "Services based": toServices uses the Service's label selector as an endpoint selector: the
    Service a/web selects app=web in a, not b/server (same labels, other namespace)."""
    objs = [
        *two_namespaces(),
        csvc("a", "web", {"app": "web"}),
        cnp(
            "a",
            "out",
            {
                "endpointSelector": {"matchLabels": {"app": "client"}},
                "egress": [{"toServices": [{"k8sService": {"serviceName": "web", "namespace": "a"}}]}],
            },
        ),
    ]
    check(objs, {("a/client", "a/server"): ALL, ("a/client", "b/server"): NONE})


def test_to_services_by_service_labels():
    """layer3.rst "Services based": k8sServiceSelector matches Services by their own labels (env=staging)
    in the namespace given."""
    objs = [
        *two_namespaces(),
        csvc("b", "web", {"app": "web"}, labels={"env": "staging"}),
        csvc("a", "web", {"app": "web"}, labels={"env": "prod"}),
        cnp(
            "a",
            "out",
            {
                "endpointSelector": {"matchLabels": {"app": "client"}},
                "egress": [
                    {
                        "toServices": [
                            {"k8sServiceSelector": {"selector": {"matchLabels": {"env": "staging"}}, "namespace": "b"}}
                        ]
                    }
                ],
            },
        ),
    ]
    check(objs, {("a/client", "b/server"): ALL, ("a/client", "a/server"): NONE})


def test_to_fqdns_admits_no_pod_and_no_address_netpol_can_place():
    """layer3.rst "DNS based": toFQDNs selects addresses learnt from DNS answers at run time; statically it
    names no pod and no address (the compiler's note says so)."""
    objs = [
        *two_namespaces(),
        cnp(
            "a",
            "dns",
            {
                "endpointSelector": {"matchLabels": {"app": "client"}},
                "egress": [{"toFQDNs": [{"matchName": "api.example.com"}]}],
            },
        ),
    ]
    check(objs, {("a/client", "a/server"): NONE}, to_ip={("a/client", "203.0.113.7"): NONE})


def test_host_policy_is_not_evaluated():
    """intro.rst "Node Selector" / host.rst: a nodeSelector policy governs the nodes themselves; pods are
    not selected by it (netpol names it out of scope in a warning)."""
    objs = [*two_namespaces(), ccnp("host", {"nodeSelector": {}, "ingress": [{"fromEntities": ["cluster"]}]})]
    check(objs, {("b/client", "a/server"): ALL})


# ------------------------------------------------------------------------------------------ Scope 4: ports


def server_and_client() -> list[dict]:
    ports = [{"name": "http", "containerPort": 8080}, {"name": "dns", "containerPort": 5353, "protocol": "UDP"}]
    return [
        cns("a"),
        cpod("a", "server", {"app": "web"}, "10.0.1.1", ports=ports),
        cpod("a", "server2", {"app": "web"}, "10.0.1.3", ports=[{"name": "http", "containerPort": 9090}]),
        cpod("a", "client", {"app": "client"}, "10.0.1.2"),
    ]


def ingress_ports(*ports: dict, **rules: object) -> dict:
    entry: dict = {"ports": list(ports)}
    entry.update(rules)
    return {
        "endpointSelector": {"matchLabels": {"app": "web"}},
        "ingress": [{"fromEndpoints": [{"matchLabels": {"app": "client"}}], "toPorts": [entry]}],
    }


def test_numeric_port_and_protocol():
    """layer4.rst "Limit ingress/egress ports": port "80" protocol TCP admits TCP 80 only."""
    check([*server_and_client(), cnp("a", "p", ingress_ports(tcp(80)))], {("a/client", "a/server"): "TCP 80"})


def test_protocol_any_or_absent_is_tcp_udp_and_sctp():
    """layer4.rst PortProtocol: "If omitted or empty, any protocol matches"; ANY covers TCP, UDP and SCTP
    (pkg/policy portProtocols)."""
    want = "TCP 53,UDP 53,SCTP 53"
    check([*server_and_client(), cnp("a", "p", ingress_ports(tcp(53, None)))], {("a/client", "a/server"): want})
    check([*server_and_client(), cnp("a", "p", ingress_ports(tcp(53, "ANY")))], {("a/client", "a/server"): want})


def test_port_zero_is_every_port_of_its_protocol():
    """layer4.rst / the datapath: port 0 wildcards the port; with protocol UDP, every UDP port."""
    check([*server_and_client(), cnp("a", "p", ingress_ports(tcp(0, "UDP")))], {("a/client", "a/server"): "UDP"})


def test_end_port_makes_a_range():
    """layer4.rst "Example Port Ranges": port 8000, endPort 8080 admits TCP 8000-8080."""
    check(
        [*server_and_client(), cnp("a", "p", ingress_ports(tcp(8000, endPort=8080)))],
        {("a/client", "a/server"): "TCP 8000-8080"},
    )


def test_named_port_resolves_on_the_destination_pod():
    """layer4.rst PortProtocol: a port name ("http") is resolved on the destination: 8080 on a/server, 9090
    on a/server2; with protocol ANY the container port's own protocol (TCP) counts."""
    objs = [*server_and_client(), cnp("a", "p", ingress_ports(tcp("http", None)))]
    check(objs, {("a/client", "a/server"): "TCP 8080", ("a/client", "a/server2"): "TCP 9090"})
    # egress: the name resolves on the peer (the destination), not on the selected client
    egress = {
        "endpointSelector": {"matchLabels": {"app": "client"}},
        "egress": [{"toEndpoints": [{"matchLabels": {"app": "web"}}], "toPorts": [{"ports": [tcp("http")]}]}],
    }
    check(
        [*server_and_client(), cnp("a", "e", egress)],
        {("a/client", "a/server"): "TCP 8080", ("a/client", "a/server2"): "TCP 9090"},
    )


def test_named_port_with_another_protocol_matches_nothing():
    """layer4.rst: a named port "may narrow this down, but may not contradict" the protocol: dns is UDP 5353
    on a/server, so dns/TCP resolves to nothing."""
    check([*server_and_client(), cnp("a", "p", ingress_ports(tcp("dns", "TCP")))], {("a/client", "a/server"): NONE})


def test_l7_rule_allows_the_port_through_a_filter():
    """layer7.rst "HTTP": the HTTP rule admits TCP 80 from app=client through the proxy's filter; the
    connection is allowed only with the filter (reported apart from plain allows)."""
    objs = [
        *server_and_client(),
        cnp("a", "p", ingress_ports(tcp(80), rules={"http": [{"method": "GET", "path": "/public"}]})),
    ]
    check(objs, {("a/client", "a/server"): "TCP 80"}, l7={("a/client", "a/server"): "TCP 80"})


def test_dns_rule_on_egress_filters_dns():
    """layer7.rst "DNS Policy and IP Discovery": a `dns` rule on port 53 admits DNS through the DNS proxy."""
    spec = {
        "endpointSelector": {"matchLabels": {"app": "client"}},
        "egress": [
            {
                "toEndpoints": [{"matchLabels": {"app": "web"}}],
                "toPorts": [{"ports": [tcp(53, "UDP")], "rules": {"dns": [{"matchPattern": "*"}]}}],
            }
        ],
    }
    check(
        [*server_and_client(), cnp("a", "d", spec)],
        {("a/client", "a/server"): "UDP 53"},
        l7={("a/client", "a/server"): "UDP 53"},
    )


# ------------------------------------------------------------------------------------------ Scope 5: default deny, precedence


def test_ingress_empty_rule_allows_nothing_and_only_enables_default_deny():
    """The trap (intro.rst "Endpoint default policy"; the star-wars sw_deny_policy.yaml): `ingress: [{}]`
    puts the selected endpoints in default deny and admits no one — where a NetworkPolicy's
    `ingress: [{}]` admits everyone."""
    objs = [*two_namespaces(), cnp("a", "deny", {"endpointSelector": {}, "ingress": [{}]})]
    check(objs, {("a/client", "a/server"): NONE, ("b/client", "a/server"): NONE, ("a/server", "b/client"): ALL})
    np_objs = [*two_namespaces(), knp("a", "open", {"podSelector": {}, "ingress": [{}]})]
    check(np_objs, {("a/client", "a/server"): ALL, ("b/client", "a/server"): ALL})


def test_port_only_rule_admits_any_peer_on_those_ports():
    """The trap (layer4.rst "Limit ingress/egress ports": "to any layer 3 destination"): a rule with toPorts
    and no peer field admits every peer — other namespaces and the world too — on those ports."""
    spec = {"endpointSelector": {"matchLabels": {"app": "web"}}, "ingress": [{"toPorts": [{"ports": [tcp(80)]}]}]}
    objs = [*two_namespaces(), cnp("a", "port", spec)]
    check(
        objs,
        {("a/client", "a/server"): "TCP 80", ("b/client", "a/server"): "TCP 80"},
        from_ip={("203.0.113.7", "a/server"): "TCP 80"},
    )


def test_default_deny_is_per_direction():
    """intro.rst "Endpoint default policy": a policy with only an ingress section puts the endpoint in
    default deny for ingress, not egress."""
    objs = [
        *two_namespaces(),
        cnp(
            "a",
            "in",
            {
                "endpointSelector": {"matchLabels": {"app": "web"}},
                "ingress": [{"fromEndpoints": [{"matchLabels": {"app": "client"}}]}],
            },
        ),
    ]
    check(
        objs, {("a/server", "b/server"): ALL, ("b/client", "a/server"): NONE}, to_ip={("a/server", "203.0.113.7"): ALL}
    )


def test_ingress_deny_wins_over_allows_of_every_kind():
    """deny.rst: "Deny policies take precedence over allow policies, regardless of whether they are a Cilium
    Network Policy, a Clusterwide Cilium Network Policy or even a Kubernetes Network Policy": port 80 from
    a/client is denied although a CNP, a CCNP and a NetworkPolicy allow it; 81 stays allowed."""
    allow_rule = {"fromEndpoints": [{"matchLabels": {"app": "client"}}]}
    objs = [
        *two_namespaces(),
        cnp("a", "allow", {"endpointSelector": {"matchLabels": {"app": "web"}}, "ingress": [allow_rule]}),
        ccnp("allow", {"endpointSelector": {"matchLabels": {"app": "web"}}, "ingress": [{"fromEntities": ["all"]}]}),
        cnp(
            "a",
            "deny",
            {
                "endpointSelector": {"matchLabels": {"app": "web"}},
                "ingressDeny": [
                    {"fromEndpoints": [{"matchLabels": {"app": "client"}}], "toPorts": [{"ports": [tcp(80)]}]}
                ],
            },
        ),
    ]
    want = "TCP 1-79,81-65535,UDP,SCTP"
    check(objs, {("a/client", "a/server"): want, ("b/client", "a/server"): ALL})
    with_np = [*objs, knp("a", "np-allow", {"podSelector": {}, "ingress": [{}]})]
    check(with_np, {("a/client", "a/server"): want})


def test_a_deny_only_policy_puts_the_endpoint_in_default_deny():
    """deny.rst, the table's last column: with only a deny policy on 80/TCP, curl to 81 is denied too (the
    pod entered default deny; nothing allows 81)."""
    objs = [
        *two_namespaces(),
        cnp(
            "a",
            "deny",
            {
                "endpointSelector": {"matchLabels": {"app": "web"}},
                "ingressDeny": [
                    {"fromEndpoints": [{"matchLabels": {"app": "client"}}], "toPorts": [{"ports": [tcp(80)]}]}
                ],
            },
        ),
    ]
    check(objs, {("a/client", "a/server"): NONE})


def test_egress_deny_wins_over_egress_allow():
    """layer3.rst "Simple Egress Deny": "If an egressDeny rule matches, egress traffic is denied even if the
    policy contains egress rules that would otherwise allow it"."""
    spec = {
        "endpointSelector": {"matchLabels": {"app": "client"}},
        "egress": [{"toEndpoints": [{}]}],
        "egressDeny": [{"toEndpoints": [{"matchLabels": {"app": "web"}}]}],
    }
    objs = [*two_namespaces(), cnp("a", "e", spec), cpod("a", "other", {"app": "other"}, "10.0.1.9")]
    check(objs, {("a/client", "a/server"): NONE, ("a/client", "a/other"): ALL})


def test_enable_default_deny_false_leaves_other_traffic_allowed():
    """intro.rst "Endpoint default policy" (the intercept-all-dns example): with enableDefaultDeny
    {ingress: false}, a policy admitting only app=client does not isolate: b/client still reaches a/server."""
    spec = {
        "endpointSelector": {"matchLabels": {"app": "web"}},
        "enableDefaultDeny": {"ingress": False},
        "ingress": [{"fromEndpoints": [{"matchLabels": {"app": "client"}}], "toPorts": [{"ports": [tcp(80)]}]}],
    }
    check([*two_namespaces(), cnp("a", "soft", spec)], {("b/client", "a/server"): ALL, ("a/client", "a/server"): ALL})


def test_enable_default_deny_true_isolates_a_direction_without_rules():
    """CRD enableDefaultDeny: "If not specified, the default is true for each traffic direction that has
    rules"; given as true for ingress on an egress-only policy, ingress is isolated too."""
    spec = {
        "endpointSelector": {"matchLabels": {"app": "web"}},
        "enableDefaultDeny": {"ingress": True},
        "egress": [{"toEntities": ["all"]}],
    }
    check(
        [*two_namespaces(), cnp("a", "strict", spec)], {("a/client", "a/server"): NONE, ("a/server", "b/server"): ALL}
    )


def test_network_policies_keep_their_meaning_and_add_allows():
    """kubernetes.rst / intro.rst "Rule Basics" (union of rules): a CNP admits app=client, a NetworkPolicy
    admits b's pods; both are admitted, a/other neither."""
    objs = [
        *two_namespaces(),
        cpod("a", "other", {"app": "other"}, "10.0.1.9"),
        cnp(
            "a",
            "c",
            {
                "endpointSelector": {"matchLabels": {"app": "web"}},
                "ingress": [{"fromEndpoints": [{"matchLabels": {"app": "client"}}]}],
            },
        ),
        knp(
            "a",
            "n",
            {
                "podSelector": {"matchLabels": {"app": "web"}},
                "ingress": [{"from": [{"namespaceSelector": {"matchLabels": {"team": "blue"}}}]}],
            },
        ),
    ]
    check(objs, {("a/client", "a/server"): ALL, ("b/client", "a/server"): ALL, ("a/other", "a/server"): NONE})


def test_enforcement_always_isolates_every_endpoint():
    """intro.rst "Policy Enforcement Modes", always: "policy enforcement is enabled on all endpoints even if
    no rules select specific endpoints": without any policy nothing is allowed between pods."""
    check(two_namespaces(), {("a/client", "a/server"): NONE, ("b/client", "b/server"): NONE}, enforcement="always")


def test_enforcement_never_allows_everything():
    """intro.rst "Policy Enforcement Modes", never: "all traffic is allowed from any source", even with a
    deny policy and a default-deny NetworkPolicy in place."""
    objs = [
        *two_namespaces(),
        cnp("a", "deny", {"endpointSelector": {}, "ingressDeny": [{"fromEntities": ["all"]}]}),
        knp("a", "np-deny", {"podSelector": {}, "policyTypes": ["Ingress"]}),
    ]
    check(objs, {("a/client", "a/server"): ALL, ("b/client", "a/server"): ALL}, enforcement="never")


def test_each_entry_of_specs_selects_on_its_own():
    """intro.rst "Rule Basics": `specs` is a list of rules, each with its own endpointSelector: web admits
    app=client; client's egress only reaches app=web."""
    objs = [
        *two_namespaces(),
        cnp(
            "a",
            "two",
            specs=[
                {
                    "endpointSelector": {"matchLabels": {"app": "web"}},
                    "ingress": [{"fromEndpoints": [{"matchLabels": {"app": "client"}}]}],
                },
                {
                    "endpointSelector": {"matchLabels": {"app": "client"}},
                    "egress": [{"toEndpoints": [{"matchLabels": {"app": "web"}}]}],
                },
            ],
        ),
        cpod("a", "other", {"app": "other"}, "10.0.1.9"),
    ]
    check(objs, {("a/client", "a/server"): ALL, ("a/other", "a/server"): NONE, ("a/client", "a/other"): NONE})
