"""The reachability engine (interim door while the package takes shape; see reachability.py)."""

from netpol.engine.build import build_reachability
from netpol.engine.reachability import (
    BLOCK_BYTES,
    Box,
    CapacityError,
    Endpoint,
    EngineOptions,
    Reachability,
    available_memory,
    estimated_bytes,
    unresolved_named_ports,
)

__all__ = [
    "BLOCK_BYTES",
    "Box",
    "CapacityError",
    "Endpoint",
    "EngineOptions",
    "Reachability",
    "available_memory",
    "build_reachability",
    "estimated_bytes",
    "unresolved_named_ports",
]
