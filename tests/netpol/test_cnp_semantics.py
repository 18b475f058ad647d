"""ClusterNetworkPolicy (policy.networking.k8s.io/v1alpha2) semantics, pinned from the API's field documentation.

Source: kubernetes-sigs/network-policy-api, apis/v1alpha2/clusternetworkpolicy_types.go (quoted per test). Every
expectation is derived by hand in the test's comments, and each case is answered twice: by the engine through
the real pipeline and by the independent reference evaluator (tests/netpol/reference_tiers.py); both must give
the hand-derived answer.
"""

from __future__ import annotations

import pytest
import yaml

from netpol.ports import ConnectionSet
from tests.helpers import analyze_objects, conn, namespace, pod, policy, run_cli
from tests.netpol import reference as ref
from tests.netpol.reference_tiers import TieredReference

CNP_API = "policy.networking.k8s.io/v1alpha2"
ANP_API = "policy.networking.k8s.io/v1alpha1"
ALL = "All Connections"
NONE = "No Connections"


def cnp(name: str, priority: int, *, tier: str = "Admin", subject: dict | None = None, ingress=(), egress=()) -> dict:
    spec: dict = {"tier": tier, "priority": priority, "subject": subject or {"namespaces": {}}}
    if ingress:
        spec["ingress"] = list(ingress)
    if egress:
        spec["egress"] = list(egress)
    return {"apiVersion": CNP_API, "kind": "ClusterNetworkPolicy", "metadata": {"name": name}, "spec": spec}


def ns_is(name: str) -> dict:
    return {"matchLabels": {"kubernetes.io/metadata.name": name}}


def from_ns(*names: str) -> list[dict]:
    return [{"namespaces": ns_is(n)} for n in names]


def tcp(lo: int, hi: int | None = None) -> dict:
    port = {"number": lo} if hi is None else {"range": {"start": lo, "end": hi}}
    return {"tcp": {"destinationPort": port}}


def udp(lo: int, hi: int | None = None) -> dict:
    port = {"number": lo} if hi is None else {"range": {"start": lo, "end": hi}}
    return {"udp": {"destinationPort": port}}


BASE = [namespace("x"), namespace("y"), pod("x", "a", {"app": "a"}), pod("y", "b", {"app": "b"})]


def answer(objs: list[dict], src: str, dst: str) -> str:
    """The engine's answer, asserted equal to the reference evaluator's (which reads the pod addresses the
    pipeline assigned to pods whose manifest has none)."""
    a = analyze_objects(*objs)
    engine = conn(a, src, dst).render()
    ips = {p.key: p.pod_ips for p in a.pods}
    placed = [
        {**o, "status": {"podIP": ips[f"{o['metadata']['namespace']}/{o['metadata']['name']}"][0]}}
        if o["kind"] == "Pod" and not (o.get("status") or {}).get("podIP")
        else o
        for o in objs
    ]
    reference = ConnectionSet.of(ref.items(TieredReference(placed).connection(src, dst))).render()
    assert engine == reference, f"engine {engine} != reference {reference}"
    return engine


def test_admin_accept_overrides_a_networkpolicy_deny() -> None:
    """Accept: "No further ingress ClusterNetworkPolicy or NetworkPolicy rules will be processed." x's deny-all
    NetworkPolicy would drop y/b → x/a; the Admin Accept from y decides first: allowed, every port."""
    objs = [
        *BASE,
        policy("x", "deny-all", {"podSelector": {}}),
        cnp("accept-y", 10, subject={"namespaces": ns_is("x")}, ingress=[{"action": "Accept", "from": from_ns("y")}]),
    ]
    assert answer(objs, "y/b", "x/a") == ALL


def test_admin_deny_overrides_a_networkpolicy_allow() -> None:
    """Deny: "Drops the selected traffic. No further ClusterNetworkPolicy or NetworkPolicy rules will be
    processed." x's allow-all NetworkPolicy is never consulted for TCP 80; other ports go on and are allowed."""
    objs = [
        *BASE,
        policy("x", "allow-all", {"podSelector": {}, "ingress": [{}]}),
        cnp("deny-80", 10, ingress=[{"action": "Deny", "from": from_ns("y"), "protocols": [tcp(80)]}]),
    ]
    assert answer(objs, "y/b", "x/a") == "TCP 1-79,81-65535,UDP,SCTP"


