"""Findings specific to Cilium's policies (CIL001–CIL005), and NP080 for policies nothing evaluates.

Each check reads the model as the compiler does (netpol/engine/compile/cilium.py) and says, in the policy's
own words, what Cilium's semantics make risky or what a static input cannot know:
- CIL001 a rule with toPorts and no peer field: every peer, the world included, on those ports (layer4.rst);
- CIL002 fromEntities/toEntities `world` or `all`, or a CIDR of length 0: every address outside the cluster;
- CIL003 a peer netpol cannot place (toFQDNs, some entities, CIDR groups, cloud groups, Services without a
  selector): answers may miss what it allows or denies;
- CIL004 a port allowed only through a layer-7 filter: requests the filter refuses are not modelled;
- CIL005 `io.cilium.k8s.namespace.labels` in a CiliumNetworkPolicy's peer: kubernetes.rst says it is
  ignored there (only the policy's own namespace can match).
NP080 lists, in every artifact, the policies read but not evaluated (other engines' kinds, host policies).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import netaddr

from netpol.audit.rules import Finding, finding
from netpol.model.cilium import (
    NAMESPACE_LABELS_PREFIX,
    CIDRGroupPeer,
    CIDRPeer,
    CiliumPeer,
    CiliumPolicy,
    CiliumRule,
    EndpointsPeer,
    EntityPeer,
    FQDNPeer,
    GroupsPeer,
    NodesPeer,
    ServicePeer,
    label_source,
    service_matches,
)
from netpol.model.cluster import Cluster
from netpol.model.labels import LabelSelector
from netpol.model.services import Service
from netpol.model.vocab import Direction
from netpol.pipeline import Analysis

UNPLACEABLE_ENTITIES = frozenset({"kube-apiserver", "health", "init", "ingress", "unmanaged"})
# Other engines' kinds are NP080 through Cluster.unevaluated (netpol/audit/unevaluated.py, with the pods they may
# apply to); a Cilium host policy is read (and so not in that list) but not evaluated: named here.
NOT_EVALUATED = frozenset({"cilium-host-policy"})


def subject(pol: CiliumPolicy) -> str:
    return f"{pol.kind}/{pol.namespace + '/' if pol.namespace else ''}{pol.name}"


def in_scope(pol: CiliumPolicy, namespaces: set[str]) -> bool:
    """A namespaced policy when its namespace is audited; a clusterwide one always (it applies everywhere)."""
    return pol.clusterwide or pol.namespace in namespaces


def cilium_findings(analysis: Analysis, namespaces: Sequence[str]) -> list[Finding]:
    chosen = set(namespaces)
    out: list[Finding] = []
    services = analysis.cluster.services
    for pol in analysis.cluster.cilium_policies:
        if not in_scope(pol, chosen):
            continue
        for spec in pol.specs:
            if spec.host_policy:
                continue  # NP080 names it
            for rule in (*spec.ingress, *spec.ingress_deny, *spec.egress, *spec.egress_deny):
                label = f"{pol.spec_key(spec)} {rule.label}"
                out += _rule_findings(pol, rule, label, services)
    return out


def _rule_findings(pol: CiliumPolicy, rule: CiliumRule, label: str, services: Iterable[Service]) -> list[Finding]:
    out: list[Finding] = []
    obj = (subject(pol),)
    ns = pol.namespace
    side = "from" if rule.direction == "ingress" else "to"
    ports = ", ".join(pr.render() for pr in rule.to_ports or ())
    verb = "denies" if rule.deny else "allows"
    if not rule.peers and rule.to_ports and not rule.deny:
        out.append(
            finding(
                "CIL001",
                ns,
                f"{label} has toPorts and no {side} peer: it {verb} every endpoint and every address on {ports}",
                obj,
                pol.source,
                direction=rule.direction,
                detail=f"{rule.label} ports [{ports}]",
            )
        )
    for peer in rule.peers:
        where = f"{rule.label} {_peer_words(peer)}"
        if not rule.deny and _is_world(peer):
            out.append(
                finding(
                    "CIL002",
                    ns,
                    f"{label} {verb} {side} {_peer_words(peer)}: every address outside the cluster",
                    obj,
                    pol.source,
                    direction=rule.direction,
                    detail=where,
                )
            )
        why = _unplaceable(peer, services)
        if why:
            out.append(
                finding(
                    "CIL003",
                    ns,
                    f"{label} {verb} {side} {_peer_words(peer)}, which netpol cannot place: {why}",
                    obj,
                    pol.source,
                    detail=where,
                )
            )
        if (
            isinstance(peer, EndpointsPeer)
            and not pol.clusterwide
            and any(label_source(k)[1].startswith(NAMESPACE_LABELS_PREFIX) for k in _keys(peer.selector))
        ):
            out.append(
                finding(
                    "CIL005",
                    ns,
                    f"{label}: {side}Endpoints {peer.selector.render()} reads namespace labels, which a "
                    f"CiliumNetworkPolicy ignores: only namespace {ns} can match",
                    obj,
                    pol.source,
                    detail=where,
                )
            )
    for pr in rule.to_ports or ():
        if pr.l7 is not None and not rule.deny:
            out.append(
                finding(
                    "CIL004",
                    ns,
                    f"{label} allows {pr.render()} only through the filter {pr.l7.render()}: the connection is "
                    "shown allowed with the filter; which requests pass is not modelled",
                    obj,
                    pol.source,
                    detail=f"{rule.label} {pr.render()} {pr.l7.render()}",
                )
            )
    return out


def _keys(sel: LabelSelector) -> list[str]:
    return [*sel.match_labels.keys(), *(r.key for r in sel.match_expressions)]


def _is_world(peer: CiliumPeer) -> bool:
    if isinstance(peer, EntityPeer):
        return peer.entity in ("world", "all")
    if isinstance(peer, CIDRPeer):
        return netaddr.IPNetwork(peer.cidr).prefixlen == 0
    return False


def _unplaceable(peer: CiliumPeer, services: Iterable[Service]) -> str:
    match peer:
        case FQDNPeer():
            return "DNS names resolve at run time"
        case EntityPeer(entity=entity) if entity in UNPLACEABLE_ENTITIES:
            return f"the {entity} entity is not a pod or an address of the input"
        case CIDRGroupPeer():
            return "its CIDRs live in CiliumCIDRGroup objects, which are not read"
        case GroupsPeer(provider=provider):
            return f"{provider} security groups are resolved from the cloud"
        case ServicePeer():
            hits = [s for s in services if service_matches(peer, s)]
            if any(s.selector is None for s in hits):
                return "a Service without a selector: its addresses come from EndpointSlices, which are not read"
            return ""
        case EndpointsPeer() | CIDRPeer() | EntityPeer() | NodesPeer():
            return ""


def _peer_words(peer: CiliumPeer) -> str:
    match peer:
        case EndpointsPeer(selector=sel):
            return f"endpoints {sel.render()}"
        case CIDRPeer():
            return f"CIDR {peer.render()}"
        case CIDRGroupPeer(ref=ref, selector=sel):
            return f"cidrGroupRef {ref}" if ref else f"cidrGroupSelector {sel.render() if sel else ''}"
        case EntityPeer(entity=entity):
            return f"entity {entity}"
        case ServicePeer(name=name, namespace=namespace, selector=sel):
            if sel is not None:
                return f"k8sServiceSelector {sel.render()}"
            return f"k8sService {namespace + '/' if namespace else ''}{name}"
        case FQDNPeer():
            return f"FQDN {peer.render()}"
        case NodesPeer(selector=sel):
            return f"nodes {sel.render()}"
        case GroupsPeer(provider=provider):
            return f"{provider} groups"


def not_evaluated_findings(cluster: Cluster, namespaces: Sequence[str]) -> list[Finding]:
    """NP080: every object read but not evaluated, so no artifact is silent about it (issue 22, item 6)."""
    chosen = set(namespaces)
    out = []
    for w in cluster.warnings:
        if w.code not in NOT_EVALUATED or w.source is None:
            continue
        src = w.source
        if src.namespace and src.namespace not in chosen:
            continue
        name = f"{src.namespace}/{src.name}" if src.namespace else src.name
        out.append(
            finding(
                "NP080",
                src.namespace,
                f"{src.kind} {name}: {w.message}",
                (f"{src.kind}/{name}",),
                src,
                detail=w.message,
            )
        )
    return out


def cilium_policies_in(cluster: Cluster, namespace: str) -> list[str]:
    """The CiliumNetworkPolicies of a namespace (for the namespace report's policy list)."""
    return sorted(p.key for p in cluster.cilium_policies if p.namespace == namespace)


def cilium_default_deny(cluster: Cluster, namespace: str, direction: Direction) -> list[str]:
    """Cilium's namespace-wide default deny for `direction` (what NP001/NP002 look for): a spec of a
    CiliumNetworkPolicy of the namespace, or of a clusterwide policy, whose endpointSelector is `{}`, that puts
    its endpoints in default deny for the direction and allows nothing in it (`ingress: [{}]`, or deny rules
    only; intro.rst "Endpoint default policy")."""
    out = []
    for pol in cluster.cilium_policies:
        if pol.namespace not in ("", namespace):
            continue
        for spec in pol.specs:
            sel = spec.endpoint_selector
            if sel is None or not sel.is_empty or not spec.default_deny(direction):
                continue
            if all(not r.peers and r.to_ports is None and not r.icmps for r in spec.rules(direction, deny=False)):
                out.append(pol.spec_key(spec))
    return out
