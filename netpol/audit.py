"""`netpol audit`: a namespace isolation report and a list of findings, each with an id, a severity, the
objects involved and a one-line fix. Pure: takes an Analysis, returns an AuditReport; the CLI renders it
(txt, json, md, SARIF 2.1.0) and picks the exit code.

Semantics follow the networking/v1 reference: a pod is isolated for a direction iff a policy of its
namespace selects it with that policy type; "default deny" is a policy with an empty podSelector, that
type, and no rules of it. DNS: with egress isolated, a pod needs UDP and TCP 53 towards kube-dns
(`k8s-app=kube-dns` in `kube-system`, the label both kube-dns and CoreDNS deployments carry).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import netaddr
import numpy as np
import yaml

from netpol.compile.ipspace import block_set
from netpol.compile.policies import CompiledPolicy, peer_mask
from netpol.engine import Endpoint, Reachability
from netpol.errors import SourceRef
from netpol.model.labels import Labels
from netpol.model.objects import NAMESPACE_NAME_LABEL, NetworkPolicy, NetworkPolicyPeer, NetworkPolicyRule, Pod
from netpol.pipeline import Analysis
from netpol.ports import ConnectionSet
from netpol.provenance import side_verdict

SEVERITIES = ("info", "low", "medium", "high")
FAIL_ON = ("low", "medium", "high")
FORMATS = ("txt", "json", "md", "sarif")
REDUNDANCY_MAX_PODS = 2000
REDUNDANCY_MAX_POLICIES = 500
DNS_NAMESPACE = "kube-system"
DNS_LABELS = Labels({"k8s-app": "kube-dns"})


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    name: str
    severity: str
    description: str


RULES: dict[str, Rule] = {
    r.id: r
    for r in (
        Rule("NP001", "no-default-deny-ingress", "medium", "namespace has no default-deny ingress policy"),
        Rule("NP002", "no-default-deny-egress", "low", "namespace has no default-deny egress policy"),
        Rule(
            "NP003", "pods-not-isolated-ingress", "medium", "pods no ingress policy selects: every source reaches them"
        ),
        Rule("NP004", "pods-not-isolated-egress", "low", "pods no egress policy selects: they reach everything"),
        Rule("NP010", "policy-selects-no-pod", "low", "policy whose podSelector matches no running pod"),
        Rule("NP011", "peer-matches-nothing", "low", "from/to peer whose selectors match no pod or namespace"),
        Rule("NP020", "rule-allows-all-peers", "high", "rule without from/to: every pod and every address"),
        Rule("NP021", "peer-all-namespaces", "medium", "peer with namespaceSelector {}: every namespace"),
        Rule("NP022", "peer-all-pods", "low", "peer with podSelector {} alone: every pod of the namespace"),
        Rule("NP023", "peer-world-cidr", "high", "ipBlock 0.0.0.0/0 or ::/0: every address"),
        Rule("NP024", "rule-all-ports", "low", "rule without ports: every port of every protocol"),
        Rule("NP030", "egress-without-dns", "medium", "egress isolated without UDP and TCP 53 to kube-dns"),
        Rule("NP040", "named-port-unresolved", "medium", "named port that no pod it applies to defines"),
        Rule("NP050", "ipblock-overlaps-cluster", "low", "ipBlock overlapping pod or node addresses (CNI-dependent)"),
        Rule("NP060", "redundant-policy", "low", "policy whose removal changes no connection"),
        Rule("NP070", "host-network-pod", "info", "hostNetwork pod: no NetworkPolicy applies to it in practice"),
    )
}


@dataclass(frozen=True)
class Finding:
    rule: str  # id, e.g. NP001
    severity: str
    namespace: str
    message: str
    objects: tuple[str, ...]
    fix: str
    source: SourceRef | None = None

    @property
    def name(self) -> str:
        return RULES[self.rule].name

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
        }


@dataclass
class NamespaceReport:
    name: str
    pods: int
    policies: list[str]
    default_deny_ingress: list[str]
    default_deny_egress: list[str]
    unprotected_ingress: list[str]
    unprotected_egress: list[str]
    reach_in: list[tuple[str, ConnectionSet]]  # (other namespace or external range, ports)

    def to_json(self) -> dict[str, object]:
        return {
            "namespace": self.name,
            "pods": self.pods,
            "policies": self.policies,
            "default_deny_ingress": self.default_deny_ingress,
            "default_deny_egress": self.default_deny_egress,
            "not_isolated_ingress": self.unprotected_ingress,
            "not_isolated_egress": self.unprotected_egress,
            "reachable_from": [{"from": f, "conn": cs.to_json(), "text": cs.render()} for f, cs in self.reach_in],
        }


@dataclass
class AuditReport:
    namespaces: list[NamespaceReport]
    findings: list[Finding]
    notes: list[str] = field(default_factory=list)

    def worst(self) -> str | None:
        ranks = [SEVERITIES.index(f.severity) for f in self.findings]
        return SEVERITIES[max(ranks)] if ranks else None

    def fails(self, threshold: str | None) -> bool:
        if threshold is None:
            return False
        t = SEVERITIES.index(threshold)
        return any(SEVERITIES.index(f.severity) >= t for f in self.findings)


# ------------------------------------------------------------------------------------------ helpers


def _is_default_deny(pol: NetworkPolicy, direction: str) -> bool:
    if not pol.pod_selector.is_empty:
        return False
    if direction == "ingress":
        return pol.affects_ingress and not pol.ingress
    return pol.affects_egress and not pol.egress


def _rules(pol: NetworkPolicy) -> Iterable[tuple[str, int, NetworkPolicyRule]]:
    if pol.affects_ingress:
        for i, r in enumerate(pol.ingress):
            yield "ingress", i, r
    if pol.affects_egress:
        for i, r in enumerate(pol.egress):
            yield "egress", i, r


def _label(pol: NetworkPolicy, direction: str, i: int) -> str:
    return f"{pol.key} {direction} rule #{i + 1}"


def _world(cidr: str) -> bool:
    return netaddr.IPNetwork(cidr).prefixlen == 0


def _pods_of_classes(r: Reachability, mask: np.ndarray) -> list[int]:
    return sorted(i for c in np.flatnonzero(mask) for i in r.universe.class_pods[int(c)])


def _fmt_pods(r: Reachability, idx: Sequence[int], limit: int = 8) -> str:
    names = [r.pods[i].key for i in idx]
    return ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(names) > limit else "")


# ------------------------------------------------------------------------------------------ the audit


def audit(
    analysis: Analysis,
    namespaces: Sequence[str] = (),
    *,
    redundancy: bool = True,
    max_pods: int = REDUNDANCY_MAX_PODS,
    max_policies: int = REDUNDANCY_MAX_POLICIES,
) -> AuditReport:
    """Every finding of issue 4 item 4 for the given namespaces (all when empty)."""
    r = analysis.reachability
    cluster = analysis.cluster
    addresses = cluster_addresses(analysis)
    chosen = list(namespaces) or sorted(ns.name for ns in cluster.namespaces)
    in_scope = set(chosen)
    findings: list[Finding] = []
    reports: list[NamespaceReport] = []
    notes: list[str] = []
    policies = [cp for cp in r.policies if cp.policy.namespace in in_scope]

    pods_of = _pods_by_namespace(r)
    policies_of: dict[str, list[NetworkPolicy]] = {}
    for cp in r.policies:
        policies_of.setdefault(cp.policy.namespace, []).append(cp.policy)
    reach_in = _reach_in_all(r, chosen)
    for ns in chosen:
        pod_idx = pods_of.get(ns, [])
        ns_pols = policies_of.get(ns, [])
        ns_obj = cluster.namespace(ns)
        ns_src = ns_obj.source if ns_obj is not None and not ns_obj.implicit else None
        dd_in = [p.key for p in ns_pols if _is_default_deny(p, "ingress")]
        dd_eg = [p.key for p in ns_pols if _is_default_deny(p, "egress")]
        selectable = [i for i in pod_idx if not r.pods[i].host_network]
        open_in = [i for i in selectable if not r.isolated_ingress[r.pod_class(i)]]
        open_eg = [i for i in selectable if not r.isolated_egress[r.pod_class(i)]]
        src = ns_src or (ns_pols[0].source if ns_pols else (r.pods[pod_idx[0]].source if pod_idx else None))
        if selectable and not dd_in:
            findings.append(
                Finding(
                    "NP001",
                    RULES["NP001"].severity,
                    ns,
                    f"namespace {ns} has no default-deny ingress policy",
                    (f"Namespace/{ns}",),
                    f"add a NetworkPolicy in {ns} with podSelector: {{}} and policyTypes: [Ingress] and no ingress rules",
                    src,
                )
            )
        if selectable and not dd_eg:
            findings.append(
                Finding(
                    "NP002",
                    RULES["NP002"].severity,
                    ns,
                    f"namespace {ns} has no default-deny egress policy",
                    (f"Namespace/{ns}",),
                    f"add a NetworkPolicy in {ns} with podSelector: {{}}, policyTypes: [Egress] and rules for DNS",
                    src,
                )
            )
        if open_in:
            findings.append(
                Finding(
                    "NP003",
                    RULES["NP003"].severity,
                    ns,
                    f"{len(open_in)} pod(s) of {ns} are not isolated for ingress: {_fmt_pods(r, open_in)}",
                    tuple(f"Pod/{r.pods[i].key}" for i in open_in),
                    "select them with an ingress policy (a default-deny with podSelector: {} covers all)",
                    r.pods[open_in[0]].source,
                )
            )
        if open_eg:
            findings.append(
                Finding(
                    "NP004",
                    RULES["NP004"].severity,
                    ns,
                    f"{len(open_eg)} pod(s) of {ns} are not isolated for egress: {_fmt_pods(r, open_eg)}",
                    tuple(f"Pod/{r.pods[i].key}" for i in open_eg),
                    "select them with an egress policy that allows only what they need (and DNS)",
                    r.pods[open_eg[0]].source,
                )
            )
        for i in pod_idx:
            p = r.pods[i]
            if p.host_network:
                findings.append(
                    Finding(
                        "NP070",
                        RULES["NP070"].severity,
                        ns,
                        f"{p.key} uses hostNetwork: it has its node's address and no NetworkPolicy applies to it",
                        (f"Pod/{p.key}",),
                        "drop hostNetwork unless required; restrict it with host firewall rules instead",
                        p.source,
                    )
                )
        reports.append(
            NamespaceReport(
                ns,
                len(pod_idx),
                sorted(p.key for p in ns_pols),
                dd_in,
                dd_eg,
                [r.pods[i].key for i in open_in],
                [r.pods[i].key for i in open_eg],
                reach_in.get(ns, []),
            )
        )

    for cp in policies:
        findings += _policy_findings(analysis, cp, addresses)
    findings += _dns_findings(analysis, chosen)
    if redundancy:
        extra, skipped = redundancy_findings(analysis, chosen, max_pods=max_pods, max_policies=max_policies)
        findings += extra
        notes += skipped
    order = {rid: k for k, rid in enumerate(RULES)}
    findings.sort(key=lambda f: (-SEVERITIES.index(f.severity), order[f.rule], f.namespace, f.objects, f.message))
    return AuditReport(reports, findings, notes)


def _pods_by_namespace(r: Reachability) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for i, p in enumerate(r.pods):
        out.setdefault(p.namespace, []).append(i)
    return out


def _reach_in_all(r: Reachability, namespaces: Sequence[str]) -> dict[str, list[tuple[str, ConnectionSet]]]:
    """Per namespace of `namespaces`: per other namespace and per external range, the ports some pod there can open to
    some pod of it. One OR-reduction per destination namespace over the class matrix, then per source
    namespace at once (`reduceat` over classes sorted by namespace)."""
    u = r.universe
    words = r.ports.words
    by_ns = np.argsort(u.class_ns, kind="stable")
    ns_sorted = u.class_ns[by_ns]
    present = np.unique(ns_sorted)
    starts = np.searchsorted(ns_sorted, present)
    name_of = {j: name for name, j in u.ns_index.items()}
    order = sorted(present.tolist(), key=lambda j: name_of[j])
    row_of = {j: k for k, j in enumerate(present.tolist())}
    out: dict[str, list[tuple[str, ConnectionSet]]] = {}
    for ns in namespaces:
        i = u.ns_index.get(ns)
        if i is None:
            continue
        dst = np.flatnonzero(u.class_ns == i)
        if not dst.size:
            continue
        into = np.bitwise_or.reduce(r.class_block(range(r.C), dst).reshape(len(u.class_ns), -1, words), axis=1)
        per_ns = np.bitwise_or.reduceat(into[by_ns], starts, axis=0)  # (namespaces present, words)
        found: list[tuple[str, ConnectionSet]] = []
        for j in order:
            if j == i:
                continue
            cs = r.ports.to_set(per_ns[row_of[j]])
            if not cs.is_empty:
                found.append((name_of[j], cs))
        ext = np.bitwise_or.reduce(r.ext_ingress_block(range(r.A), dst).reshape(len(r.atoms), -1, words), axis=1)
        for a, atom in enumerate(r.atoms):
            cs = r.ports.to_set(ext[a])
            if not cs.is_empty:
                found.append((atom.render(), cs))
        out[ns] = found
    return out


def _peer_findings(
    analysis: Analysis,
    pol: NetworkPolicy,
    label: str,
    direction: str,
    peer: NetworkPolicyPeer,
    addresses: netaddr.IPSet,
) -> list[Finding]:
    r = analysis.reachability
    out = []
    obj = (f"NetworkPolicy/{pol.key}",)
    if peer.ip_block is not None:
        if _world(peer.ip_block.cidr):
            sev = "high" if direction == "ingress" else "medium"
            out.append(
                Finding(
                    "NP023",
                    sev,
                    pol.namespace,
                    f"{label} allows ipBlock {peer.ip_block.render()}: every address",
                    obj,
                    "narrow the cidr to the addresses that need access",
                    pol.source,
                )
            )
        overlap = addresses & block_set(peer.ip_block)
        if overlap.size:
            out.append(
                Finding(
                    "NP050",
                    "low",
                    pol.namespace,
                    f"{label}: ipBlock {peer.ip_block.render()} overlaps pod or node addresses "
                    f"({', '.join(str(c) for c in overlap.iter_cidrs()[:3])}); whether it matches pod traffic depends on the CNI",
                    obj,
                    "select pods with podSelector/namespaceSelector; keep ipBlock for addresses outside the cluster "
                    "(add the pod and node ranges to except)",
                    pol.source,
                )
            )
        return out
    if peer.namespace_selector is not None and peer.namespace_selector.is_empty:
        out.append(
            Finding(
                "NP021",
                "medium",
                pol.namespace,
                f"{label} allows every namespace (namespaceSelector: {{}}"
                + (f", podSelector {peer.pod_selector.render()})" if peer.pod_selector is not None else ")"),
                obj,
                "select the namespaces that need access by label (e.g. kubernetes.io/metadata.name)",
                pol.source,
            )
        )
    elif peer.namespace_selector is None and peer.pod_selector is not None and peer.pod_selector.is_empty:
        out.append(
            Finding(
                "NP022",
                "low",
                pol.namespace,
                f"{label} allows every pod of namespace {pol.namespace} (podSelector: {{}})",
                obj,
                "select the pods that need access by label",
                pol.source,
            )
        )
    classes, _ = peer_mask(peer, pol.namespace, r.universe, ipblock_matches_pods=analysis.options.ipblock_matches_pods)
    if not classes.any() and not _is_dns_peer(peer, pol.namespace):
        why = "matches no pod"
        if peer.namespace_selector is not None:
            ns_hit = [ns.name for ns in r.universe.namespaces if peer.namespace_selector.matches(ns.labels)]
            if not ns_hit:
                why = "its namespaceSelector matches no namespace"
        out.append(
            Finding(
                "NP011",
                "low",
                pol.namespace,
                f"{label}: peer {peer.render()} {why}",
                obj,
                "fix the labels in the selector (or on the pods/namespaces), or remove the peer",
                pol.source,
            )
        )
    return out


def _policy_findings(analysis: Analysis, cp: CompiledPolicy, addresses: netaddr.IPSet) -> list[Finding]:
    r = analysis.reachability
    u = r.universe
    pol = cp.policy
    selected = cp.selected
    obj = (f"NetworkPolicy/{pol.key}",)
    out: list[Finding] = []
    if not selected.any():
        out.append(
            Finding(
                "NP010",
                "low",
                pol.namespace,
                f"policy {pol.key} selects no running pod (podSelector {pol.pod_selector.render()})",
                obj,
                "fix the podSelector labels, or delete the policy",
                pol.source,
            )
        )
    for direction, i, rule in _rules(pol):
        label = _label(pol, direction, i)
        if not rule.peers:
            sev = "high" if direction == "ingress" else "medium"
            out.append(
                Finding(
                    "NP020",
                    sev,
                    pol.namespace,
                    f"{label} has no {'from' if direction == 'ingress' else 'to'}: it allows every pod and every address"
                    + (f" on {', '.join(p.render() for p in rule.ports)}" if rule.ports else ""),
                    obj,
                    f"list the peers in {'from' if direction == 'ingress' else 'to'} (podSelector/namespaceSelector/ipBlock)",
                    pol.source,
                )
            )
        elif not rule.ports:
            out.append(
                Finding(
                    "NP024",
                    "low",
                    pol.namespace,
                    f"{label} allows every port of every protocol",
                    obj,
                    "add ports: the ones the peers need",
                    pol.source,
                )
            )
        for peer in rule.peers:
            out += _peer_findings(analysis, pol, label, direction, peer, addresses)
        for port in rule.ports:
            if not isinstance(port.port, str):
                continue
            if direction == "ingress":
                where = selected
            else:
                compiled = next(c for c in cp.egress if c.index == i)
                where = compiled.peer_classes
            resolves = any(
                u.classes[int(c)].resolve(port.port, port.protocol) is not None for c in np.flatnonzero(where)
            )
            if not resolves:
                whom = "no pod the policy selects" if direction == "ingress" else "no pod the rule's peers match"
                out.append(
                    Finding(
                        "NP040",
                        "medium",
                        pol.namespace,
                        f"{label}: named port {port.port}/{port.protocol} is defined by {whom}, so it matches nothing",
                        obj,
                        "use the containerPort's exact name and protocol, or a number",
                        pol.source,
                    )
                )
    return out


def cluster_addresses(analysis: Analysis) -> netaddr.IPSet:
    """Node pod CIDRs, node addresses and pod IPs: where an ipBlock's meaning depends on the CNI."""
    # One IPSet built from a list merges once; adding 10,000 addresses one by one re-compacts each time.
    found: list[netaddr.IPNetwork | netaddr.IPAddress] = []
    for n in analysis.cluster.nodes:
        if n.pod_cidr:
            found.append(netaddr.IPNetwork(n.pod_cidr))
        for a in n.addresses:
            if a.type in ("InternalIP", "ExternalIP"):
                try:
                    found.append(netaddr.IPAddress(a.address))
                except (netaddr.AddrFormatError, ValueError):
                    pass
    found += [netaddr.IPAddress(p.pod_ip) for p in analysis.reachability.pods if p.pod_ip]
    return netaddr.IPSet(found)


