"""Namespace checks (NP001–NP004, NP070) and the per-namespace isolation report.

A pod is isolated for a direction iff a policy of its namespace selects it with that policy type; a
"default deny" is a policy with an empty podSelector, that type, and no rules of it (networking/v1 reference).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import netaddr
import numpy as np

from netpol.audit._pods import fmt_pods, network_policies, network_policy, pods_by_namespace
from netpol.audit.cilium import cilium_default_deny, cilium_policies_in
from netpol.audit.cnp import cluster_default_denies
from netpol.audit.rules import Finding, finding
from netpol.engine import Reachability
from netpol.model.families import Family
from netpol.model.objects import NetworkPolicy
from netpol.model.vocab import Direction
from netpol.pipeline import Analysis
from netpol.ports import ConnectionSet


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
    reach_in_pods: dict[str, list[str]] = field(default_factory=dict)  # that source → the pods of this it reaches
    # skipped policies (Kind/ns/name) → the pods of this namespace they may apply to: those answers may be wrong
    not_evaluated: dict[str, list[str]] = field(default_factory=dict)

    @property
    def maybe_wrong(self) -> list[str]:
        """The pods of this namespace whose answers may be wrong (a skipped policy may apply to them)."""
        return sorted({p for pods in self.not_evaluated.values() for p in pods})

    def to_json(self) -> dict[str, object]:
        return {
            "namespace": self.name,
            "pods": self.pods,
            "policies": self.policies,
            "default_deny_ingress": self.default_deny_ingress,
            "default_deny_egress": self.default_deny_egress,
            "not_isolated_ingress": self.unprotected_ingress,
            "not_isolated_egress": self.unprotected_egress,
            "reachable_from": [
                {"from": f, "conn": cs.to_json(), "text": cs.render(), "to": self.reach_in_pods.get(f, [])}
                for f, cs in self.reach_in
            ],
            "not_evaluated": [{"policy": k, "pods": v} for k, v in self.not_evaluated.items()],
            "answers_may_be_wrong": self.maybe_wrong,
        }


def is_default_deny(pol: NetworkPolicy, direction: Direction) -> bool:
    if not pol.pod_selector.is_empty:
        return False
    if direction == "ingress":
        return pol.affects_ingress and not pol.ingress
    return pol.affects_egress and not pol.egress


def namespace_checks(analysis: Analysis, chosen: Sequence[str]) -> tuple[list[NamespaceReport], list[Finding]]:
    r = analysis.reachability
    cluster = analysis.cluster
    findings: list[Finding] = []
    reports: list[NamespaceReport] = []
    pods_of = pods_by_namespace(r)
    policies_of: dict[str, list[NetworkPolicy]] = {}
    for cp in network_policies(r):
        policies_of.setdefault(cp.namespace, []).append(network_policy(cp))
    reach_in = reach_in_all(r, chosen)
    # A cluster-wide default deny (an Admin/Baseline Deny from every namespace's pods) isolates too.
    cluster_denies = {d: cluster_default_denies(analysis, d) for d in ("ingress", "egress")}
    for ns in chosen:
        pod_idx = pods_of.get(ns, [])
        ns_pols = policies_of.get(ns, [])
        ns_obj = cluster.namespace(ns)
        ns_src = ns_obj.source if ns_obj is not None and not ns_obj.implicit else None
        selectable = [i for i in pod_idx if not r.pods[i].host_network]
        classes = r.pod_classes.pod_class[np.asarray(selectable, dtype=np.int64)]
        dd_in = [p.key for p in ns_pols if is_default_deny(p, "ingress")] + cilium_default_deny(cluster, ns, "ingress")
        dd_in += [key for key, mask in cluster_denies["ingress"] if selectable and mask[classes].all()]
        dd_eg = [p.key for p in ns_pols if is_default_deny(p, "egress")] + cilium_default_deny(cluster, ns, "egress")
        dd_eg += [key for key, mask in cluster_denies["egress"] if selectable and mask[classes].all()]
        denied_in = np.logical_or.reduce([r.isolated_ingress, *(m for _, m in cluster_denies["ingress"])])
        denied_eg = np.logical_or.reduce([r.isolated_egress, *(m for _, m in cluster_denies["egress"])])
        open_in = [i for i in selectable if not denied_in[r.pod_class(i)]]
        open_eg = [i for i in selectable if not denied_eg[r.pod_class(i)]]
        src = ns_src or (ns_pols[0].source if ns_pols else (r.pods[pod_idx[0]].source if pod_idx else None))
        here = (f"Namespace/{ns}",)
        if selectable and not dd_in:
            findings.append(
                finding(
                    "NP001",
                    ns,
                    f"namespace {ns} has no default-deny ingress policy",
                    here,
                    src,
                    fix=f"add a NetworkPolicy in {ns} with podSelector: {{}} and policyTypes: [Ingress] and no ingress rules",
                )
            )
        if selectable and not dd_eg:
            findings.append(
                finding(
                    "NP002",
                    ns,
                    f"namespace {ns} has no default-deny egress policy",
                    here,
                    src,
                    fix=f"add a NetworkPolicy in {ns} with podSelector: {{}}, policyTypes: [Egress] and rules for DNS",
                )
            )
        for rule, open_, direction in (("NP003", open_in, "ingress"), ("NP004", open_eg, "egress")):
            if open_:
                findings.append(
                    finding(
                        rule,
                        ns,
                        f"{len(open_)} pod(s) of {ns} are not isolated for {direction}: {fmt_pods(r, open_)}",
                        tuple(f"Pod/{r.pods[i].key}" for i in open_),
                        r.pods[open_[0]].source,
                        subject=f"Namespace/{ns}",
                    )
                )
        for i in pod_idx:
            p = r.pods[i]
            if p.host_network:
                findings.append(
                    finding(
                        "NP070",
                        ns,
                        f"{p.key} uses hostNetwork: it has its node's address and no NetworkPolicy applies to it",
                        (f"Pod/{p.key}",),
                        p.source,
                    )
                )
        reports.append(
            NamespaceReport(
                ns,
                len(pod_idx),
                sorted(p.key for p in ns_pols) + cilium_policies_in(cluster, ns),
                dd_in,
                dd_eg,
                [r.pods[i].key for i in open_in],
                [r.pods[i].key for i in open_eg],
                [(src, cs) for src, cs, _ in reach_in.get(ns, [])],
                {src: pods for src, _, pods in reach_in.get(ns, [])},
            )
        )
    return reports, findings


def reach_in_all(r: Reachability, namespaces: Sequence[str]) -> dict[str, list[tuple[str, ConnectionSet, list[str]]]]:
    """Per namespace of `namespaces`: per other namespace and per external range, the ports some pod there can open to
    some pod of it, and which of its pods. One OR-reduction per destination namespace over the class matrix, then
    per source namespace at once (`reduceat` over classes sorted by namespace). Linear in pods: only the source
    namespaces that reach it are visited, and its pods are read from each class's member list, never by a pass over
    every pod."""
    u = r.pod_classes
    words = r.ports.words
    by_ns = np.argsort(u.class_ns, kind="stable")
    ns_sorted = u.class_ns[by_ns]
    present = np.unique(ns_sorted)
    starts = np.searchsorted(ns_sorted, present)
    name_of = {j: name for name, j in u.ns_index.items()}
    by_name = np.array(sorted(range(len(present)), key=lambda k: name_of[int(present[k])]), dtype=np.intp)
    members = ClassMembers(r)
    out: dict[str, list[tuple[str, ConnectionSet, list[str]]]] = {}
    for ns in namespaces:
        i = u.ns_index.get(ns)
        if i is None:
            continue
        dst = np.flatnonzero(u.class_ns == i)
        if not dst.size:
            continue
        cells = r.class_block(range(r.C), dst).reshape(len(u.class_ns), len(dst), words)
        into = np.bitwise_or.reduce(cells, axis=1)
        per_ns = np.bitwise_or.reduceat(into[by_ns], starts, axis=0)  # (namespaces present, words)
        hit_ns = np.logical_or.reduceat(
            np.asarray(cells.any(axis=2))[by_ns], starts, axis=0
        )  # (namespaces present, dst)
        found: list[tuple[str, ConnectionSet, list[str]]] = []
        for k in by_name[per_ns[by_name].any(axis=1)].tolist():
            j = int(present[k])
            if j == i:
                continue
            found.append((name_of[j], r.ports.to_set(per_ns[k]), members.keys(dst[hit_ns[k]])))
        ext_cells = r.ext_ingress_block(range(r.A), dst).reshape(len(r.atoms), len(dst), words)
        ext = np.bitwise_or.reduce(ext_cells, axis=1)
        ext_hit = np.asarray(ext_cells.any(axis=2))
        for first, last in merged_runs(r, np.flatnonzero(ext.any(axis=1)).tolist(), ext, ext_hit):
            label = address_range(r.atoms[first].version, r.atoms[first].first, r.atoms[last].last)
            found.append((label, r.ports.to_set(ext[first]), members.keys(dst[ext_hit[first]])))
        out[ns] = found
    return out


def merged_runs(r: Reachability, hits: list[int], ports: np.ndarray, pods: np.ndarray) -> list[tuple[int, int]]:
    """(first atom, last atom) of each run of address-adjacent external atoms with the same verdict (the same
    ports into the same pods): a pod address or an ipBlock edge cuts the space into atoms, but a reader wants
    `10.0.0.0-10.0.0.255 : TCP 80`, not 256 lines (5,222 on npg-ipblockstest-4)."""
    runs: list[tuple[int, int]] = []
    for a in hits:
        if runs:
            first, last = runs[-1]
            prev, atom = r.atoms[last], r.atoms[a]
            if (
                a == last + 1
                and atom.version == prev.version
                and atom.first == prev.last + 1
                and np.array_equal(ports[a], ports[first])
                and np.array_equal(pods[a], pods[first])
            ):
                runs[-1] = (first, a)
                continue
        runs.append((a, a))
    return runs


def address_range(version: Family, first: int, last: int) -> str:
    """FIRST-LAST as every output prints a range, and a single address alone (not `a-a`)."""
    lo = netaddr.IPAddress(first, version)
    return str(lo) if first == last else f"{lo}-{netaddr.IPAddress(last, version)}"


class ClassMembers:
    """The pods of each class, found once: pods ordered by class, then by key (ranked once), and where each class
    starts; a union of classes is then a sort of small integers, not of strings. Sources often reach the same
    pods of a namespace: each distinct union is one list, shared (read only)."""

    def __init__(self, r: Reachability) -> None:
        keys = [p.key for p in r.pods]
        by_key = sorted(range(len(keys)), key=keys.__getitem__)
        self._sorted_keys = [keys[i] for i in by_key]
        rank = np.empty(len(keys), dtype=np.intp)
        rank[by_key] = np.arange(len(keys), dtype=np.intp)
        pod_class = np.asarray(r.pod_classes.pod_class, dtype=np.intp)
        order = np.lexsort((rank, pod_class))
        self._ranks = rank[order]
        self._bounds = np.searchsorted(pod_class[order], np.arange(r.pod_classes.class_count + 1))
        self._lists: dict[bytes, list[str]] = {}

    def keys(self, classes: np.ndarray) -> list[str]:
        """The keys of the pods of `classes` (ascending), sorted."""
        known = self._lists.get(classes.tobytes())
        if known is not None:
            return known
        lo, hi = self._bounds[classes], self._bounds[classes + 1]
        parts = [self._ranks[a:b] for a, b in zip(lo.tolist(), hi.tolist(), strict=True)]
        if not parts:
            return []
        ranks = parts[0] if len(parts) == 1 else np.sort(np.concatenate(parts))
        sorted_keys = self._sorted_keys
        found = self._lists[classes.tobytes()] = [sorted_keys[k] for k in ranks.tolist()]
        return found