def test_admin_pass_hands_over_to_the_networkpolicy_that_selects_the_pod() -> None:
    """Pass: "Skips all further ClusterNetworkPolicy rules in the current tier … and passes evaluation to the next
    tier" — "if an Admin tier CNP uses Pass action, NetworkPolicy evaluation will happen next". The Pass at priority
    10 skips the Deny at 20; x's NetworkPolicy admits TCP 443 only: TCP 443."""
    objs = [
        *BASE,
        policy("x", "allow-443", {"podSelector": {}, "ingress": [{"ports": [{"port": 443}]}]}),
        cnp("pass", 10, ingress=[{"action": "Pass", "from": from_ns("y")}]),
        cnp("deny", 20, ingress=[{"action": "Deny", "from": from_ns("y")}]),
    ]
    assert answer(objs, "y/b", "x/a") == "TCP 443"


def test_admin_pass_reaches_the_baseline_when_no_networkpolicy_selects_the_pod() -> None:
    """NetworkPolicy tier: "Further evaluation only happens for Pods not selected by a v1.NetworkPolicy." Nothing
    selects x/a, so the passed traffic reaches the Baseline tier, whose Deny drops it: no connection."""
    objs = [
        *BASE,
        cnp("pass", 10, ingress=[{"action": "Pass", "from": from_ns("y")}]),
        cnp("guard", 10, tier="Baseline", ingress=[{"action": "Deny", "from": from_ns("y")}]),
    ]
    assert answer(objs, "y/b", "x/a") == NONE
    # Without the Baseline Deny the passed traffic meets nothing more: "the default kubernetes policy is applied".
    assert answer(objs[:-1], "y/b", "x/a") == ALL


def test_rules_of_one_policy_apply_in_the_order_written() -> None:
    """ "a rule that appears at the top of the ingress rules would take the highest precedence." Accept TCP 80
    first, then Deny everything: TCP 80 only. Written the other way round, the Deny matches first: nothing."""
    accept = {"action": "Accept", "from": from_ns("y"), "protocols": [tcp(80)]}
    deny = {"action": "Deny", "from": from_ns("y")}
    assert answer([*BASE, cnp("p", 10, ingress=[accept, deny])], "y/b", "x/a") == "TCP 80"
    assert answer([*BASE, cnp("p", 10, ingress=[deny, accept])], "y/b", "x/a") == NONE


def test_a_lower_priority_value_is_evaluated_first() -> None:
    """ "Policies with lower priority values have higher precedence." Deny at 5 beats Accept at 6 (written first
    in the input on purpose); the Accept at 4 beats both."""
    deny = cnp("deny", 5, ingress=[{"action": "Deny", "from": from_ns("y")}])
    accept6 = cnp("accept6", 6, ingress=[{"action": "Accept", "from": from_ns("y")}])
    assert answer([*BASE, accept6, deny], "y/b", "x/a") == NONE
    accept4 = cnp("accept4", 4, ingress=[{"action": "Accept", "from": from_ns("y")}])
    assert answer([*BASE, accept6, deny, accept4], "y/b", "x/a") == ALL


def test_every_admin_rule_comes_before_every_baseline_rule() -> None:
    """ "All Admin tier rules have higher precedence than NetworkPolicy or Baseline tier rules": a Baseline policy
    at priority 0 denies, the Admin policy at priority 1000 accepts: allowed."""
    objs = [
        *BASE,
        cnp("baseline-0", 0, tier="Baseline", ingress=[{"action": "Deny", "from": from_ns("y")}]),
        cnp("admin-1000", 1000, ingress=[{"action": "Accept", "from": from_ns("y")}]),
    ]
    assert answer(objs, "y/b", "x/a") == ALL


def test_a_networkpolicy_decides_before_the_baseline() -> None:
    """Baseline tier: "a cluster-wide policy that can be overridden by the v1.NetworkPolicy". x's NetworkPolicy
    admits UDP 53 from y; the Baseline Deny never applies to x/a, which the NetworkPolicy selects: UDP 53."""
    objs = [
        *BASE,
        policy("x", "dns", {"podSelector": {}, "ingress": [{"ports": [{"protocol": "UDP", "port": 53}]}]}),
        cnp("default", 10, tier="Baseline", ingress=[{"action": "Deny", "from": [{"namespaces": {}}]}]),
    ]
    assert answer(objs, "y/b", "x/a") == "UDP 53"


def test_baseline_pass_ends_at_the_default_allow() -> None:
    """Pass in the Baseline tier skips the rest of the tier; the next step is "the default kubernetes policy …
    all pods can communicate". Baseline 5 passes TCP 80, Baseline 6 denies all: TCP 80 is allowed, the rest not."""
    objs = [
        *BASE,
        cnp("pass-80", 5, tier="Baseline", ingress=[{"action": "Pass", "from": from_ns("y"), "protocols": [tcp(80)]}]),
        cnp("deny", 6, tier="Baseline", ingress=[{"action": "Deny", "from": from_ns("y")}]),
    ]
    assert answer(objs, "y/b", "x/a") == "TCP 80"