# ------------------------------------------------------------------------------------------ DNS


def _is_dns_peer(peer: NetworkPolicyPeer, policy_ns: str) -> bool:
    """A peer written for kube-dns, whose pods manifests of applications rarely include: not a dead peer."""
    if peer.pod_selector is None or not peer.pod_selector.matches(DNS_LABELS):
        return False
    ns_labels = Labels({NAMESPACE_NAME_LABEL: DNS_NAMESPACE})
    if peer.namespace_selector is None:
        return policy_ns == DNS_NAMESPACE
    return peer.namespace_selector.matches(ns_labels)


def _dns_findings(analysis: Analysis, namespaces: Sequence[str]) -> list[Finding]:
    r = analysis.reachability
    dns_pods = [
        i for i, p in enumerate(r.pods) if p.namespace == DNS_NAMESPACE and p.labels.get("k8s-app") == "kube-dns"
    ]
    out = []
    pods_of = _pods_by_namespace(r)
    lacks_of: dict[int, list[str]] = {}  # per class: the verdict depends on the source's class only
    for ns in namespaces:
        missing: dict[str, list[int]] = {}
        for i in pods_of.get(ns, []):
            p = r.pods[i]
            if p.host_network or not r.isolated_egress[r.pod_class(i)]:
                continue
            if ns == DNS_NAMESPACE and p.labels.get("k8s-app") == "kube-dns":
                continue
            cls = r.pod_class(i)
            lacks = lacks_of.get(cls)
            if lacks is None:
                lacks = [proto for proto in ("UDP", "TCP") if not _dns_allowed(analysis, i, dns_pods, proto)]
                lacks_of[cls] = lacks
            if lacks:
                missing.setdefault(" and ".join(f"{x} 53" for x in lacks), []).append(i)
        for what, idx in sorted(missing.items()):
            pols = sorted(
                {
                    cp.policy.key
                    for cp in r.policies
                    for i in idx
                    if cp.selected[r.pod_class(i)] and cp.policy.affects_egress
                }
            )
            out.append(
                Finding(
                    "NP030",
                    "medium",
                    ns,
                    f"{_fmt_pods(r, idx)}: egress isolated (by {', '.join(pols)}) without {what} to kube-dns; "
                    "name resolution will fail",
                    tuple(f"Pod/{r.pods[i].key}" for i in idx) + tuple(f"NetworkPolicy/{k}" for k in pols),
                    "add an egress rule to namespaceSelector kubernetes.io/metadata.name=kube-system, podSelector "
                    "k8s-app=kube-dns, ports UDP 53 and TCP 53",
                    next((cp.policy.source for cp in r.policies if cp.policy.key == pols[0]), None) if pols else None,
                )
            )
    return out


