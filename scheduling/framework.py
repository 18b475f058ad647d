"""The scheduling framework: status codes, cycle state, plugin protocols and the node snapshot.

Shape follows kube-scheduler's pkg/scheduler/framework (interface.go, cycle_state.go, types.go), but every
plugin judges *all nodes at once*: a Filter returns a boolean mask plus a reason per failing node, a Score
returns one integer per feasible node. The snapshot keeps one numpy slot per node (nodes sorted by name) and
incremental indexes of bound pods, so a decision never rescans every pod.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from netpol.model.labels import (
    Labels,
    LabelSelector,
    LabelSelectorRequirement,
    NodeSelectorRequirement,
    NodeSelectorTerm,
)
from netpol.model.objects import (
    NAMESPACE_NAME_LABEL,
    Container,
    Namespace,
    Node,
    Pod,
    PodAffinityTerm,
    Taint,
)

MAX_NODE_SCORE = 100  # framework.MaxNodeScore
DEFAULT_MILLI_CPU_REQUEST = 100  # schedutil.DefaultMilliCPURequest: only for scoring
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024  # schedutil.DefaultMemoryRequest: only for scoring
DEFAULT_MAX_PODS = 110  # kubelet --max-pods default, used when a node declares no `pods` allocatable
UNLIMITED = np.int64(2**62)  # allocatable of a resource the node does not declare (hand-written nodes)
LABEL_HOSTNAME = "kubernetes.io/hostname"
LABEL_ZONE = "topology.kubernetes.io/zone"
TAINT_UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
TAINT_NOT_READY = "node.kubernetes.io/not-ready"
TAINT_UNREACHABLE = "node.kubernetes.io/unreachable"
CORE_RESOURCES = ("cpu", "memory", "ephemeral-storage")


class Code(enum.IntEnum):
    """framework.Code: what a plugin's verdict means for the pod."""

    SUCCESS = 0
    ERROR = 1
    UNSCHEDULABLE = 2
    UNSCHEDULABLE_AND_UNRESOLVABLE = 3
    WAIT = 4
    SKIP = 5

    @property
    def label(self) -> str:
        return {
            Code.SUCCESS: "Success",
            Code.ERROR: "Error",
            Code.UNSCHEDULABLE: "Unschedulable",
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE: "UnschedulableAndUnresolvable",
            Code.WAIT: "Wait",
            Code.SKIP: "Skip",
        }[self]


@dataclass(frozen=True, slots=True)
class Status:
    """framework.Status: a code, the reasons shown to users, and the plugin that said it."""

    code: Code = Code.SUCCESS
    reasons: tuple[str, ...] = ()
    plugin: str = ""

    @property
    def is_success(self) -> bool:
        return self.code == Code.SUCCESS

    def message(self) -> str:
        return ", ".join(self.reasons)


SUCCESS = Status()


@dataclass(frozen=True, slots=True)
class NodeVerdicts:
    """A Filter plugin's verdict on every node at once.

    `ok[i]` says node i passes. A failing node's reasons are `reasons[reason[i]]` (or `reasons[0]` when
    `reason` is None); `codes` runs parallel to `reasons`.
    """

    ok: np.ndarray
    reasons: tuple[tuple[str, ...], ...] = ()
    codes: tuple[Code, ...] = ()
    reason: np.ndarray | None = None

    def status_of(self, i: int, plugin: str) -> Status:
        if self.ok[i]:
            return Status(plugin=plugin)
        r = 0 if self.reason is None else int(self.reason[i])
        return Status(self.codes[r], self.reasons[r], plugin)


def uniform_verdicts(ok: np.ndarray, reason: str, code: Code) -> NodeVerdicts:
    return NodeVerdicts(ok, ((reason,),), (code,))


class CycleState(dict[str, Any]):
    """framework.CycleState: per-pod scratch space PreFilter/PreScore write and Filter/Score read."""


@dataclass(frozen=True, slots=True)
class PreFilterResult:
    """What a PreFilter plugin returns: upstream's (*PreFilterResult, *Status) pair.

    `nodes` is a bool mask of the nodes the cycle is restricted to (None: every node, AllNodes()); a
    non-success `status` rejects the pod for every node at once.
    """

    status: Status = SUCCESS
    nodes: np.ndarray | None = None

    @property
    def all_nodes(self) -> bool:
        return self.nodes is None


