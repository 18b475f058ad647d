"""NP030: egress-isolated pods need UDP and TCP 53 towards kube-dns (`k8s-app=kube-dns` in `kube-system`,
the label both kube-dns and CoreDNS deployments carry).

When the input has kube-dns pods (or `--assume-dns` adds them) the engine's egress side answers. When it
has none, as with one application's manifests, the engine matches the egress rules against a stand-in pod
with those labels and CoreDNS' named ports, whose address lies in the cluster's pod range (`--cluster-cidr`, or
the nodes' podCIDRs): `DnsCheck.stand_in`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import cached_property

import numpy as np

from netpol.audit._pods import fmt_pods, pods_by_namespace
from netpol.audit.rules import Finding, finding
from netpol.cluster_dns import DNS_POD_NAME, with_cluster_dns
from netpol.engine import CompiledPolicy, Reachability, build_reachability, egress_rules_reaching
from netpol.ipam import DEFAULT_CLUSTER_CIDR, assign_ips
from netpol.model.labels import Labels
from netpol.model.objects import NAMESPACE_NAME_LABEL, NetworkPolicyPeer, Pod
from netpol.pipeline import Analysis

DNS_NAMESPACE = "kube-system"
DNS_LABELS = Labels({"k8s-app": "kube-dns"})
DNS_NAMESPACE_LABELS = Labels({NAMESPACE_NAME_LABEL: DNS_NAMESPACE})
STAND_IN = f"{DNS_NAMESPACE}/{DNS_POD_NAME}"


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
    the redundancy check asks what would be found without some of them (`DnsCheck` keeps what it can)."""
    return DnsCheck(analysis, pod_cidr).findings(namespaces, policies)


