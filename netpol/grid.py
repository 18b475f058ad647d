"""`netpol matrix -o grid`: the upstream e2e truth table (rows sources, columns destinations, `.` allowed,
`X` denied), split from export.py so the layout has one home.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # export.py imports this module; the view is only read here
    from netpol.export import MatrixView


def grid(view: MatrixView, allowed: set[tuple[str, str]] | None = None, title: str = "") -> str:
    """Truth table: rows sources, columns destinations; column headers by index to stay narrow."""
    names = view.pod_names()
    if allowed is None and not view.by_workload and view.focus is None and view.direction is None:
        return fast_grid(view, names, title)
    if allowed is None:
        allowed = {(e.src, e.dst) for e in view.edges()} | {(n, n) for n in names}
    focus = view.focus_set()
    if focus is not None:  # the rows of workloads a focused pod belongs to are focused too
        focus = focus | {view.label(n) for n in focus}

    def shown(n: str, m: str) -> bool:
        """With --focus only the pairs involving it are computed; the others are left blank, not denied."""
        if focus is None:
            return True
        if view.direction == "ingress":
            return m in focus
        if view.direction == "egress":
            return n in focus
        return n in focus or m in focus

    width = max((len(n) for n in names), default=4)
    out = []
    if title:
        out.append(f"# {title}")
    out.append(" " * width + " " + " ".join(f"{i:>2}" for i in range(len(names))))
    for n in names:
        cells = " ".join(f"{('.' if (n, m) in allowed else 'X') if shown(n, m) else '':>2}" for m in names)
        out.append(f"{n:<{width}} {cells}".rstrip())
    out.append("")
    out.extend(f"{i:>2} = {n}" for i, n in enumerate(names))
    return "\n".join(out) + "\n"


def fast_grid(view: MatrixView, names: list[str], title: str, probe: tuple[str, int] | None = None) -> str:
    """The same table from the class matrix, one numpy row per source (10,000 pods: seconds, not minutes)."""
    r = view.analysis.reachability
    rows = view.rows()
    idx = np.array(view.pod_indexes(), dtype=np.int64)
    pc = rows.pc
    width = max((len(n) for n in names), default=4)
    out = [f"# {title}"] if title else []
    out.append(" " * width + " " + " ".join(f"{i:>2}" for i in range(len(names))))
    chosen = np.zeros(len(r.pods), dtype=bool)
    chosen[idx] = True
    dot_, x_ = ord("."), ord("X")
    for pos, s in enumerate(idx.tolist()):
        m = rows.class_ok(int(pc[s]), probe)[pc[idx]]
        m[pos] = True  # loopback
        if rows.host:
            m |= r.node_local_mask(s)[idx]
        buf = np.full(max(3 * len(idx) - 1, 0), ord(" "), dtype=np.uint8)
        buf[1::3] = np.where(m, dot_, x_)
        out.append(f"{names[pos]:<{width}} " + buf.tobytes().decode())
    out.append("")
    out.extend(f"{i:>2} = {n}" for i, n in enumerate(names))
    return "\n".join(out) + "\n"