ALL_NODES = PreFilterResult()


class PreFilterPlugin(Protocol):
    name: str

    def pre_filter(self, state: CycleState, pod: PodInfo, snap: Snapshot) -> PreFilterResult: ...


class FilterPlugin(Protocol):
    name: str

    def filter(self, state: CycleState, pod: PodInfo, snap: Snapshot) -> NodeVerdicts | None:
        """None means every node passes (upstream: Skip or Success everywhere)."""


class ScorePlugin(Protocol):
    name: str
    weight: int

    def score(self, state: CycleState, pod: PodInfo, snap: Snapshot, nodes: np.ndarray) -> np.ndarray | None:
        """Raw scores for the feasible node indexes `nodes`; None means Skip (all zero after weighting)."""

    def normalize(self, state: CycleState, raw: np.ndarray) -> np.ndarray:
        """NormalizeScore; identity for plugins without ScoreExtensions."""


# ---------------------------------------------------------------------------------------------- pod info


def container_requests(
    containers: Iterable[Container], init: Iterable[Container], overhead: Mapping[str, int], *, non_zero: bool
) -> dict[str, int]:
    """resourcehelper.PodRequests: max(sum of containers, largest init container) + overhead.

    With `non_zero`, a container that *omits* a cpu/memory request counts 100m/200Mi (scoring only;
    schedutil.GetNonzeroRequests). An explicit 0 stays 0.
    """

    def one(c: Container) -> dict[str, int]:
        r = dict(c.requests)
        if non_zero:
            r.setdefault("cpu", DEFAULT_MILLI_CPU_REQUEST)
            r.setdefault("memory", DEFAULT_MEMORY_REQUEST)
        return r

    total: dict[str, int] = {}
    for c in containers:
        for k, v in one(c).items():
            total[k] = total.get(k, 0) + v
    for c in init:
        for k, v in one(c).items():
            if v > total.get(k, 0):
                total[k] = v
    for k, v in overhead.items():
        total[k] = total.get(k, 0) + v
    return total


def container_limits(pod: Pod) -> dict[str, int]:
    """Limits the way `kubectl describe node` sums them: containers, max with init containers, + overhead."""
    total: dict[str, int] = {}
    for c in pod.containers:
        for k, v in c.limits.items():
            total[k] = total.get(k, 0) + v
    for c in pod.init_containers:
        for k, v in c.limits.items():
            total[k] = max(total.get(k, 0), v)
    for k, v in pod.overhead.items():
        if k in total:
            total[k] += v
    return total


@dataclass(frozen=True, slots=True)
class TermQuery:
    """Which pods a pod (anti-)affinity term selects: namespaces resolved against the term owner's namespace.

    Mirrors framework.AffinityTerm.Matches: the pod's namespace is listed, or matches namespaceSelector
    (an empty selector = every namespace), and the label selector matches (nil selector = no pod).
    """

    namespaces: frozenset[str]
    namespace_selector: LabelSelector | None
    selector: LabelSelector | None

    def matches(self, pod: Pod, ns_labels: Mapping[str, str]) -> bool:
        if self.selector is None:
            return False
        if pod.namespace not in self.namespaces:
            if self.namespace_selector is None or not self.namespace_selector.matches(ns_labels):
                return False
        return self.selector.matches(pod.labels)


@dataclass(frozen=True, slots=True)
class AffinityTerm:
    query: TermQuery
    topology_key: str


@dataclass(frozen=True, slots=True)
class WeightedTerm:
    term: AffinityTerm
    weight: int


def resolve_term(owner: Pod, term: PodAffinityTerm) -> AffinityTerm:
    """framework.newAffinityTerm: empty namespaces and no namespaceSelector mean the owner's namespace;
    matchLabelKeys/mismatchLabelKeys (KEP-3633) add `key in/notin (owner's value)` to the selector."""
    namespaces = frozenset(term.namespaces)
    if not namespaces and term.namespace_selector is None:
        namespaces = frozenset({owner.namespace})
    selector = term.label_selector
    if selector is not None and (term.match_label_keys or term.mismatch_label_keys):
        extra = [
            LabelSelectorRequirement(k, "In", (owner.labels[k],)) for k in term.match_label_keys if k in owner.labels
        ]
        extra += [
            LabelSelectorRequirement(k, "NotIn", (owner.labels[k],))
            for k in term.mismatch_label_keys
            if k in owner.labels
        ]
        selector = LabelSelector(selector.match_labels, selector.match_expressions + tuple(extra))
    return AffinityTerm(TermQuery(namespaces, term.namespace_selector, selector), term.topology_key)


