"""Helpers several plugins share (upstream pkg/scheduler/framework/plugins/helper)."""

from __future__ import annotations

import numpy as np

from scheduling.framework import MAX_NODE_SCORE


def default_normalize_score(scores: np.ndarray, *, reverse: bool, max_priority: int = MAX_NODE_SCORE) -> np.ndarray:
    """helper.DefaultNormalizeScore: scale to 0..max by the highest score (integer division), optionally reversed.

    When every score is 0 a reversed plugin gives every node the maximum (nothing to avoid anywhere).
    """
    scores = scores.astype(np.int64)
    top = int(scores.max()) if scores.size else 0
    if top == 0:
        return np.full(scores.shape, max_priority if reverse else 0, dtype=np.int64)
    out = max_priority * scores // top
    return max_priority - out if reverse else out
