"""Will the compiled cluster fit? An estimate checked before compiling, so a cluster too large for this
machine is an error with the figures (exit 2), not a numpy MemoryError traceback halfway through."""

from __future__ import annotations

from netpol.errors import NetpolError

# Bytes one streamed block may take (per side); blocks of rows are sized to it.
BLOCK_BYTES = 64 << 20


class CapacityError(NetpolError):
    """The cluster's compiled form cannot fit in this machine's memory (exit 2, with the figures)."""


def available_memory() -> int | None:
    """Bytes this process may still allocate: MemAvailable, capped by RLIMIT_AS (None: unknown)."""
    avail = None
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    avail = int(line.split()[1]) * 1024
                    break
    except OSError:
        pass
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft != resource.RLIM_INFINITY:
            with open("/proc/self/statm") as f:
                used = int(f.read().split()[0]) * resource.getpagesize()
            avail = min(avail if avail is not None else soft, soft - used)
    except (ImportError, OSError, ValueError):
        pass
    return avail


def estimated_bytes(pods: int, classes: int, masks: int, words: int = 1) -> int:
    """What the engine holds: one bool mask over classes per policy and per rule, the per-pod tables, and up to
    three streamed blocks of ~BLOCK_BYTES per side (netpol/engine/ENGINE.md)."""
    return masks * classes + pods * 2048 + 6 * BLOCK_BYTES + classes * 64 * words


def check_capacity(pods: int, classes: int, masks: int, have: int | None) -> None:
    """Raise CapacityError when the estimate exceeds `have` bytes (None: unknown, never raises)."""
    need = estimated_bytes(pods, classes, masks)
    if have is not None and need > have:
        gib = 1 << 30
        raise CapacityError(
            f"this cluster cannot fit in memory here: {pods:,} pods in {classes:,} equivalence classes, "
            f"{masks:,} policies and rules; the engine needs about {need / gib:.1f} GiB and "
            f"{max(have, 0) / gib:.1f} GiB is available"
        )
