"""`netpol diff` compares the two matrices row by row (netpol/diff.py); its pod-to-pod changes equal the
pair-by-pair comparison of the engines' own read-out (`Reachability.connection`) on random clusters, with
policies removed, pods removed and pods added between the two versions."""

from __future__ import annotations

import random

import pytest

from netpol.diff import NONE, diff
from netpol.ports import ConnectionSet
from tests.helpers import analyze_objects
from tests.netpol.test_engine_vs_reference import random_cluster


def _versions(seed: int) -> tuple[list[dict], list[dict]]:
    old = random_cluster(seed)
    rng = random.Random(seed)
    new = [o for o in old if not (o["kind"] == "NetworkPolicy" and rng.random() < 0.4)]
    pods = [o for o in new if o["kind"] == "Pod"]
    if len(pods) > 2:
        new.remove(rng.choice(pods))
    extra = dict(rng.choice(pods))
    extra["metadata"] = {**extra["metadata"], "name": "added-pod"}
    new.append(extra)  # same labels and address as another pod: a new pod, and classes shared across versions
    return old, new


def _pairs(a) -> dict[tuple[str, str], ConnectionSet]:  # noqa: ANN001
    r = a.reachability
    return {(p.key, q.key): r.connection(i, j) for i, p in enumerate(r.pods) for j, q in enumerate(r.pods) if i != j}


@pytest.mark.parametrize("seed", range(25))
def test_row_by_row_diff_equals_the_pair_by_pair_comparison(seed: int) -> None:
    old_objs, new_objs = _versions(seed)
    old, new = analyze_objects(*old_objs), analyze_objects(*new_objs)
    po, pn = _pairs(old), _pairs(new)
    want = {
        (s, d, po.get((s, d), NONE), pn.get((s, d), NONE))
        for s, d in set(po) | set(pn)
        if po.get((s, d), NONE) != pn.get((s, d), NONE)
    }
    keys = {p.key for p in old.reachability.pods} | {p.key for p in new.reachability.pods}
    report = diff(old, new)
    got = [(c.src, c.dst, c.old, c.new) for c in report.changes if c.src in keys and c.dst in keys]
    assert len(got) == len(set(got))
    assert set(got) == want
    assert report.changes == sorted(report.changes, key=lambda c: (c.src, c.dst))
