"""Layer-7 filters in the read-outs: a connection some policy allows only through a filter says so.

Cilium's `toPorts[].rules` (HTTP, Kafka, DNS) allow a port *with a filter*: the connection is open at layer 4
and Cilium's proxy passes only the requests the rules list (docs.cilium.io, security/policy/language, "Layer 7
Examples"). The engine marks those ports (`Reachability.filtered_block`: an L7 allow with no plain allow of the
same port on that side) and its provenance names the rules (`RuleHit.rule.l7`); this module turns both into the
one mark every output prints, `TCP 80 (L7 filter: HTTP POST /v1/request-landing)`, and, for the writers that
work per equivalence class, works each pair's mark out once per (class, class) pair.

Nothing here runs when no policy has a layer-7 rule (`Reachability.has_l7` False): callers check first.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from netpol.engine import Endpoint, Reachability, side_verdict
from netpol.model.vocab import Direction
from netpol.ports import ConnectionSet


@dataclass(frozen=True, slots=True)
class L7Mark:
    """The ports of a connection that go only through layer-7 filters, and each filter (its text in the policy's
    words, sorted) with the ports it filters."""

    ports: ConnectionSet
    filters: tuple[tuple[str, ConnectionSet], ...]

    @property
    def texts(self) -> tuple[str, ...]:
        return tuple(text for text, _ in self.filters)

    def suffix(self, conn: ConnectionSet) -> str:
        """What follows the connection in a line: ` (L7 filter: HTTP POST /v1/x)`; ` on PORTS` when only some of
        the connection's ports are filtered; with several filters their count (json and explain list them)."""
        where = "" if self.ports == conn else f" on {self.ports.render()}"
        if len(self.filters) == 1:
            return f" (L7 filter{where}: {self.filters[0][0]})"
        return f" ({len(self.filters)} L7 filters{where})"

    def to_json(self) -> dict[str, object]:
        return {
            "conn": self.ports.to_json(),
            "text": self.ports.render(),
            "filters": [{"filter": text, "conn": cs.to_json(), "text": cs.render()} for text, cs in self.filters],
        }

    def union(self, other: L7Mark | None) -> L7Mark:
        """Both marks at once (replicas of a workload): the ports filtered in either, every filter on the ports
        it filters in either."""
        if other is None:
            return self
        by = dict(self.filters)
        for text, cs in other.filters:
            by[text] = by[text].union(cs) if text in by else cs
        return L7Mark(self.ports.union(other.ports), tuple(sorted(by.items())))

    def restrict(self, conn: ConnectionSet) -> L7Mark | None:
        """The mark of part of the connection (a probe's ports): the filters of those ports; None when none of
        them is filtered."""
        ports = self.ports.intersection(conn)
        if ports.is_empty:
            return None
        cut = ((text, cs.intersection(conn)) for text, cs in self.filters)
        return L7Mark(ports, tuple((text, cs) for text, cs in cut if not cs.is_empty))


def render(conn: ConnectionSet, mark: L7Mark | None) -> str:
    """`TCP 80`, or `TCP 80 (L7 filter: …)` when some of it goes through a filter."""
    return conn.render() if mark is None else conn.render() + mark.suffix(conn)


def _sides(src_atom: bool, dst_atom: bool) -> tuple[Direction, ...]:
    """The sides that filter a pair: an external end has no side of its own."""
    return ("egress",) if dst_atom else ("ingress",) if src_atom else ("ingress", "egress")


def endpoint_mark(r: Reachability, src: Endpoint, dst: Endpoint) -> L7Mark | None:
    """The mark of one pair of concrete endpoints (None: no port of it goes through a filter, or the pair is one
    no policy decides: loopback, node-local)."""
    if not r.has_l7:
        return None
    filtered = r.endpoint_filtered(src, dst)
    if not filtered.any():
        return None
    return _mark(r, src, dst, filtered)


def _mark(r: Reachability, src: Endpoint, dst: Endpoint, filtered: np.ndarray) -> L7Mark:
    """The mark of one pair whose filtered ports are `filtered`."""
    s, d = [r.eid(src)], [r.eid(dst)]
    sides = _sides(src.atom is not None, dst.atom is not None)
    pair = r.pair_block(s, d, sides=sides)[0, 0]
    per_side = {direction: r.filtered_block(s, d, (direction,))[0, 0] & pair for direction in sides}
    return _credit(r, src, dst, per_side, filtered)