def _dns_allowed(analysis: Analysis, src: int, dns_pods: list[int], proto: str) -> bool:
    """Egress of `src` towards kube-dns on proto/53: the real pods when present, else the usual labels."""
    r = analysis.reachability
    if dns_pods:
        w, bit = r.probe_bit(proto, 53)
        cls = r.pod_class(src)
        return any(
            int(side_verdict(r, "egress", Endpoint(pod=src), Endpoint(pod=d)).bits[w]) & int(bit) for d in dns_pods
        )
    ns_labels = Labels({NAMESPACE_NAME_LABEL: DNS_NAMESPACE})
    virtual = Pod(DNS_NAMESPACE, "coredns", DNS_LABELS)
    cls = r.pod_class(src)
    for cp in r.policies:
        if not cp.selected[cls] or not cp.policy.affects_egress:
            continue
        for rule in cp.policy.egress:
            if _rule_reaches_virtual(analysis, rule, cp.policy.namespace, virtual, ns_labels, proto):
                return True
    return False


def _rule_reaches_virtual(
    analysis: Analysis, rule: NetworkPolicyRule, policy_ns: str, pod: Pod, ns_labels: Labels, proto: str
) -> bool:
    port_ok = not rule.ports or any(
        p.protocol == proto
        and (
            p.port is None
            or (isinstance(p.port, int) and p.port <= 53 <= (p.end_port or p.port))
            or p.port in ("dns", "dns-tcp")  # CoreDNS' container port names
        )
        for p in rule.ports
    )
    if not port_ok:
        return False
    if not rule.peers:
        return True
    pod_cidrs = [n.pod_cidr for n in analysis.cluster.nodes if n.pod_cidr] or ["10.244.0.0/16"]
    for peer in rule.peers:
        if peer.ip_block is not None:
            if netaddr.IPSet(pod_cidrs).issubset(block_set(peer.ip_block)) and analysis.options.ipblock_matches_pods:
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


