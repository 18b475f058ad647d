"""Upstream e2e conformance: kubernetes/kubernetes test/e2e/network/netpol/network_policy.go, statically.

Each case is one upstream ginkgo `It` (parametrize id = its name; the UDP and SCTP contexts are prefixed
`using UDP:` / `using SCTP:`). The cluster is the upstream model (tests/netpol/upstream_model.py: x, y,
z × a, b, c, ports 80/81 on TCP/UDP/SCTP named serve-<port>-<proto>). Every upstream case runs on all
nine pods even where newer upstream versions create only the pods they need: the truth tables are
built with the same ExpectPeer-style edits; where an edit names one pod of a subset, the edit the older
full-model version of the case made for the other pods is added (and commented). Loopback is
always allowed here (upstream ignores it). A case that mutates the cluster (update a policy, label a
namespace or a pod, delete policies) is expressed as a sequence of static states, each checked with the
probes upstream runs in that state.

Mirrored upstream cases ("NetworkPolicy between server and client"):
  should support a 'default-deny-ingress' policy; should support a 'default-deny-all' policy;
  should enforce policy to allow traffic from pods within server namespace based on PodSelector;
  should enforce policy to allow ingress traffic for a target;
  should enforce policy to allow ingress traffic from pods in all namespaces;
  should enforce policy to allow traffic only from a different namespace, based on NamespaceSelector;
  should enforce policy based on PodSelector with MatchExpressions;
  should enforce policy based on NamespaceSelector with MatchExpressions;
  should enforce policy based on PodSelector or NamespaceSelector;
  should enforce policy based on PodSelector and NamespaceSelector;
  should enforce policy based on Multiple PodSelectors and NamespaceSelectors;
  should enforce policy based on any PodSelectors;
  should enforce policy to allow traffic only from a pod in a different namespace based on PodSelector
  and NamespaceSelector; should enforce policy based on Ports;
  should enforce multiple, stacked policies with overlapping podSelectors; should support allow-all policy;
  should allow ingress access on one named port; should allow ingress access from namespace on one named
  port; should allow egress access on one named port; should enforce updated policy; should allow ingress
  access from updated namespace; should allow ingress access from updated pod; should deny ingress from
  pods on other namespaces; should deny ingress access to updated pod; should deny egress from pods based
  on PodSelector; should deny egress from all pods in a namespace; should work with Ingress, Egress
  specified together; should support denying of egress traffic on the client side (even if the server
  explicitly allows this traffic); should enforce egress policy allowing traffic to a server in a
  different namespace based on PodSelector and NamespaceSelector; should enforce ingress policy allowing
  any port traffic to a server on a specific protocol; should enforce multiple ingress policies with
  ingress allow-all policy taking precedence; should enforce multiple egress policies with egress
  allow-all policy taking precedence; should stop enforcing policies after they are deleted; should allow
  egress access to server in CIDR block; should enforce except clause while egress access to server in
  CIDR block; should ensure an IP overlapping both IPBlock.CIDR and IPBlock.Except is allowed; should
  enforce policies to check ingress and egress policies can be controlled independently based on
  PodSelector; should not mistakenly treat 'protocol: SCTP' as 'protocol: TCP', even if the plugin
  doesn't support SCTP; should properly isolate pods that are selected by a policy allowing SCTP, even if
  the plugin doesn't support SCTP; should not allow access by TCP when a policy specifies only UDP;
  should enforce policy to allow traffic based on NamespaceSelector with MatchLabels using default ns
  label; should enforce policy based on NamespaceSelector with MatchExpressions using default ns label.
("... using UDP" and "... using SCTP"): should support a 'default-deny-ingress' policy; should enforce
  policy based on Ports; should enforce policy to allow traffic only from a pod in a different namespace
  based on PodSelector and NamespaceSelector.

Cases marked `kube-reach:` are not upstream; they use the same model and style for features the upstream
file does not probe (endPort ranges, several port entries, ingress ipBlock with except on pod IPs,
policies in several namespaces, named ports per protocol).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

from netpol.readout.export import MatrixView, probe_pairs
from tests.helpers import analyze_objects, run_cli
from tests.netpol.upstream_model import (
    ALL_PODS,
    Peer,
    Truth,
    expr,
    grid,
    in_ns,
    labels,
    model_objects,
    netpol,
    ns_name,
    port,
    write_model,
)

Ips = dict[str, str]
Probe = tuple[str, int, Truth]


@dataclass(frozen=True)
class Step:
    """One static state of a case: the policies present, label updates, and the probes upstream runs."""

    policies: Callable[[Ips], list[dict]]
    probes: list[Probe]
    ns_labels: dict[str, dict[str, str]] = field(default_factory=dict)
    pod_labels: dict[str, dict[str, str]] = field(default_factory=dict)


def static(*pols: dict) -> Callable[[Ips], list[dict]]:
    return lambda _ips: list(pols)


def T(default: bool = True) -> Truth:
    return Truth(default)


X, Y, Z = "x", "y", "z"

# Policies reused across cases ------------------------------------------------------------------
DENY_INGRESS_X = in_ns(netpol("deny-ingress", pod_selector={}, ingress=[]), X)
DENY_ALL_X = in_ns(netpol("deny-all", pod_selector={}, ingress=[], egress=[]), X)
ALLOW_81_FROM_Y = in_ns(
    netpol(
        "allow-client-a-via-ns-selector",
        {"pod": "a"},
        ingress=[{"from": [{"namespaceSelector": ns_name(Y)}], "ports": [port(81, "TCP")]}],
    ),
    X,
)


def _allow_from_y_to_xa() -> Truth:
    return T().expect_peer(Peer(X), Peer(X, "a"), False).expect_peer(Peer(Z), Peer(X, "a"), False)


def _only_ya_to_xa() -> Truth:
    return T().expect_all_ingress("x/a", False).expect("y/a", "x/a", True)


def _stacked_allow() -> Truth:
    return (
        T()
        .expect_peer(Peer(X), Peer(X, "a"), False)
        .expect_peer(Peer(Y), Peer(X, "a"), True)
        .expect_peer(Peer(Z), Peer(X, "a"), False)
    )


def _cidr_egress(ips: Ips) -> list[dict]:
    rule = {"to": [{"ipBlock": {"cidr": f"{ips['y/b']}/32"}}]}
    return [in_ns(netpol("allow-client-a-via-cidr-egress-rule", {"pod": "a"}, egress=[rule]), X)]


def large_cidr(ip: str) -> str:
    """makeLargeCIDRForIP: the /4 that contains the IP."""
    first = int(ip.split(".")[0]) & 0xF0
    return f"{first}.0.0.0/4"


def _except_egress(ips: Ips) -> list[dict]:
    block = {"cidr": large_cidr(ips["x/b"]), "except": [f"{ips['x/b']}/32"]}
    return [
        in_ns(netpol("allow-client-a-via-cidr-egress-rule", {"pod": "a"}, egress=[{"to": [{"ipBlock": block}]}]), X)
    ]


def _only_xb_egress(ips: Ips) -> list[dict]:
    # UpdatePolicy with the same name: replaces the except policy.
    rule = {"to": [{"ipBlock": {"cidr": f"{ips['x/b']}/32"}}]}
    return [in_ns(netpol("allow-client-a-via-cidr-egress-rule", {"pod": "a"}, egress=[rule]), X)]


def _ingress_except(ips: Ips) -> list[dict]:
    block = {"cidr": large_cidr(ips["y/a"]), "except": [f"{ips['y/a']}/32"]}
    return [in_ns(netpol("allow-from-cidr-except-ya", {"pod": "a"}, ingress=[{"from": [{"ipBlock": block}]}]), X)]


@dataclass(frozen=True)
class Case:
    id: str
    steps: list[Step]


CASES: list[Case] = [
    Case(
        "should support a 'default-deny-ingress' policy",
        [Step(static(DENY_INGRESS_X), [("TCP", 80, T().expect_peer(Peer(), Peer(X), False))])],
    ),
    Case(
        "should support a 'default-deny-all' policy",
        [
            Step(
                static(DENY_ALL_X),
                [("TCP", 80, T().expect_peer(Peer(), Peer(X), False).expect_peer(Peer(X), Peer(), False))],
            )
        ],
    ),
    Case(
        "should enforce policy to allow traffic from pods within server namespace based on PodSelector",
        [
            Step(
                static(
                    in_ns(
                        netpol("x-a-allows-x-b", {"pod": "a"}, ingress=[{"from": [{"podSelector": labels(pod="b")}]}]),
                        X,
                    )
                ),
                [("TCP", 80, T().expect_all_ingress("x/a", False).expect("x/b", "x/a", True))],
            )
        ],
    ),
    Case(
        "should enforce policy to allow ingress traffic for a target",
        [
            Step(
                static(
                    in_ns(netpol("deny-all", pod_selector={}, ingress=[]), X),
                    in_ns(
                        netpol(
                            "allow-all-to-a",
                            {"pod": "a"},
                            ingress=[{"from": [{"podSelector": {}, "namespaceSelector": {}}]}],
                        ),
                        X,
                    ),
                ),
                [
                    (
                        "TCP",
                        80,
                        T()
                        .expect_all_ingress("x/a", True)
                        .expect_all_ingress("x/b", False)
                        .expect_all_ingress("x/c", False),  # full model: x/c is denied like x/b
                    )
                ],
            )
        ],
    ),
    Case(
        "should enforce policy to allow ingress traffic from pods in all namespaces",
        [
            Step(
                static(
                    in_ns(
                        netpol(
                            "allow-from-another-ns",
                            {"pod": "a"},
                            ingress=[{"from": [{"namespaceSelector": {"matchLabels": {}}}]}],
                        ),
                        X,
                    )
                ),
                [("TCP", 80, T())],
            )
        ],
    ),
    Case(
        "should enforce policy to allow traffic only from a different namespace, based on NamespaceSelector",
        [
            Step(
                static(
                    in_ns(
                        netpol(
                            "allow-client-a-via-ns-selector",
                            {"pod": "a"},
                            ingress=[{"from": [{"namespaceSelector": ns_name(Y)}]}],
                        ),
                        X,
                    )
                ),
                [("TCP", 80, _allow_from_y_to_xa())],
            )
        ],
    ),
    Case(
        "should enforce policy based on PodSelector with MatchExpressions",
        [
            Step(
                static(
                    in_ns(
                        netpol(
                            "x-a-allows-x-b",
                            {"pod": "a"},
                            ingress=[{"from": [{"podSelector": expr("pod", "In", "b")}]}],
                        ),
                        X,
                    )
                ),
                [("TCP", 80, T().expect_all_ingress("x/a", False).expect("x/b", "x/a", True))],
            )
        ],
    ),
    Case(
        "should enforce policy based on NamespaceSelector with MatchExpressions",
        [
            Step(
                static(
                    in_ns(
                        netpol(
                            "allow-ns-y-match-selector",
                            {"pod": "a"},
                            ingress=[{"from": [{"namespaceSelector": expr("kubernetes.io/metadata.name", "In", Y)}]}],
                        ),
                        X,
                    )
                ),
                [("TCP", 80, _allow_from_y_to_xa())],
            )
        ],
    ),
    Case(
        "should enforce policy based on PodSelector or NamespaceSelector",
        [
            Step(
                static(
                    in_ns(
                        netpol(
                            "allow-ns-y-match-selector",
                            {"pod": "a"},
                            ingress=[
                                {
                                    "from": [
                                        {"namespaceSelector": expr("kubernetes.io/metadata.name", "NotIn", X)},
                                        {"podSelector": labels(pod="b")},
                                    ]
                                }
                            ],
                        ),
                        X,
                    )
                ),
                [("TCP", 80, T().expect("x/a", "x/a", False).expect("x/c", "x/a", False))],
            )
        ],
    ),
    Case(
        "should enforce policy based on PodSelector and NamespaceSelector",
        [
            Step(
                static(
                    in_ns(
                        netpol(
                            "allow-ns-y-podselector-and-nsselector",
                            {"pod": "a"},
                            ingress=[
                                {
                                    "from": [
                                        {
                                            "namespaceSelector": expr("kubernetes.io/metadata.name", "NotIn", X),
                                            "podSelector": labels(pod="b"),
                                        }
                                    ]
                                }
                            ],
                        ),
                        X,
                    )
                ),
                [
                    (
                        "TCP",
                        80,
                        T().expect_all_ingress("x/a", False).expect("y/b", "x/a", True).expect("z/b", "x/a", True),
                    )
                ],
            )
        ],
    ),
    Case(
        "should enforce policy based on Multiple PodSelectors and NamespaceSelectors",
        [
            Step(
                static(
                    in_ns(
                        netpol(
                            "allow-ns-y-z-pod-b-c",
                            {"pod": "a"},
                            ingress=[
                                {
                                    "from": [
                                        {
                                            "namespaceSelector": expr("kubernetes.io/metadata.name", "NotIn", X),
                                            "podSelector": expr("pod", "In", "b", "c"),
                                        }
                                    ]
                                }
                            ],
                        ),
                        X,
                    )
                ),
                [
                    (
                        "TCP",
                        80,
                        T()
                        .expect_peer(Peer(X), Peer(X, "a"), False)
                        .expect("y/a", "x/a", False)
                        .expect("z/a", "x/a", False),  # upstream's full model: z/a is excluded like y/a
                    )
                ],
            )
        ],
    ),
    Case(
        "should enforce policy based on any PodSelectors",
        [
            Step(
                static(
                    in_ns(
                        netpol(
                            "allow-ns-x-pod-b-c",
                            {"pod": "a"},
                            ingress=[{"from": [{"podSelector": labels(pod="b")}, {"podSelector": labels(pod="c")}]}],
                        ),
                        X,
                    )
                ),
                [
                    (
                        "TCP",
                        80,
                        T().expect_all_ingress("x/a", False).expect("x/b", "x/a", True).expect("x/c", "x/a", True),
                    )
                ],
            )
        ],
    ),
    Case(
        "should enforce policy to allow traffic only from a pod in a different namespace based on PodSelector and NamespaceSelector",
        [
            Step(
                static(
                    in_ns(
                        netpol(
                            "allow-ns-y-pod-a-via-namespace-pod-selector",
                            {"pod": "a"},
                            ingress=[{"from": [{"namespaceSelector": ns_name(Y), "podSelector": labels(pod="a")}]}],
                        ),
                        X,
                    )
                ),
                [("TCP", 80, _only_ya_to_xa())],
            )
        ],
    ),
    Case(
        "should enforce policy based on Ports",
        [Step(static(ALLOW_81_FROM_Y), [("TCP", 81, _stacked_allow())])],
    ),
    Case(
        "should enforce multiple, stacked policies with overlapping podSelectors",
        [
            Step(
                static(ALLOW_81_FROM_Y),
                [("TCP", 81, _stacked_allow()), ("TCP", 80, T().expect_all_ingress("x/a", False))],
            ),
            Step(
                static(
                    ALLOW_81_FROM_Y,
                    in_ns(
                        netpol(
                            "allow-client-a-via-ns-selector-80",
                            {"pod": "a"},
                            ingress=[{"from": [{"namespaceSelector": ns_name(Y)}], "ports": [port(80, "TCP")]}],
                        ),
                        X,
                    ),
                ),
                [("TCP", 80, _stacked_allow())],
            ),
        ],
    ),
    Case(
        "should support allow-all policy",
        [Step(static(in_ns(netpol("allow-all", {}, ingress=[{}]), X)), [("TCP", 80, T()), ("TCP", 81, T())])],
    ),
    Case(
        "should allow ingress access on one named port",
        [
            Step(
                static(in_ns(netpol("allow-all", {}, ingress=[{"ports": [port("serve-81-tcp")]}]), X)),
                [("TCP", 81, T()), ("TCP", 80, T().expect_peer(Peer(), Peer(X), False))],
            )
        ],
    ),
    Case(
        "should allow ingress access from namespace on one named port",
        [
            Step(
                static(
                    in_ns(
                        netpol(
                            "allow-client-a-via-ns-selector-80",
                            {"pod": "a"},
                            ingress=[
                                {"from": [{"namespaceSelector": ns_name(Y)}], "ports": [port("serve-80-tcp", "TCP")]}
                            ],
                        ),
                        X,
                    )
                ),
                [("TCP", 80, _allow_from_y_to_xa()), ("TCP", 81, T().expect_all_ingress("x/a", False))],
            )
        ],
    ),
    Case(
        "should allow egress access on one named port",
        [
            Step(
                static(in_ns(netpol("allow-egress", {}, egress=[{"ports": [port("serve-80-tcp")]}]), X)),
                [("TCP", 80, T()), ("TCP", 81, T().expect_peer(Peer(X), Peer(), False))],
            )
        ],
    ),
    Case(
        "should enforce updated policy",
        [
            Step(static(in_ns(netpol("allow-all-mutate-to-deny-all", {}, ingress=[{}]), X)), [("TCP", 81, T())]),
            Step(
                static(in_ns(netpol("allow-all-mutate-to-deny-all", {}, ingress=[]), X)),
                [("TCP", 81, T().expect_peer(Peer(), Peer(X), False))],
            ),
        ],
    ),
    Case(
        "should allow ingress access from updated namespace",
        [
            Step(
                static(
                    in_ns(
                        netpol(
                            "allow-client-a-via-ns-selector",
                            {"pod": "a"},
                            ingress=[{"from": [{"namespaceSelector": labels(ns2="updated")}]}],
                        ),
                        X,
                    )
                ),
                [("TCP", 80, T().expect_all_ingress("x/a", False))],
            ),
            Step(
                static(
                    in_ns(
                        netpol(
                            "allow-client-a-via-ns-selector",
                            {"pod": "a"},
                            ingress=[{"from": [{"namespaceSelector": labels(ns2="updated")}]}],
                        ),
                        X,
                    )
                ),
                [("TCP", 80, T().expect_all_ingress("x/a", False).expect_peer(Peer(Y), Peer(), True))],
                ns_labels={Y: {"ns2": "updated"}},
            ),
        ],
    ),
    Case(
        "should allow ingress access from updated pod",
        [
            Step(
                static(
                    in_ns(
                        netpol(
                            "allow-client-a-via-pod-selector",
                            {"pod": "a"},
                            ingress=[{"from": [{"podSelector": labels(pod="b", pod2="updated")}]}],
                        ),
                        X,
                    )
                ),
                [("TCP", 80, T().expect_all_ingress("x/a", False))],
            ),
            Step(
                static(
                    in_ns(
                        netpol(
                            "allow-client-a-via-pod-selector",
                            {"pod": "a"},
                            ingress=[{"from": [{"podSelector": labels(pod="b", pod2="updated")}]}],
                        ),
                        X,
                    )
                ),
                [("TCP", 80, T().expect_all_ingress("x/a", False).expect("x/b", "x/a", True))],
                pod_labels={"x/b": {"pod2": "updated"}},
            ),
        ],
    ),
    Case(
        "should deny ingress from pods on other namespaces",
        [
            Step(
                static(
                    in_ns(
                        netpol(
                            "deny-empty-policy",
                            pod_selector={},
                            ingress=[{"from": [{"podSelector": {"matchLabels": {}}}]}],
                        ),
                        X,
                    )
                ),
                [("TCP", 80, T().expect_peer(Peer(Y), Peer(X), False).expect_peer(Peer(Z), Peer(X), False))],
            )
        ],
    ),
    Case(
        "should deny ingress access to updated pod",
        [
            Step(
                static(in_ns(netpol("deny-ingress-via-label-selector", {"target": "isolated"}, ingress=[]), X)),
                [("TCP", 80, T())],
            ),
            Step(
                static(in_ns(netpol("deny-ingress-via-label-selector", {"target": "isolated"}, ingress=[]), X)),
                [("TCP", 80, T().expect_all_ingress("x/a", False))],
                pod_labels={"x/a": {"target": "isolated"}},
            ),
        ],
    ),
    Case(
        "should deny egress from pods based on PodSelector",
        [
            Step(
                static(in_ns(netpol("deny-egress-pod-a", {"pod": "a"}, egress=[]), X)),
                [("TCP", 80, T().expect_all_egress("x/a", False))],
            )
        ],
    ),
    Case(
        "should deny egress from all pods in a namespace",
        [
            Step(
                static(in_ns(netpol("deny-egress-ns-x", pod_selector={}, egress=[]), X)),
                [("TCP", 80, T().expect_peer(Peer(X), Peer(), False))],
            )
        ],
    ),
    Case(
        "should work with Ingress, Egress specified together",
        [
            Step(
                static(
                    in_ns(
                        netpol(
                            "allow-client-a-via-pod-selector",
                            {"pod": "a"},
                            ingress=[{"from": [{"podSelector": labels(pod="b")}]}],
                            egress=[{"ports": [port(80)]}],
                            policy_types=["Egress", "Ingress"],
                        ),
                        X,
                    )
                ),
                [
                    ("TCP", 80, T().expect_all_ingress("x/a", False).expect("x/b", "x/a", True)),
                    (
                        "TCP",
                        81,
                        T().expect_all_ingress("x/a", False).expect_all_egress("x/a", False).expect("x/b", "x/a", True),
                    ),
                ],
            )
        ],
    ),
    Case(
        "should support denying of egress traffic on the client side (even if the server explicitly allows this traffic)",
        [
            Step(
                static(
                    in_ns(
                        netpol(
                            "allow-to-ns-y-pod-a",
                            {"pod": "a"},
                            egress=[{"to": [{"namespaceSelector": ns_name(Y), "podSelector": labels(pod="a")}]}],
                        ),
                        X,
                    ),
                    in_ns(
                        netpol(
                            "allow-from-xa-on-ya-match-selector",
                            {"pod": "a"},
                            ingress=[{"from": [{"namespaceSelector": ns_name(X), "podSelector": labels(pod="a")}]}],
                        ),
                        Y,
                    ),
                    in_ns(
                        netpol(
                            "allow-from-xa-on-yb-match-selector",
                            {"pod": "b"},
                            ingress=[{"from": [{"namespaceSelector": ns_name(X), "podSelector": labels(pod="a")}]}],
                        ),
                        Y,
                    ),
                ),
                [
                    (
                        "TCP",
                        80,
                        T()
                        .expect_peer(Peer(X, "a"), Peer(), False)
                        .expect_peer(Peer(), Peer(Y, "a"), False)
                        .expect_peer(Peer(X, "a"), Peer(Y, "a"), True)
                        .expect_peer(Peer(), Peer(Y, "b"), False),
                    )
                ],
            )
        ],
    ),
    Case(
        "should enforce egress policy allowing traffic to a server in a different namespace based on PodSelector and NamespaceSelector",
        [
            Step(
                static(
                    in_ns(
                        netpol(
                            "allow-to-ns-y-pod-a",
                            {"pod": "a"},
                            egress=[{"to": [{"namespaceSelector": ns_name(Y), "podSelector": labels(pod="a")}]}],
                        ),
                        X,
                    )
                ),
                [("TCP", 80, T().expect_all_egress("x/a", False).expect("x/a", "y/a", True))],
            )
        ],
    ),
    Case(
        "should enforce ingress policy allowing any port traffic to a server on a specific protocol",
        [
            Step(
                static(
                    in_ns(
                        netpol("allow-ingress-by-proto", {"pod": "a"}, ingress=[{"ports": [port(protocol="TCP")]}]), X
                    )
                ),
                [("TCP", 80, T()), ("UDP", 80, T().expect_peer(Peer(), Peer(X, "a"), False))],
            )
        ],
    ),
    Case(
        "should enforce multiple ingress policies with ingress allow-all policy taking precedence",
        [
            Step(
                static(in_ns(netpol("allow-ingress-port-80", {}, ingress=[{"ports": [port(80)]}]), X)),
                [("TCP", 81, T().expect_peer(Peer(), Peer(X), False))],
            ),
            Step(
                static(
                    in_ns(netpol("allow-ingress-port-80", {}, ingress=[{"ports": [port(80)]}]), X),
                    in_ns(netpol("allow-ingress", {}, ingress=[{}]), X),
                ),
                [("TCP", 81, T())],
            ),
        ],
    ),
    Case(
        "should enforce multiple egress policies with egress allow-all policy taking precedence",
        [
            Step(
                static(in_ns(netpol("allow-egress-port-80", {}, egress=[{"ports": [port(80)]}]), X)),
                [("TCP", 81, T().expect_peer(Peer(X), Peer(), False))],
            ),
            Step(
                static(
                    in_ns(netpol("allow-egress-port-80", {}, egress=[{"ports": [port(80)]}]), X),
                    in_ns(netpol("allow-egress", {}, egress=[{}]), X),
                ),
                [("TCP", 81, T())],
            ),
        ],
    ),
    Case(
        "should stop enforcing policies after they are deleted",
        [
            Step(
                static(in_ns(netpol("deny-all", pod_selector={}, ingress=[], egress=[]), X)),
                [("TCP", 80, T().expect_peer(Peer(X), Peer(), False).expect_peer(Peer(), Peer(X), False))],
            ),
            Step(static(), [("TCP", 80, T())]),
        ],
    ),
    Case(
        "should allow egress access to server in CIDR block",
        [Step(_cidr_egress, [("TCP", 80, T().expect_all_egress("x/a", False).expect("x/a", "y/b", True))])],
    ),
    Case(
        "should enforce except clause while egress access to server in CIDR block",
        [Step(_except_egress, [("TCP", 80, T().expect("x/a", "x/b", False))])],
    ),
    Case(
        "should ensure an IP overlapping both IPBlock.CIDR and IPBlock.Except is allowed",
        [
            Step(_except_egress, [("TCP", 80, T().expect("x/a", "x/b", False))]),
            Step(_only_xb_egress, [("TCP", 80, T().expect_all_egress("x/a", False).expect("x/a", "x/b", True))]),
        ],
    ),
    Case(
        "should enforce policies to check ingress and egress policies can be controlled independently based on PodSelector",
        [
            Step(static(in_ns(netpol("allow-egress-for-target", {"pod": "a"}, egress=[{}]), X)), [("TCP", 80, T())]),
            Step(
                static(
                    in_ns(netpol("allow-egress-for-target", {"pod": "a"}, egress=[{}]), X),
                    in_ns(netpol("deny-ingress-via-label-selector", {"pod": "a"}, ingress=[]), X),
                ),
                [("TCP", 80, T().expect_all_ingress("x/a", False))],
            ),
        ],
    ),
    Case(
        "should not mistakenly treat 'protocol: SCTP' as 'protocol: TCP', even if the plugin doesn't support SCTP",
        [
            Step(
                static(
                    DENY_INGRESS_X,
                    in_ns(
                        netpol(
                            "allow-only-sctp-ingress-on-port-81", {"pod": "a"}, ingress=[{"ports": [port(81, "SCTP")]}]
                        ),
                        X,
                    ),
                ),
                [("TCP", 81, T().expect_peer(Peer(), Peer(X), False))],
            )
        ],
    ),
    Case(
        "should properly isolate pods that are selected by a policy allowing SCTP, even if the plugin doesn't support SCTP",
        [
            Step(
                static(
                    in_ns(
                        netpol(
                            "allow-only-sctp-ingress-on-port-80", {"pod": "a"}, ingress=[{"ports": [port(80, "SCTP")]}]
                        ),
                        X,
                    )
                ),
                [("TCP", 81, T().expect_all_ingress("x/a", False))],
            )
        ],
    ),
    Case(
        "should not allow access by TCP when a policy specifies only UDP",
        [
            Step(
                static(
                    in_ns(
                        netpol(
                            "allow-only-udp-ingress-on-port-81", {"pod": "a"}, ingress=[{"ports": [port(81, "UDP")]}]
                        ),
                        X,
                    )
                ),
                [("TCP", 81, T().expect_all_ingress("x/a", False))],
            )
        ],
    ),
    Case(
        "should enforce policy to allow traffic based on NamespaceSelector with MatchLabels using default ns label",
        [
            Step(
                static(
                    in_ns(
                        netpol(
                            "allow-client-a-via-ns-selector-for-immutable-ns-label",
                            {"pod": "a"},
                            ingress=[{"from": [{"namespaceSelector": ns_name(Y)}]}],
                        ),
                        X,
                    )
                ),
                [("TCP", 80, _allow_from_y_to_xa())],
            )
        ],
    ),
    Case(
        "should enforce policy based on NamespaceSelector with MatchExpressions using default ns label",
        [
            Step(
                static(
                    in_ns(
                        netpol(
                            "allow-ns-y-match-selector-for-immutable-ns-label",
                            {"pod": "a"},
                            egress=[{"to": [{"namespaceSelector": expr("kubernetes.io/metadata.name", "NotIn", Y)}]}],
                        ),
                        X,
                    )
                ),
                [("TCP", 80, T().expect_peer(Peer(X, "a"), Peer(Y), False))],
            )
        ],
    ),
]

for _proto in ("UDP", "SCTP"):
    CASES += [
        Case(
            f"using {_proto}: should support a 'default-deny-ingress' policy",
            [
                Step(
                    static(in_ns(netpol("deny-all", pod_selector={}, ingress=[]), X)),
                    [(_proto, 80, T().expect_peer(Peer(), Peer(X), False))],
                )
            ],
        ),
        Case(
            f"using {_proto}: should enforce policy based on Ports",
            [
                Step(
                    static(
                        in_ns(
                            netpol(
                                "allow-ingress-on-port-81-ns-x",
                                {"pod": "a"},
                                ingress=[{"from": [{"namespaceSelector": ns_name(Y)}], "ports": [port(81, _proto)]}],
                            ),
                            X,
                        )
                    ),
                    [(_proto, 81, _allow_from_y_to_xa()), (_proto, 80, T().expect_all_ingress("x/a", False))],
                )
            ],
        ),
        Case(
            f"using {_proto}: should enforce policy to allow traffic only from a pod in a different namespace based on PodSelector and NamespaceSelector",
            [
                Step(
                    static(
                        in_ns(
                            netpol(
                                "allow-ns-y-pod-a-via-namespace-pod-selector",
                                {"pod": "a"},
                                ingress=[{"from": [{"namespaceSelector": ns_name(Y), "podSelector": labels(pod="a")}]}],
                            ),
                            X,
                        )
                    ),
                    [(_proto, 80, _only_ya_to_xa()), ("TCP", 80, _only_ya_to_xa())],
                )
            ],
        ),
    ]

# kube-reach additions in the upstream style --------------------------------------------------------
CASES += [
    Case(
        "kube-reach: should allow ingress on an endPort range, inclusive at both ends",
        [
            Step(
                static(
                    in_ns(netpol("allow-80-81", {}, ingress=[{"ports": [port(80, "TCP", end_port=81)]}]), X),
                    in_ns(netpol("allow-81-82", {}, ingress=[{"ports": [port(81, "TCP", end_port=82)]}]), Y),
                ),
                [
                    ("TCP", 80, T().expect_peer(Peer(), Peer(Y), False)),
                    ("TCP", 81, T()),
                    ("UDP", 81, T().expect_peer(Peer(), Peer(X), False).expect_peer(Peer(), Peer(Y), False)),
                ],
            )
        ],
    ),
    Case(
        "kube-reach: should allow egress on an endPort range of another protocol only",
        [
            Step(
                static(
                    in_ns(
                        netpol("egress-udp-range", {"pod": "b"}, egress=[{"ports": [port(1, "UDP", end_port=80)]}]), Z
                    )
                ),
                [
                    ("UDP", 80, T()),
                    ("UDP", 81, T().expect_all_egress("z/b", False)),
                    ("TCP", 80, T().expect_all_egress("z/b", False)),
                ],
            )
        ],
    ),
    Case(
        "kube-reach: should allow each entry of a rule with several port entries",
        [
            Step(
                static(
                    in_ns(
                        netpol(
                            "multi-port",
                            {"pod": "c"},
                            ingress=[
                                {
                                    "from": [{"namespaceSelector": ns_name(Z)}],
                                    "ports": [port(80, "TCP"), port("serve-81-udp", "UDP"), port(81, "SCTP")],
                                }
                            ],
                        ),
                        Y,
                    )
                ),
                [
                    ("TCP", 80, T().expect_all_ingress("y/c", False).expect_peer(Peer(Z), Peer(Y, "c"), True)),
                    ("TCP", 81, T().expect_all_ingress("y/c", False)),
                    ("UDP", 81, T().expect_all_ingress("y/c", False).expect_peer(Peer(Z), Peer(Y, "c"), True)),
                    ("UDP", 80, T().expect_all_ingress("y/c", False)),
                    ("SCTP", 81, T().expect_all_ingress("y/c", False).expect_peer(Peer(Z), Peer(Y, "c"), True)),
                ],
            )
        ],
    ),
    Case(
        "kube-reach: should resolve a named port by name and protocol (serve-80-udp never opens TCP 80)",
        [
            Step(
                static(in_ns(netpol("named-udp", {}, ingress=[{"ports": [port("serve-80-udp", "TCP")]}]), X)),
                [
                    ("TCP", 80, T().expect_peer(Peer(), Peer(X), False)),
                    ("UDP", 80, T().expect_peer(Peer(), Peer(X), False)),
                ],
            ),
            Step(
                static(in_ns(netpol("named-udp", {}, ingress=[{"ports": [port("serve-80-udp", "UDP")]}]), X)),
                [("UDP", 80, T()), ("TCP", 80, T().expect_peer(Peer(), Peer(X), False))],
            ),
        ],
    ),
    Case(
        "kube-reach: should enforce except clause while ingress from CIDR block includes pod IPs",
        [
            Step(
                _ingress_except,
                [("TCP", 80, T().expect("y/a", "x/a", False))],
            )
        ],
    ),
    Case(
        "kube-reach: should enforce policies in different namespaces independently",
        [
            Step(
                static(
                    in_ns(netpol("deny-ingress", pod_selector={}, ingress=[]), Y),
                    in_ns(netpol("deny-egress", pod_selector={}, egress=[]), Z),
                    in_ns(
                        netpol(
                            "allow-from-x", pod_selector={}, ingress=[{"from": [{"namespaceSelector": labels(ns="x")}]}]
                        ),
                        Y,
                    ),
                ),
                [
                    (
                        "TCP",
                        80,
                        T()
                        .expect_peer(Peer(), Peer(Y), False)
                        .expect_peer(Peer(X), Peer(Y), True)
                        .expect_peer(Peer(Z), Peer(), False),
                    )
                ],
            )
        ],
    ),
    Case(
        "kube-reach: should treat DoesNotExist and NotIn as matching pods without the key",
        [
            Step(
                static(
                    in_ns(
                        netpol(
                            "no-tier",
                            {"pod": "a"},
                            ingress=[
                                {"from": [{"namespaceSelector": {}, "podSelector": expr("tier", "DoesNotExist")}]},
                                {"from": [{"namespaceSelector": {}, "podSelector": expr("tier", "NotIn", "db")}]},
                            ],
                        ),
                        X,
                    )
                ),
                [("TCP", 80, T().expect("z/c", "x/a", False).expect("y/b", "x/a", True))],
                pod_labels={"z/c": {"tier": "db"}, "y/b": {"tier": "web"}},
            )
        ],
    ),
]


def _probe(step: Step, ips: Ips, protocol: str, port_: int) -> set[tuple[str, str]]:
    objs = model_objects(step.ns_labels, step.pod_labels) + step.policies(ips)
    a = analyze_objects(*objs)
    return set(probe_pairs(MatrixView(a), protocol, port_))


@pytest.fixture(scope="module")
def model_ips() -> Ips:
    """Pod IPs as the cluster hands them out (upstream reads pod.Status.PodIP after creating the pods)."""
    a = analyze_objects(*model_objects())
    return {p.key: p.pod_ip for p in a.pods}


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_upstream_truth_table(case: Case, model_ips: Ips) -> None:
    for n, step in enumerate(case.steps, 1):
        for protocol, port_, truth in step.probes:
            expected = truth.allowed()
            actual = _probe(step, model_ips, protocol, port_)
            assert actual == expected, (
                f"step {n}, probe {protocol}/{port_}\nexpected:\n{grid(ALL_PODS, expected)}\n"
                f"actual:\n{grid(ALL_PODS, actual)}\nmissing: {sorted(expected - actual)}\n"
                f"unexpected: {sorted(actual - expected)}"
            )


def test_enough_upstream_cases_are_mirrored() -> None:
    upstream = [c for c in CASES if not c.id.startswith("kube-reach:")]
    assert len(upstream) >= 30
    assert len({c.id for c in CASES}) == len(CASES)


def test_model_has_named_ports_on_every_protocol(model_ips: Ips) -> None:
    a = analyze_objects(*model_objects())
    assert sorted(p.key for p in a.pods) == list(ALL_PODS)
    names = {n for n, _proto, _num in a.pods[0].named_ports()}
    assert names == {f"serve-{p}-{q}" for p in (80, 81) for q in ("tcp", "udp", "sctp")}
    assert len(set(model_ips.values())) == 9


def test_cli_probe_json_on_written_model_matches_upstream_truth_table(tmp_path) -> None:
    # "should enforce policy to allow traffic only from a pod in a different namespace based on PodSelector
    # and NamespaceSelector", run through the real `netpol` command on a folder of manifests.
    pol = in_ns(
        netpol(
            "allow-ns-y-pod-a-via-namespace-pod-selector",
            {"pod": "a"},
            ingress=[{"from": [{"namespaceSelector": ns_name(Y), "podSelector": labels(pod="a")}]}],
        ),
        X,
    )
    folder = write_model(tmp_path / "cluster", [pol])
    r = run_cli("matrix", str(folder), "--port", "80", "--protocol", "TCP", "-o", "json")
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    out = json.loads(r.stdout)
    assert out["port"] == 80 and out["protocol"] == "TCP"
    # the listing leaves self pairs out (docs/commands/matrix.md: a pod reaching itself is always allowed and not listed)
    assert {tuple(p) for p in out["allowed"]} == {p for p in _only_ya_to_xa().allowed() if p[0] != p[1]}


def test_cli_probe_json_on_written_model_without_policies_allows_every_pair(tmp_path) -> None:
    folder = write_model(tmp_path / "open")
    r = run_cli("matrix", str(folder), "--port", "81", "--protocol", "SCTP", "-o", "json")
    assert r.returncode == 0, r.stderr
    assert {tuple(p) for p in json.loads(r.stdout)["allowed"]} == {p for p in T().allowed() if p[0] != p[1]}


def test_bundled_conformance_sample_is_the_generated_model() -> None:
    """samples/conformance/upstream-model is a written-out copy of model_objects() for users to try."""
    folder = Path(__file__).resolve().parents[2] / "samples" / "conformance" / "upstream-model"
    docs = [d for f in sorted(folder.glob("*.yaml")) for d in yaml.safe_load_all(f.read_text()) if d]
    key = lambda o: (o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"])  # noqa: E731
    assert sorted(docs, key=key) == sorted(model_objects(), key=key)
