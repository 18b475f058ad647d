"""Policy checks: one NetworkPolicy at a time, rule by rule and peer by peer (NP010, NP011, NP020–NP024,
NP040, NP050)."""

from __future__ import annotations

from collections.abc import Iterable

import netaddr
import numpy as np

from netpol.audit._pods import network_policy
from netpol.audit.dns import is_dns_peer
from netpol.audit.rules import Finding, finding
from netpol.engine import CompiledPeer, CompiledPolicy
from netpol.model.objects import NetworkPolicy, NetworkPolicyPeer, NetworkPolicyRule
from netpol.model.vocab import Direction
from netpol.pipeline import Analysis


def policy_rules(pol: NetworkPolicy) -> Iterable[tuple[Direction, int, NetworkPolicyRule]]:
    """The rules that take effect: those of a direction in policyTypes."""
    if pol.affects_ingress:
        for i, r in enumerate(pol.ingress):
            yield "ingress", i, r
    if pol.affects_egress:
        for i, r in enumerate(pol.egress):
            yield "egress", i, r


def _label(pol: NetworkPolicy, direction: Direction, i: int) -> str:
    return f"{pol.key} {direction} rule #{i + 1}"


def _world(cidr: str) -> bool:
    return netaddr.IPNetwork(cidr).prefixlen == 0


def cluster_addresses(analysis: Analysis) -> netaddr.IPSet:
    """Node pod CIDRs, node addresses and pod IPs: where an ipBlock's meaning depends on the CNI."""
    # One IPSet built from a list merges once; adding 10,000 addresses one by one re-compacts each time.
    found: list[netaddr.IPNetwork | netaddr.IPAddress] = []
    for n in analysis.cluster.nodes:
        found += [netaddr.IPNetwork(c) for c in n.pod_cidrs]  # one per family on a dual-stack node
        for a in n.addresses:
            if a.type in ("InternalIP", "ExternalIP"):
                try:
                    found.append(netaddr.IPAddress(a.address))
                except (netaddr.AddrFormatError, ValueError):
                    pass
    found += [netaddr.IPAddress(ip) for p in analysis.reachability.pods for ip in p.pod_ips]
    return netaddr.IPSet(found)


def _peer_findings(
    analysis: Analysis,
    pol: NetworkPolicy,
    label: str,
    direction: Direction,
    peer: NetworkPolicyPeer,
    compiled: CompiledPeer,
    addresses: netaddr.IPSet,
) -> list[Finding]:
    r = analysis.reachability
    out = []
    obj = (f"NetworkPolicy/{pol.key}",)
    where = f"{direction} {peer.render()}"
    if peer.ip_block is not None:
        if _world(peer.ip_block.cidr):
            out.append(
                finding(
                    "NP023",
                    pol.namespace,
                    f"{label} allows ipBlock {peer.ip_block.render()}: every address",
                    obj,
                    pol.source,
                    direction=direction,
                    detail=where,
                )
            )
        overlap = addresses & peer.ip_block.addresses()
        if overlap.size:
            out.append(
                finding(
                    "NP050",
                    pol.namespace,
                    f"{label}: ipBlock {peer.ip_block.render()} overlaps pod or node addresses "
                    f"({', '.join(str(c) for c in overlap.iter_cidrs()[:3])}); whether it matches pod traffic depends on the CNI",
                    obj,
                    pol.source,
                    detail=where,
                )
            )
        return out
    if peer.namespace_selector is not None and peer.namespace_selector.is_empty:
        out.append(
            finding(
                "NP021",
                pol.namespace,
                f"{label} allows every namespace (namespaceSelector: {{}}"
                + (f", podSelector {peer.pod_selector.render()})" if peer.pod_selector is not None else ")"),
                obj,
                pol.source,
                detail=where,
            )
        )
    elif peer.namespace_selector is None and peer.pod_selector is not None and peer.pod_selector.is_empty:
        out.append(
            finding(
                "NP022",
                pol.namespace,
                f"{label} allows every pod of namespace {pol.namespace} (podSelector: {{}})",
                obj,
                pol.source,
                detail=where,
            )
        )
    if not compiled.classes.any() and not is_dns_peer(peer, pol.namespace):
        why = "matches no pod"
        if peer.namespace_selector is not None:
            ns_hit = [ns.name for ns in r.pod_classes.namespaces if peer.namespace_selector.matches(ns.labels)]
            if not ns_hit:
                why = "its namespaceSelector matches no namespace"
        out.append(
            finding("NP011", pol.namespace, f"{label}: peer {peer.render()} {why}", obj, pol.source, detail=where)
        )
    return out


def policy_checks(analysis: Analysis, cp: CompiledPolicy, addresses: netaddr.IPSet) -> list[Finding]:
    r = analysis.reachability
    u = r.pod_classes
    pol = network_policy(cp)
    selected = cp.selected
    obj = (f"NetworkPolicy/{pol.key}",)
    out: list[Finding] = []
    if not selected.any():
        out.append(
            finding(
                "NP010",
                pol.namespace,
                f"policy {pol.key} selects no running pod (podSelector {pol.pod_selector.render()})",
                obj,
                pol.source,
            )
        )
    for direction, i, rule in policy_rules(pol):
        label = _label(pol, direction, i)
        side = "from" if direction == "ingress" else "to"
        ports = ", ".join(p.render() for p in rule.ports)
        if not rule.peers:
            out.append(
                finding(
                    "NP020",
                    pol.namespace,
                    f"{label} has no {side}: it allows every pod and every address" + (f" on {ports}" if ports else ""),
                    obj,
                    pol.source,
                    fix=f"list the peers in {side} (podSelector/namespaceSelector/ipBlock)",
                    direction=direction,
                    detail=f"{direction} ports [{ports}]",
                )
            )
        elif not rule.ports:
            out.append(
                finding(
                    "NP024",
                    pol.namespace,
                    f"{label} allows every port of every protocol",
                    obj,
                    pol.source,
                    detail=f"{direction} {side} [{', '.join(p.render() for p in rule.peers)}]",
                )
            )
        compiled = next(c for c in cp.rules(direction) if c.index == i)
        for peer, cpeer in zip(rule.peers, compiled.peers if rule.peers else (), strict=True):
            out += _peer_findings(analysis, pol, label, direction, peer, cpeer, addresses)
        for port in rule.ports:
            if not isinstance(port.port, str):
                continue
            if direction == "ingress":
                where = selected
            else:
                where = np.logical_or.reduce([p.classes for p in compiled.peers])
            resolves = any(
                u.classes[int(c)].resolve(port.port, port.protocol) is not None for c in np.flatnonzero(where)
            )
            if not resolves:
                whom = "no pod the policy selects" if direction == "ingress" else "no pod the rule's peers match"
                out.append(
                    finding(
                        "NP040",
                        pol.namespace,
                        f"{label}: named port {port.port}/{port.protocol} is defined by {whom}, so it matches nothing",
                        obj,
                        pol.source,
                        detail=f"{direction} {port.port}/{port.protocol}",
                    )
                )
    return out
