"""Collapsing classes no rule tells apart (netpol/engine/cells.py) changes no verdict and no explanation.

The same clusters are analysed twice, with cells (the default) and with one cell per class
(`EngineOptions(collapse_classes=False)`), and every reader is compared: each endpoint pair's bits and its
`explain` text, each pod's matrix line both ways, the export rows, a port probe, what-if masks
(`side_block(without=…)`, `changes_without`) and the compact document once expanded.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from netpol.engine import EngineOptions, Reachability
from netpol.explain import explain_pair
from netpol.manifests import load_paths, load_text
from netpol.model.cluster import Cluster
from netpol.pipeline import Analysis, analyze
from netpol.readout.compact import compact_document, expand
from netpol.readout.rows import RowFilter, Rows
from tests.helpers import endpoint_of, generate_cluster_module

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def _both(cluster: Cluster) -> tuple[Analysis, Analysis]:
    return analyze(cluster, None, EngineOptions()), analyze(cluster, None, EngineOptions(collapse_classes=False))


def _rows(r: Reachability, probe: tuple[str, int] | None = None) -> list[tuple[int, list[int], list[str]]]:
    rows = Rows(r)
    if probe is not None:
        every = np.ones(len(r.pods), dtype=bool)
        return [(s, d.tolist(), []) for s, d in rows.probe_rows(every, *probe, None, None)]
    f = RowFilter(np.ones(len(r.pods), dtype=bool))
    return [(s, d.tolist(), [rows.table.sets[c].render() for c in ids.tolist()]) for s, d, ids in rows.rows(f)]


def _assert_same(cells: Analysis, plain: Analysis) -> None:
    r, q = cells.reachability, plain.reachability
    assert q.K == q.C and r.C == q.C
    n = len(r.pods)
    ends = range(n + len(r.atoms))
    for s in ends:
        for d in ends:
            if s >= n and d >= n:
                continue
            a, b = endpoint_of(r, s), endpoint_of(r, d)
            assert np.array_equal(r.endpoint_bits(a, b), q.endpoint_bits(a, b)), (s, d)
            if s != d:
                assert explain_pair(cells, a, b).lines() == explain_pair(plain, a, b).lines(), (s, d)
    for p in range(n):
        for direction in ("in", "out"):
            for x, y in zip(r.pod_line(p, direction), q.pod_line(p, direction), strict=True):
                assert np.array_equal(x, y), (p, direction)
    for a in range(len(r.atoms)):
        for direction in ("in", "out"):
            assert np.array_equal(r.atom_line(a, direction), q.atom_line(a, direction))
    assert _rows(r) == _rows(q)
    assert _rows(r, ("TCP", 80)) == _rows(q, ("TCP", 80))
    every = range(r.eid_count)
    for k in range(len(r.policies)):
        for direction in ("ingress", "egress"):
            assert np.array_equal(
                r.side_block(direction, every, every, without=k), q.side_block(direction, every, every, without=k)
            )
        assert r.changes_without(k) == q.changes_without(k)
    head = {"pods": [{"name": p.key} for p in r.pods], "pending": [], "external": [x.render() for x in r.atoms]}
    for probe in (None, ("TCP", 80)):
        assert expand(compact_document(r, head, probe)) == expand(compact_document(q, head, probe))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_cells_change_no_verdict_and_no_explanation_on_generated_clusters(seed: int) -> None:
    cells, plain = _both(load_text(generate_cluster_module().generate_yaml(60, 20, seed)))
    assert cells.reachability.K < cells.reachability.C  # something was collapsed: the comparison means something
    _assert_same(cells, plain)


def test_cells_change_nothing_under_admin_tiers(real_apps) -> None:  # noqa: ANN001
    cells, plain = _both(load_paths([str(real_apps / "npg-anp-demo")]))
    _assert_same(cells, plain)


def test_cells_change_nothing_in_a_dual_stack_cluster() -> None:
    cells, plain = _both(load_paths([str(SAMPLES / "dual-stack")]))
    assert len(cells.reachability.universe.families) == 2
    _assert_same(cells, plain)


@pytest.mark.parametrize("batch", [1, 7, 1 << 20])
def test_classes_share_a_cell_exactly_when_their_memberships_coincide(
    monkeypatch: pytest.MonkeyPatch, batch: int
) -> None:
    """The cell partition's definition (netpol/engine/cells.py), checked against the plain grouping of classes by
    the set of features they belong to; memberships are hashed in batches, and the batch size changes no cell."""
    from netpol.engine import cells

    monkeypatch.setattr(cells, "_BATCH", batch)
    rng = np.random.default_rng(5)
    classes = 300
    features = [np.unique(rng.choice(classes, size=rng.integers(0, 40))) for _ in range(60)]
    features += [np.arange(0, classes, 50), np.array([], dtype=np.int64)]
    cell_of, first = cells.cell_partition(classes, iter(features))
    member_of: list[frozenset[int]] = [
        frozenset(f for f, cls in enumerate(features) if c in set(cls.tolist())) for c in range(classes)
    ]
    for a in range(classes):
        for b in range(a + 1, classes):
            assert (cell_of[a] == cell_of[b]) == (member_of[a] == member_of[b]), (a, b)
    # cells are numbered by their least class, and `first` lists those classes in order
    least = sorted({min(c for c in range(classes) if member_of[c] == m) for m in set(member_of)})
    assert first.tolist() == least
    assert [int(cell_of[c]) for c in least] == list(range(len(least)))
