"""framework.Snapshot/NodeInfo for every node at once: one numpy slot per node (nodes sorted by name) and
incremental indexes of bound pods, so a scheduling decision never rescans every pod."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from netpol.model.labels import Labels, NodeSelectorRequirement, NodeSelectorTerm
from netpol.model.objects import NAMESPACE_NAME_LABEL, Namespace, Node, Pod, Taint
from scheduling.podinfo import AffinityTerm, PodInfo, TermQuery

DEFAULT_MAX_PODS = 110  # kubelet --max-pods default, used when a node declares no `pods` allocatable
INT64_MAX = 2**63 - 1
UNLIMITED = np.int64(2**62)  # allocatable of a resource the node does not declare (hand-written nodes)
LABEL_HOSTNAME = "kubernetes.io/hostname"
LABEL_ZONE = "topology.kubernetes.io/zone"
TAINT_UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
TAINT_NOT_READY = "node.kubernetes.io/not-ready"
TAINT_UNREACHABLE = "node.kubernetes.io/unreachable"
CORE_RESOURCES = ("cpu", "memory", "ephemeral-storage")


def untolerated_taint(taints: Iterable[Taint], tolerations: Iterable, effects: tuple[str, ...]) -> Taint | None:
    """v1helper.FindMatchingUntoleratedTaint: the first taint (node order) with one of `effects` no toleration tolerates."""
    tols = tuple(tolerations)
    for t in taints:
        if t.effect in effects and not any(tol.tolerates(t) for tol in tols):
            return t
    return None


@dataclass(slots=True)
class Topology:
    """Per topology key: each node's domain id (-1 when the node lacks the label) and the domain values."""

    ids: np.ndarray
    values: tuple[str, ...]

    @property
    def has(self) -> np.ndarray:
        return self.ids >= 0


class PodIndex:
    """Incremental per-node counts of bound pods matching a query (a conjunction of TermQuery).

    A query's counts are built once, on first use, from the bound pods; afterwards every bind/unbind
    updates every registered query. `carried` counts pods *carrying* an affinity term (for existing pods'
    anti-affinity symmetry and scoring), keyed by (kind, term, weight).
    """

    def __init__(self, n: int, ns_labels: Mapping[str, Mapping[str, str]]) -> None:
        self.n = n
        self.ns_labels = ns_labels
        self.bound: dict[str, tuple[PodInfo, int]] = {}
        self.counts: dict[tuple[TermQuery, ...], np.ndarray] = {}
        self.carried: dict[tuple[str, AffinityTerm, int], np.ndarray] = {}
        self.with_required_anti = 0

    def namespace_labels(self, ns: str) -> Mapping[str, str]:
        return self.ns_labels.get(ns) or {NAMESPACE_NAME_LABEL: ns}

    def matches(self, query: tuple[TermQuery, ...], pod: Pod) -> bool:
        labels = self.namespace_labels(pod.namespace)
        return all(q.matches(pod, labels) for q in query)

    def count(self, query: tuple[TermQuery, ...]) -> np.ndarray:
        arr = self.counts.get(query)
        if arr is None:
            arr = np.zeros(self.n, dtype=np.int64)
            for info, i in self.bound.values():
                if self.matches(query, info.pod):
                    arr[i] += 1
            self.counts[query] = arr
        return arr

    def _carry(self, info: PodInfo, i: int, delta: int) -> None:
        items = [("req_aff", t, 1) for t in info.required_affinity]
        items += [("req_anti", t, 1) for t in info.required_anti_affinity]
        items += [("pref_aff", w.term, w.weight) for w in info.preferred_affinity]
        items += [("pref_anti", w.term, w.weight) for w in info.preferred_anti_affinity]
        for key in items:
            arr = self.carried.get(key)
            if arr is None:
                arr = self.carried[key] = np.zeros(self.n, dtype=np.int64)
            arr[i] += delta
        if info.required_anti_affinity:
            self.with_required_anti += delta

    def add(self, info: PodInfo, i: int) -> None:
        self.bound[info.key] = (info, i)
        for query, arr in self.counts.items():
            if self.matches(query, info.pod):
                arr[i] += 1
        if info.has_affinity_terms:
            self._carry(info, i, 1)

    def remove(self, key: str) -> None:
        info, i = self.bound.pop(key)
        for query, arr in self.counts.items():
            if self.matches(query, info.pod):
                arr[i] -= 1
        if info.has_affinity_terms:
            self._carry(info, i, -1)


