"""Audit checks of Calico's own policies (CAL rules in netpol/audit/rules.py), read from the model.

Calico's semantics (docs.tigera.io Calico reference, "NetworkPolicy" / "GlobalNetworkPolicy" / "Rule"): rules are
walked in order and the first Allow / Deny / Pass decides, so a rule after one that matches everything is never
reached; a rule with no match criteria matches every connection of its direction.
"""

from __future__ import annotations

from collections.abc import Collection

from netpol.audit.rules import Finding, finding
from netpol.model.calico import (
    LABEL_NAME,
    LABEL_NAMESPACE,
    LABEL_ORCHESTRATOR,
    LABEL_SERVICE_ACCOUNT,
    NAMESPACE_PREFIX,
    SERVICE_ACCOUNT_PREFIX,
    CalicoPolicy,
    CalicoRule,
    EntityRule,
)
from netpol.model.calico_selector import namespace_match
from netpol.model.cluster import Cluster
from netpol.model.vocab import Direction


def _object(pol: CalicoPolicy) -> str:
    """Kind.group/ns/name, as kubectl names a resource of another API group."""
    return f"{pol.kind}.projectcalico.org/{pol.key}"


def _name(pol: CalicoPolicy) -> str:
    return f"Calico NetworkPolicy {pol.key}" if pol.namespace else f"GlobalNetworkPolicy {pol.name}"


def _catch_all(rule: CalicoRule) -> bool:
    """Matches every connection of its direction: no criterion at all."""
    return (
        rule.protocol is None
        and rule.not_protocol is None
        and rule.ip_version is None
        and not rule.icmp
        and not rule.http
        and rule.source == EntityRule()
        and rule.destination == EntityRule()
    )


def _partly(rule: CalicoRule) -> list[str]:
    parts = []
    if rule.protocol is not None and rule.protocol.port_protocol is None:
        parts.append(f"protocol {rule.protocol.text}")
    if rule.icmp:
        parts.append(rule.icmp)
    if rule.source.ports or rule.source.not_ports:
        parts.append("source ports")
    if rule.http:
        parts.append(f"HTTP ({rule.http})")
    if any(p.name for p in rule.destination.not_ports):
        parts.append("named notPorts")
    return parts


def _endpoint_labels(cluster: Cluster) -> list[tuple[str, dict[str, str], dict[str, str]]]:
    """(namespace, endpoint labels, namespace labels) per distinct running workload endpoint (pods not on the
    host network), with Calico's implicit labels."""
    ns_labels = {ns.name: {**ns.labels, LABEL_NAME: ns.name} for ns in cluster.namespaces}
    sa_labels = {(a.namespace, a.name): a.labels for a in cluster.calico.service_accounts}
    seen: dict[tuple[str, tuple[tuple[str, str], ...], str], None] = {}
    for p in cluster.running_pods:
        if not p.host_network:
            seen.setdefault((p.namespace, tuple(sorted(p.labels.items())), p.service_account), None)
    out = []
    for ns, items, sa in seen:
        labels = dict(items)
        labels.update({NAMESPACE_PREFIX + k: v for k, v in ns_labels.get(ns, {}).items()})
        labels.update({SERVICE_ACCOUNT_PREFIX + k: v for k, v in sa_labels.get((ns, sa), {}).items()})
        labels.update({LABEL_NAMESPACE: ns, LABEL_ORCHESTRATOR: "k8s", LABEL_SERVICE_ACCOUNT: sa})
        out.append((ns, labels, ns_labels.get(ns, {})))
    return out


def _selects_some(pol: CalicoPolicy, endpoints: list[tuple[str, dict[str, str], dict[str, str]]]) -> bool:
    for ns, labels, ns_labels in endpoints:
        if pol.namespace and ns != pol.namespace:
            continue
        if pol.namespace_selector is not None and not namespace_match(pol.namespace_selector.root, ns_labels, True):
            continue
        if pol.service_account_selector is not None and not pol.service_account_selector.matches(
            {k[len(SERVICE_ACCOUNT_PREFIX) :]: v for k, v in labels.items() if k.startswith(SERVICE_ACCOUNT_PREFIX)}
        ):
            continue
        if pol.selector.matches(labels):
            return True
    return False


def calico_findings(cluster: Cluster, namespaces: Collection[str]) -> list[Finding]:
    """Findings on the Calico policies of the chosen namespaces, and on every GlobalNetworkPolicy."""
    out: list[Finding] = []
    endpoints = _endpoint_labels(cluster) if cluster.calico.policies else []
    for pol in cluster.calico.policies:
        if pol.namespace and pol.namespace not in namespaces:
            continue
        obj = (_object(pol),)
        if not _selects_some(pol, endpoints):
            out.append(
                finding(
                    "CAL001",
                    pol.namespace,
                    f"{_name(pol)} selects no running pod (selector {pol.selector.text or 'all()'})",
                    obj,
                    pol.source,
                )
            )
        sides: tuple[tuple[Direction, tuple[CalicoRule, ...]], ...] = (("ingress", pol.ingress), ("egress", pol.egress))
        for direction, rules in sides:
            catch_all: int | None = None
            for i, rule in enumerate(rules):
                label = f"{_name(pol)} {direction} rule #{i + 1} ({rule.action})"
                if catch_all is not None:
                    out.append(
                        finding(
                            "CAL002",
                            pol.namespace,
                            f"{label} is never reached: rule #{catch_all + 1} before it matches every connection",
                            obj,
                            pol.source,
                            detail=f"{direction} {i}",
                        )
                    )
                    continue
                if _catch_all(rule) and rule.action != "Log":
                    catch_all = i
                peer = rule.source if direction == "ingress" else rule.destination
                if (
                    rule.action == "Allow"
                    and peer == EntityRule()
                    and rule.protocol is None
                    and not (rule.destination.ports or rule.destination.not_ports)
                    and rule.not_protocol is None
                ):
                    out.append(
                        finding(
                            "CAL003",
                            pol.namespace,
                            f"{label} has no {'source' if direction == 'ingress' else 'destination'} and no "
                            "protocol or ports: it allows every endpoint and every address on every port",
                            obj,
                            pol.source,
                            direction=direction,
                            detail=f"{direction} {i}",
                        )
                    )
                parts = _partly(rule)
                if parts:
                    out.append(
                        finding(
                            "CAL004",
                            pol.namespace,
                            f"{label} matches on {', '.join(parts)}, outside the port-aware answer (explain says "
                            "what is assumed)",
                            obj,
                            pol.source,
                            detail=f"{direction} {i}",
                        )
                    )
    return out
