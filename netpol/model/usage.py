"""What `kubectl top node` shows, as a live read attaches it to the cluster (metrics.k8s.io)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class NodeUsage:
    """What `kubectl top node` shows: CPU in millicores and memory in bytes, per node, from metrics.k8s.io."""

    cpu_millis: Mapping[str, int] = field(default_factory=dict)
    memory_bytes: Mapping[str, int] = field(default_factory=dict)
    unavailable: str = ""  # why not, when the cluster serves no metrics (or refuses them)