def test_several_baseline_policies_apply_by_priority() -> None:
    """Baseline policies are ordered by priority like Admin ones. Baseline 1 accepts TCP 1-1000 from y, Baseline 2
    denies TCP from y, Baseline 3 accepts everything from y: TCP 1-1000 and all of UDP and SCTP ("UDP", "SCTP": every port)."""
    objs = [
        *BASE,
        cnp("b3", 3, tier="Baseline", ingress=[{"action": "Accept", "from": from_ns("y")}]),
        cnp("b2", 2, tier="Baseline", ingress=[{"action": "Deny", "from": from_ns("y"), "protocols": [tcp(1, 65535)]}]),
        cnp(
            "b1", 1, tier="Baseline", ingress=[{"action": "Accept", "from": from_ns("y"), "protocols": [tcp(1, 1000)]}]
        ),
    ]
    assert answer(objs, "y/b", "x/a") == "TCP 1-1000,UDP,SCTP"


def test_a_protocol_over_its_whole_port_range() -> None:
    """A `range` of 1–65535 is every port of that protocol (`tcp: {}` is refused by the CRD, so this is how a
    whole protocol is written). Deny UDP 1–65535: TCP and SCTP remain."""
    objs = [*BASE, cnp("no-udp", 1, ingress=[{"action": "Deny", "from": from_ns("y"), "protocols": [udp(1, 65535)]}])]
    assert answer(objs, "y/b", "x/a") == "TCP,SCTP"


def test_port_ranges_are_inclusive_and_protocols_add_up() -> None:
    """PortRange: "an inclusive range of ports from the assigned Start value to End value". Accept TCP 8000–8080
    and UDP 53, then Deny all: exactly those."""
    objs = [
        *BASE,
        cnp(
            "p",
            1,
            ingress=[
                {"action": "Accept", "from": from_ns("y"), "protocols": [tcp(8000, 8080), udp(53)]},
                {"action": "Deny", "from": from_ns("y")},
            ],
        ),
    ]
    assert answer(objs, "y/b", "x/a") == "TCP 8000-8080,UDP 53"


def test_a_named_port_resolves_on_the_destination_pod_whatever_its_protocol() -> None:
    """DestinationNamedPort "selects a destination port on a pod based on the ContainerPort name". x/a names
    `dns` UDP 5353 and x/c names `dns` TCP 53: Accept destinationNamedPort dns then Deny all gives each its own
    port; y/b names nothing, so towards it nothing is accepted."""
    objs = [
        namespace("x"),
        namespace("y"),
        pod("x", "a", {"app": "a"}, ports=[{"name": "dns", "containerPort": 5353, "protocol": "UDP"}]),
        pod("x", "c", {"app": "c"}, ports=[{"name": "dns", "containerPort": 53, "protocol": "TCP"}]),
        pod("y", "b", {"app": "b"}),
        cnp(
            "p",
            1,
            egress=[
                {"action": "Accept", "to": [{"namespaces": {}}], "protocols": [{"destinationNamedPort": "dns"}]},
                {"action": "Deny", "to": [{"namespaces": {}}]},
            ],
        ),
    ]
    assert answer(objs, "y/b", "x/a") == "UDP 5353"
    assert answer(objs, "y/b", "x/c") == "TCP 53"
    assert answer(objs, "x/a", "y/b") == NONE


def test_networks_match_pod_addresses_too() -> None:
    """Networks: "cluster-internal traffic will be checked against the rule as well. So if you Accept or Deny
    traffic to "0.0.0.0/0", that will allow or deny all IPv4 pod-to-pod traffic as well." Deny egress to x/a's
    /32: y/b cannot reach x/a; x/a can still reach y/b (another address)."""
    a = {**pod("x", "a", {"app": "a"}), "status": {"phase": "Running", "podIP": "10.0.1.5"}}
    b = {**pod("y", "b", {"app": "b"}), "status": {"phase": "Running", "podIP": "10.0.2.7"}}
    objs = [
        namespace("x"),
        namespace("y"),
        a,
        b,
        cnp("no-a", 1, egress=[{"action": "Deny", "to": [{"networks": ["10.0.1.5/32"]}]}]),
    ]
    assert answer(objs, "y/b", "x/a") == NONE
    assert answer(objs, "x/a", "y/b") == ALL


