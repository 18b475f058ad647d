"""ImageLocality (upstream plugins/imagelocality): nodes already holding the pod's images score higher.

Each image present contributes size * (nodes holding it / all nodes) — spread damps images every node
has; the sum is clamped to [23MB, 1000MB x containers] and scaled to 0–100. Image names are compared as
written, with ":latest" added when untagged (normalizedImageName).
"""

from __future__ import annotations

import numpy as np

from scheduling.framework import MAX_NODE_SCORE, CycleState
from scheduling.podinfo import PodInfo
from scheduling.snapshot import Snapshot

NAME = "ImageLocality"
WEIGHT = 1
MB = 1024 * 1024
MIN_THRESHOLD = 23 * MB
MAX_CONTAINER_THRESHOLD = 1000 * MB


def normalized_image_name(name: str) -> str:
    if name.rfind(":") <= name.rfind("/"):
        return name + ":latest"
    return name


class ImageLocality:
    name = NAME
    weight = WEIGHT

    def score(self, state: CycleState, pod: PodInfo, snap: Snapshot, nodes: np.ndarray) -> np.ndarray | None:
        containers = pod.pod.init_containers + pod.pod.containers
        if not snap.images or not containers:
            return np.zeros(len(nodes), dtype=np.int64)
        total = np.zeros(snap.n, dtype=np.int64)
        max_threshold = MAX_CONTAINER_THRESHOLD * len(containers)
        for c in containers:
            entry = snap.images.get(normalized_image_name(c.image))
            if entry is not None:
                size, idx = entry
                # Clipped at the threshold as it sums (the score clips there anyway): sizeBytes up to 2^63-1
                # must not overflow int64.
                total[idx] = np.minimum(total[idx] + min(int(size * (len(idx) / snap.n)), max_threshold), max_threshold)
        clamped = np.clip(total[nodes], MIN_THRESHOLD, max_threshold)
        return MAX_NODE_SCORE * (clamped - MIN_THRESHOLD) // (max_threshold - MIN_THRESHOLD)

    def normalize(self, state: CycleState, raw: np.ndarray) -> np.ndarray:
        return raw
