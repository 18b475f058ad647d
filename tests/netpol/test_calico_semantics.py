"""Calico's policy semantics, each case derived by hand from Calico's reference (the page is in each case).

Every case runs against the independent reference evaluator (tests/netpol/calico_reference.py) and against
the compiler's output (walked as netpol/engine/tiers.py specifies, tests/netpol/calico_harness.py); the
expectations are written here, never taken from either. Pods (tests/netpol/calico_cases.py `base`):
a/web (app=web, tier=frontend, 10.0.1.10, port http=TCP 8080), a/db (app=db, tier=backend, 10.0.1.20),
b/client (app=client, 10.0.2.30); namespace a has team=alpha, b has team=beta.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from tests.netpol.calico_cases import (
    base,
    cnp,
    gnp,
    knp,
    netset,
    ns,
    pod,
    service,
    service_account,
    tier,
)
from tests.netpol.calico_harness import compile_objects
from tests.netpol.calico_reference import Reference

DOCS = "https://docs.tigera.io/calico/latest/reference/resources/"
NP = DOCS + "networkpolicy"
GNP = DOCS + "globalnetworkpolicy"
TIER = DOCS + "tier"
TIERED = "https://docs.tigera.io/calico/latest/network-policy/policy-tiers/tiered-policy"
NETSET = DOCS + "networkset"
GNETSET = DOCS + "globalnetworkset"
K8S = "https://docs.tigera.io/calico/latest/network-policy/get-started/kubernetes-policy/kubernetes-network-policy"

Expect = tuple[str, str, str, int, bool]  # src, dst, protocol, port, allowed


@dataclass
class Case:
    id: str
    cite: str
    objs: list[dict]
    expect: list[Expect]
    needs_k8s: bool = False  # Kubernetes NetworkPolicies take part: only the reference and the wired engine
    extra: list[dict] = field(default_factory=list)


def allow_all_ingress(namespace: str, name: str, order: float | None = None, **spec: object) -> dict:
    s: dict = {"selector": "all()", "ingress": [{"action": "Allow"}], **spec}
    if order is not None:
        s["order"] = order
    return cnp(namespace, name, s)


CASES = [
    Case(
        # A GlobalNetworkPolicy denying ingress to every endpoint of namespace b: client unreachable, the rest open.
        "gnp-denies-a-whole-namespace",
        GNP,
        [*base(), gnp("deny-b", {"selector": "projectcalico.org/namespace == 'b'", "ingress": [{"action": "Deny"}]})],
        [
            ("a/web", "b/client", "TCP", 80, False),
            ("b/client", "a/web", "TCP", 80, True),
            ("a/web", "a/db", "TCP", 5432, True),
        ],
    ),
    Case(
        # Same tier, order 10 Deny before order 20 Allow: the lower order decides → denied.
        "lower-order-first",
        NP + "#spec",
        [
            *base(),
            cnp("a", "deny", {"order": 10, "selector": "app == 'db'", "ingress": [{"action": "Deny"}]}),
            allow_all_ingress("a", "allow", 20),
        ],
        [("a/web", "a/db", "TCP", 80, False), ("b/client", "a/web", "TCP", 80, True)],
    ),
    Case(
        # Swapped orders: Allow at 10 decides first → allowed.
        "lower-order-first-swapped",
        NP + "#spec",
        [
            *base(),
            cnp("a", "deny", {"order": 20, "selector": "app == 'db'", "ingress": [{"action": "Deny"}]}),
            allow_all_ingress("a", "allow", 10),
        ],
        [("a/web", "a/db", "TCP", 80, True)],
    ),
    Case(
        # Omitted order = "infinite": applied after every ordered policy. Allow (no order) vs Deny (order 1e6).
        "omitted-order-is-last",
        NP + "#spec",
        [
            *base(),
            allow_all_ingress("a", "allow"),
            cnp("a", "deny", {"order": 1000000, "selector": "app == 'db'", "ingress": [{"action": "Deny"}]}),
        ],
        [("a/web", "a/db", "TCP", 80, False), ("a/db", "a/web", "TCP", 80, True)],
    ),
    Case(
        # Equal orders: alphanumerical by name. a/aaa-allow < a/zzz-deny → Allow decides.
        "equal-order-by-name",
        NP + "#spec",
        [
            *base(),
            allow_all_ingress("a", "aaa-allow", 5),
            cnp("a", "zzz-deny", {"order": 5, "selector": "all()", "ingress": [{"action": "Deny"}]}),
        ],
        [("b/client", "a/db", "TCP", 80, True)],
    ),
    Case(
        # Equal orders compare the name alone, not namespace/name (Felix calc/policy_sorter.go PolKVLess over
        # PolicyKey.Name): GlobalNetworkPolicy "m-deny" sorts before NetworkPolicy a/"n-allow" although
        # "a/n-allow" < "m-deny" as strings → denied.
        "equal-order-by-bare-name-across-kinds",
        NP + "#spec",
        [
            *base(),
            allow_all_ingress("a", "n-allow", 5),
            gnp("m-deny", {"order": 5, "selector": "app == 'db'", "ingress": [{"action": "Deny"}]}),
        ],
        [("b/client", "a/db", "TCP", 80, False), ("b/client", "a/web", "TCP", 80, True)],
    ),
    Case(
        # Rules in order inside a policy: Deny TCP 5432 first, then Allow everything.
        "rules-in-order",
        NP + "#rule",
        [
            *base(),
            cnp(
                "a",
                "db",
                {
                    "selector": "app == 'db'",
                    "ingress": [
                        {"action": "Deny", "protocol": "TCP", "destination": {"ports": [5432]}},
                        {"action": "Allow"},
                    ],
                },
            ),
        ],
        [
            ("a/web", "a/db", "TCP", 5432, False),
            ("a/web", "a/db", "TCP", 5433, True),
            ("a/web", "a/db", "UDP", 5432, True),
        ],
    ),
    Case(
        # Selected in a tier, nothing matched → the tier's end (default tier: deny). The db policy allows only
        # app=web; b/client matches no rule → denied; a/web allowed.
        "end-of-tier-deny",
        TIERED,
        [
            *base(),
            cnp(
                "a",
                "db",
                {"selector": "app == 'db'", "ingress": [{"action": "Allow", "source": {"selector": "app == 'web'"}}]},
            ),
        ],
        [
            ("a/web", "a/db", "TCP", 80, True),
            ("b/client", "a/db", "TCP", 80, False),
            ("b/client", "a/web", "TCP", 80, True),
        ],
    ),
    Case(
        # Pass leaves the tier: tier security (order 100) passes app=client sources, denies the rest at its end;
        # the default tier then denies client → db. web → db: no rule of security matches → security's end: deny.
        "pass-goes-to-next-tier",
        TIERED,
        [
            *base(),
            tier("security", 100),
            cnp(
                "a",
                "security.pass",
                {
                    "tier": "security",
                    "selector": "app == 'db'",
                    "ingress": [
                        {"action": "Pass", "source": {"namespaceSelector": "all()", "selector": "app == 'client'"}}
                    ],
                },
            ),
            cnp(
                "a",
                "deny-client",
                {
                    "selector": "app == 'db'",
                    "ingress": [
                        {"action": "Deny", "source": {"namespaceSelector": "all()", "selector": "app == 'client'"}},
                        {"action": "Allow"},
                    ],
                },
            ),
        ],
        [
            ("b/client", "a/db", "TCP", 80, False),
            ("a/web", "a/db", "TCP", 80, False),
            ("a/db", "a/web", "TCP", 80, True),
        ],
    ),
    Case(
        # Pass, and the next tier allows: tier security passes everything; default tier allows client → db.
        "pass-then-allow",
        TIERED,
        [
            *base(),
            tier("security", 100),
            cnp("a", "pass-all", {"tier": "security", "selector": "all()", "ingress": [{"action": "Pass"}]}),
            allow_all_ingress("a", "allow"),
        ],
        [("b/client", "a/db", "TCP", 80, True)],
    ),
    Case(
        # A tier's defaultAction Pass: selected, unmatched → on to the next tier (here: nothing selects → allow).
        "tier-default-action-pass",
        TIER,
        [
            *base(),
            tier("security", 100, "Pass"),
            cnp(
                "a",
                "only-web",
                {
                    "tier": "security",
                    "selector": "app == 'db'",
                    "ingress": [{"action": "Deny", "source": {"selector": "app == 'web'"}}],
                },
            ),
        ],
        [("a/web", "a/db", "TCP", 80, False), ("b/client", "a/db", "TCP", 80, True)],
    ),
    Case(
        # Tiers by order: tier first (order 10) allows; tier second (order 20) would deny → allowed.
        "tiers-by-order",
        TIER,
        [
            *base(),
            tier("first", 10),
            tier("second", 20),
            cnp("a", "allow", {"tier": "first", "selector": "all()", "ingress": [{"action": "Allow"}]}),
            cnp("a", "deny", {"tier": "second", "selector": "all()", "ingress": [{"action": "Deny"}]}),
        ],
        [("b/client", "a/web", "TCP", 80, True)],
    ),
    Case(
        # Log matches and goes on: Log then Deny → denied.
        "log-continues",
        NP + "#rule",
        [*base(), cnp("a", "log", {"selector": "app == 'db'", "ingress": [{"action": "Log"}, {"action": "Deny"}]})],
        [("a/web", "a/db", "TCP", 80, False)],
    ),
    Case(
        # types omitted with only egress rules = [Egress]: ingress to web stays open (unlike Kubernetes, where
        # Ingress is always implied).
        "types-default-egress-only",
        NP + "#spec",
        [
            *base(),
            cnp(
                "a",
                "egress-only",
                {
                    "selector": "app == 'web'",
                    "egress": [{"action": "Allow", "destination": {"selector": "app == 'db'"}}],
                },
            ),
        ],
        [
            ("b/client", "a/web", "TCP", 80, True),
            ("a/web", "a/db", "TCP", 80, True),
            ("a/web", "b/client", "TCP", 80, False),
        ],
    ),
    Case(
        # Explicit types [Ingress, Egress] with no rules: both directions denied at the tier's end.
        "types-explicit-both-no-rules",
        NP + "#spec",
        [*base(), cnp("a", "iso", {"selector": "app == 'web'", "types": ["Ingress", "Egress"]})],
        [
            ("b/client", "a/web", "TCP", 80, False),
            ("a/web", "a/db", "TCP", 80, False),
            ("a/db", "b/client", "TCP", 80, True),
        ],
    ),
    # ---- selectors -----------------------------------------------------------------------------------
    Case(
        # `in` / `not in` (not in matches an absent key): db allows sources with tier not in {frontend}:
        # db itself? (self is always allowed) b/client has no tier label → allowed; a/web tier=frontend → denied.
        "selector-not-in-matches-absent-key",
        NP + "#selectors",
        [
            *base(),
            cnp(
                "a",
                "db",
                {
                    "selector": "tier in {'backend'}",
                    "ingress": [
                        {
                            "action": "Allow",
                            "source": {"namespaceSelector": "all()", "selector": "tier not in {'frontend'}"},
                        }
                    ],
                },
            ),
        ],
        [("b/client", "a/db", "TCP", 80, True), ("a/web", "a/db", "TCP", 80, False)],
    ),
    Case(
        # `!=` matches an absent key too; `has()` needs it.
        "selector-not-equal-and-has",
        NP + "#selectors",
        [
            *base(),
            gnp(
                "db",
                {
                    "selector": "app == 'db'",
                    "ingress": [{"action": "Allow", "source": {"selector": "tier != 'frontend' && !has(tier)"}}],
                },
            ),
        ],
        [("b/client", "a/db", "TCP", 80, True), ("a/web", "a/db", "TCP", 80, False)],
    ),
    Case(
        # contains / starts with / ends with, parentheses and ||: app starts with 'cli' (client) or
        # (tier ends with 'end' && app contains 'e') (web: frontend/web).
        "selector-string-operators",
        NP + "#selectors",
        [
            *base(),
            gnp(
                "db",
                {
                    "selector": "app == 'db'",
                    "ingress": [
                        {
                            "action": "Allow",
                            "source": {
                                "selector": "app starts with 'cli' || (tier ends with 'end' && app contains 'e')"
                            },
                        }
                    ],
                },
            ),
        ],
        [("b/client", "a/db", "TCP", 80, True), ("a/web", "a/db", "TCP", 80, True)],
    ),
    Case(
        # Implicit labels: projectcalico.org/orchestrator == 'k8s' on every workload; namespace labels through
        # namespaceSelector (team == 'beta' is namespace b).
        "selector-implicit-labels",
        NP + "#selectors",
        [
            *base(),
            gnp(
                "web",
                {
                    "selector": "app == 'web' && projectcalico.org/orchestrator == 'k8s'",
                    "ingress": [{"action": "Allow", "source": {"namespaceSelector": "team == 'beta'"}}],
                },
            ),
        ],
        [("b/client", "a/web", "TCP", 80, True), ("a/db", "a/web", "TCP", 80, False)],
    ),
    # ---- entity rules --------------------------------------------------------------------------------
    Case(
        # A namespaced policy's selector is limited to the policy's namespace: client (b) is not a source.
        "namespaced-selector-limited-to-namespace",
        NP + "#entityrule",
        [
            *base(),
            pod("b", "web2", "10.0.2.40", {"app": "web"}),
            cnp(
                "a",
                "db",
                {"selector": "app == 'db'", "ingress": [{"action": "Allow", "source": {"selector": "app == 'web'"}}]},
            ),
        ],
        [("a/web", "a/db", "TCP", 80, True), ("b/web2", "a/db", "TCP", 80, False)],
    ),
    Case(
        # A lone notSelector limits a namespaced rule to the namespace too (GetEntityRuleSelector): client (b)
        # is not matched though it lacks app=web; web (a) is excluded by the notSelector.
        "lone-not-selector-limited-to-namespace",
        NP + "#entityrule",
        [
            *base(),
            pod("a", "other", "10.0.1.30", {"app": "other"}),
            cnp(
                "a",
                "db",
                {
                    "selector": "app == 'db'",
                    "ingress": [{"action": "Allow", "source": {"notSelector": "app == 'web'"}}],
                },
            ),
        ],
        [
            ("a/other", "a/db", "TCP", 80, True),
            ("a/web", "a/db", "TCP", 80, False),
            ("b/client", "a/db", "TCP", 80, False),
        ],
    ),
    Case(
        # In a GlobalNetworkPolicy a lone notSelector is not limited: client (b) matches; an external address
        # matches too (it is no endpoint with app=web).
        "global-lone-not-selector-everywhere",
        GNP,
        [
            *base(),
            gnp(
                "db",
                {
                    "selector": "app == 'db'",
                    "ingress": [{"action": "Allow", "source": {"notSelector": "app == 'web'"}}],
                },
            ),
        ],
        [
            ("b/client", "a/db", "TCP", 80, True),
            ("a/web", "a/db", "TCP", 80, False),
            ("192.0.2.1", "a/db", "TCP", 80, True),
        ],
    ),
    Case(
        # namespaceSelector: all() = every namespace (not just the policy's).
        "namespace-selector-all",
        NP + "#entityrule",
        [
            *base(),
            cnp(
                "a",
                "db",
                {"selector": "app == 'db'", "ingress": [{"action": "Allow", "source": {"namespaceSelector": "all()"}}]},
            ),
        ],
        [("b/client", "a/db", "TCP", 80, True), ("192.0.2.1", "a/db", "TCP", 80, False)],
    ),
    Case(
        # GlobalNetworkPolicy namespaceSelector (spec level) selects the endpoints of matching namespaces.
        "gnp-namespace-selector",
        GNP + "#spec",
        [
            *base(),
            gnp(
                "beta-iso",
                {"namespaceSelector": "team == 'beta'", "selector": "all()", "ingress": [{"action": "Deny"}]},
            ),
        ],
        [("a/web", "b/client", "TCP", 80, False), ("b/client", "a/web", "TCP", 80, True)],
    ),
    Case(
        # nets match pod addresses too: 10.0.2.0/24 holds client's address.
        "nets-match-pod-addresses",
        NP + "#entityrule",
        [
            *base(),
            cnp(
                "a",
                "db",
                {"selector": "app == 'db'", "ingress": [{"action": "Allow", "source": {"nets": ["10.0.2.0/24"]}}]},
            ),
        ],
        [
            ("b/client", "a/db", "TCP", 80, True),
            ("a/web", "a/db", "TCP", 80, False),
            ("10.0.2.99", "a/db", "TCP", 80, True),
        ],
    ),
    Case(
        # notNets: everything but 10.0.1.0/24 (web's range).
        "not-nets-over-pod-addresses",
        NP + "#entityrule",
        [
            *base(),
            cnp(
                "a",
                "db",
                {"selector": "app == 'db'", "ingress": [{"action": "Allow", "source": {"notNets": ["10.0.1.0/24"]}}]},
            ),
        ],
        [
            ("b/client", "a/db", "TCP", 80, True),
            ("a/web", "a/db", "TCP", 80, False),
            ("192.0.2.7", "a/db", "TCP", 80, True),
        ],
    ),
    Case(
        # A namespaced rule with only nets is not limited to the namespace (no selector field is used).
        "nets-alone-not-namespace-limited",
        NP + "#entityrule",
        [
            *base(),
            cnp(
                "a",
                "db",
                {"selector": "app == 'db'", "ingress": [{"action": "Allow", "source": {"nets": ["10.0.0.0/16"]}}]},
            ),
        ],
        [("b/client", "a/db", "TCP", 80, True)],
    ),
    Case(
        # ports: a range and notPorts: TCP 8000:8090 but not 8080.
        "port-range-and-not-ports",
        NP + "#ports",
        [
            *base(),
            cnp(
                "a",
                "db",
                {
                    "selector": "app == 'db'",
                    "ingress": [
                        {
                            "action": "Allow",
                            "protocol": "TCP",
                            "destination": {"ports": ["8000:8090"], "notPorts": [8080]},
                        }
                    ],
                },
            ),
        ],
        [
            ("a/web", "a/db", "TCP", 8000, True),
            ("a/web", "a/db", "TCP", 8090, True),
            ("a/web", "a/db", "TCP", 8080, False),
            ("a/web", "a/db", "TCP", 7999, False),
            ("a/web", "a/db", "UDP", 8000, False),
        ],
    ),
    Case(
        # Named ports resolve on the destination: `http` is web's TCP 8080; db has no such port.
        "named-port-on-destination",
        NP + "#ports",
        [
            *base(),
            gnp(
                "http-only",
                {
                    "selector": "has(app)",
                    "ingress": [{"action": "Allow", "protocol": "TCP", "destination": {"ports": ["http"]}}],
                },
            ),
        ],
        [
            ("b/client", "a/web", "TCP", 8080, True),
            ("b/client", "a/web", "TCP", 80, False),
            ("b/client", "a/db", "TCP", 8080, False),
        ],
    ),
    Case(
        # A named port in notPorts resolves on each destination as in ports: `http` takes web's TCP 8080 out and
        # nothing of db's (db has no such port), so db keeps TCP 8080.
        "named-not-port-on-destination",
        NP + "#ports",
        [
            *base(),
            gnp(
                "all-but-http",
                {
                    "selector": "has(app)",
                    "ingress": [{"action": "Allow", "protocol": "TCP", "destination": {"notPorts": ["http"]}}],
                },
            ),
        ],
        [
            ("b/client", "a/web", "TCP", 8080, False),
            ("b/client", "a/web", "TCP", 80, True),
            ("b/client", "a/db", "TCP", 8080, True),
            ("b/client", "a/web", "UDP", 8080, False),
        ],
    ),
    Case(
        # notProtocol: everything but UDP.
        "not-protocol",
        NP + "#rule",
        [*base(), cnp("a", "db", {"selector": "app == 'db'", "ingress": [{"action": "Allow", "notProtocol": "UDP"}]})],
        [("a/web", "a/db", "TCP", 53, True), ("a/web", "a/db", "UDP", 53, False)],
    ),
    Case(
        # notProtocol with a named port: `http` (TCP 8080 on web) minus TCP matches nothing; UDP 8080 is not
        # web's `http` either (the name resolves with its own protocol).
        "not-protocol-with-named-port",
        NP + "#rule",
        [
            *base(),
            gnp(
                "p",
                {
                    "selector": "app == 'web'",
                    "ingress": [{"action": "Allow", "notProtocol": "TCP", "destination": {"ports": ["http"]}}],
                },
            ),
        ],
        [("b/client", "a/web", "TCP", 8080, False), ("b/client", "a/web", "UDP", 8080, False)],
    ),
    Case(
        # An ICMP rule does not touch TCP: Deny ICMP then Allow → TCP allowed.
        "icmp-rule-outside-tcp",
        NP + "#rule",
        [
            *base(),
            cnp(
                "a",
                "db",
                {"selector": "app == 'db'", "ingress": [{"action": "Deny", "protocol": "ICMP"}, {"action": "Allow"}]},
            ),
        ],
        [("a/web", "a/db", "TCP", 80, True)],
    ),
    Case(
        # A GlobalNetworkSet is a selectable peer: egress allowed to role=partner's nets, denied elsewhere.
        "global-network-set-as-peer",
        GNETSET,
        [
            *base(),
            netset("partners", ["203.0.113.0/24"], {"role": "partner"}),
            cnp(
                "a",
                "web-out",
                {
                    "selector": "app == 'web'",
                    "types": ["Egress"],
                    "egress": [
                        {
                            "action": "Allow",
                            "destination": {"selector": "role == 'partner'", "namespaceSelector": "global()"},
                        }
                    ],
                },
            ),
        ],
        [
            ("a/web", "203.0.113.5", "TCP", 443, True),
            ("a/web", "198.51.100.1", "TCP", 443, False),
            ("a/web", "a/db", "TCP", 80, False),
        ],
    ),
    Case(
        # A namespaced NetworkSet is selected by a namespaced policy of its namespace (selector limited to it).
        "network-set-in-namespace",
        NETSET,
        [
            *base(),
            netset("ext", ["198.51.100.0/24"], {"kind": "ext"}, namespace="a"),
            netset("ext-b", ["192.0.2.0/24"], {"kind": "ext"}, namespace="b"),
            cnp(
                "a",
                "web-out",
                {
                    "selector": "app == 'web'",
                    "types": ["Egress"],
                    "egress": [{"action": "Allow", "destination": {"selector": "kind == 'ext'"}}],
                },
            ),
        ],
        [("a/web", "198.51.100.9", "TCP", 443, True), ("a/web", "192.0.2.9", "TCP", 443, False)],
    ),
    Case(
        # serviceAccounts: names, and selector over the ServiceAccount's labels (AND).
        "service-accounts",
        NP + "#serviceaccountmatch",
        [
            ns("a"),
            service_account("a", "api", {"role": "api"}),
            service_account("a", "batch", {"role": "batch"}),
            pod("a", "db", "10.0.1.20", {"app": "db"}),
            pod("a", "x", "10.0.1.21", {"app": "x"}, sa="api"),
            pod("a", "y", "10.0.1.22", {"app": "y"}, sa="batch"),
            pod("a", "z", "10.0.1.23", {"app": "z"}),
            cnp(
                "a",
                "db",
                {
                    "selector": "app == 'db'",
                    "ingress": [
                        {
                            "action": "Allow",
                            "source": {"serviceAccounts": {"names": ["api", "batch"], "selector": "role == 'api'"}},
                        }
                    ],
                },
            ),
        ],
        [("a/x", "a/db", "TCP", 80, True), ("a/y", "a/db", "TCP", 80, False), ("a/z", "a/db", "TCP", 80, False)],
    ),
    Case(
        # services as a destination: the Service's endpoints, on its target ports only.
        "services-destination",
        NP + "#servicematch",
        [
            *base(),
            service("a", "web", {"app": "web"}, [{"port": 80, "targetPort": 8080, "protocol": "TCP"}]),
            cnp(
                "b",
                "client-out",
                {
                    "selector": "app == 'client'",
                    "types": ["Egress"],
                    "egress": [{"action": "Allow", "destination": {"services": {"name": "web", "namespace": "a"}}}],
                },
            ),
        ],
        [
            ("b/client", "a/web", "TCP", 8080, True),
            ("b/client", "a/web", "TCP", 80, False),
            ("b/client", "a/db", "TCP", 8080, False),
        ],
    ),
    Case(
        # An ingress rule's destination selector restricts which of the policy's endpoints it applies to:
        # deny only towards tier=backend (db), allow the rest.
        "ingress-destination-selector-restricts-owner",
        NP + "#entityrule",
        [
            *base(),
            cnp(
                "a",
                "mixed",
                {
                    "selector": "all()",
                    "ingress": [
                        {"action": "Deny", "destination": {"selector": "tier == 'backend'"}},
                        {"action": "Allow"},
                    ],
                },
            ),
        ],
        [("b/client", "a/db", "TCP", 80, False), ("b/client", "a/web", "TCP", 80, True)],
    ),
    Case(
        # The same through the crd.projectcalico.org/v1 API group (what kubectl returns without Calico's API
        # server): identical semantics.
        "crd-api-group",
        GNP,
        [
            *base(),
            gnp(
                "deny-b",
                {"selector": "projectcalico.org/namespace == 'b'", "ingress": [{"action": "Deny"}]},
                api="crd.projectcalico.org/v1",
            ),
        ],
        [("a/web", "b/client", "TCP", 80, False)],
    ),
    # ---- Kubernetes NetworkPolicies at order 1000 in the default tier ------------------------------------
    Case(
        # Calico order 500 (before 1000) denies client → web although a Kubernetes policy allows it.
        "calico-before-kubernetes-policy",
        K8S,
        [
            *base(),
            knp("a", "allow-all", {"podSelector": {}, "ingress": [{}]}),
            cnp(
                "a",
                "deny-b",
                {
                    "order": 500,
                    "selector": "all()",
                    "ingress": [{"action": "Deny", "source": {"namespaceSelector": "team == 'beta'"}}],
                },
            ),
        ],
        [("b/client", "a/web", "TCP", 80, False), ("a/db", "a/web", "TCP", 80, True)],
        needs_k8s=True,
    ),
    Case(
        # Calico order 2000 (after 1000): the Kubernetes policy's Allow decides first → allowed.
        "calico-after-kubernetes-policy",
        K8S,
        [
            *base(),
            knp("a", "allow-all", {"podSelector": {}, "ingress": [{}]}),
            cnp(
                "a",
                "deny-b",
                {
                    "order": 2000,
                    "selector": "all()",
                    "ingress": [{"action": "Deny", "source": {"namespaceSelector": "team == 'beta'"}}],
                },
            ),
        ],
        [("b/client", "a/web", "TCP", 80, True)],
        needs_k8s=True,
    ),
    Case(
        # A Kubernetes policy that does not match lets a later Calico policy of the tier allow: web is selected
        # by a k8s policy allowing only db; a Calico Allow for client at order 2000 still allows client → web.
        "kubernetes-no-match-falls-through-to-later-calico",
        K8S,
        [
            *base(),
            knp(
                "a",
                "only-db",
                {
                    "podSelector": {"matchLabels": {"app": "web"}},
                    "ingress": [{"from": [{"podSelector": {"matchLabels": {"app": "db"}}}]}],
                },
            ),
            cnp(
                "a",
                "client",
                {
                    "order": 2000,
                    "selector": "app == 'web'",
                    "ingress": [{"action": "Allow", "source": {"namespaceSelector": "team == 'beta'"}}],
                },
            ),
        ],
        [("b/client", "a/web", "TCP", 80, True), ("a/db", "a/web", "TCP", 80, True)],
        needs_k8s=True,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_reference_evaluator_agrees_with_the_docs(case: Case) -> None:
    """The reference evaluator reads Calico's docs as the comments say (the cited page is the case's)."""
    ref = Reference(case.objs)
    got = [(s, d, p, n, ref.allowed(s, d, p, n)) for s, d, p, n, _ in case.expect]
    assert got == case.expect, case.cite


@pytest.mark.parametrize("case", [c for c in CASES if not c.needs_k8s], ids=[c.id for c in CASES if not c.needs_k8s])
def test_compiled_calico_policies_agree_with_the_docs(case: Case) -> None:
    """The compiler's output, walked as the tiered form specifies, gives the documented verdicts."""
    compiled = compile_objects(case.objs)
    got = [(s, d, p, n, compiled.allowed(s, d, p, n)) for s, d, p, n, _ in case.expect]
    assert got == case.expect, case.cite