class Snapshot:
    """framework.Snapshot/NodeInfo for every node, as arrays; mutated only by `bind` and `unbind`."""

    def __init__(self, nodes: Iterable[Node], namespaces: Iterable[Namespace] = ()) -> None:
        self.nodes: tuple[Node, ...] = tuple(sorted(nodes, key=lambda n: n.name))
        self.names: tuple[str, ...] = tuple(n.name for n in self.nodes)
        self.index: dict[str, int] = {name: i for i, name in enumerate(self.names)}
        self.n = len(self.nodes)
        self.names_arr = np.array(self.names, dtype=object)
        n = self.n
        self.unschedulable = np.array([nd.unschedulable for nd in self.nodes], dtype=bool)
        self.alloc: dict[str, np.ndarray] = {}
        resources = {r for nd in self.nodes for r in nd.allocatable} | set(CORE_RESOURCES)
        for r in sorted(resources):
            if r == "pods":
                continue
            # An undeclared cpu/memory/ephemeral-storage (hand-written Node without status) is not limited;
            # an undeclared extended resource is absent (0), as on a real node.
            default = UNLIMITED if r in CORE_RESOURCES else 0
            self.alloc[r] = np.array([nd.allocatable.get(r, default) for nd in self.nodes], dtype=np.int64)
        self.max_pods = np.array([nd.allocatable.get("pods", DEFAULT_MAX_PODS) for nd in self.nodes], dtype=np.int64)
        self.requested: dict[str, np.ndarray] = {r: np.zeros(n, dtype=np.int64) for r in CORE_RESOURCES}
        self.non_zero_cpu = np.zeros(n, dtype=np.int64)
        self.non_zero_memory = np.zeros(n, dtype=np.int64)
        self.pod_count = np.zeros(n, dtype=np.int64)
        self.pods_on: list[dict[str, PodInfo]] = [{} for _ in range(n)]
        # Preemption's bookkeeping: when each pod started (bind order; kept across a dry run's unbind/bind)
        # and how many bound pods have each priority (so "no lower-priority pod anywhere" costs nothing).
        self.started: dict[str, int] = {}
        self.priorities: Counter[int] = Counter()
        # Taints: nodes grouped by identical taint lists, so a pod's tolerations are checked once per group.
        groups: dict[tuple[Taint, ...], int] = {}
        self.taint_group = np.array([groups.setdefault(nd.taints, len(groups)) for nd in self.nodes], dtype=np.int64)
        self.taint_sets: tuple[tuple[Taint, ...], ...] = tuple(groups)
        # Host ports in use: (protocol, port) -> node index -> host IPs.
        self.host_ports: dict[tuple[str, int], dict[int, list[str]]] = {}
        # Images: normalised name -> (size, node indexes holding it).
        images: dict[str, tuple[int, list[int]]] = {}
        for i, nd in enumerate(self.nodes):
            for names, size in nd.images:
                for name in names:
                    entry = images.setdefault(name, (size, []))
                    entry[1].append(i)
        self.images = {k: (size, np.array(idx, dtype=np.int64)) for k, (size, idx) in images.items()}
        ns_labels = {ns.name: ns.labels for ns in namespaces}
        self.pod_index = PodIndex(n, ns_labels)
        self._labels: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._req_masks: dict[tuple[NodeSelectorRequirement, bool], np.ndarray] = {}
        self._term_masks: dict[NodeSelectorTerm, np.ndarray] = {}
        self._topology: dict[str, Topology] = {}
        self._taint_cache: dict[tuple[object, tuple[str, ...]], np.ndarray] = {}

    # -- labels, selectors, topology (static for the snapshot's life: cached)

    def label_values(self, key: str) -> tuple[np.ndarray, np.ndarray]:
        """(has, values) for a label key across nodes."""
        got = self._labels.get(key)
        if got is None:
            has = np.array([key in nd.labels for nd in self.nodes], dtype=bool)
            vals = np.array([nd.labels.get(key, "") for nd in self.nodes], dtype=object)
            got = self._labels[key] = (has, vals)
        return got

    def requirement_mask(self, req: NodeSelectorRequirement, field: bool = False) -> np.ndarray:
        cached = self._req_masks.get((req, field))
        if cached is not None:
            return cached
        if field:  # matchFields: only metadata.name is a valid field (validated at load)
            has = np.ones(self.n, dtype=bool)
            vals = self.names_arr
        else:
            has, vals = self.label_values(req.key)
        if req.operator == "In":
            mask = has & np.isin(vals, list(req.values))
        elif req.operator == "NotIn":
            mask = ~(has & np.isin(vals, list(req.values)))
        elif req.operator == "Exists":
            mask = has.copy()
        elif req.operator == "DoesNotExist":
            mask = ~has
        else:  # Gt / Lt: the node's value must parse as an integer
            want = int(req.values[0])
            mask = np.zeros(self.n, dtype=bool)
            for i in np.flatnonzero(has):
                try:
                    v = int(vals[i])
                except ValueError:
                    continue
                mask[i] = v > want if req.operator == "Gt" else v < want
        self._req_masks[(req, field)] = mask
        return mask

    def term_mask(self, term: NodeSelectorTerm) -> np.ndarray:
        """NodeSelectorTerm: expressions and fields ANDed; an empty term matches no node."""
        cached = self._term_masks.get(term)
        if cached is None:
            if not term.match_expressions and not term.match_fields:
                cached = np.zeros(self.n, dtype=bool)
            else:
                cached = np.ones(self.n, dtype=bool)
                for r in term.match_expressions:
                    cached &= self.requirement_mask(r)
                for r in term.match_fields:
                    cached &= self.requirement_mask(r, field=True)
            self._term_masks[term] = cached
        return cached

    def node_selector_mask(self, selector: Labels) -> np.ndarray:
        mask = np.ones(self.n, dtype=bool)
        for k, v in selector.items():
            mask &= self.requirement_mask(NodeSelectorRequirement(k, "In", (v,)))
        return mask

    def topology(self, key: str) -> Topology:
        topo = self._topology.get(key)
        if topo is None:
            has, vals = self.label_values(key)
            values: dict[str, int] = {}
            ids = np.full(self.n, -1, dtype=np.int64)
            for i in np.flatnonzero(has):
                ids[i] = values.setdefault(vals[i], len(values))
            topo = self._topology[key] = Topology(ids, tuple(values))
        return topo

    def taint_mask(self, tolerations: tuple, effects: tuple[str, ...]) -> tuple[np.ndarray, list[Taint | None]]:
        """Per node: does an untolerated taint with one of `effects` exist? Also the first one per taint group."""
        firsts = [untolerated_taint(ts, tolerations, effects) for ts in self.taint_sets]
        key = (tolerations, effects)
        group_ok = self._taint_cache.get(key)
        if group_ok is None:
            group_ok = self._taint_cache[key] = np.array([f is None for f in firsts], dtype=bool)
        return group_ok[self.taint_group], firsts

    def set_node(self, i: int, node: Node) -> None:
        """Replace node i's object (cordon during a drain): flags and taint group follow."""
        nodes = list(self.nodes)
        nodes[i] = node
        self.nodes = tuple(nodes)
        self.unschedulable[i] = node.unschedulable
        if node.taints in self.taint_sets:
            self.taint_group[i] = self.taint_sets.index(node.taints)
        else:
            self.taint_sets = self.taint_sets + (node.taints,)
            self.taint_group[i] = len(self.taint_sets) - 1
        self._taint_cache.clear()

    # -- binding

    def requested_of(self, resource: str) -> np.ndarray:
        arr = self.requested.get(resource)
        if arr is None:
            arr = self.requested[resource] = np.zeros(self.n, dtype=np.int64)
        return arr

    def alloc_of(self, resource: str) -> np.ndarray:
        arr = self.alloc.get(resource)
        if arr is None:
            arr = self.alloc[resource] = np.zeros(self.n, dtype=np.int64)
        return arr

    def bind(self, info: PodInfo, i: int) -> None:
        """NodeInfo.AddPod plus every index update."""
        for r, v in info.requests.items():
            _add_saturated(self.requested_of(r), i, v)
        _add_saturated(self.non_zero_cpu, i, info.non_zero_cpu)
        _add_saturated(self.non_zero_memory, i, info.non_zero_memory)
        self.pod_count[i] += 1
        self.pods_on[i][info.key] = info
        self.started.setdefault(info.key, len(self.started))
        self.priorities[info.pod.priority] += 1
        for proto, ip, port in info.host_ports:
            self.host_ports.setdefault((proto, port), {}).setdefault(i, []).append(ip)
        self.pod_index.add(info, i)

    def unbind(self, key: str) -> int:
        info, i = self.pod_index.bound[key]
        saturated = any(self.requested[r][i] == INT64_MAX for r in info.requests) or INT64_MAX in (
            self.non_zero_cpu[i],
            self.non_zero_memory[i],
        )
        for r, v in info.requests.items():
            self.requested[r][i] -= v
        self.non_zero_cpu[i] -= info.non_zero_cpu
        self.non_zero_memory[i] -= info.non_zero_memory
        self.pod_count[i] -= 1
        del self.pods_on[i][key]
        if saturated:  # a capped sum cannot be undone by subtraction: sum what is left again
            self._resum(i)
        self.priorities[info.pod.priority] -= 1
        for proto, ip, port in info.host_ports:
            self.host_ports[(proto, port)][i].remove(ip)
        self.pod_index.remove(key)
        return i

    def _resum(self, i: int) -> None:
        left = list(self.pods_on[i].values())
        for r, arr in self.requested.items():
            arr[i] = min(sum(p.requests.get(r, 0) for p in left), INT64_MAX)
        self.non_zero_cpu[i] = min(sum(p.non_zero_cpu for p in left), INT64_MAX)
        self.non_zero_memory[i] = min(sum(p.non_zero_memory for p in left), INT64_MAX)

    def forget(self, key: str) -> None:
        """The pod is gone for good (evicted, preempted): a later pod of the same name starts afresh."""
        self.started.pop(key, None)

    def lowest_priority(self) -> int | None:
        """The lowest priority among bound pods (None when no pod is bound)."""
        present = [p for p, c in self.priorities.items() if c > 0]
        return min(present) if present else None


def _add_saturated(arr: np.ndarray, i: int, v: int) -> None:
    """arr[i] += v, capped at int64's maximum (requests are capped quantities; their sum must not wrap)."""
    arr[i] = min(int(arr[i]) + v, INT64_MAX)
