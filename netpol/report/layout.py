"""The graph drawing: an inline SVG laid out here (no JavaScript library), grouped by namespace.

Up to 300 pods the nodes are pods; above that workloads (up to 300), above that namespaces. Groups sit on
a large circle, their members on a small one; an arrow is an allowed connection (a pod reaching itself
is not drawn). When the drawing would hold more than MAX_EDGES arrows, the arrows between groups are
merged into one per namespace pair, labelled with the number of connections it stands for, and when even
those exceed MAX_MERGED the heaviest are drawn and the page says how many were left out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

import numpy as np

MAX_NODES = 300
MAX_EDGES = 2500
MAX_MERGED = 600  # merged arrows drawn at most (the heaviest): more is a hairball nobody reads


@dataclass(frozen=True)
class Drawing:
    unit: str  # "pod" | "workload" | "namespace"
    svg: str
    nodes: int
    edges: int
    merged: bool  # arrows merged per namespace pair
    dropped: int = 0  # merged arrows left out (the lightest), when even those exceed MAX_EDGES


def choose_unit(pods: int, workloads: int) -> str:
    if pods <= MAX_NODES:
        return "pod"
    if workloads <= MAX_NODES:
        return "workload"
    return "namespace"


def draw(labels: Sequence[str], groups: Sequence[str], adjacency: np.ndarray, unit: str) -> Drawing:
    """labels[i] in group groups[i]; adjacency[i, j] = number of allowed (pod) connections i → j."""
    n = len(labels)
    if n == 0:
        svg = (
            '<svg xmlns="http://www.w3.org/2000/svg" id="graph-svg" viewBox="0 0 300 40" width="300" height="40" '
            'role="img" aria-label="empty graph"><text x="0" y="24">no running pods</text></svg>'
        )
        return Drawing(unit, svg, 0, 0, False)
    group_names = sorted(set(groups))
    members: dict[str, list[int]] = {g: [] for g in group_names}
    for i, g in enumerate(groups):
        members[g].append(i)
    # group radius grows with its member count; the big circle's radius with the sum of group diameters
    spacing = 48.0 if n <= 80 else 30.0  # arc length per member: labelled drawings need more room
    radius = {g: max(40.0, spacing * len(m) / (2 * math.pi)) for g, m in members.items()}
    gap = 160.0 if n <= 80 else 40.0  # room for the labels between groups
    ring = {g: radius[g] + 22 for g in group_names}
    if len(group_names) == 1:
        centers = {group_names[0]: (0.0, 0.0)}
    else:
        # angles in proportion to each group's width; the big radius is the smallest that keeps every
        # pair of neighbours apart (chord >= both rings + gap)
        widths = [2 * ring[g] + gap for g in group_names]
        total = sum(widths)
        angles, acc = [], -math.pi / 2
        for wdt in widths:
            angles.append(acc + math.pi * wdt / total)
            acc += 2 * math.pi * wdt / total
        big = 0.0
        for k, g in enumerate(group_names):
            nxt = group_names[(k + 1) % len(group_names)]
            theta = (angles[(k + 1) % len(angles)] - angles[k]) % (2 * math.pi)
            chord = 2 * math.sin(min(theta, 2 * math.pi - theta) / 2) or 1e-9
            big = max(big, (ring[g] + ring[nxt] + gap) / chord)
        centers = {g: (big * math.cos(a), big * math.sin(a)) for g, a in zip(group_names, angles, strict=True)}
    pos = np.zeros((n, 2))
    outward = np.zeros(n)  # the angle a node's label points to (away from its group's centre)
    for g, m in members.items():
        cx, cy = centers[g]
        for k, i in enumerate(m):
            if len(m) == 1:
                pos[i] = (cx, cy)
            else:
                a = 2 * math.pi * k / len(m) - math.pi / 2
                pos[i] = (cx + radius[g] * math.cos(a), cy + radius[g] * math.sin(a))
                outward[i] = a
    pad = 250 if n <= 80 else 60  # labels stick out of the rings by up to about 240 px
    xs = [c[0] for c in centers.values()]
    ys = [c[1] for c in centers.values()]
    rmax = max(radius.values(), default=20)
    x0, y0 = min(xs) - rmax - pad, min(ys) - rmax - pad
    w, h = max(xs) - min(xs) + 2 * (rmax + pad), max(ys) - min(ys) + 2 * (rmax + pad)
    adj = adjacency.copy()
    np.fill_diagonal(adj, 0)
    src, dst = np.nonzero(adj)
    merged = len(src) > MAX_EDGES
    dropped = 0
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" id="graph-svg" viewBox="{x0:.0f} {y0:.0f} {w:.0f} {h:.0f}" '
        f'width="{w:.0f}" height="{h:.0f}" '
        f'role="img" aria-label="{unit} graph grouped by namespace">',
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" '
        'orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" class="arrowhead"/></marker></defs>',
    ]
    for g in group_names:
        cx, cy = centers[g]
        parts.append(
            f'<g class="ns-group"><circle cx="{cx:.1f}" cy="{cy:.1f}" r="{radius[g] + 22:.1f}" class="ns-ring"/>'
            f'<text x="{cx:.1f}" y="{cy - radius[g] - 28:.1f}" class="ns-label">{escape(g)}</text></g>'
        )
    parts.append('<g class="edges">')
    if merged:
        gi = {g: k for k, g in enumerate(group_names)}
        code = np.asarray([gi[g] for g in groups])
        G = len(group_names)
        flows = np.zeros((G, G), dtype=np.int64)
        np.add.at(flows, (code[src], code[dst]), adj[src, dst])
        pairs = sorted(zip(*np.nonzero(flows), strict=True), key=lambda ab: (-flows[ab], ab))
        dropped = max(0, len(pairs) - MAX_MERGED)
        for a, b in sorted(pairs[:MAX_MERGED]):
            (x1, y1), (x2, y2) = centers[group_names[a]], centers[group_names[b]]
            label = f"{group_names[a]} → {group_names[b]}: {flows[a, b]} connections"
            if a == b:
                r = radius[group_names[a]]
                parts.append(
                    f'<circle cx="{x1:.1f}" cy="{y1:.1f}" r="{r * 0.6:.1f}" class="edge self">'
                    f"<title>{escape(label)}</title></circle>"
                )
                continue
            parts.append(_line(x1, y1, x2, y2, 20, label, "edge merged"))
        edges = min(len(pairs), MAX_MERGED)
    else:
        for i, j in zip(src.tolist(), dst.tolist(), strict=True):
            (x1, y1), (x2, y2) = pos[i], pos[j]
            parts.append(_line(x1, y1, x2, y2, 6, f"{labels[i]} → {labels[j]}", "edge"))
        edges = len(src)
    parts.append('</g><g class="nodes">')
    small = n <= 80
    for i, name in enumerate(labels):
        x, y = pos[i]
        short = name.split("/", 1)[-1]
        text = ""
        if small:
            c, s = math.cos(outward[i]), math.sin(outward[i])
            anchor = "start" if c >= -1e-9 else "end"
            text = f'<text x="{x + 9 * c:.1f}" y="{y + 9 * s + 3:.1f}" text-anchor="{anchor}">{escape(short)}</text>'
        parts.append(
            f'<g class="node" data-name="{escape(name)}"><circle cx="{x:.1f}" cy="{y:.1f}" r="6"/>'
            f"<title>{escape(name)}</title>{text}</g>"
        )
    parts.append("</g></svg>")
    return Drawing(unit, "".join(parts), n, edges, merged, dropped)


def _line(x1: float, y1: float, x2: float, y2: float, gap: float, title: str, cls: str) -> str:
    """A straight arrow from (x1, y1) to (x2, y2), shortened by `gap` at the end so the head shows."""
    dx, dy = x2 - x1, y2 - y1
    dist = math.hypot(dx, dy) or 1.0
    ex, ey = x2 - dx / dist * gap, y2 - dy / dist * gap
    return (
        f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{ex:.1f}" y2="{ey:.1f}" class="{cls}" marker-end="url(#arrow)">'
        f"<title>{escape(title)}</title></line>"
    )
