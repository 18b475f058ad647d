"""Peer reasons in words: why one NetworkPolicy peer does (not) match one endpoint.

The match itself is the engine's (compiled masks); these words say which half of a peer failed.
Peer semantics follow the networking/v1 reference ("Behavior of to and from selectors"): one peer with
namespaceSelector and podSelector is an AND; a podSelector alone means the policy's own namespace;
hostNetwork pods are matched only by ipBlocks (their traffic carries the node address). Dual-stack
(concepts/services-networking/dual-stack): an ipBlock is matched through the pod's address of the block's
own family, over the family the connection uses; an address is never compared with a block of the other
family.
"""

from __future__ import annotations

import netaddr

from netpol.engine import Endpoint
from netpol.engine.compile.ipspace import IPAtom, block_set
from netpol.model.families import family, family_name
from netpol.model.labels import EMPTY_LABELS, Labels
from netpol.model.objects import NetworkPolicyPeer, NetworkPolicyRule
from netpol.pipeline import Analysis
from netpol.ports import ConnectionSet


def ns_labels(analysis: Analysis, ns: str) -> Labels:
    obj = analysis.cluster.namespace(ns)
    return obj.labels if obj is not None else EMPTY_LABELS


def restrict_to(cs: ConnectionSet, restrict: ConnectionSet | None) -> ConnectionSet:
    return cs if restrict is None else cs.intersection(restrict)


def _atom_in_block(atom: IPAtom, peer: NetworkPolicyPeer) -> bool:
    assert peer.ip_block is not None
    return netaddr.IPAddress(atom.first, atom.version) in block_set(peer.ip_block)


def _ip_in_block(ip: str, peer: NetworkPolicyPeer) -> tuple[bool, str]:
    assert peer.ip_block is not None
    addr = netaddr.IPAddress(ip)
    if addr not in netaddr.IPNetwork(peer.ip_block.cidr):
        return False, f"{ip} is outside ipBlock {peer.ip_block.cidr}"
    for ex in peer.ip_block.except_:
        if addr in netaddr.IPNetwork(ex):
            return False, f"{ip} is in ipBlock {peer.ip_block.cidr} but also in its except {ex}"
    return True, f"ipBlock {peer.ip_block.render()} contains {ip}"


def peer_reason(
    analysis: Analysis, peer: NetworkPolicyPeer, policy_ns: str, ep: Endpoint, version: int | None = None
) -> tuple[int, str]:
    """(score, reason) for one peer against one endpoint: 2 matches, 1 half matches (AND), 0 no match.
    `version` (4 or 6): the address family the connection uses (None: the endpoint's only family)."""
    r = analysis.reachability
    if peer.ip_block is not None:
        block_family = family(peer.ip_block.cidr)
        if ep.atom is not None:
            atom = r.atoms[ep.atom]
            if atom.version != block_family:
                return 0, (
                    f"ipBlock {peer.ip_block.render()} is {family_name(block_family)}; "
                    f"{atom.render()} is {family_name(atom.version)}"
                )
            if _atom_in_block(atom, peer):
                return 2, f"ipBlock {peer.ip_block.render()} contains {atom.render()}"
            return 0, f"{atom.render()} is outside ipBlock {peer.ip_block.render()}"
        pod = r.pods[ep.pod]  # type: ignore[index]
        if not pod.pod_ips:
            return 0, f"{pod.key} has no IP, so ipBlock {peer.ip_block.render()} cannot match it"
        if not pod.host_network and not analysis.options.ipblock_matches_pods:
            return 0, f"ipBlock {peer.ip_block.render()} is not applied to pod IPs (--ipblock-pods ignore)"
        if version is not None and version != block_family:
            return 0, (
                f"ipBlock {peer.ip_block.render()} is {family_name(block_family)}; this connection uses "
                f"{family_name(version)} ({pod.ip_of(version) or 'no address'})"
            )
        ip = pod.ip_of(block_family)
        if not ip:
            return 0, (
                f"ipBlock {peer.ip_block.render()} is {family_name(block_family)} and {pod.key} has no "
                f"{family_name(block_family)} address (only {', '.join(pod.pod_ips)})"
            )
        ok, why = _ip_in_block(ip, peer)
        return (2 if ok else 0), why
    if ep.atom is not None:
        return 0, f"peer {peer.render()} selects pods; {r.atoms[ep.atom].render()} is an external address"
    pod = r.pods[ep.pod]  # type: ignore[index]
    if pod.host_network:
        return 0, (
            f"{pod.key} is a hostNetwork pod: pod and namespace selectors never match it "
            "(its traffic carries the node's address; only an ipBlock can)"
        )
    labels = ns_labels(analysis, pod.namespace)
    if peer.namespace_selector is not None:
        ns_ok = peer.namespace_selector.matches(labels)
    else:
        ns_ok = pod.namespace == policy_ns
    pod_ok = peer.pod_selector is None or peer.pod_selector.matches(pod.labels)
    if ns_ok and pod_ok:
        return 2, f"peer {peer.render()} matches {pod.key}"
    if peer.namespace_selector is not None and peer.pod_selector is not None:
        which = "pod matches, namespace does not" if pod_ok else "namespace matches, pod does not"
        if not ns_ok and not pod_ok:
            which = "neither the pod nor the namespace matches"
        return int(ns_ok) + int(pod_ok), (
            f"namespaceSelector and podSelector are in the same peer (AND): {which} "
            f"({peer.render()}; {pod.key} has labels {{{pod.labels.render()}}}, namespace {pod.namespace} "
            f"{{{labels.render()}}})"
        )
    if peer.namespace_selector is not None:
        return 0, (
            f"namespaceSelector {peer.namespace_selector.render()} does not match namespace {pod.namespace} "
            f"(labels {{{labels.render()}}})"
        )
    sel = peer.pod_selector.render() if peer.pod_selector is not None else "{}"
    if not ns_ok:
        return int(pod_ok), (
            f"podSelector {sel} alone selects pods of the policy's namespace {policy_ns} only; "
            f"{pod.key} is in {pod.namespace}"
            + ("" if pod_ok else f" (and its labels {{{pod.labels.render()}}} differ)")
        )
    return 1, f"podSelector {sel} does not match {pod.key} (labels {{{pod.labels.render()}}})"


def rule_peer_reason(
    analysis: Analysis, rule: NetworkPolicyRule, policy_ns: str, ep: Endpoint, version: int | None = None
) -> tuple[int, str]:
    if not rule.peers:
        return 2, "every peer (no from/to)"
    best = (-1, "")
    for peer in rule.peers:
        got = peer_reason(analysis, peer, policy_ns, ep, version)
        if got[0] > best[0]:
            best = got
    return best


def ports_text(rule: NetworkPolicyRule) -> str:
    return ", ".join(p.render() for p in rule.ports) if rule.ports else "all ports"
