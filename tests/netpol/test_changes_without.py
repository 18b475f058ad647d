"""`Reachability.changes_without` recomputes only the columns and rows the removed policy selects; it must
answer exactly as recomputing the whole tensors without that policy does (NP060, the redundant-policy
finding, stands on it)."""

from __future__ import annotations

import numpy as np
import pytest

from netpol.engine import Reachability
from netpol.manifests import load_paths, load_text
from netpol.pipeline import analyze
from tests.conftest import REAL_APPS
from tests.helpers import generate_cluster_module


def recomputed_whole(r: Reachability, k: int) -> bool:
    """Both sides over every endpoint pair, with and without policy number k (small clusters: whole blocks)."""
    every = range(r.eid_count)
    return any(
        not np.array_equal(r.side_block(d, every, every), r.side_block(d, every, every, without=k))
        for d in ("ingress", "egress")
    )


def _generated(pods: int, policies: int, seed: int) -> str:
    return generate_cluster_module().generate_yaml(pods, policies, seed)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_sliced_check_equals_whole_recomputation_on_generated_clusters(seed: int) -> None:
    r = analyze(load_text(_generated(300, 80, seed))).reachability
    answers = [r.changes_without(k) for k in range(len(r.policies))]
    assert answers == [recomputed_whole(r, k) for k in range(len(r.policies))]
    assert any(answers) and not all(answers)  # both verdicts occur


@pytest.mark.parametrize("app", sorted(p.name for p in REAL_APPS.iterdir() if p.is_dir()) if REAL_APPS.is_dir() else [])
def test_sliced_check_equals_whole_recomputation_on_real_apps(real_apps, app: str) -> None:  # noqa: ANN001
    r = analyze(load_paths([str(real_apps / app)])).reachability
    for k, cp in enumerate(r.policies):
        assert r.changes_without(k) == recomputed_whole(r, k), cp.key
