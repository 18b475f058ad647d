"""A cluster that cannot fit is an error with figures and exit code 2, never a traceback."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import netpol.engine.reachability
from netpol import cli

SEED = str(Path(__file__).resolve().parents[2] / "samples" / "seed-lab")


def test_too_large_for_the_memory_says_pods_classes_and_estimate(monkeypatch, capsys) -> None:  # noqa: ANN001
    monkeypatch.setattr(netpol.engine.reachability, "available_memory", lambda: 1 << 20)
    assert cli.main(["matrix", SEED, "-o", "json"]) == 2
    err = capsys.readouterr().err
    assert "cannot fit in memory" in err and "4 pods in 4 equivalence classes" in err and "GiB" in err
    assert "Traceback" not in err


def test_numpy_array_memory_error_at_the_edge_is_exit_2(monkeypatch, capsys) -> None:  # noqa: ANN001
    from numpy._core._exceptions import _ArrayMemoryError

    def boom(*_a, **_k):  # noqa: ANN002, ANN003, ANN202
        raise _ArrayMemoryError((36001, 36628, 1), np.dtype(np.uint64))

    monkeypatch.setattr(netpol.engine.Reachability, "class_block", boom)
    assert cli.main(["matrix", SEED, "-o", "json"]) == 2
    err = capsys.readouterr().err
    assert "out of memory" in err and "36001" in err and "Traceback" not in err


@pytest.mark.parametrize("pods,classes,masks", [(100_000, 30_000, 20_000)])
def test_estimate_grows_with_classes_times_masks(pods: int, classes: int, masks: int) -> None:
    small = netpol.engine.estimated_bytes(pods, classes, masks)
    assert netpol.engine.estimated_bytes(pods, classes * 2, masks) > small
    assert small < 4 << 30  # 100k pods / 10k policies stays under the 4 GiB target's order
