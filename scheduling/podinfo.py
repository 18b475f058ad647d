"""framework.PodInfo: a pod plus what every plugin would otherwise recompute per node (request arithmetic,
host ports, resolved affinity terms).

Request arithmetic mirrors k8s.io/component-helpers resource.PodRequests and schedutil.GetNonzeroRequests;
affinity terms mirror framework.AffinityTerm (types.go).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from netpol.model.labels import LabelSelector, LabelSelectorRequirement
from netpol.model.objects import Container, Pod, PodAffinityTerm

INT64_MAX = 2**63 - 1
DEFAULT_MILLI_CPU_REQUEST = 100  # schedutil.DefaultMilliCPURequest: only for scoring
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024  # schedutil.DefaultMemoryRequest: only for scoring


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
    # Quantities are read capped at int64's maximum; their sum is capped the same way, so every request
    # fits the scheduler's int64 accounting (two 1e999999 containers must not overflow it).
    return {k: min(v, INT64_MAX) for k, v in total.items()}


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
