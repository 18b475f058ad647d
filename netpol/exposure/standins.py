"""Pods the input does not contain, added so the engine can be asked about them.

Two kinds, one mechanism (netpol-analyzer does the same: an `ingress-controller` pod for Routes and Ingresses,
and representative peers for its exposure analysis, np-guard/netpol-analyzer docs/exposure_analysis.md):

- **representative peers**: for every peer selector of every policy, a pod carrying labels that selector
  matches, in a namespace carrying labels its namespaceSelector matches (a namespace the input does not
  contain, unless the selector names one by `kubernetes.io/metadata.name`, or the peer has no
  namespaceSelector: the policy's own namespace), plus one pod with no labels in a namespace with no labels:
  "any pod in any namespace". The engine then says which policies admit each, exactly as it would a real pod
  (a representative also matches every other rule whose selectors its labels satisfy).
- **proxies not in the input**: the pods of an ingress controller, a Gateway or the OpenShift router, with
  the identity their project deploys them with (netpol/exposure/conventions.py), or the "any pod in any
  namespace" representative for an unknown in-cluster proxy.

Stand-ins take addresses from the cluster's pod range (`--cluster-cidr`), as any pod bound to no node does,
and have no container ports (a named port on an unknown pod cannot be resolved). The first analysis is left
as it is: stand-ins live in a second engine built over the same policies (`augment`), so no matrix, audit
or answer about real pods changes.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import assert_never

from netpol.engine import Reachability, build_reachability
from netpol.errors import SourceRef
from netpol.ipam import assign_ips
from netpol.model.admin import AdminDomainNames, AdminNamespaces, AdminNetworks, AdminNodes, AdminPods
from netpol.model.cluster import Cluster
from netpol.model.labels import EMPTY_LABELS, Labels, LabelSelector
from netpol.model.objects import NAMESPACE_NAME_LABEL, Namespace, Pod
from netpol.pipeline import Analysis

STAND_IN_FILE = "<stand-in: not in the input>"
EVERYWHERE = "any pod in any namespace (the whole cluster)"


@dataclass(frozen=True, slots=True)
class Want:
    """A stand-in asked for: `namespace` fixed (an input namespace, or one a selector names) or None (a
    namespace the input does not contain, with `namespace_labels`)."""

    namespace: str | None
    namespace_labels: Labels
    labels: Labels
    describes: str


@dataclass(frozen=True, slots=True)
class StandIn:
    key: str  # namespace/name in the second engine
    namespace: str
    labels: Labels
    namespace_labels: Labels  # its namespace's labels (an input namespace's as read)
    new_namespace: bool  # the namespace is not in the input
    describes: str  # what it stands for, in words


UNIVERSAL = Want(None, EMPTY_LABELS, EMPTY_LABELS, EVERYWHERE)


def satisfying(sel: LabelSelector) -> Labels | None:
    """Labels `sel` matches, built from its own requirements (matchLabels; In: the first value; Exists: a value
    no NotIn of that key refuses; NotIn and DoesNotExist: the key left out), or None when nothing can match."""
    labels = dict(sel.match_labels)
    refused: dict[str, set[str]] = {}
    for req in sel.match_expressions:
        if req.operator == "NotIn":
            refused.setdefault(req.key, set()).update(req.values)
    for req in sel.match_expressions:
        if req.key in labels:
            continue
        if req.operator == "In" and req.values:
            labels[req.key] = sorted(req.values)[0]
        elif req.operator == "Exists":
            labels[req.key] = next(v for v in ("any", "any-1", "any-2", "x") if v not in refused.get(req.key, ()))
    return Labels(labels) if sel.matches(labels) else None


def _named_namespace(sel: LabelSelector, known: Collection[str]) -> str | None:
    """The namespace a namespaceSelector names by `kubernetes.io/metadata.name` (an immutable label equal to the
    name), if it names some: the one it pins, or of several (`In (a, b)`) the first the input lacks (the one
    beyond it), else the first."""
    name = sel.match_labels.get(NAMESPACE_NAME_LABEL)
    if name is not None:
        return name
    for req in sel.match_expressions:
        if req.key == NAMESPACE_NAME_LABEL and req.operator == "In" and req.values:
            values = sorted(req.values)
            return next((v for v in values if v not in known), values[0])
    return None


def peer_wants(cluster: Cluster, running: Sequence[Pod]) -> list[Want]:
    """A representative for every pod-or-namespace peer of every policy that the input's pods do not already
    stand for, and the universal one first."""
    wants = [UNIVERSAL]
    pods_of: dict[str, list[Pod]] = {}
    for p in running:
        if not p.host_network:
            pods_of.setdefault(p.namespace, []).append(p)
    for ns, ns_sel, pod_sel in dict.fromkeys(_peer_selectors(cluster)):  # policies repeat their peers
        want = _peer_want(cluster, pods_of, ns, ns_sel, pod_sel)
        if want is not None and want not in wants:
            wants.append(want)
    return wants


def _peer_selectors(cluster: Cluster) -> Iterator[tuple[str | None, LabelSelector | None, LabelSelector | None]]:
    """(policy namespace or None for a cluster-scoped policy, namespaceSelector, podSelector) of every peer."""
    for pol in cluster.policies:
        for rule in (*pol.ingress, *pol.egress):
            for peer in rule.peers:
                if peer.ip_block is None:
                    yield pol.namespace, peer.namespace_selector, peer.pod_selector
    for anp in cluster.admin_policies:
        for admin_rule in (*anp.ingress, *anp.egress):
            for admin_peer in admin_rule.peers:
                match admin_peer:
                    case AdminNamespaces(namespace_selector=ns_sel):
                        yield None, ns_sel, None
                    case AdminPods(namespace_selector=ns_sel, pod_selector=pod_sel):
                        yield None, ns_sel, pod_sel
                    case AdminNodes() | AdminNetworks() | AdminDomainNames():
                        pass
                    case _:
                        assert_never(admin_peer)


def _peer_want(
    cluster: Cluster,
    pods_of: dict[str, list[Pod]],
    policy_ns: str | None,
    ns_sel: LabelSelector | None,
    pod_sel: LabelSelector | None,
) -> Want | None:
    pod_labels = satisfying(pod_sel) if pod_sel is not None else EMPTY_LABELS
    if pod_labels is None:
        return None  # a podSelector nothing can match
    who = "any pod" if pod_sel is None or pod_sel.is_empty else f"pods labelled {pod_sel.render()}"
    if ns_sel is None and policy_ns is not None:  # a podSelector alone: the policy's own namespace
        namespace: str | None = policy_ns
        ns_labels = EMPTY_LABELS
        where = f"namespace {policy_ns}"
    elif ns_sel is None or ns_sel.is_empty:
        namespace, ns_labels, where = None, EMPTY_LABELS, "any namespace"
    else:
        built = satisfying(ns_sel)
        if built is None:
            return None
        namespace = _named_namespace(ns_sel, {ns.name for ns in cluster.namespaces})
        ns_labels = built
        where = f"namespace {namespace}" if namespace is not None else f"namespaces labelled {ns_sel.render()}"
        if namespace is not None and len(ns_sel.match_labels) + len(ns_sel.match_expressions) > 1:
            where += f" (if labelled {ns_sel.render()})"
    if namespace is not None:
        existing = cluster.namespace(namespace)
        if existing is not None:
            if ns_sel is not None and not ns_sel.matches(existing.labels):
                return None  # names an input namespace whose labels the selector refuses
            if any(pod_sel is None or pod_sel.matches(p.labels) for p in pods_of.get(namespace, [])):
                return None  # the input has such pods: nothing beyond it
            return Want(namespace, existing.labels, pod_labels, f"{who} in {where} (none in the input)")
        return Want(namespace, ns_labels, pod_labels, f"{who} in {where} (not in the input)")
    if pod_sel is None or pod_sel.is_empty:
        if where == "any namespace":
            return UNIVERSAL
        return Want(None, ns_labels, pod_labels, f"any pod in {where}")
    return Want(None, ns_labels, pod_labels, f"{who} in {where}")


def build(cluster: Cluster, wants: Sequence[Want]) -> tuple[StandIn, ...]:
    """One stand-in per distinct want (the first description kept), named so nothing in the input clashes."""
    taken = {ns.name for ns in cluster.namespaces}
    out: list[StandIn] = []
    seen: dict[tuple[object, ...], int] = {}
    fresh = 0
    for want in wants:
        identity = (want.namespace, want.namespace_labels if want.namespace is None else None, want.labels)
        if identity in seen:
            continue
        seen[identity] = len(out)
        if want.namespace is not None:
            namespace = want.namespace
            existing = cluster.namespace(namespace)
            ns_labels = existing.labels if existing is not None else _with_name(want.namespace_labels, namespace)
            new = existing is None
        else:
            fresh += 1
            namespace = f"netpol-stand-in-{fresh}"
            while namespace in taken:
                fresh += 1
                namespace = f"netpol-stand-in-{fresh}"
            ns_labels, new = _with_name(want.namespace_labels, namespace), True
        taken.add(namespace)
        name = f"stand-in-{len(out) + 1}"
        out.append(StandIn(f"{namespace}/{name}", namespace, want.labels, ns_labels, new, want.describes))
    return tuple(out)


def find(stand_ins: Sequence[StandIn], want: Want) -> StandIn:
    """The stand-in built for `want` (same identity)."""
    for s in stand_ins:
        if want.namespace is not None:
            if s.namespace == want.namespace and s.labels == want.labels:
                return s
        elif s.new_namespace and s.labels == want.labels and _without_name(s.namespace_labels) == want.namespace_labels:
            return s
    raise KeyError(want)


def _with_name(labels: Labels, namespace: str) -> Labels:
    return Labels({**labels, NAMESPACE_NAME_LABEL: namespace})


def _without_name(labels: Labels) -> Labels:
    return Labels({k: v for k, v in labels.items() if k != NAMESPACE_NAME_LABEL})


def augment(analysis: Analysis, stand_ins: Sequence[StandIn], keep: Collection[str] | None = None) -> Reachability:
    """A second engine over the analysed cluster (placed, with addresses) plus the stand-ins, compiled from the
    same policies and options: real pods' verdicts are the first engine's; stand-ins can be asked about.
    `keep`: only these of the cluster's pods (a pair's verdict depends on the two pods alone)."""
    cluster = analysis.cluster
    namespaces = {ns.name: ns for ns in cluster.namespaces}
    pods = list(cluster.pods) if keep is None else [p for p in cluster.pods if p.key in keep]
    for s in stand_ins:
        if s.namespace not in namespaces:
            src = SourceRef(STAND_IN_FILE, 0, "Namespace", "", s.namespace)
            namespaces[s.namespace] = Namespace(s.namespace, s.namespace_labels, source=src)
        src = SourceRef(STAND_IN_FILE, 0, "Pod", s.namespace, s.key.split("/", 1)[1])
        pods.append(Pod(s.namespace, src.name, s.labels, phase="Running", order=len(pods), source=src))
    grown = replace(cluster, namespaces=tuple(sorted(namespaces.values(), key=lambda n: n.name)), pods=tuple(pods))
    return build_reachability(assign_ips(grown, analysis.cluster_cidr), analysis.options)
