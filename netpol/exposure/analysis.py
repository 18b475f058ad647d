"""analyze_exposure(analysis) → Exposure: the doors, every path through them, and what lies beyond the input.

Two parts, each cheap on its own. The doors' paths (`analyze_doors`) are the first engine's verdicts when
every proxy is in the input; a proxy the input lacks is a stand-in pod, asked about in a small second engine
compiled from the same policies with the doors' backend and proxy pods (a pair's verdict depends on nothing but
the two pods and the policies). What lies beyond the input (`analyze_beyond`) is asked of the representative
stand-ins in a second engine holding one pod of each equivalence class of the first (pods of one class are
told apart by no rule, so every stand-in is admitted by all of them alike): at 100,000 pods the first engine's
30,000 classes, not 100,000 pods. The first analysis is never changed (netpol/exposure/standins.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from netpol.engine import Reachability
from netpol.exposure.beyond import PodBeyond, beyond_input
from netpol.exposure.doors import Door, find_doors
from netpol.exposure.paths import Path, SourceAddress, Tracer
from netpol.exposure.proxies import ProxyPods, proxy_pods, proxy_wants
from netpol.exposure.standins import StandIn, augment, build, find, peer_wants
from netpol.model.cluster import Cluster
from netpol.model.objects import Pod
from netpol.pipeline import Analysis
from netpol.targets import service_selects


@dataclass(frozen=True, slots=True)
class ExposureOptions:
    # externalTrafficPolicy Cluster: the source a backend pod sees (kube-proxy masquerades it as the node by
    # default; some CNIs keep the client's address)
    cluster_traffic_source: SourceAddress = "node"
    # --proxy-pods: a proxy's key (ingressclass/NAME, gateway/NS/NAME, openshift-router) → its pods' keys
    proxy_pods: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class Doors:
    """The doors and every path through them (`analyze_doors`)."""

    doors: tuple[Door, ...]
    paths: tuple[Path, ...]
    proxies: Mapping[str, ProxyPods]
    engine: Reachability  # the first engine, or a small second one with the proxies the input lacks
    options: ExposureOptions
    cluster: Cluster  # the analysed cluster (placed, with addresses)

    @property
    def exposed(self) -> frozenset[str]:
        """The pods some door lets a client outside the cluster reach (allowed or restricted)."""
        return frozenset(p.pod for p in self.paths if p.pod and p.verdict in ("allowed", "restricted"))


@dataclass(frozen=True)
class Beyond:
    """The representative stand-ins with one pod per class (`analyze_beyond`): what pods admit and reach beyond
    the input."""

    engine: Reachability
    peers: tuple[StandIn, ...]
    rep_of: Mapping[str, str]  # a running pod → the pod of its class in this engine

    def of(self, pods: list[str]) -> list[PodBeyond]:
        r = self.engine
        return beyond_input(r, [(k, r.pod_index[self.rep_of[k]]) for k in pods if k in self.rep_of], self.peers)


@dataclass(frozen=True)
class Exposure:
    """Both parts (`analyze_exposure`): what `netpol exposure` and the audit report."""

    doors_part: Doors
    beyond_part: Beyond
    real: frozenset[str]  # keys of the analysis' running pods

    @property
    def doors(self) -> tuple[Door, ...]:
        return self.doors_part.doors

    @property
    def paths(self) -> tuple[Path, ...]:
        return self.doors_part.paths

    @property
    def proxies(self) -> Mapping[str, ProxyPods]:
        return self.doors_part.proxies

    @property
    def options(self) -> ExposureOptions:
        return self.doors_part.options

    @property
    def cluster(self) -> Cluster:
        return self.doors_part.cluster

    @property
    def engine(self) -> Reachability:
        return self.doors_part.engine

    def beyond(self, pods: list[str] | None = None) -> list[PodBeyond]:
        """What `pods` (keys; default every running pod) admit and reach outside the input."""
        return self.beyond_part.of(sorted(self.real) if pods is None else pods)


def class_representatives(analysis: Analysis) -> dict[str, str]:
    """Each running pod → the first pod of its equivalence class (in the first engine)."""
    r = analysis.reachability
    first: dict[int, str] = {}
    out = {}
    for i, p in enumerate(r.pods):
        out[p.key] = first.setdefault(r.pod_class(i), p.key)
    return out


def analyze_beyond(analysis: Analysis) -> Beyond:
    """What pods admit and reach beyond the input: a second engine with the representative peers and one pod
    per class of the first."""
    running = analysis.reachability.pods
    wants = peer_wants(analysis.cluster, running)
    stand_ins = build(analysis.cluster, wants)
    peers = tuple(dict.fromkeys(find(stand_ins, w) for w in wants))
    rep_of = class_representatives(analysis)
    return Beyond(augment(analysis, stand_ins, set(rep_of.values())), peers, rep_of)


def analyze_doors(analysis: Analysis, options: ExposureOptions | None = None) -> Doors:
    """The doors and their paths. When every proxy is in the input the first engine answers (nothing is
    compiled); else a small second engine holds the doors' pods and the proxies' stand-ins."""
    options = options or ExposureOptions()
    cluster = analysis.cluster
    running = analysis.reachability.pods
    doors = find_doors(cluster)
    found, proxy_want = proxy_wants(cluster, running, doors, options.proxy_pods)
    stand_ins = build(cluster, proxy_want)
    if stand_ins:
        named = {k for f in found.values() for k in f.pods} | backend_pods(cluster, running, doors)
        r = augment(analysis, stand_ins, named)
    else:
        r, named = analysis.reachability, {p.key for p in running}
    proxies = proxy_pods(cluster, running, doors, found, stand_ins)
    tracer = Tracer(cluster, r, frozenset(named), stand_ins, proxies, options.cluster_traffic_source)
    paths = tuple(p for d in doors for p in tracer.trace(d))
    return Doors(doors, paths, proxies, r, options, cluster)


def analyze_exposure(analysis: Analysis, options: ExposureOptions | None = None) -> Exposure:
    real = frozenset(p.key for p in analysis.reachability.pods)
    return Exposure(analyze_doors(analysis, options), analyze_beyond(analysis), real)


def backend_pods(cluster: Cluster, running: Sequence[Pod], doors: Sequence[Door]) -> set[str]:
    """The running pods the doors' backend Services select."""
    services = {s.key: s for s in cluster.services}
    wanted = [services[b.service] for d in doors for b in d.backends if b.service in services]
    return {p.key for svc in dict.fromkeys(wanted) for p in running if service_selects(svc, p)}
