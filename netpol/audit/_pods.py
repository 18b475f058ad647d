"""Pod lookups the checks share: pods per namespace, pod lists as a finding names them."""

from __future__ import annotations

from collections.abc import Sequence

from netpol.engine import Reachability


def pods_by_namespace(r: Reachability) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for i, p in enumerate(r.pods):
        out.setdefault(p.namespace, []).append(i)
    return out


def fmt_pods(r: Reachability, idx: Sequence[int], limit: int = 8) -> str:
    names = [r.pods[i].key for i in idx[:limit]]
    return ", ".join(names) + (f" and {len(idx) - limit} more" if len(idx) > limit else "")
