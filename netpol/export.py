"""The matrix in the formats users already know: txt, grid, csv, json, md, dot.

`txt` lines follow netpol-analyzer (`web/test => web/web1 : TCP 80`); `grid` is the upstream e2e truth
table (rows sources, columns destinations, `.` allowed, `X` denied). Output is sorted so that it is
byte-for-byte repeatable.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass

import networkx as nx

from netpol.pipeline import Analysis
from netpol.ports import ConnectionSet

FORMATS = ("txt", "grid", "csv", "json", "md", "dot", "graphml")
DIRECTIONS = ("ingress", "egress")


@dataclass(frozen=True, slots=True)
class Edge:
    src: str
    dst: str
    conn: ConnectionSet


@dataclass(frozen=True)
class MatrixView:
    """Which endpoints to show: pods of some namespaces (all when empty) and, optionally, external ranges."""

    analysis: Analysis
    namespaces: tuple[str, ...] = ()
    include_external: bool = True
    focus: str | None = None
    # ingress: only connections into the focus (or into the namespaces, from anywhere); egress: out of it.
    direction: str | None = None
    by_workload: bool = False  # aggregate replicas: `web/frontend[Deployment]`

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

    def _ends_ok(self, s_in: bool, d_in: bool) -> bool:
        if self.direction == "ingress":
            return d_in
        if self.direction == "egress":
            return s_in
        return s_in and d_in

    def pod_edges(self) -> Iterator[Edge]:
        """Allowed connections between different endpoints, per pod (a pod reaching itself is always allowed)."""
        r = self.analysis.reachability
        idx = self.pod_indexes()
        chosen = set(idx)
        pods = r.pods
        for s, d in r.allowed_pod_pairs():
            if s != d and self._ends_ok(s in chosen, d in chosen) and self._focused(pods[s].key, pods[d].key):
                yield Edge(pods[s].key, pods[d].key, r.connection(s, d))
        if not self.include_external:
            return
        if self.direction != "egress":
            for a, atom in enumerate(r.atoms):
                name = atom.render()
                for d in idx:
                    cs = r.ingress_from_atom(a, d)
                    if not cs.is_empty and self._focused(name, pods[d].key):
                        yield Edge(name, pods[d].key, cs)
        if self.direction != "ingress":
            for s in idx:
                for a, atom in enumerate(r.atoms):
                    cs = r.egress_to_atom(s, a)
                    if not cs.is_empty and self._focused(pods[s].key, atom.render()):
                        yield Edge(pods[s].key, atom.render(), cs)

    def edges(self) -> Iterator[Edge]:
        """Allowed connections; with --by workload, unions over the replicas (ports any replica pair allows)."""
        if not self.by_workload:
            yield from self.pod_edges()
            return
        merged: dict[tuple[str, str], ConnectionSet] = {}
        for e in self.pod_edges():
            key = (self.label(e.src), self.label(e.dst))
            merged[key] = merged[key].union(e.conn) if key in merged else e.conn
        for (s, d), cs in merged.items():
            yield Edge(s, d, cs)

    def _focused(self, src: str, dst: str) -> bool:
        if self.focus is None:
            return True
        s_hit = self.focus in (src, self.label(src))
        d_hit = self.focus in (dst, self.label(dst))
        if self.direction == "ingress":
            return d_hit
        if self.direction == "egress":
            return s_hit
        return s_hit or d_hit

    def sorted_edges(self) -> list[Edge]:
        return sorted(self.edges(), key=lambda e: (e.src, e.dst))


def render(view: MatrixView, fmt: str) -> str:
    match fmt:
        case "txt":
            return "".join(f"{e.src} => {e.dst} : {e.conn.render()}\n" for e in view.sorted_edges())
        case "csv":
            buf = io.StringIO()
            w = csv.writer(buf, lineterminator="\n")
            w.writerow(["src", "dst", "conn"])
            for e in view.sorted_edges():
                w.writerow([e.src, e.dst, e.conn.render()])
            return buf.getvalue()
        case "md":
            lines = ["| src | dst | conn |", "|-----|-----|------|"]
            lines += [f"| {e.src} | {e.dst} | {e.conn.render()} |" for e in view.sorted_edges()]
            return "\n".join(lines) + "\n"
        case "json":
            return json.dumps(matrix_json(view), indent=2) + "\n"
        case "grid":
            return grid(view)
        case "dot":
            return dot(view)
        case "graphml":
            return graphml(view)
        case _:
            raise ValueError(fmt)


def matrix_json(view: MatrixView) -> dict[str, object]:
    a = view.analysis
    idx = view.pod_indexes()
    pods = [a.pods[i] for i in idx]
    return {
        "pods": [
            {
                "name": p.key,
                "namespace": p.namespace,
                "pod": p.name,
                "node": p.node_name or None,
                "ip": p.pod_ip or None,
                "owner": p.owner.render() if p.owner else None,
                "labels": dict(p.labels),
            }
            for p in pods
        ],
        "pending": [
            {"name": p.key, "reason": p.reason}
            for p in a.pending
            if not view.namespaces or p.namespace in view.namespaces
        ],
        "external": [atom.render() for atom in a.reachability.atoms] if view.include_external else [],
        "connections": [
            {"src": e.src, "dst": e.dst, "conn": e.conn.to_json(), "text": e.conn.render()} for e in view.sorted_edges()
        ],
    }


def probe_pairs(view: MatrixView, protocol: str, port: int) -> list[tuple[str, str]]:
    """Every ordered pod pair (a pod and itself included: loopback is always allowed) where the probe passes."""
    r = view.analysis.reachability
    chosen = set(view.pod_indexes())
    pairs = [
        (r.pods[s].key, r.pods[d].key)
        for s, d in r.allowed_pod_pairs(protocol, port)
        if view._ends_ok(s in chosen, d in chosen) and view._focused(r.pods[s].key, r.pods[d].key)
    ]
    if view.by_workload:
        return sorted({(view.label(s), view.label(d)) for s, d in pairs})
    return pairs


def render_probe(view: MatrixView, fmt: str, protocol: str, port: int) -> str:
    pairs = probe_pairs(view, protocol, port)
    match fmt:
        case "json":
            return (
                json.dumps({"port": port, "protocol": protocol, "allowed": [list(p) for p in pairs]}, indent=2) + "\n"
            )
        case "grid":
            return grid(view, set(pairs), f"{protocol}/{port}")
        case "csv":
            return "src,dst\n" + "".join(f"{s},{d}\n" for s, d in pairs)
        case "md":
            return "| src | dst |\n|-----|-----|\n" + "".join(f"| {s} | {d} |\n" for s, d in pairs)
        case _:
            return "".join(f"{s} => {d} : {protocol} {port}\n" for s, d in pairs)


def grid(view: MatrixView, allowed: set[tuple[str, str]] | None = None, title: str = "") -> str:
    """Truth table: rows sources, columns destinations; column headers by index to stay narrow."""
    names = view.pod_names()
    if allowed is None:
        allowed = {(e.src, e.dst) for e in view.edges()} | {(n, n) for n in names}
    width = max((len(n) for n in names), default=4)
    out = []
    if title:
        out.append(f"# {title}")
    out.append(" " * width + " " + " ".join(f"{i:>2}" for i in range(len(names))))
    for n in names:
        cells = " ".join(f"{'.' if (n, m) in allowed else 'X':>2}" for m in names)
        out.append(f"{n:<{width}} {cells}")
    out.append("")
    out.extend(f"{i:>2} = {n}" for i, n in enumerate(names))
    return "\n".join(out) + "\n"


def _dot_id(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_networkx(view: MatrixView) -> nx.DiGraph:
    """The view as a networkx DiGraph with scalar attributes (GraphML-safe)."""
    g = nx.DiGraph()
    pods = {p.key: p for p in view.analysis.pods}
    for name in view.pod_names():
        p = pods.get(name)
        if p is not None:
            g.add_node(name, kind="pod", namespace=p.namespace, node=p.node_name, ip=p.pod_ip)
        else:
            g.add_node(name, kind="workload", namespace=name.split("/", 1)[0], node="", ip="")
    for e in view.sorted_edges():
        for end in (e.src, e.dst):
            if end not in g:
                g.add_node(end, kind="external" if end not in pods else "pod", namespace="", node="", ip="")
        g.add_edge(e.src, e.dst, conn=e.conn.render())
    return g


def graphml(view: MatrixView) -> str:
    return "\n".join(nx.generate_graphml(to_networkx(view))) + "\n"


def dot(view: MatrixView) -> str:
    """Graphviz: namespaces as clusters, external ranges as boxes, edges labelled with their ports."""
    edges = view.sorted_edges()
    names = view.pod_names()
    by_ns: dict[str, list[str]] = {}
    for n in names:
        by_ns.setdefault(n.split("/", 1)[0], []).append(n)
    lines = ["digraph netpol {", "  rankdir=LR;", "  node [shape=ellipse];"]
    for i, (ns, members) in enumerate(sorted(by_ns.items())):
        lines.append(f"  subgraph cluster_{i} {{")
        lines.append(f"    label={_dot_id(ns)};")
        lines.extend(f"    {_dot_id(m)} [label={_dot_id(m.split('/', 1)[1])}];" for m in members)
        lines.append("  }")
    externals = sorted({e.src for e in edges if e.src not in names} | {e.dst for e in edges if e.dst not in names})
    lines.extend(f"  {_dot_id(x)} [shape=box];" for x in externals)
    lines.extend(f"  {_dot_id(e.src)} -> {_dot_id(e.dst)} [label={_dot_id(e.conn.render())}];" for e in edges)
    lines.append("}")
    return "\n".join(lines) + "\n"