def node(name: str, ip: str, labels: dict | None = None) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels or {}},
        "status": {"addresses": [{"type": "InternalIP", "address": ip}]},
    }


def test_nodes_match_node_addresses_and_host_network_pods_not_other_pods() -> None:
    """Nodes: "It selects the nodeIPs … present in the node.Status.Addresses field". Deny egress to nodes
    role=infra: the host-network pod on infra (it speaks with 10.250.0.2) is denied, the ordinary pod on the
    same node is not a node address, so it stays reachable; the worker node's host-network pod too."""
    objs = [
        namespace("x"),
        namespace("sys"),
        node("infra", "10.250.0.2", {"role": "infra"}),
        node("worker", "10.250.0.3", {"role": "worker"}),
        {**pod("x", "client", nodeName="worker"), "status": {"phase": "Running", "podIP": "10.0.0.10"}},
        {**pod("x", "app", nodeName="infra"), "status": {"phase": "Running", "podIP": "10.0.0.11"}},
        {
            **pod("sys", "agent-infra", nodeName="infra", hostNetwork=True),
            "status": {"phase": "Running", "podIP": "10.250.0.2"},
        },
        {
            **pod("sys", "agent-worker", nodeName="worker", hostNetwork=True),
            "status": {"phase": "Running", "podIP": "10.250.0.3"},
        },
        cnp(
            "no-infra",
            1,
            subject={"namespaces": ns_is("x")},
            egress=[{"action": "Deny", "to": [{"nodes": {"matchLabels": {"role": "infra"}}}]}],
        ),
    ]
    assert answer(objs, "x/client", "sys/agent-infra") == NONE
    assert answer(objs, "x/client", "x/app") == ALL
    # x/client runs on worker: its own node's host-network pod is node-local traffic, always allowed anyway.
    assert answer(objs, "x/client", "sys/agent-worker") == ALL
    # x/app runs on infra: the node-local exception wins over the Deny ("traffic to and from the node where a
    # Pod is running is always allowed", concepts/services-networking/network-policies).
    assert answer(objs, "x/app", "sys/agent-infra") == ALL


def test_domain_names_never_match_a_pod() -> None:
    """DomainNames are resolved by the implementation at run time; statically they name no pod and no address.
    Accept domainNames then Deny all: the Accept matches nothing here, so y/b reaches no pod."""
    objs = [
        *BASE,
        cnp(
            "allow-list",
            1,
            subject={"namespaces": ns_is("y")},
            egress=[
                {"action": "Accept", "to": [{"domainNames": ["*.example.com", "kubernetes.io"]}]},
                {"action": "Deny", "to": [{"namespaces": {}}]},
            ],
        ),
    ]
    assert answer(objs, "y/b", "x/a") == NONE


def test_egress_and_ingress_are_both_required() -> None:
    """Egress Accept: "No further egress ClusterNetworkPolicy or NetworkPolicy rules will be processed but any
    ingress rules at the destination do apply." y's egress is accepted, x/a's ingress is denied: no connection."""
    objs = [
        *BASE,
        cnp("out", 1, subject={"namespaces": ns_is("y")}, egress=[{"action": "Accept", "to": from_ns("x")}]),
        cnp("in", 2, subject={"namespaces": ns_is("x")}, ingress=[{"action": "Deny", "from": from_ns("y")}]),
    ]
    assert answer(objs, "y/b", "x/a") == NONE
    # And the other way round: an egress Deny drops what an ingress Accept would have let in.
    objs2 = [
        *BASE,
        cnp("out", 1, subject={"namespaces": ns_is("y")}, egress=[{"action": "Deny", "to": from_ns("x")}]),
        cnp("in", 2, subject={"namespaces": ns_is("x")}, ingress=[{"action": "Accept", "from": from_ns("y")}]),
    ]
    assert answer(objs2, "y/b", "x/a") == NONE


def test_host_network_pods_are_never_subjects() -> None:
    """ClusterNetworkPolicySubject: "Note that host-networked pods are not included in subject selection." A Deny
    of all ingress into x leaves x's host-network pod reachable; its ordinary pod is not."""
    objs = [
        namespace("x"),
        namespace("y"),
        node("n1", "10.250.0.2"),
        node("n2", "10.250.0.3"),
        {**pod("x", "hostpod", nodeName="n1", hostNetwork=True), "status": {"phase": "Running", "podIP": "10.250.0.2"}},
        {**pod("x", "a", nodeName="n1"), "status": {"phase": "Running", "podIP": "10.0.0.5"}},
        {**pod("y", "b", nodeName="n2"), "status": {"phase": "Running", "podIP": "10.0.0.6"}},
        cnp(
            "lock-x", 1, subject={"namespaces": ns_is("x")}, ingress=[{"action": "Deny", "from": [{"namespaces": {}}]}]
        ),
    ]
    assert answer(objs, "y/b", "x/hostpod") == ALL
    assert answer(objs, "y/b", "x/a") == NONE


