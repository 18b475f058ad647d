"""NP030: egress-isolated pods need UDP and TCP 53 towards kube-dns (`k8s-app=kube-dns` in `kube-system`,
the label both kube-dns and CoreDNS deployments carry).

When the input has kube-dns pods (or `--assume-dns` adds them) the engine's egress tensor answers. When it
has none, as with one application's manifests, the egress rules are matched against a stand-in pod with
those labels, whose address lies in the cluster's pod range (`--cluster-cidr`, or the nodes' podCIDRs).
"""

from __future__ import annotations

from collections.abc import Sequence

import netaddr
import numpy as np

from netpol.audit._pods import fmt_pods, pods_by_namespace
from netpol.audit.rules import Finding, finding
from netpol.compile.ipspace import block_set
from netpol.compile.policies import CompiledPolicy
from netpol.engine import Endpoint
from netpol.ipam import DEFAULT_CLUSTER_CIDR
from netpol.model.labels import Labels
from netpol.model.objects import NAMESPACE_NAME_LABEL, NetworkPolicyPeer, NetworkPolicyRule, Pod
from netpol.pipeline import Analysis
from netpol.provenance import side_verdict

DNS_NAMESPACE = "kube-system"
DNS_LABELS = Labels({"k8s-app": "kube-dns"})
DNS_NAMESPACE_LABELS = Labels({NAMESPACE_NAME_LABEL: DNS_NAMESPACE})
DNS_PORT_NAMES = ("dns", "dns-tcp")  # CoreDNS' container port names


def is_dns_peer(peer: NetworkPolicyPeer, policy_ns: str) -> bool:
    """A peer written for kube-dns, whose pods manifests of applications rarely include: not a dead peer."""
    if peer.pod_selector is None or not peer.pod_selector.matches(DNS_LABELS):
        return False
    if peer.namespace_selector is None:
        return policy_ns == DNS_NAMESPACE
    return peer.namespace_selector.matches(DNS_NAMESPACE_LABELS)


def is_dns_pod(p: Pod) -> bool:
    return p.namespace == DNS_NAMESPACE and p.labels.get("k8s-app") == "kube-dns"


def dns_findings(
    analysis: Analysis,
    namespaces: Sequence[str],
    pod_cidr: str = DEFAULT_CLUSTER_CIDR,
    policies: Sequence[CompiledPolicy] | None = None,
) -> list[Finding]:
    """NP030 per namespace and per missing protocol. `policies`: the NetworkPolicies to judge (default all);
    the redundancy check asks what would be found without some of them."""
    r = analysis.reachability
    pols = r.policies if policies is None else policies
    pods_of = pods_by_namespace(r)
    dns_pods = [i for i in pods_of.get(DNS_NAMESPACE, []) if is_dns_pod(r.pods[i])]
    # A NetworkPolicy selects pods of its own namespace only: per namespace, its egress policies are the only
    # ones that can isolate (or let out) its pods. Reading just those keeps the check linear in policies.
    egress_of: dict[str, list[CompiledPolicy]] = {}
    for cp in pols:
        if cp.policy.affects_egress:
            egress_of.setdefault(cp.policy.namespace, []).append(cp)
    out = []
    lacks_of: dict[int, list[str]] = {}  # per class: the verdict depends on the source's class only
    for ns in namespaces:
        ns_pols = egress_of.get(ns, [])
        missing: dict[str, list[int]] = {}
        for i in pods_of.get(ns, []):
            p = r.pods[i]
            cls = r.pod_class(i)
            if p.host_network or is_dns_pod(p) or not _isolated_egress(analysis, cls, pols, ns_pols):
                continue
            lacks = lacks_of.get(cls)
            if lacks is None:
                lacks = [
                    x for x in ("UDP", "TCP") if not _dns_allowed(analysis, i, dns_pods, x, pod_cidr, pols, ns_pols)
                ]
                lacks_of[cls] = lacks
            if lacks:
                missing.setdefault(" and ".join(f"{x} 53" for x in lacks), []).append(i)
        for what, idx in sorted(missing.items()):
            classes = np.unique(np.asarray(r.universe.pod_class)[idx])
            isolating = sorted({cp.policy.key for cp in ns_pols if cp.selected[classes].any()})
            out.append(
                finding(
                    "NP030",
                    ns,
                    f"{fmt_pods(r, idx)}: egress isolated (by {', '.join(isolating)}) without {what} to kube-dns; "
                    "name resolution will fail",
                    tuple(f"Pod/{r.pods[i].key}" for i in idx) + tuple(f"NetworkPolicy/{k}" for k in isolating),
                    next((cp.policy.source for cp in pols if cp.policy.key == isolating[0]), None),
                    detail=what,
                    subject=f"Namespace/{ns}",
                )
            )
    return out


