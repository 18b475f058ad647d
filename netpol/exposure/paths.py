"""Every path from outside the cluster through a door to a pod, hop by hop, each hop the engine's verdict.

`internet → door → (proxy pod →) Service port → pod:targetPort`. The hops that policies decide:

- **into a pod from outside** (a Service door, or the proxy's own entry): with `externalTrafficPolicy:
  Local` the pod sees the client's address, so the clients the door admits (its loadBalancerSourceRanges,
  else every address) are the sources, each external address range (IP atom) judged by the pod's ingress.
  With `Cluster` kube-proxy may forward through any node and masquerades the source as that node
  (concepts/services-networking/service "Traffic policies", tutorials/services/source-ip): the sources are
  the nodes' InternalIPs, and the pod's own node is always allowed ("traffic to and from the node where a Pod
  is running is always allowed", concepts/services-networking/network-policies). `--cluster-traffic-source
  client` assumes instead that the client address is kept (a CNI with direct server return); which one a path
  used is written on it.
- **proxy pod → backend pod**: the proxy's egress and the backend's ingress, as for any two pods.

Policies see the pod's targetPort after DNAT, never the Service port or the nodePort (DESIGN.md). A backend
that forwards nothing (its reason), or a pod whose targetPort name does not resolve, is a "not-routed" path.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

import netaddr
import numpy as np

from netpol.engine import Endpoint, Exception_, Reachability
from netpol.exposure.doors import Backend, Door
from netpol.exposure.proxies import ProxyPods
from netpol.exposure.standins import StandIn
from netpol.exposure.verdicts import Crossing, Port, atoms_open, crossing
from netpol.model.cluster import Cluster
from netpol.model.objects import Pod, Service
from netpol.model.services import ExternalTrafficPolicy
from netpol.targets import resolve_target_port, service_selects

Verdict = Literal["allowed", "restricted", "blocked", "not-routed"]
VERDICTS: tuple[Verdict, ...] = get_args(Verdict)
SourceAddress = Literal["node", "client"]
"""What a pod behind a door with externalTrafficPolicy Cluster sees as the source: the node that forwarded
the traffic (kube-proxy's masquerade, the default) or the client (`--cluster-traffic-source client`)."""
SOURCE_ADDRESSES: tuple[SourceAddress, ...] = get_args(SourceAddress)


@dataclass(frozen=True, slots=True)
class Hop:
    src: str
    dst: str
    port: str  # "TCP 8080": the destination pod's port
    allowed: bool  # some source of this hop gets through
    egress: tuple[str, ...] = ()  # the rules deciding the source's side
    ingress: tuple[str, ...] = ()  # … and the destination's
    admitted: tuple[str, ...] = ()  # entry hops: the client ranges or nodes that get through
    refused: tuple[str, ...] = ()  # … and those that do not

    @property
    def partial(self) -> bool:
        return self.allowed and bool(self.refused)


@dataclass(frozen=True, slots=True)
class Path:
    door: Door
    backend: Backend | None
    proxy: str  # the proxy pod (its key, or what its stand-in stands for); "" for Service doors
    pod: str  # the backend pod; "" when nothing is routed to a pod
    target: str  # "TCP 8080" on that pod
    verdict: Verdict
    hops: tuple[Hop, ...] = ()
    source: str = ""  # the source-address assumption of the entry hop, in words
    problem: str = ""  # not-routed: why

    @property
    def service_port(self) -> str:
        if self.backend is None:
            return ""
        if self.backend.port is None:
            return f"svc/{self.backend.service}" if self.backend.service else ""
        sp = self.backend.port
        return f"svc/{self.backend.service}:{sp.port}" + (f" ({sp.name})" if sp.name else "")


class Tracer:
    """Paths of doors over the second engine (real pods and stand-ins)."""

    def __init__(
        self,
        cluster: Cluster,
        r: Reachability,
        real: frozenset[str],
        stand_ins: Sequence[StandIn],
        proxies: Mapping[str, ProxyPods],
        source_address: SourceAddress,
    ) -> None:
        self.cluster = cluster
        self.r = r
        self.services = {s.key: s for s in cluster.services}
        self.running = [p for p in r.pods if p.key in real]
        self.pending = [p for p in cluster.pods if p.key not in real and not p.terminated]
        self.stand_in = {s.key: s for s in stand_ins}
        # a stand-in answers for an unknown proxy: paths name the proxy, not the pod that stands for it
        self.proxy_names = {p.stand_in.key: p.label for p in proxies.values() if p.stand_in is not None}
        self.proxies = proxies
        self.source_address = source_address
        self._atoms: dict[tuple[str, ...], list[tuple[int, netaddr.IPSet]]] = {}
        # Pods of one class get the same verdicts: each asked once per class (a Service may select thousands).
        self._open: dict[tuple[int, Port], np.ndarray] = {}
        self._crossings: dict[tuple[object, ...], Crossing] = {}

    def _atoms_open(self, dst: int, port: Port) -> np.ndarray:
        key = (self.r.pod_class(dst), port)
        hit = self._open.get(key)
        if hit is None:
            hit = self._open[key] = atoms_open(self.r, dst, port)
        return hit

    def _crossing(self, src: Endpoint, dst: int, port: Port) -> Crossing:
        r = self.r
        if src.pod is not None:  # a pod reaching itself or its own node's hostNetwork pod is the pair's own fact
            special = r.exception(src, Endpoint(pod=dst)) is not Exception_.NONE
            key: tuple[object, ...] = (r.pod_class(src.pod), special, r.pod_class(dst), port)
        elif src.node is not None:  # a node and its own pods: the pair's own fact
            key = ("node", src.node, r.on_node(dst, src.node), r.pod_class(dst), port)
        else:
            key = ("atom", src.atom, r.pod_class(dst), port)
        hit = self._crossings.get(key)
        if hit is None:
            hit = self._crossings[key] = crossing(r, src, Endpoint(pod=dst), port)
        return hit

    # ------------------------------------------------------------------------------------ doors → paths

    def trace(self, door: Door) -> list[Path]:
        if door.problem:
            return [Path(door, None, "", "", "", "not-routed", problem=door.problem)]
        if not door.backends:
            return [Path(door, None, "", "", "", "not-routed", problem="it forwards to no backend")]
        out: list[Path] = []
        for b in door.backends:
            out += self._backend(door, b)
        return out

    def _backend(self, door: Door, b: Backend) -> list[Path]:
        if b.problem or b.port is None:
            return [Path(door, b, "", "", "", "not-routed", problem=b.problem or "no Service port")]
        svc = self.services[b.service]
        pods = [p for p in self.running if service_selects(svc, p)]
        if not pods:
            waiting = [p.key for p in self.pending if service_selects(svc, p)]
            why = f"no running pod matches the selector of Service {svc.key}"
            if waiting:
                why += f" ({', '.join(waiting)} do not run)"
            return [Path(door, b, "", "", "", "not-routed", problem=why)]
        out = []
        sp = b.port
        for pod in pods:
            target = resolve_target_port(pod, sp.target_port, sp.protocol)
            if target is None:
                out.append(
                    Path(
                        door,
                        b,
                        "",
                        pod.key,
                        "",
                        "not-routed",
                        problem=f"targetPort {sp.target_port} is not a port of {pod.key}",
                    )
                )
                continue
            port = (sp.protocol, target)
            if door.proxy is None:
                hop, source = self._entry(door.client_ranges, door.traffic_policy, self.r.pod_index[pod.key], port)
                out.append(self._path(door, b, "", pod, port, (hop,), source))
                continue
            out += self._through_proxy(door, b, pod, port)
        return out

    def _through_proxy(self, door: Door, b: Backend, pod: Pod, port: Port) -> list[Path]:
        assert door.proxy is not None
        proxy = self.proxies[door.proxy.key]
        r = self.r
        groups: dict[int, list[str]] = {}
        for key in proxy.pods:
            i = r.pod_index.get(key)
            if i is not None:
                groups.setdefault(r.pod_class(i), []).append(key)
        if not groups:
            return [Path(door, b, "", pod.key, "", "not-routed", problem=f"none of the proxy pods runs ({proxy.how})")]
        out = []
        dst = r.pod_index[pod.key]
        for keys in groups.values():
            first = r.pod_index[keys[0]]
            name = self._name(keys[0]) + (
                f" (and {len(keys) - 1} more replica{'s' if len(keys) > 2 else ''})" if len(keys) > 1 else ""
            )
            entry_port = self._proxy_port(door, proxy, r.pods[first])
            svc = proxy.service
            policy = svc.external_traffic_policy if svc is not None else None
            hop1, source = self._entry(door.client_ranges, policy, first, entry_port, proxy_service=svc)
            c = self._crossing(Endpoint(pod=first), dst, port)
            hop2 = Hop(name, pod.key, _port_text(port), c.allowed, c.egress, c.ingress)
            out.append(self._path(door, b, name, pod, port, (hop1, hop2), source))
        return out

    def _proxy_port(self, door: Door, proxy: ProxyPods, pod: Pod) -> Port:
        """The port the proxy pod listens on for the door's entry: its own Service's targetPort for that port
        when the input has the Service, else the entry port itself."""
        port = door.entry_port or 0
        svc = proxy.service
        if svc is not None:
            for sp in svc.ports:
                if sp.port == port and sp.protocol == door.protocol:
                    target = resolve_target_port(pod, sp.target_port, sp.protocol)
                    if target is not None:
                        return (sp.protocol, target)
        return (door.protocol, port)

    def _path(
        self, door: Door, b: Backend, proxy: str, pod: Pod, port: Port, hops: tuple[Hop, ...], source: str
    ) -> Path:
        if not all(h.allowed for h in hops):
            verdict: Verdict = "blocked"
        elif any(h.partial for h in hops):
            verdict = "restricted"
        else:
            verdict = "allowed"
        return Path(door, b, proxy, pod.key, _port_text(port), verdict, hops, source)

    def _name(self, key: str) -> str:
        named = self.proxy_names.get(key)
        if named is not None:
            return named
        s = self.stand_in.get(key)
        return key if s is None else f"[{s.describes}]"

    # ----------------------------------------------------------------------------------- the entry hop

    def _entry(
        self,
        ranges: tuple[str, ...],
        policy: ExternalTrafficPolicy | None,
        dst: int,
        port: Port,
        *,
        proxy_service: Service | None = None,
    ) -> tuple[Hop, str]:
        whose = f"Service {proxy_service.key}: " if proxy_service is not None else ""
        if policy == "Cluster" and self.source_address == "node":
            words = (
                f"{whose}node addresses (externalTrafficPolicy Cluster: kube-proxy masquerades the client as the node "
                "that forwards it; --cluster-traffic-source node)"
            )
            return self._from_nodes(dst, port), words
        if policy == "Local":
            words = f"{whose}client addresses (externalTrafficPolicy Local keeps them)"
        elif policy == "Cluster":
            words = f"{whose}client addresses (externalTrafficPolicy Cluster, assumed kept: --cluster-traffic-source client)"
        else:
            words = "client addresses (the proxy's own Service is not in the input: assumed kept)"
        return self._from_clients(ranges, dst, port), words

    def _from_clients(self, ranges: tuple[str, ...], dst: int, port: Port) -> Hop:
        r = self.r
        atoms = self._client_atoms(ranges)
        open_ = self._atoms_open(dst, port)
        admitted = [(a, part) for a, part in atoms if open_[a]]
        refused = [(a, part) for a, part in atoms if not open_[a]]
        words: list[str] = []
        for a, _ in admitted or refused[:1]:
            for w in self._crossing(Endpoint(atom=a), dst, port).ingress:
                if w not in words:
                    words.append(w)
        return Hop(
            "internet",
            self._name(r.pods[dst].key),
            _port_text(port),
            bool(admitted),
            ("outside the cluster: no policy of it filters there",),
            tuple(words),
            _ranges(part for _, part in admitted),
            _ranges(part for _, part in refused),
        )

    def _client_atoms(self, ranges: tuple[str, ...]) -> list[tuple[int, netaddr.IPSet]]:
        """The external IP atoms the client ranges overlap, each with the overlap (every address of an atom is
        judged alike by every ipBlock, so the atom's verdict is the overlap's)."""
        hit = self._atoms.get(ranges)
        if hit is not None:
            return hit
        clients = netaddr.IPSet(ranges)
        out = []
        for k, atom in enumerate(self.r.atoms):
            span = netaddr.IPRange(
                netaddr.IPAddress(atom.first, atom.version), netaddr.IPAddress(atom.last, atom.version)
            )
            overlap = clients & netaddr.IPSet(span)
            if overlap:
                out.append((k, overlap))
        self._atoms[ranges] = out
        return out

    def _from_nodes(self, dst: int, port: Port) -> Hop:
        """From every node's address, the engine's node endpoints: a pod's own node is always allowed, another
        node is its address to the policies."""
        r = self.r
        pod = r.pods[dst]
        admitted: list[str] = []
        refused: list[str] = []
        words: list[str] = []
        known = False
        for node in sorted(self.cluster.nodes, key=lambda n: n.name != pod.node_name):  # its own node first
            ep = r.node_endpoint(node.name)
            if ep is None:
                (admitted if node.name == pod.node_name else refused).append(
                    f"node {node.name} (no InternalIP in the input{': its own node, always allowed' if node.name == pod.node_name else ''})"
                )
                known |= node.name == pod.node_name
                continue
            own = node.name == pod.node_name
            known |= own
            c = self._crossing(ep, dst, port)
            text = (
                f"node {node.name} (its own node: always allowed)"
                if own
                else f"node {node.name} ({node.internal_ips[0]})"
            )
            (admitted if c.allowed else refused).append(text)
            for w in c.ingress if c.allowed else ():
                if w not in words:
                    words.append(w)
        if not known:  # no Node object for its node (or none at all): the node it runs on is always allowed
            admitted.insert(
                0,
                f"node {pod.node_name} (its own node: always allowed)"
                if pod.node_name
                else "the node it runs on (always allowed)",
            )
            if "traffic from a pod's own node is always allowed" not in words:
                words.insert(0, "traffic from a pod's own node is always allowed")
        return Hop(
            "nodes",
            self._name(pod.key),
            _port_text(port),
            bool(admitted),
            ("a node: no policy filters its own traffic",),
            tuple(words) or ("traffic from a pod's own node is always allowed",),
            tuple(admitted),
            tuple(refused),
        )


def _ranges(parts: Iterable[netaddr.IPSet]) -> tuple[str, ...]:
    """Address sets as merged ranges in the matrix's words (`0.0.0.0-9.255.255.255`)."""
    merged = netaddr.IPSet()
    for part in parts:
        merged |= part
    return tuple(str(x) for x in merged.iter_ipranges())


def _port_text(port: Port) -> str:
    return f"{port[0]} {port[1]}"
