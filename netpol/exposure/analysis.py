"""analyze_exposure(analysis) → Exposure: the doors, every path through them, and what lies beyond the input.

One second engine answers everything: the analysed cluster plus the stand-ins (representative peers and
proxies not in the input), compiled from the same policies (netpol/exposure/standins.py). Real pods get the
verdicts of the first engine; the first analysis is never changed.

The second engine holds only the pods it is asked about: the doors' backend pods and the proxies' pods (each
named in a path), and one pod of each equivalence class of the first engine, which stands for its class when
asking what lies beyond the input (pods of one class are told apart by no rule, so every stand-in is admitted
by all of them alike; a pair's verdict depends on nothing but the two pods and the policies). At 100,000 pods
that is the first engine's 30,000 classes, not 100,000 pods.
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
class Exposure:
    doors: tuple[Door, ...]
    paths: tuple[Path, ...]
    proxies: Mapping[str, ProxyPods]
    peers: tuple[StandIn, ...]  # the representative stand-ins ("beyond the input")
    engine: Reachability  # the second engine: real pods and stand-ins
    options: ExposureOptions
    real: frozenset[str]  # keys of the analysis' running pods
    cluster: Cluster  # the analysed cluster (placed, with addresses)
    rep_of: Mapping[str, str]  # a running pod → the pod of its class in the second engine

    def beyond(self, pods: list[str] | None = None) -> list[PodBeyond]:
        """What `pods` (keys; default every running pod) admit and reach outside the input."""
        return _beyond(self.engine, self.peers, self.rep_of, sorted(self.real) if pods is None else pods)


@dataclass(frozen=True)
class Beyond:
    """The representative stand-ins alone (no doors): what pods admit and reach beyond the input."""

    engine: Reachability
    peers: tuple[StandIn, ...]
    rep_of: Mapping[str, str]

    def of(self, pods: list[str]) -> list[PodBeyond]:
        return _beyond(self.engine, self.peers, self.rep_of, pods)


def _beyond(r: Reachability, peers: tuple[StandIn, ...], rep_of: Mapping[str, str], pods: list[str]) -> list[PodBeyond]:
    asked = [(k, r.pod_index[rep_of[k]]) for k in pods if k in rep_of]
    return beyond_input(r, asked, peers)


def class_representatives(analysis: Analysis) -> dict[str, str]:
    """Each running pod → the first pod of its equivalence class (in the first engine)."""
    r = analysis.reachability
    first: dict[int, str] = {}
    out = {}
    for i, p in enumerate(r.pods):
        out[p.key] = first.setdefault(r.pod_class(i), p.key)
    return out


def analyze_beyond(analysis: Analysis) -> Beyond:
    """Only what `explain` and a pod's page need: the second engine with the representative peers."""
    running = analysis.reachability.pods
    wants = peer_wants(analysis.cluster, running)
    stand_ins = build(analysis.cluster, wants)
    peers = tuple(dict.fromkeys(find(stand_ins, w) for w in wants))
    rep_of = class_representatives(analysis)
    return Beyond(augment(analysis, stand_ins, set(rep_of.values())), peers, rep_of)


def analyze_exposure(analysis: Analysis, options: ExposureOptions | None = None) -> Exposure:
    options = options or ExposureOptions()
    cluster = analysis.cluster
    running = analysis.reachability.pods
    doors = find_doors(cluster)
    found, proxy_want = proxy_wants(cluster, running, doors, options.proxy_pods)
    peer_want = peer_wants(cluster, running)
    stand_ins = build(cluster, [*peer_want, *proxy_want])
    peers = tuple(dict.fromkeys(find(stand_ins, w) for w in peer_want))
    rep_of = class_representatives(analysis)
    named = {k for f in found.values() for k in f.pods} | backend_pods(cluster, running, doors)
    keep = set(rep_of.values()) | named
    r = augment(analysis, stand_ins, keep)
    proxies = proxy_pods(cluster, running, doors, found, stand_ins)
    real = frozenset(p.key for p in running)
    tracer = Tracer(cluster, r, frozenset(named), stand_ins, proxies, options.cluster_traffic_source)
    paths = tuple(p for d in doors for p in tracer.trace(d))
    return Exposure(doors, paths, proxies, peers, r, options, real, cluster, rep_of)


def backend_pods(cluster: Cluster, running: Sequence[Pod], doors: Sequence[Door]) -> set[str]:
    """The running pods the doors' backend Services select."""
    services = {s.key: s for s in cluster.services}
    wanted = [services[b.service] for d in doors for b in d.backends if b.service in services]
    return {p.key for svc in dict.fromkeys(wanted) for p in running if service_selects(svc, p)}