def _isolated_egress(
    analysis: Analysis, cls: int, pols: Sequence[CompiledPolicy], ns_pols: Sequence[CompiledPolicy]
) -> bool:
    """`ns_pols`: the egress policies of `pols` in the class's namespace."""
    r = analysis.reachability
    if pols is r.policies:
        return bool(r.isolated_egress[cls])
    return any(cp.selected[cls] for cp in ns_pols)


def _dns_allowed(
    analysis: Analysis,
    src: int,
    dns_pods: list[int],
    proto: str,
    pod_cidr: str,
    pols: Sequence[CompiledPolicy],
    ns_pols: Sequence[CompiledPolicy],
) -> bool:
    """Egress of `src` towards kube-dns on proto/53: the real pods when present, else the usual labels.
    `ns_pols`: the egress policies of `pols` in the source's namespace, the only ones that can select it."""
    r = analysis.reachability
    cls = r.pod_class(src)
    if dns_pods and pols is r.policies:
        w, bit = r.probe_bit(proto, 53)
        return any(  # the source's egress side towards each kube-dns pod, from the engine's one "why"
            int(side_verdict(r, "egress", Endpoint(pod=src), Endpoint(pod=d)).bits[w]) & int(bit) for d in dns_pods
        )
    if dns_pods:  # the same question on a subset of the policies: the stand-in answers with the pods' labels
        return any(_reaches(analysis, cp, cls, r.pods[d], proto, pod_cidr) for cp in ns_pols for d in dns_pods)
    virtual = Pod(DNS_NAMESPACE, "coredns", DNS_LABELS)
    return any(_reaches(analysis, cp, cls, virtual, proto, pod_cidr) for cp in ns_pols)


def _reaches(analysis: Analysis, cp: CompiledPolicy, cls: int, pod: Pod, proto: str, pod_cidr: str) -> bool:
    if not cp.selected[cls] or not cp.policy.affects_egress:
        return False
    return any(_rule_reaches(analysis, rule, cp.policy.namespace, pod, proto, pod_cidr) for rule in cp.policy.egress)


def _rule_reaches(
    analysis: Analysis, rule: NetworkPolicyRule, policy_ns: str, pod: Pod, proto: str, pod_cidr: str
) -> bool:
    port_ok = not rule.ports or any(
        p.protocol == proto
        and (
            p.port is None
            or (isinstance(p.port, int) and p.port <= 53 <= (p.end_port or p.port))
            or p.port in DNS_PORT_NAMES
        )
        for p in rule.ports
    )
    if not port_ok:
        return False
    if not rule.peers:
        return True
    ns_obj = analysis.cluster.namespace(pod.namespace)
    ns_labels = ns_obj.labels if ns_obj is not None else DNS_NAMESPACE_LABELS
    where = netaddr.IPSet(
        [pod.pod_ip] if pod.pod_ip else [n.pod_cidr for n in analysis.cluster.nodes if n.pod_cidr] or [pod_cidr]
    )
    for peer in rule.peers:
        if peer.ip_block is not None:
            if analysis.options.ipblock_matches_pods and where.issubset(block_set(peer.ip_block)):
                return True
            continue
        ns_ok = (
            peer.namespace_selector.matches(ns_labels)
            if peer.namespace_selector is not None
            else policy_ns == pod.namespace
        )
        if ns_ok and (peer.pod_selector is None or peer.pod_selector.matches(pod.labels)):
            return True
    return False