# ------------------------------------------------------------------------------------------ redundancy


def redundancy_findings(
    analysis: Analysis,
    namespaces: Sequence[str] = (),
    *,
    max_pods: int = REDUNDANCY_MAX_PODS,
    max_policies: int = REDUNDANCY_MAX_POLICIES,
) -> tuple[list[Finding], list[str]]:
    """(NP060 findings, notes). Apart from `audit(redundancy=False)` because it recomputes reachability
    per policy: the UI shows the other findings first.

    Without admin tiers each check recomputes only what the policy selects (0.4 s for 2,000 policies at
    10,000 pods). AdminNetworkPolicies layer over whole tensors, so with them every check recomputes
    everything, and the limits apply."""
    r = analysis.reachability
    if r.admin_rules and (len(r.pods) > max_pods or len(r.policies) > max_policies):
        return [], [
            f"redundant-policy check (NP060) skipped: {len(r.pods)} pods and {len(r.policies)} policies exceed "
            f"its limits with AdminNetworkPolicies ({max_pods} pods, {max_policies} policies); it recomputes "
            "the whole matrix per policy"
        ]
    in_scope = set(namespaces) or {ns.name for ns in analysis.cluster.namespaces}
    return _redundant(analysis, [cp.policy for cp in r.policies if cp.policy.namespace in in_scope]), []