class DnsCheck:
    """NP030 over one analysis, asked many times (the redundancy check judges each candidate's removal).

    Per question the work is a few numpy operations over classes: the egress isolation of the policies
    kept, and per protocol which source classes may open it towards kube-dns. With kube-dns pods in the
    input, that is the engine's egress side towards their classes (the one "why"). Without them, whether a
    policy's egress rules reach the stand-in does not depend on the source, so it is judged once per policy
    and the classes it lets through are the OR of the selections of the policies that do."""

    def __init__(self, analysis: Analysis, pod_cidr: str = DEFAULT_CLUSTER_CIDR) -> None:
        self.analysis = analysis
        self.pod_cidr = pod_cidr
        r = analysis.reachability
        self.r = r
        self.dns_pods = [i for i, p in enumerate(r.pods) if is_dns_pod(p)]
        self.dns_classes = np.unique(r.pod_classes.pod_class[np.asarray(self.dns_pods, dtype=np.int64)])
        self.pods_of = pods_by_namespace(r)
        self.index = {id(cp): k for k, cp in enumerate(r.policies)}
        self.egress_policies = r.isolates_mask("egress")
        self.source = {cp.key: cp.ref for cp in reversed(r.policies)}  # the first of a key wins
        self._memo: dict[tuple[str, ...], list[Finding]] = {}
        self._stand_in: dict[str, np.ndarray] = {}  # protocol → bool over policies: its rules reach the stand-in

    @cached_property
    def stand_in(self) -> Reachability:
        """The input's namespaces, nodes and NetworkPolicies with one pod only: a CoreDNS stand-in (netpol's
        `--assume-dns` pod) with an address from the cluster's pod range; the engine matches the policies'
        egress rules against it (a handful of classes: cheap to compile)."""
        c = self.analysis.cluster
        lone = with_cluster_dns(replace(c, pods=(), workloads=(), admin_policies=()))
        return build_reachability(assign_ips(lone, self.pod_cidr), self.analysis.options)

    def findings(
        self,
        namespaces: Sequence[str],
        policies: Sequence[CompiledPolicy] | None = None,
        *,
        only: np.ndarray | None = None,
    ) -> list[Finding]:
        """`policies`, or `only` (bool over the engine's policies): judge those alone; neither: all of them."""
        if policies is not None:
            only = self._only(policies)
        if only is not None:
            return self._findings(namespaces, only)
        key = tuple(namespaces)  # with every policy: the redundancy check asks again for each candidate
        if key not in self._memo:
            self._memo[key] = self._findings(namespaces, None)
        return list(self._memo[key])

    def _findings(self, namespaces: Sequence[str], only: np.ndarray | None) -> list[Finding]:
        r = self.r
        isolated = r.isolated_egress if only is None else r.isolation("egress", only=only)
        checked = {
            ns: [
                i
                for i in self.pods_of.get(ns, [])
                if isolated[r.pod_classes.pod_class[i]] and not r.pods[i].host_network and not is_dns_pod(r.pods[i])
            ]
            for ns in namespaces
        }
        classes = np.unique(
            np.asarray([r.pod_classes.pod_class[i] for idx in checked.values() for i in idx], dtype=np.int64)
        )
        lacks = {proto: ~self._allowed(classes, proto, only) for proto in ("UDP", "TCP")}
        lacks_of = {
            int(c): [proto for proto in ("UDP", "TCP") if lacks[proto][k]] for k, c in enumerate(classes.tolist())
        }
        out = []
        for ns in namespaces:
            missing: dict[str, list[int]] = {}
            for i in checked[ns]:
                lack = lacks_of[int(r.pod_classes.pod_class[i])]
                if lack:
                    missing.setdefault(" and ".join(f"{x} 53" for x in lack), []).append(i)
            for what, idx in sorted(missing.items()):
                cls = np.unique(r.pod_classes.pod_class[np.asarray(idx, dtype=np.int64)])
                isolates = self.egress_policies & r.selection[:, cls].any(axis=1)
                if only is not None:
                    isolates &= only
                isolating = sorted({r.policies[k].key for k in np.flatnonzero(isolates).tolist()})
                out.append(
                    finding(
                        "NP030",
                        ns,
                        f"{fmt_pods(r, idx)}: egress isolated (by {', '.join(isolating)}) without {what} to "
                        "kube-dns; name resolution will fail",
                        tuple(f"Pod/{r.pods[i].key}" for i in idx) + tuple(f"NetworkPolicy/{k}" for k in isolating),
                        self.source[isolating[0]],
                        detail=what,
                        subject=f"Namespace/{ns}",
                    )
                )
        return out

    def _only(self, policies: Sequence[CompiledPolicy]) -> np.ndarray:
        only = np.zeros(len(self.r.policies), dtype=bool)
        only[[self.index[id(cp)] for cp in policies]] = True
        return only

    def _allowed(self, classes: np.ndarray, proto: str, only: np.ndarray | None) -> np.ndarray:
        """Bool over `classes` (egress-isolated ones): some rule kept lets proto/53 through towards kube-dns."""
        r = self.r
        if not classes.size:
            return np.zeros(0, dtype=bool)
        if self.dns_pods:
            dns = self.dns_classes
            allowed = np.zeros(len(classes), dtype=bool)
            for k in r.family_indexes:  # as Reachability.family_sides, on the one port
                block = r.side_block("egress", classes, dns, only=only, probe=(proto, 53), family=k)
                mask = r.family_mask(None, classes, dns) if k is None else None
                allowed |= (block & mask if mask is not None else block).any(axis=1)
            return allowed
        reaches = self._stand_in.get(proto)
        if reaches is None:
            held = egress_rules_reaching(self.stand_in, self.stand_in.pod_index[STAND_IN], proto, 53)
            reaches = np.array([cp.kind == "NetworkPolicy" and held.get(cp.key, False) for cp in r.policies])
            self._stand_in[proto] = reaches
        keep = reaches & self.egress_policies
        if only is not None:
            keep &= only
        if not keep.any():
            return np.zeros(len(classes), dtype=bool)
        return np.asarray(r.selection[keep][:, classes].any(axis=0))