def _credit(
    r: Reachability, src: Endpoint, dst: Endpoint, per_side: dict[Direction, np.ndarray], filtered: np.ndarray
) -> L7Mark:
    """Per side, the ports that side filters (`filtered_block` of that side alone, within the pair's connection:
    `per_side`), credited to the layer-7 rules the side's provenance says decided them."""
    by: dict[str, np.ndarray] = {}
    for direction, side in per_side.items():
        if not side.any():
            continue
        for h in side_verdict(r, direction, src, dst).hits:
            if h.rule.l7 and h.action == "Allow":
                got = h.decided & side
                if got.any():
                    by[h.rule.l7] = by[h.rule.l7] | got if h.rule.l7 in by else got
    filters = tuple(sorted((text, r.ports.to_set(bits)) for text, bits in by.items()))
    return L7Mark(r.ports.to_set(filtered), filters)


class ClassMarks:
    """Marks of (cell, cell-or-atom) pairs, each worked out once: the read-outs stream the matrix per cell
    (classes no rule tells apart), and every pod pair of two cells has the same mark (loopback and node-local
    pairs, which no policy decides, are the callers' to leave unmarked).

    Endpoints are cell eids: cells `0..K-1`, then external atoms `K..K+A-1` (the engine's blocks' order)."""

    def __init__(self, r: Reachability) -> None:
        self.r = r
        rep = np.empty(len(r.pod_classes.classes), dtype=np.int64)
        pc = np.asarray(r.pod_classes.pod_class, dtype=np.int64)
        rep[pc[::-1]] = np.arange(len(pc), dtype=np.int64)[::-1]  # a pod of each class: provenance reads its class
        self._cell_pod = rep[r.cell_rep]
        self._marks: dict[tuple[int, int], L7Mark] = {}

    def endpoint(self, e: int) -> Endpoint:
        K = self.r.K
        return Endpoint(pod=int(self._cell_pod[e])) if e < K else Endpoint(atom=e - K)

    def mark(self, src: int, dst: int, filtered: np.ndarray) -> L7Mark:
        """The mark of cell eids src → dst, whose filtered ports (the engine's `filtered_block`) are `filtered`."""
        got = self._marks.get((src, dst))
        if got is None:
            ((_, _, got),) = self.block(np.array([src]), np.array([dst]), filtered[None, None, :])
        return got

    def block(self, src: np.ndarray, dst: np.ndarray, filtered: np.ndarray) -> list[tuple[int, int, L7Mark]]:
        """(row, column, mark) of every pair of a block (`filtered`: (len(src), len(dst), W)) with a filtered port,
        src and dst as cell eids: cells × cells, cells × atoms or atoms × cells. The sides' filtered ports of the
        pairs not met before are asked of the engine once for the block, provenance once per pair."""
        r, K = self.r, self.r.K
        rows, cols = np.nonzero(filtered.any(axis=2))
        todo = [
            (i, j) for i, j in zip(rows.tolist(), cols.tolist(), strict=True) if (src[i], dst[j]) not in self._marks
        ]
        if todo:
            ri = np.unique([i for i, _ in todo])
            ci = np.unique([j for _, j in todo])
            s, d = self.class_eids(src[ri]), self.class_eids(dst[ci])
            sides = _sides(bool(src[ri[0]] >= K), bool(dst[ci[0]] >= K))
            pair = r.pair_block(s, d, sides=sides)
            per_side = {direction: r.filtered_block(s, d, (direction,)) & pair for direction in sides}
            at_r = {int(i): k for k, i in enumerate(ri.tolist())}
            at_c = {int(j): k for k, j in enumerate(ci.tolist())}
            for i, j in todo:
                a, b = at_r[i], at_c[j]
                one = {direction: f[a, b] for direction, f in per_side.items()}
                ends = self.endpoint(int(src[i])), self.endpoint(int(dst[j]))
                self._marks[(int(src[i]), int(dst[j]))] = _credit(r, *ends, one, filtered[i, j])
        return [
            (i, j, self._marks[(int(src[i]), int(dst[j]))]) for i, j in zip(rows.tolist(), cols.tolist(), strict=True)
        ]

    def filtered(self, src: np.ndarray, dst: np.ndarray, sides: tuple[Direction, ...] | None = None) -> np.ndarray:
        """(len(src), len(dst), W): the engine's filtered ports between cell eids (classes asked per cell)."""
        r = self.r
        return r.filtered_block(self.class_eids(src), self.class_eids(dst), sides or ("ingress", "egress"))

    def class_eids(self, cells: np.ndarray) -> np.ndarray:
        """Cell eids → class eids (a class of each cell; atoms shift from K.. to C..)."""
        r = self.r
        cells = np.asarray(cells, dtype=np.int64)
        out = cells - r.K + r.C
        inside = cells < r.K
        out[inside] = r.cell_rep[cells[inside]]
        return out
