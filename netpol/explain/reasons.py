"""Peer reasons in words: why one compiled peer does (not) hold one endpoint.

The match itself, and which of a peer's conditions hold, are the engine's (`netpol.engine.provenance`
`PeerMatch`, read from the compiled masks); this module only words them, naming which condition of an AND
failed. Semantics worded here (networking/v1 reference, "Behavior of to and from selectors"): one peer with
namespaceSelector and podSelector is an AND; a podSelector alone means the policy's own namespace;
hostNetwork pods are matched only by address blocks (their traffic carries the node address). Dual-stack
(concepts/services-networking/dual-stack): an address block sees a pod through the pod's address of the
block's own family, over the family the connection uses.
"""

from __future__ import annotations

from netpol.engine import Endpoint, PeerMatch
from netpol.model.families import family_name
from netpol.model.labels import EMPTY_LABELS, Labels
from netpol.pipeline import Analysis
from netpol.ports import ConnectionSet


def ns_labels(analysis: Analysis, ns: str) -> Labels:
    obj = analysis.cluster.namespace(ns)
    return obj.labels if obj is not None else EMPTY_LABELS


def restrict_to(cs: ConnectionSet, restrict: ConnectionSet | None) -> ConnectionSet:
    return cs if restrict is None else cs.intersection(restrict)


def _address_words(analysis: Analysis, m: PeerMatch, ep: Endpoint, version: int | None) -> str:
    """Why an address condition does (not) hold an endpoint."""
    r = analysis.reachability
    part = next(p.part for p in m.parts if p.part.kind in ("address", "node"))
    block_family = part.version
    if ep.atom is not None:
        atom = r.atoms[ep.atom]
        if m.holds:
            return f"{part.text} contains {atom.render()}"
        if block_family is not None and atom.version != block_family:
            return f"{part.text} is {family_name(block_family)}; {atom.render()} is {family_name(atom.version)}"
        return f"{atom.render()} is outside {part.text}"
    pod = r.pods[ep.pod]  # type: ignore[index]
    if part.kind == "node":
        if m.holds:
            return f"{part.text} holds {pod.key}, a hostNetwork pod on one of those nodes"
        return f"{part.text} holds node addresses and the hostNetwork pods on those nodes; {pod.key} is not one"
    ip = pod.ip_of(block_family) if block_family is not None else (pod.pod_ips[0] if pod.pod_ips else "")
    if m.holds:
        return f"{part.text} contains {ip}"
    if not pod.pod_ips:
        return f"{pod.key} has no IP, so {part.text} cannot match it"
    if not pod.host_network and not analysis.options.ipblock_matches_pods:
        return f"{part.text} is not applied to pod IPs (--ipblock-pods ignore)"
    if version is not None and block_family is not None and version != block_family:
        return (
            f"{part.text} is {family_name(block_family)}; this connection uses "
            f"{family_name(version)} ({pod.ip_of(version) or 'no address'})"
        )
    if not ip:
        return (
            f"{part.text} is {family_name(block_family or 4)} and {pod.key} has no "
            f"{family_name(block_family or 4)} address (only {', '.join(pod.pod_ips)})"
        )
    return f"{ip} is outside {part.text}"


def peer_words(analysis: Analysis, m: PeerMatch, ep: Endpoint, version: int | None = None) -> str:
    """One peer against one endpoint, in words (`version`: the IP version the connection uses, or None)."""
    r = analysis.reachability
    peer = m.peer
    if peer.note and not m.holds:  # what a static input cannot place (e.g. domainNames), in the compiler's words
        return f"{peer.text}: {peer.note}"
    if not m.parts:
        return f"{peer.text}: every endpoint" if m.holds else f"{peer.text} holds nothing here"
    if any(p.part.kind in ("address", "node") for p in m.parts):
        return _address_words(analysis, m, ep, version)
    if m.holds:
        return f"peer {peer.text} matches {ep.name(r)}"
    if ep.atom is not None:
        note = f" ({peer.note})" if peer.note else ""
        return f"peer {peer.text} selects pods{note}; {r.atoms[ep.atom].render()} is an external address"
    pod = r.pods[ep.pod]  # type: ignore[index]
    if all(p.holds for p in m.parts):
        if pod.host_network:
            return (
                f"{pod.key} is a hostNetwork pod: pod and namespace selectors never match it "
                "(its traffic carries the node's address; only an address block can)"
            )
        return f"peer {peer.text} does not hold {pod.key}" + (f" ({peer.note})" if peer.note else "")
    labels = ns_labels(analysis, pod.namespace)
    pod_labels = f"labels {{{pod.labels.render()}}}"
    ns_part = next((p for p in m.parts if p.part.kind == "namespace"), None)
    pod_part = next((p for p in m.parts if p.part.kind == "pod"), None)
    explicit_ns = ns_part is not None and not ns_part.part.text.startswith("the policy's namespace")
    if ns_part is not None and pod_part is not None and explicit_ns:
        if pod_part.holds:
            which = "pod matches, namespace does not"
        elif ns_part.holds:
            which = "namespace matches, pod does not"
        else:
            which = "neither the pod nor the namespace matches"
        return (
            f"{ns_part.part.text.split(' ', 1)[0]} and {pod_part.part.text.split(' ', 1)[0]} are in the same peer "
            f"(AND): {which} ({peer.text}; {pod.key} has {pod_labels}, namespace {pod.namespace} "
            f"{{{labels.render()}}})"
        )
    if ns_part is not None and not ns_part.holds:
        if pod_part is not None:  # a pod selector alone: the policy's own namespace
            return (
                f"{pod_part.part.text} alone selects pods of {ns_part.part.text} only; "
                f"{pod.key} is in {pod.namespace}" + ("" if pod_part.holds else f" (and its {pod_labels} differ)")
            )
        return f"{ns_part.part.text} does not match namespace {pod.namespace} (labels {{{labels.render()}}})"
    failed = next(p for p in m.parts if not p.holds)
    return f"{failed.part.text} does not match {pod.key} ({pod_labels})"