def _redundant(analysis: Analysis, candidates: Sequence[NetworkPolicy]) -> list[Finding]:
    r = analysis.reachability
    out = []
    for pol in candidates:
        if not r.changes_without(pol):
            out.append(
                Finding(
                    "NP060",
                    "low",
                    pol.namespace,
                    f"policy {pol.key} is redundant: removing it changes no connection",
                    (f"NetworkPolicy/{pol.key}",),
                    "delete it, or fix it if it was meant to allow or isolate something",
                    pol.source,
                )
            )
    return out


# ------------------------------------------------------------------------------------------ rendering


def render(report: AuditReport, fmt: str) -> str:
    match fmt:
        case "json":
            return (
                json.dumps(
                    {
                        "namespaces": [n.to_json() for n in report.namespaces],
                        "findings": [f.to_json() for f in report.findings],
                        "notes": report.notes,
                    },
                    indent=2,
                )
                + "\n"
            )
        case "md":
            return _md(report)
        case "sarif":
            return json.dumps(sarif(report), indent=2) + "\n"
        case _:
            return _txt(report)


def _txt(report: AuditReport) -> str:
    out = []
    for n in report.namespaces:
        out.append(f"namespace {n.name}: {n.pods} pod(s), {len(n.policies)} policy(ies)")
        out.append(f"  default-deny ingress: {', '.join(n.default_deny_ingress) or 'no'}")
        out.append(f"  default-deny egress:  {', '.join(n.default_deny_egress) or 'no'}")
        out.append(f"  not isolated for ingress: {', '.join(n.unprotected_ingress) or '-'}")
        out.append(f"  not isolated for egress:  {', '.join(n.unprotected_egress) or '-'}")
        if n.reach_in:
            out.append("  reachable from:")
            out += [f"    {src} : {cs.render()}" for src, cs in n.reach_in]
        else:
            out.append("  reachable from: no other namespace, no external address")
    out.append("")
    if report.findings:
        out.append(f"{len(report.findings)} finding(s):")
        for f in report.findings:
            out.append(f"[{f.severity.upper()}] {f.rule} {f.name}: {f.message}")
            out.append(f"    fix: {f.fix}")
    else:
        out.append("no findings")
    out += [f"note: {x}" for x in report.notes]
    return "\n".join(out) + "\n"