def test_a_pods_subject_ands_its_selectors() -> None:
    """Subject.Pods "is used to select pods via namespace AND pod selectors": only app=a pods of x are denied."""
    objs = [
        *BASE,
        pod("x", "other", {"app": "other"}),
        cnp(
            "p",
            1,
            subject={"pods": {"namespaceSelector": ns_is("x"), "podSelector": {"matchLabels": {"app": "a"}}}},
            ingress=[{"action": "Deny", "from": from_ns("y")}],
        ),
    ]
    assert answer(objs, "y/b", "x/a") == NONE
    assert answer(objs, "y/b", "x/other") == ALL


def test_v1alpha1_and_v1alpha2_share_the_admin_tier_by_priority() -> None:
    """Both API versions in one cluster are different objects evaluated together: an AdminNetworkPolicy at priority
    5 denying y comes before a ClusterNetworkPolicy at priority 6 accepting it (and after one at 4)."""
    anp = {
        "apiVersion": ANP_API,
        "kind": "AdminNetworkPolicy",
        "metadata": {"name": "deny-y"},
        "spec": {"priority": 5, "subject": {"namespaces": {}}, "ingress": [{"action": "Deny", "from": from_ns("y")}]},
    }
    accept6 = cnp("accept6", 6, ingress=[{"action": "Accept", "from": from_ns("y")}])
    assert answer([*BASE, anp, accept6], "y/b", "x/a") == NONE
    accept4 = cnp("accept4", 4, ingress=[{"action": "Accept", "from": from_ns("y")}])
    assert answer([*BASE, anp, accept6, accept4], "y/b", "x/a") == ALL


@pytest.mark.parametrize(("first", "second"), [("a-deny", "b-accept"), ("b-deny", "a-accept")])
def test_equal_priorities_are_read_in_name_order_and_warned_about(first: str, second: str) -> None:
    """Priority: "If two (or more) policies in the same tier with the same priority could match a connection, then
    the implementation can apply any of the matching policies". netpol reads them by name and says so."""
    deny = cnp(first, 7, ingress=[{"action": "Deny", "from": from_ns("y")}])
    accept = cnp(second, 7, ingress=[{"action": "Accept", "from": from_ns("y")}])
    objs = [*BASE, accept, deny]
    # By name: "a-deny" before "b-accept" (deny wins); "a-accept" before "b-deny" (accept wins).
    assert answer(objs, "y/b", "x/a") == (NONE if first == "a-deny" else ALL)
    a = analyze_objects(*objs)
    (w,) = [w for w in a.warnings if w.code == "cnp-same-priority"]
    names = sorted([first, second])
    assert f"{names[0]} and {names[1]}" in w.message and "priority 7" in w.message
    assert f"evaluated here in name order: {names[0]} first" in w.message


def test_explain_says_domain_names_match_no_pod(tmp_path) -> None:  # noqa: ANN001
    """DomainNames are resolved at run time: explain names the Accept rule and why it held nothing, then the Deny
    that decided (an allow-list of domains before a deny, the pattern the field documentation recommends)."""
    objs = [
        *BASE,
        cnp(
            "allow-list",
            5,
            subject={"namespaces": ns_is("y")},
            egress=[
                {"name": "github", "action": "Accept", "to": [{"domainNames": ["*.github.com"]}]},
                {"name": "rest", "action": "Deny", "to": [{"namespaces": {}}]},
            ],
        ),
    ]
    path = tmp_path / "in.yaml"
    path.write_text(yaml.safe_dump_all(objs))
    res = run_cli("explain", "y/b", "x/a", str(path))
    assert res.returncode == 1, res.stderr  # denied
    lines = res.stdout.splitlines()
    assert lines[1] == "  egress (y/b): no policy isolates it for egress; the tiers below decide → No Connections"
    assert (
        "[Admin tier] CNP allow-list egress rule #1 'github' (Accept), priority 5, holds nothing here (domainNames "
        "*.github.com: domainNames are resolved by DNS while traffic flows: statically they match no pod and no "
        "address)" in res.stdout
    )
    assert (
        "[Admin tier] CNP allow-list egress rule #2 'rest' (Deny), priority 5, via namespaces {}: Deny on All Connections"
        in res.stdout
    )