@dataclass(slots=True)
class PodInfo:
    """framework.PodInfo: a pod plus what every plugin would otherwise recompute per node."""

    pod: Pod
    requests: dict[str, int]
    non_zero_cpu: int
    non_zero_memory: int
    host_ports: tuple[tuple[str, str, int], ...]  # (protocol, hostIP, hostPort)
    required_affinity: tuple[AffinityTerm, ...]
    required_anti_affinity: tuple[AffinityTerm, ...]
    preferred_affinity: tuple[WeightedTerm, ...]
    preferred_anti_affinity: tuple[WeightedTerm, ...]

    @property
    def key(self) -> str:
        return self.pod.key

    @property
    def has_affinity_terms(self) -> bool:
        return bool(
            self.required_affinity
            or self.required_anti_affinity
            or self.preferred_affinity
            or self.preferred_anti_affinity
        )


def pod_info(pod: Pod) -> PodInfo:
    req = container_requests(pod.containers, pod.init_containers, pod.overhead, non_zero=False)
    nz = container_requests(pod.containers, pod.init_containers, pod.overhead, non_zero=True)
    ports = []
    for c in pod.containers:
        for p in c.ports:
            # API defaulting: hostNetwork pods publish every containerPort as a hostPort.
            hp = p.host_port or (p.container_port if pod.host_network else 0)
            if hp > 0:
                ports.append((p.protocol or "TCP", p.host_ip or "0.0.0.0", hp))
    aff = pod.affinity
    pa = aff.pod_affinity if aff else None
    paa = aff.pod_anti_affinity if aff else None
    return PodInfo(
        pod=pod,
        requests={k: v for k, v in req.items() if v},
        non_zero_cpu=nz.get("cpu", 0),
        non_zero_memory=nz.get("memory", 0),
        host_ports=tuple(ports),
        required_affinity=tuple(resolve_term(pod, t) for t in pa.required) if pa else (),
        required_anti_affinity=tuple(resolve_term(pod, t) for t in paa.required) if paa else (),
        preferred_affinity=tuple(WeightedTerm(resolve_term(pod, w.term), w.weight) for w in pa.preferred) if pa else (),
        preferred_anti_affinity=(
            tuple(WeightedTerm(resolve_term(pod, w.term), w.weight) for w in paa.preferred) if paa else ()
        ),
    )


# ---------------------------------------------------------------------------------------------- snapshot


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
            self.requested_of(r)[i] += v
        self.non_zero_cpu[i] += info.non_zero_cpu
        self.non_zero_memory[i] += info.non_zero_memory
        self.pod_count[i] += 1
        self.pods_on[i][info.key] = info
        for proto, ip, port in info.host_ports:
            self.host_ports.setdefault((proto, port), {}).setdefault(i, []).append(ip)
        self.pod_index.add(info, i)

    def unbind(self, key: str) -> int:
        info, i = self.pod_index.bound[key]
        for r, v in info.requests.items():
            self.requested[r][i] -= v
        self.non_zero_cpu[i] -= info.non_zero_cpu
        self.non_zero_memory[i] -= info.non_zero_memory
        self.pod_count[i] -= 1
        del self.pods_on[i][key]
        for proto, ip, port in info.host_ports:
            self.host_ports[(proto, port)][i].remove(ip)
        self.pod_index.remove(key)
        return i


@dataclass(frozen=True, slots=True)
class Profile:
    """A scheduler profile: the default plugin set in upstream's order (apis/config/v1/default_plugins.go)."""

    pre_filter: tuple[PreFilterPlugin, ...]
    filter: tuple[FilterPlugin, ...]
    score: tuple[ScorePlugin, ...]
    options: Mapping[str, Any] = field(default_factory=dict)