def _md(report: AuditReport) -> str:
    out = [
        "## Namespaces",
        "",
        "| namespace | pods | default-deny ingress | default-deny egress | not isolated (ingress) | not isolated (egress) | reachable from |",
        "|---|---|---|---|---|---|---|",
    ]
    for n in report.namespaces:
        reach = "<br>".join(f"{s}: {cs.render()}" for s, cs in n.reach_in) or "-"
        out.append(
            f"| {n.name} | {n.pods} | {', '.join(n.default_deny_ingress) or 'no'} | {', '.join(n.default_deny_egress) or 'no'} "
            f"| {', '.join(n.unprotected_ingress) or '-'} | {', '.join(n.unprotected_egress) or '-'} | {reach} |"
        )
    out += ["", "## Findings", "", "| severity | id | finding | fix |", "|---|---|---|---|"]
    out += [f"| {f.severity} | {f.rule} {f.name} | {f.message} | {f.fix} |" for f in report.findings]
    if not report.findings:
        out.append("| - | - | no findings | - |")
    out += [f"\n> {x}" for x in report.notes]
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------------------------------ SARIF 2.1.0

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {"high": "error", "medium": "warning", "low": "note", "info": "note"}
_SECURITY = {"high": "8.0", "medium": "5.0", "low": "2.0", "info": "0.0"}


