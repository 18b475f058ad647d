"""The audit's rule catalogue and the one factory that builds findings from it.

Every finding's severity comes from here (`Rule.severity`, or `Rule.egress_severity` for rules whose risk
depends on the direction): checks name a rule, never a severity.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from netpol.errors import SourceRef
from netpol.model.vocab import Direction, Severity

FAIL_ON: tuple[Severity, ...] = ("low", "medium", "high")


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    name: str
    severity: Severity
    description: str
    fix: str  # the default one-line fix; checks may give a more specific one
    egress_severity: Severity | None = None  # when an egress rule is less exposed than an ingress one
    reference: str = ""  # CIS Kubernetes Benchmark / NSA-CISA Hardening Guide item it serves (docs/commands/audit.md)
    # for rules whose risk depends on what the finding is about (the door and port of an exposure): the
    # grade a check names → its severity; `severity` is then the highest
    grades: Mapping[str, Severity] = field(default_factory=dict)


_NP_FIX = "add a NetworkPolicy with podSelector: {}"
RULES: dict[str, Rule] = {
    r.id: r
    for r in (
        Rule(
            "NP001",
            "no-default-deny-ingress",
            "medium",
            "namespace has no default-deny ingress policy",
            f"{_NP_FIX} and policyTypes: [Ingress] and no ingress rules",
        ),
        Rule(
            "NP002",
            "no-default-deny-egress",
            "low",
            "namespace has no default-deny egress policy",
            f"{_NP_FIX}, policyTypes: [Egress] and rules for DNS",
        ),
        Rule(
            "NP003",
            "pods-not-isolated-ingress",
            "medium",
            "pods no ingress policy selects: every source reaches them",
            "select them with an ingress policy (a default-deny with podSelector: {} covers all)",
        ),
        Rule(
            "NP004",
            "pods-not-isolated-egress",
            "low",
            "pods no egress policy selects: they reach everything",
            "select them with an egress policy that allows only what they need (and DNS)",
        ),
        Rule(
            "NP010",
            "policy-selects-no-pod",
            "low",
            "policy whose podSelector matches no running pod",
            "fix the podSelector labels, or delete the policy",
        ),
        Rule(
            "NP011",
            "peer-matches-nothing",
            "low",
            "from/to peer whose selectors match no pod or namespace",
            "fix the labels in the selector (or on the pods/namespaces), or remove the peer",
        ),
        Rule(
            "NP020",
            "rule-allows-all-peers",
            "high",
            "rule without from/to: every pod and every address",
            "list the peers (podSelector/namespaceSelector/ipBlock)",
            egress_severity="medium",
        ),
        Rule(
            "NP021",
            "peer-all-namespaces",
            "medium",
            "peer with namespaceSelector {}: every namespace",
            "select the namespaces that need access by label (e.g. kubernetes.io/metadata.name)",
        ),
        Rule(
            "NP022",
            "peer-all-pods",
            "low",
            "peer with podSelector {} alone: every pod of the namespace",
            "select the pods that need access by label",
        ),
        Rule(
            "NP023",
            "peer-world-cidr",
            "high",
            "ipBlock 0.0.0.0/0 or ::/0: every address",
            "narrow the cidr to the addresses that need access",
            egress_severity="medium",
        ),
        Rule(
            "NP024",
            "rule-all-ports",
            "low",
            "rule without ports: every port of every protocol",
            "add ports: the ones the peers need",
        ),
        Rule(
            "NP030",
            "egress-without-dns",
            "medium",
            "egress isolated without UDP and TCP 53 to kube-dns",
            "add an egress rule to namespaceSelector kubernetes.io/metadata.name=kube-system, podSelector "
            "k8s-app=kube-dns, ports UDP 53 and TCP 53",
        ),
        Rule(
            "NP040",
            "named-port-unresolved",
            "medium",
            "named port that no pod it applies to defines",
            "use the containerPort's exact name and protocol, or a number",
        ),
        Rule(
            "NP050",
            "ipblock-overlaps-cluster",
            "low",
            "ipBlock overlapping pod or node addresses (CNI-dependent)",
            "select pods with podSelector/namespaceSelector; keep ipBlock for addresses outside the cluster "
            "(add the pod and node ranges to except)",
        ),
        Rule(
            "NP060",
            "redundant-policy",
            "info",
            "policy whose removal changes no connection and raises no other finding",
            "delete it, or fix it if it was meant to allow or isolate something",
        ),
        Rule(
            "NP070",
            "host-network-pod",
            "info",
            "hostNetwork pod: no NetworkPolicy applies to it in practice",
            "drop hostNetwork unless required; restrict it with host firewall rules instead",
        ),
        # high: an unevaluated policy may deny or allow any connection of the pods it selects, so every answer
        # about them (and the absence of other findings on them) is unverified. A gate at the strictest level
        # (`--fail-on high`) must not pass on answers netpol did not compute; accept it on the object, with a
        # reason, once its engine's own tools have checked those pods.
        Rule(
            "NP080",
            "policy-not-evaluated",
            "high",
            "policy of a kind netpol does not evaluate: answers for the pods it selects may be wrong",
            "check those pods with the policy's own engine, then accept this finding on the object "
            "(annotation kube-reach.io/accept.NP080: <reason>); or remove the policy if it is not deployed",
        ),
        Rule(
            "CIL001",
            "cilium-port-only-rule",
            "high",
            "Cilium rule with toPorts and no peer field: every endpoint and every address on those ports",
            "add the peers (fromEndpoints/toEndpoints, CIDRs or entities) beside toPorts",
            egress_severity="medium",
        ),
        Rule(
            "CIL002",
            "cilium-world-peer",
            "high",
            "Cilium peer world, all, or a CIDR /0: every address outside the cluster",
            "narrow it to the CIDRs or FQDNs that need access",
            egress_severity="medium",
        ),
        Rule(
            "CIL003",
            "cilium-unplaceable-peer",
            "info",
            "Cilium peer a static input cannot place (toFQDNs, kube-apiserver/health/init/ingress/unmanaged, "
            "CIDR groups, cloud groups, Services without a selector)",
            "check this peer on the live cluster (cilium policy get, hubble); netpol's answers leave it out",
        ),
        Rule(
            "CIL004",
            "cilium-l7-filter",
            "info",
            "Cilium port allowed only through a layer-7 filter (HTTP, Kafka, DNS, TLS SNI, an Envoy listener)",
            "nothing to fix: review the filter; netpol shows the connection allowed with it",
        ),
        Rule(
            "CIL005",
            "cilium-namespace-labels-ignored",
            "low",
            "io.cilium.k8s.namespace.labels in a CiliumNetworkPolicy's peer: ignored there",
            "name the namespace with io.kubernetes.pod.namespace, or use a CiliumClusterwideNetworkPolicy",
        ),
        # Calico's NetworkPolicy / GlobalNetworkPolicy (netpol/audit/calico.py)
        Rule(
            "CAL001",
            "calico-policy-selects-no-endpoint",
            "low",
            "Calico policy whose selector matches no running pod",
            "fix the selector (Calico's selector language: app == 'x'), or delete the policy",
        ),
        Rule(
            "CAL002",
            "calico-rule-never-reached",
            "low",
            "Calico rule after a rule of the same policy that matches every connection: it is never reached",
            "move the rule before the catch-all rule, or delete it",
        ),
        Rule(
            "CAL003",
            "calico-rule-allows-everything",
            "high",
            "Calico Allow rule with no match criteria: every endpoint, every address, every port",
            "add a source/destination selector, nets or ports",
            egress_severity="medium",
        ),
        Rule(
            "CAL004",
            "calico-rule-partly-evaluated",
            "info",
            "Calico rule with match criteria outside the port-aware answer (ICMP, other protocols, source ports, "
            "HTTP)",
            "read explain's note on the rule: what netpol assumes for the part it cannot evaluate",
        ),
        Rule(
            "CNP010",
            "rule-shadowed",
            "medium",
            "Admin/Baseline rule that never decides: an earlier rule of its tier matches every connection it matches",
            "remove the rule, or give it precedence (a lower priority value, or an earlier place in its policy)",
        ),
        Rule(
            "CNP020",
            "priority-tie",
            "medium",
            "two policies of one tier share a priority and can decide one connection differently (ambiguous upstream)",
            "give the policies distinct priorities",
        ),
        Rule(
            "CNP030",
            "pass-without-networkpolicy",
            "low",
            "Admin-tier Pass for pods no NetworkPolicy selects: the Baseline tier or the default allow decides",
            "add the NetworkPolicy the Pass hands over to, or Accept/Deny in the Admin tier instead",
        ),
        Rule(
            "NP090",
            "exposed-to-internet",
            "high",
            "pods reachable from outside the cluster through a door (LoadBalancer, NodePort, externalIPs, Ingress, "
            "Gateway route, Route)",
            "if not meant to be public, remove the door or restrict its clients (loadBalancerSourceRanges, an ingress "
            "rule admitting only the proxy's pods or the clients' ranges); if meant, accept it on the door object",
            grades={
                "direct": "high",  # straight to a pod's port (a Service door, a TCP/UDP/TLS passthrough listener)
                "direct-web": "medium",  # … on 80 or 443
                "direct-restricted": "medium",  # … from some client ranges or nodes only
                "direct-web-restricted": "low",
                "proxied": "low",  # through an HTTP(S) proxy: an Ingress, a Route, an HTTP/HTTPS/GRPC listener
                "proxied-restricted": "low",
            },
        ),
        Rule(
            "NP091",
            "door-without-reachable-backend",
            "medium",
            "a door none of whose backends can be reached (every path blocked by policy, or not routed): likely a "
            "broken app",
            "admit the door's traffic in the backends' ingress policies (the proxy's pods, or the clients or nodes of "
            "a Service), or fix the route, Service or reference that forwards nothing",
        ),
        Rule(
            "NP092",
            "exposed-to-unknown-namespaces",
            "medium",
            "isolated pods whose ingress rules admit pods of namespaces the input does not contain",
            "select the namespaces that need access by kubernetes.io/metadata.name, or accept it on the policy",
            grades={"any-namespace": "medium", "labelled-namespaces": "low"},
        ),
    )
}


BaselineState = Literal["new", "unchanged"]


@dataclass(frozen=True, slots=True)
class Acceptance:
    """A finding accepted on one object by an annotation (see acceptance.py), with the reason given there."""

    by: str  # Kind/ns/name of the annotated object
    reason: str


@dataclass(frozen=True)
class Finding:
    rule: str  # id, e.g. NP001
    severity: Severity
    namespace: str
    message: str
    objects: tuple[str, ...]  # Kind/ns/name; the first is the object the finding is about
    fix: str
    source: SourceRef | None = None
    detail: str = ""  # what tells apart two findings of one rule on one object (a rule, a peer), never a line
    subject: str = ""  # the object the finding is about (Kind/ns/name); default the first of `objects`
    accepted: Acceptance | None = None
    baseline: BaselineState | None = None  # set when compared with a baseline

    @property
    def name(self) -> str:
        return RULES[self.rule].name

    @property
    def about(self) -> str:
        return self.subject or (self.objects[0] if self.objects else f"Namespace/{self.namespace}")

    @property
    def active(self) -> bool:
        """Counted by --fail-on: neither accepted on its object nor already in the baseline."""
        return self.accepted is None and self.baseline != "unchanged"

    @property
    def fingerprint(self) -> str:
        """Stable across file order, YAML layout and line numbers: rule, namespace, object and what tells apart
        two findings of a rule on one object, as read (never as written)."""
        key = "\0".join((self.rule, self.namespace, self.about, self.detail))
        return hashlib.sha256(key.encode()).hexdigest()[:16]

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.rule,
            "name": self.name,
            "severity": self.severity,
            "namespace": self.namespace,
            "message": self.message,
            "objects": list(self.objects),
            "fix": self.fix,
            "file": self.source.file if self.source else None,
            "fingerprint": self.fingerprint,
            "accepted": {"by": self.accepted.by, "reason": self.accepted.reason} if self.accepted else None,
            **({"baseline": self.baseline} if self.baseline else {}),
        }


def finding(
    rule: str,
    namespace: str,
    message: str,
    objects: tuple[str, ...],
    source: SourceRef | None,
    *,
    fix: str | None = None,
    direction: Direction = "ingress",
    detail: str = "",
    subject: str = "",
    grade: str = "",
) -> Finding:
    """A finding of catalogue rule `rule`, its severity (per direction, or per `grade` for rules with grades) and
    default fix from the catalogue."""
    r = RULES[rule]
    severity = r.egress_severity if direction == "egress" and r.egress_severity else r.severity
    if grade:
        severity = r.grades[grade]
    return Finding(
        rule, severity, namespace, message, objects, fix if fix is not None else r.fix, source, detail, subject
    )
