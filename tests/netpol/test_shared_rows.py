"""Rows.rows reads a cell's row once for all its pods (Rows.shared_rows) and gives exactly the rows of the
per-pod definition: each source's own row (`_pod_row`, `_atom_row`), filtered and sorted by name."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from netpol.engine import Reachability
from netpol.manifests import load_paths
from netpol.pipeline import analyze
from netpol.readout.rows import RowFilter, Rows
from tests.conftest import SAMPLES
from tests.helpers import analyze_objects, pod, policy
from tests.netpol.test_engine_vs_reference import random_cluster


def per_pod_rows(rows: Rows, f: RowFilter) -> Iterator[tuple[int, list[int], list[int]]]:
    """The definition: every source's own row, no sharing."""
    chosen, everyone = f.pods, np.ones(rows.n, dtype=bool)
    fset = f.focus_set()
    atoms_in = f.direction != "ingress" or (fset is not None and any(x >= rows.n for x in fset))
    for e in rows.order:
        in_focus = fset is not None and e in fset
        if fset is not None and not in_focus and f.direction == "egress":
            continue
        if e < rows.n:
            dst_pods = rows._destinations(bool(chosen[e]), f.direction, chosen, everyone)
            if dst_pods is None:
                continue
            dsts, ids = rows._pod_row(e, dst_pods, f.include_external and atoms_in)
        else:
            if not f.include_external or (f.direction == "egress" and not in_focus):
                continue
            dsts, ids = rows._atom_row(e - rows.n, everyone if f.direction == "egress" else chosen)
        pairs = sorted(zip(dsts.tolist(), ids.tolist(), strict=True), key=lambda p: rows.names[p[0]])
        if fset is not None and (not in_focus or f.direction == "ingress"):
            pairs = [p for p in pairs if p[0] in fset]
        if pairs:
            yield e, [d for d, _ in pairs], [rows.table.sets[c] for _, c in pairs]  # type: ignore[misc]


def filters(reach: Reachability) -> Iterator[RowFilter]:
    n = len(reach.pods)
    everyone = np.ones(n, dtype=bool)
    first_ns = np.array([p.namespace == reach.pods[0].namespace for p in reach.pods]) if n else everyone
    for include_external in (True, False):
        yield RowFilter(everyone, include_external)
        yield RowFilter(first_ns, include_external)
        for direction in ("ingress", "egress"):
            yield RowFilter(first_ns, include_external, direction)
            for focus in (0, n, frozenset({0, n - 1})):  # a pod, the first external atom (if any), two pods
                yield RowFilter(everyone, include_external, direction, focus)
        yield RowFilter(everyone, include_external, None, 0)


def check_same(analysis) -> None:  # noqa: ANN001 - netpol.pipeline.Analysis
    for f in filters(analysis.reachability):
        shared = Rows(analysis.reachability, f.include_external)
        plain = Rows(analysis.reachability, f.include_external)
        got = [(e, d.tolist(), [shared.table.sets[c] for c in i.tolist()]) for e, d, i in shared.rows(f)]
        assert got == list(per_pod_rows(plain, f)), f


@pytest.mark.parametrize("stack", ["mixed", "dual"])
@pytest.mark.parametrize("seed", range(8))
def test_rows_list_every_allowed_pair_the_engine_answers_one_by_one(seed: int, stack: str) -> None:
    """Against the engine's per-pair read-out (itself checked against tests/netpol/reference.py): a pair is
    listed, once, exactly when some connection is allowed, with that connection; a pod never lists itself."""
    a = analyze_objects(*random_cluster(seed, stack))
    r = a.reachability
    rows = Rows(r, include_external=True)
    n = len(r.pods)
    got = {
        (e, d): rows.table.sets[c]
        for e, dsts, ids in rows.rows(RowFilter(np.ones(n, dtype=bool)))
        for d, c in zip(dsts.tolist(), ids.tolist(), strict=True)
    }
    want = {}
    for s in range(n):
        for d in range(n):
            if s != d and not (cs := r.connection(s, d)).is_empty:
                want[(s, d)] = cs
        for ai in range(r.A):
            if not (cs := r.egress_to_atom(s, ai)).is_empty:
                want[(s, n + ai)] = cs
            if not (cs := r.ingress_from_atom(ai, s)).is_empty:
                want[(n + ai, s)] = cs
    assert got == want


def test_seed_lab_rows_equal_per_pod_rows() -> None:
    check_same(analyze(load_paths([str(SAMPLES / "seed-lab")])))


def test_real_app_rows_equal_per_pod_rows(real_apps) -> None:  # noqa: ANN001
    for app in sorted(p for p in real_apps.iterdir() if p.is_dir()):
        check_same(analyze(load_paths([str(app)])))


@pytest.mark.parametrize("host_network", [False, True])
def test_replicas_share_a_row_but_never_list_themselves(host_network: bool) -> None:
    """Three replicas in one cell: each lists the two others, not itself; a hostNetwork pod on the node of
    one of them (node-local traffic, allowed whatever the policies) gives that replica a row of its own."""
    web = [
        {**pod("x", f"web-{i}", {"app": "web"}), "spec": {"nodeName": f"n{i}", "containers": [{"name": "c"}]}}
        for i in range(3)
    ]
    agent = {**pod("x", "agent"), "spec": {"hostNetwork": host_network, "nodeName": "n0", "containers": []}}
    allow = policy(
        "x",
        "web",
        {
            "podSelector": {"matchLabels": {"app": "web"}},
            "ingress": [{"from": [{"podSelector": {"matchLabels": {"app": "web"}}}]}],
        },
    )
    a = analyze_objects(*web, agent, allow)
    rows = Rows(a.reachability, include_external=False)
    keys = {p.key: i for i, p in enumerate(a.reachability.pods)}
    f = RowFilter(np.ones(len(keys), dtype=bool), include_external=False)
    listed = {rows.names[e]: [rows.names[d] for d in dsts.tolist()] for e, dsts, _ in rows.rows(f)}
    assert listed["x/web-1"] == ["x/agent", "x/web-0", "x/web-2"]  # egress is open; ingress only from app=web
    assert listed["x/web-2"] == ["x/agent", "x/web-0", "x/web-1"]
    assert listed["x/web-0"] == ["x/agent", "x/web-1", "x/web-2"]
    assert listed.get("x/agent") == (["x/web-0"] if host_network else None)  # its own node's pod, only
    shared = [key for e, key, *_ in rows.shared_rows(f) if rows.names[e].startswith("x/web")]
    # one cell, its row read once; web-0 exchanges node-local traffic with a hostNetwork agent: its own row
    assert shared[1] == shared[2] >= 0 and shared[0] == (-1 if host_network else shared[1])
    check_same(a)
