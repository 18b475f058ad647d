"""The one read-out of the matrix for concrete endpoints, and the one place of its pod-level exceptions.

Blocks are computed per equivalence class; a pod reaching itself and node-local traffic (a pod and a
hostNetwork pod of its own node, both ways) are pod-level facts no class block can hold, so every reader
(rows/exports, explain, reach, audit, the UI) gets pairs and lines through here.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

import numpy as np

from netpol.engine.state import EngineState
from netpol.model.vocab import Direction, QueryDirection
from netpol.ports import ConnectionSet

EndpointKind = Literal["pod", "external", "node"]


class Exception_(StrEnum):
    """Pairs the policies never decide."""

    NONE = ""
    LOOPBACK = "loopback"  # a pod reaching itself
    NODE_LOCAL = "node-local"  # a pod and its own node (a hostNetwork pod speaks with the node's address)


@dataclass(frozen=True, slots=True)
class Endpoint:
    """One concrete endpoint, exactly one of: a running pod (index into `Reachability.pods`); an external address
    range (an IP atom); a node (its name, with the atom of its address: to policies a node is its address, but
    traffic between a node and its own pods is always allowed). `Reachability.node_endpoint` builds the last."""

    pod: int | None = None
    atom: int | None = None
    node: str | None = None  # set with `atom`: the node whose address that atom is

    def __post_init__(self) -> None:
        if (self.pod is None) == (self.atom is None) or (self.node is not None and self.atom is None):
            raise ValueError(f"an endpoint is one pod, one address range or one node: {self!r}")

    @property
    def kind(self) -> EndpointKind:
        return "pod" if self.pod is not None else "node" if self.node is not None else "external"

    def name(self, r: EngineState) -> str:
        if self.pod is not None:
            return r.pods[self.pod].key
        if self.node is not None:
            return f"node/{self.node}"
        return r.atoms[self.atom].render()  # type: ignore[index]


class ReadOut(EngineState):
    """Pairs, lines and connection sets of concrete endpoints (pods and external atoms)."""

    def eid(self, ep: Endpoint) -> int:
        return self.pod_class(ep.pod) if ep.pod is not None else self.C + int(ep.atom)  # type: ignore[arg-type]

    def exception(self, src: Endpoint, dst: Endpoint) -> Exception_:
        """The one rule of the pairs no policy decides: a pod and itself (loopback); node-local traffic, a pod and a
        hostNetwork pod of its node, or a node and its own pods ("traffic to and from the node where a Pod is
        running is always allowed", concepts/services-networking/network-policies). Every port, both ways."""
        if src.pod is not None and dst.pod is not None:
            return self.pod_exception(src.pod, dst.pod)
        if (src.node is not None and dst.pod is not None and self.on_node(dst.pod, src.node)) or (
            dst.node is not None and src.pod is not None and self.on_node(src.pod, dst.node)
        ):
            return Exception_.NODE_LOCAL
        return Exception_.NONE

    def pod_exception(self, src: int, dst: int) -> Exception_:
        """`exception` of two pods (by index), for readers that walk many pod pairs."""
        if src == dst:
            return Exception_.LOOPBACK
        return Exception_.NODE_LOCAL if self.node_local(src, dst) else Exception_.NONE

    def pod_overrides(self, pod: int) -> tuple[np.ndarray, np.ndarray]:
        """(bool over pods, port bits): the pods whose traffic with `pod`, either way, no class-level block gives —
        `exception`'s pairs — and what they get. Readers that expand class blocks to pods put these bits there."""
        return self.always_allowed(pod), self.ports.all_bits

    def node_local(self, src: int, dst: int) -> bool:
        """Traffic between a pod and its own node: "traffic to and from the node where a Pod is running is
        always allowed" (concepts/services-networking/network-policies). A hostNetwork pod speaks with
        its node's address, so a hostNetwork pod and any pod of its node reach each other, both ways."""
        n = self.pod_node
        return bool(n[src] >= 0 and n[src] == n[dst] and (self.host_pods[src] or self.host_pods[dst]))

    def node_local_mask(self, pod: int) -> np.ndarray:
        """Bool over pods: the pods `pod` exchanges node-local traffic with (either direction; symmetric)."""
        n = self.pod_node
        if n[pod] < 0:
            return np.zeros(len(self.pods), dtype=bool)
        same = n == n[pod]
        return same if self.host_pods[pod] else same & self.host_pods

    def node_endpoint(self, name: str) -> Endpoint | None:
        """A node as an endpoint: the atom of its first InternalIP (None when the node has no address here)."""
        for n in self.context.nodes:
            if n.name == name:
                for ip in n.internal_ips:
                    try:
                        return Endpoint(atom=self.ipspace.atom_index(ip), node=name)
                    except KeyError:  # an IPv6 address in a space built without IPv6
                        continue
        return None

    def on_node(self, pod: int, node: str) -> bool:
        """Does `pod` run on `node`? Then their traffic is always allowed (concepts/services-networking/
        network-policies: "traffic to and from the node where a Pod is running is always allowed")."""
        return self.pods[pod].node_name == node

    def always_allowed(self, pod: int) -> np.ndarray:
        """Bool over pods: the pods whose traffic with `pod`, either way, no policy decides — itself (loopback)
        and its node-local peers. The one definition every reader overlays; symmetric."""
        out = self.node_local_mask(pod).copy()
        out[pod] = True
        return out

    def node_local_pairs(self) -> list[tuple[int, int]]:
        """Every ordered (source pod, destination pod) pair of node-local traffic (a pod and a hostNetwork pod of
        its node, both ways), loopback left out; few: one list per hostNetwork pod."""
        out: set[tuple[int, int]] = set()
        for h in np.flatnonzero(self.host_pods).tolist():
            for p in np.flatnonzero(self.node_local_mask(h)).tolist():
                if p != h:
                    out.update(((h, p), (p, h)))
        return sorted(out)

    def endpoint_bits(self, src: Endpoint, dst: Endpoint) -> np.ndarray:
        """The one read-out of a pair: loopback and node-local traffic first, then the policies' verdict."""
        if self.exception(src, dst) is not Exception_.NONE:
            return self.ports.all_bits
        if src.atom is not None and dst.atom is not None:
            return self.ports.no_bits
        s, d = [self.eid(src)], [self.eid(dst)]
        sides: tuple[Direction, ...] = (
            ("egress",) if dst.atom is not None else ("ingress",) if src.atom is not None else ("ingress", "egress")
        )
        bits: np.ndarray = self.pair_block(s, d, sides=sides)[0, 0]
        return bits

    def endpoint_filtered(self, src: Endpoint, dst: Endpoint) -> np.ndarray:
        """Of a pair's ports (`endpoint_bits`), those allowed only through a layer-7 filter on some side; none for
        loopback and node-local traffic, which no policy decides."""
        if self.exception(src, dst) is not Exception_.NONE or (src.atom is not None and dst.atom is not None):
            return self.ports.no_bits
        sides: tuple[Direction, ...] = (
            ("egress",) if dst.atom is not None else ("ingress",) if src.atom is not None else ("ingress", "egress")
        )
        bits: np.ndarray = self.filtered_block([self.eid(src)], [self.eid(dst)], sides)[0, 0]
        return bits

    def pod_bits(self, src: int, dst: int) -> np.ndarray:
        return self.endpoint_bits(Endpoint(pod=src), Endpoint(pod=dst))

    def connection(self, src: int, dst: int) -> ConnectionSet:
        return self.ports.to_set(self.pod_bits(src, dst))

    def ingress_from_atom(self, atom: int, dst: int) -> ConnectionSet:
        return self.ports.to_set(self.endpoint_bits(Endpoint(atom=atom), Endpoint(pod=dst)))

    def egress_to_atom(self, src: int, atom: int) -> ConnectionSet:
        return self.ports.to_set(self.endpoint_bits(Endpoint(pod=src), Endpoint(atom=atom)))

    def pod_line(self, pod: int, direction: QueryDirection) -> tuple[np.ndarray, np.ndarray]:
        """((pods, W), (atoms, W)) port bits of one pod's line of the matrix, exceptions applied.

        "out": what `pod` may open towards every pod and external atom (one row); "in": what every pod
        and external atom may open towards `pod` (one column). Loopback and node-local pairs get every
        port, as `endpoint_bits` gives them."""
        cls = [self.pod_class(pod)]
        cells, atoms = self.cell_classes(), range(self.C, self.C + self.A)  # one class per cell
        if direction == "out":
            by_cell = self.class_block(cls, cells)[0]
            ext = self.pair_block(cls, atoms, sides=("egress",))[0]
        else:
            by_cell = self.pair_block(cells, cls)[:, 0]
            ext = self.pair_block(atoms, cls, sides=("ingress",))[:, 0]
        bits = by_cell[self.pod_cell]
        bits[self.always_allowed(pod)] = self.ports.all_bits
        return bits, ext

    def atom_line(self, atom: int, direction: QueryDirection) -> np.ndarray:
        """(pods, W): "out": what external atom may open towards every pod; "in": what every pod may open
        towards it."""
        a, cells = [self.C + atom], self.cell_classes()  # one class per cell
        if direction == "out":
            by_cell = self.pair_block(a, cells, sides=("ingress",))[0]
        else:
            by_cell = self.pair_block(cells, a, sides=("egress",))[:, 0]
        out: np.ndarray = by_cell[self.pod_cell]
        return out
