"""The graph formats of a matrix view: a networkx DiGraph (GraphML) and Graphviz dot.

Pods (or workloads) and external ranges are nodes, allowed connections are edges labelled with their
ports. This is the only module that imports networkx, and `export` imports it only for these formats, so
other outputs do not pay for it at start-up. The edges come from the view's rows (the engine's read-out).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import networkx as nx

if TYPE_CHECKING:
    from netpol.readout.view import Edge, MatrixView


def _dot_id(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_networkx(view: MatrixView, edges: list[Edge] | None = None) -> nx.DiGraph:
    """The view as a networkx DiGraph with scalar attributes (GraphML-safe); `edges`: instead of the view's
    (a `--port` probe's pairs)."""
    g: nx.DiGraph[str] = nx.DiGraph()
    pods = {p.key: p for p in view.analysis.pods}
    for name in view.pod_names():
        p = pods.get(name)
        if p is not None:
            g.add_node(name, kind="pod", namespace=p.namespace, node=p.node_name, ip=p.pod_ip)
        else:
            g.add_node(name, kind="workload", namespace=name.split("/", 1)[0], node="", ip="")
    for e in view.sorted_edges() if edges is None else edges:
        for end in (e.src, e.dst):
            if end not in g:
                g.add_node(end, kind="external" if end not in pods else "pod", namespace="", node="", ip="")
        g.add_edge(e.src, e.dst, conn=e.text)  # the ports, and their layer-7 filter when some go through one
    return g


def graphml(view: MatrixView, edges: list[Edge] | None = None) -> str:
    return "\n".join(nx.generate_graphml(to_networkx(view, edges))) + "\n"


# Above this many edges their port labels are `xlabel`s, placed after the layout: as `label`s each is a virtual
# node dot must rank, and on npg-ipblockstest (1,116 edges) that took 83 s of CPU against 12 s.
XLABEL_EDGES = 300
# Above this many edges dot takes minutes to hours (npg-ipblockstest-4: 72,178 edges): the file says so.
DOT_EDGES_NOTE = 5_000


def dot(view: MatrixView, edges: list[Edge] | None = None) -> str:
    """Graphviz: namespaces as clusters, external ranges as boxes, edges labelled with their ports.

    `newrank=true`: Graphviz 2.43 (Debian 12's) fails on edges between clusters with the old ranking
    ("trouble in init_rank", 9 of the real apps); the new one ranks the whole graph at once."""
    edges = view.sorted_edges() if edges is None else edges
    names = view.pod_names()
    label = "xlabel" if len(edges) > XLABEL_EDGES else "label"
    by_ns: dict[str, list[str]] = {}
    for n in names:
        by_ns.setdefault(n.split("/", 1)[0], []).append(n)
    lines = ["digraph netpol {", "  rankdir=LR;", "  newrank=true;", "  node [shape=ellipse];"]
    if len(edges) > DOT_EDGES_NOTE:
        lines.insert(
            0,
            f"// {len(edges):,} edges: Graphviz's dot lays out a few thousand in reasonable time; narrow the view "
            "with -n NS, --focus or --by workload, or use sfdp",
        )
    for i, (ns, members) in enumerate(sorted(by_ns.items())):
        lines.append(f"  subgraph cluster_{i} {{")
        lines.append(f"    label={_dot_id(ns)};")
        lines.extend(f"    {_dot_id(m)} [label={_dot_id(m.split('/', 1)[1])}];" for m in members)
        lines.append("  }")
    externals = sorted({e.src for e in edges if e.src not in names} | {e.dst for e in edges if e.dst not in names})
    lines.extend(f"  {_dot_id(x)} [shape=box];" for x in externals)
    lines.extend(f"  {_dot_id(e.src)} -> {_dot_id(e.dst)} [{label}={_dot_id(e.text)}];" for e in edges)
    lines.append("}")
    return "\n".join(lines) + "\n"
