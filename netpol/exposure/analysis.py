"""analyze_exposure(analysis) → Exposure: the doors, every path through them, and what lies beyond the input.

One second engine answers everything: the analysed cluster plus the stand-ins (representative peers and
proxies not in the input), compiled from the same policies (netpol/exposure/standins.py). Real pods get the
verdicts of the first engine; the first analysis is never changed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from netpol.engine import Reachability
from netpol.exposure.beyond import PodBeyond, beyond_input
from netpol.exposure.doors import Door, find_doors
from netpol.exposure.paths import Path, SourceAddress, Tracer
from netpol.exposure.proxies import ProxyPods, proxy_pods, proxy_wants
from netpol.exposure.standins import StandIn, augment, build, find, peer_wants
from netpol.model.cluster import Cluster
from netpol.pipeline import Analysis


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

    def beyond(self, pods: list[str] | None = None) -> list[PodBeyond]:
        """What `pods` (keys; default every running pod) admit and reach outside the input."""
        r = self.engine
        keys = sorted(self.real) if pods is None else [k for k in pods if k in self.real]
        return beyond_input(r, [r.pod_index[k] for k in keys], self.peers)


@dataclass(frozen=True)
class Beyond:
    """The representative stand-ins alone (no doors): what pods admit and reach beyond the input."""

    engine: Reachability
    peers: tuple[StandIn, ...]
    real: frozenset[str]

    def of(self, pods: list[str]) -> list[PodBeyond]:
        r = self.engine
        return beyond_input(r, [r.pod_index[k] for k in pods if k in self.real], self.peers)


def analyze_beyond(analysis: Analysis) -> Beyond:
    """Only what `explain` and a pod's page need: the second engine with the representative peers."""
    running = analysis.reachability.pods
    wants = peer_wants(analysis.cluster, running)
    stand_ins = build(analysis.cluster, wants)
    peers = tuple(dict.fromkeys(find(stand_ins, w) for w in wants))
    return Beyond(augment(analysis, stand_ins), peers, frozenset(p.key for p in running))


def analyze_exposure(analysis: Analysis, options: ExposureOptions | None = None) -> Exposure:
    options = options or ExposureOptions()
    cluster = analysis.cluster
    running = analysis.reachability.pods
    doors = find_doors(cluster)
    found, proxy_want = proxy_wants(cluster, running, doors, options.proxy_pods)
    peer_want = peer_wants(cluster, running)
    stand_ins = build(cluster, [*peer_want, *proxy_want])
    peers = tuple(dict.fromkeys(find(stand_ins, w) for w in peer_want))
    r = augment(analysis, stand_ins)
    proxies = proxy_pods(cluster, running, doors, found, stand_ins)
    real = frozenset(p.key for p in running)
    tracer = Tracer(cluster, r, real, stand_ins, proxies, options.cluster_traffic_source)
    paths = tuple(p for d in doors for p in tracer.trace(d))
    return Exposure(doors, paths, proxies, peers, r, options, real, cluster)