def _uri(path: str) -> str:
    p = Path(path)
    try:
        p = p.resolve().relative_to(Path.cwd().resolve())
    except (ValueError, OSError):
        pass
    return p.as_posix()


_LINE_CACHE: dict[str, list[tuple[int, int]]] = {}


def _document_lines(file: str) -> list[tuple[int, int]]:
    """(first line, last line), 1-based, of every YAML document of a file (indexes as the loader counts)."""
    hit = _LINE_CACHE.get(file)
    if hit is not None:
        return hit
    spans: list[tuple[int, int]] = []
    try:
        text = Path(file).read_text(encoding="utf-8")
        for node in yaml.compose_all(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
            if node is None:
                spans.append((1, 1))
            else:
                spans.append((node.start_mark.line + 1, node.end_mark.line + 1))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        spans = []
    _LINE_CACHE[file] = spans
    return spans


def _region(src: SourceRef) -> dict[str, int]:
    spans = _document_lines(src.file)
    if src.document >= len(spans):
        return {"startLine": 1}
    first, last = spans[src.document]
    if src.name:
        pattern = re.compile(rf"(^|[\s{{,])name:\s*['\"]?{re.escape(src.name)}['\"]?\s*([,}}]|$)")
        try:
            lines = Path(src.file).read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            lines = []
        for n in range(first - 1, min(last, len(lines))):
            if pattern.search(lines[n]):
                return {"startLine": n + 1}
    return {"startLine": first}


def sarif(report: AuditReport, tool_version: str | None = None) -> dict[str, object]:
    from netpol import __version__

    rules = [
        {
            "id": r.id,
            "name": r.name,
            "shortDescription": {"text": r.description},
            "defaultConfiguration": {"level": _LEVEL[r.severity]},
            "properties": {"security-severity": _SECURITY[r.severity], "tags": ["security", "kubernetes"]},
        }
        for r in RULES.values()
    ]
    index = {r.id: i for i, r in enumerate(RULES.values())}
    results = []
    for f in report.findings:
        loc: dict[str, object] = {
            "logicalLocations": [{"name": o, "kind": "resource"} for o in f.objects[:10]],
        }
        if f.source is not None and f.source.file and not f.source.file.startswith("<"):
            loc["physicalLocation"] = {
                "artifactLocation": {"uri": _uri(f.source.file)},
                "region": _region(f.source),
            }
        results.append(
            {
                "ruleId": f.rule,
                "ruleIndex": index[f.rule],
                "level": _LEVEL[f.severity],
                "message": {"text": f"{f.message}. Fix: {f.fix}"},
                "locations": [loc],
                "properties": {"severity": f.severity, "namespace": f.namespace, "objects": list(f.objects)},
            }
        )
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "netpol",
                        "fullName": "kube-reach netpol audit",
                        "version": tool_version or __version__,
                        "rules": rules,
                    }
                },
                "results": results,
            }
        ],
    }
