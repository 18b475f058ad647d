"""Which part of the matrix to show: the namespaces, the focus, the direction, pods or workloads.

One view feeds every output format (export.py, grid.py, graph.py, compact.py): it turns the command's
choices into the row filter of `netpol.readout.rows` and names the endpoints as the formats print them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from netpol.model.vocab import Direction
from netpol.pipeline import Analysis
from netpol.ports import ConnectionSet
from netpol.readout.l7 import L7Mark, render
from netpol.readout.rows import RowFilter, Rows


@dataclass(frozen=True, slots=True)
class Edge:
    src: str
    dst: str
    conn: ConnectionSet
    l7: L7Mark | None = None  # the ports allowed only through layer-7 filters, and the filters

    @property
    def text(self) -> str:
        """The connection as lines print it: `TCP 80`, `TCP 80 (L7 filter: HTTP POST /v1/x)`."""
        return render(self.conn, self.l7)

    def to_json(self) -> dict[str, object]:
        """A connection of the json document; `l7` only when some of its ports go through a filter."""
        doc: dict[str, object] = {
            "src": self.src,
            "dst": self.dst,
            "conn": self.conn.to_json(),
            "text": self.conn.render(),
        }
        if self.l7 is not None:
            doc["l7"] = self.l7.to_json()
        return doc


@dataclass(frozen=True)
class MatrixView:
    """Which endpoints to show: pods of some namespaces (all when empty) and, optionally, external ranges."""

    analysis: Analysis
    namespaces: tuple[str, ...] = ()
    include_external: bool = True
    focus: str | None = None
    # ingress: only connections into the focus (or into the namespaces, from anywhere); egress: out of it.
    direction: Direction | None = None
    by_workload: bool = False  # aggregate replicas: `web/frontend[Deployment]`
    # the focus resolved to endpoint names (pod keys, external ranges; netpol.targets does it for the CLI);
    # None: `focus` itself is the one name (a pod key, an external range or a workload label)
    focus_names: frozenset[str] | None = None

    def focus_set(self) -> frozenset[str] | None:
        if self.focus is None:
            return None
        return self.focus_names if self.focus_names is not None else frozenset((self.focus,))

    def pod_indexes(self) -> list[int]:
        pods = self.analysis.pods
        return [i for i, p in enumerate(pods) if not self.namespaces or p.namespace in self.namespaces]

    def pod_names(self) -> list[str]:
        pods = self.analysis.pods
        if self.by_workload:
            return sorted({self.label(pods[i].key) for i in self.pod_indexes()})
        return [pods[i].key for i in self.pod_indexes()]

    def label(self, name: str) -> str:
        """A pod's row name: itself, or its workload with --by workload; external ranges as they are."""
        if not self.by_workload:
            return name
        labels = self.__dict__.get("_labels")
        if labels is None:
            from netpol.targets import workload_label

            labels = {p.key: workload_label(p) for p in self.analysis.pods}
            object.__setattr__(self, "_labels", labels)
        return labels.get(name, name)

    def rows(self) -> Rows:
        cached = self.__dict__.get("_rows")
        if cached is None:
            cached = Rows(self.analysis.reachability, self.include_external)
            object.__setattr__(self, "_rows", cached)
        return cached

    def chosen_mask(self) -> np.ndarray:
        mask = np.zeros(len(self.analysis.pods), dtype=bool)
        mask[self.pod_indexes()] = True
        return mask

    def focus_ids(self) -> frozenset[int] | None:
        """The focused endpoints' ids (empty when no name is an endpoint: nothing matches)."""
        names = self.focus_set()
        if names is None:
            return None
        rows = self.rows()
        return frozenset(i for n in names if (i := rows.endpoint(n)) is not None)

    def pod_focus(self) -> frozenset[int] | None:
        """The focus as endpoint ids; with --by workload a workload label is no endpoint: applied after grouping."""
        focus = self.focus_ids()
        return None if self.by_workload and not focus else focus

    def row_filter(self) -> RowFilter:
        return RowFilter(self.chosen_mask(), self.include_external, self.direction, self.pod_focus())

    def pod_edges(self) -> Iterator[Edge]:
        """Allowed connections between different endpoints, per pod, sorted by (source, destination) name.

        A pod reaching itself is always allowed and not listed.
        """
        rows = self.rows()
        names, sets, marks = rows.names, rows.table.sets, rows.table.marks
        for src, dsts, ids in rows.rows(self.row_filter()):
            name = names[src]
            for d, c in zip(dsts.tolist(), ids.tolist(), strict=True):
                yield Edge(name, names[d], sets[c], marks[c])

    def edges(self) -> Iterator[Edge]:
        """Allowed connections; with --by workload, unions over the replicas (ports any replica pair allows; ports
        some replica pair allows only through a layer-7 filter are marked, with every such filter)."""
        if not self.by_workload:
            yield from self.pod_edges()
            return
        merged: dict[tuple[str, str], ConnectionSet] = {}
        marks: dict[tuple[str, str], L7Mark] = {}
        for e in self.pod_edges():  # unfocused: the focus may name a workload, checked after grouping
            if not self._focused(e.src, e.dst):
                continue
            key = (self.label(e.src), self.label(e.dst))
            merged[key] = merged[key].union(e.conn) if key in merged else e.conn
            if e.l7 is not None:
                marks[key] = e.l7.union(marks.get(key))
        for (s, d), cs in merged.items():
            yield Edge(s, d, cs, marks.get((s, d)))

    def _focused(self, src: str, dst: str) -> bool:
        names = self.focus_set()
        if names is None:
            return True
        s_hit = src in names or self.label(src) in names
        d_hit = dst in names or self.label(dst) in names
        if self.direction == "ingress":
            return d_hit
        if self.direction == "egress":
            return s_hit
        return s_hit or d_hit

    def sorted_edges(self) -> list[Edge]:
        if not self.by_workload:
            return list(self.pod_edges())  # already in order
        return sorted(self.edges(), key=lambda e: (e.src, e.dst))
