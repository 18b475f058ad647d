"""Pod lookups the checks share: pods per namespace, pod lists as a finding names them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from weakref import WeakKeyDictionary

from netpol.engine import Reachability

_BY_NAMESPACE: WeakKeyDictionary[Reachability, dict[str, list[int]]] = WeakKeyDictionary()


def pods_by_namespace(r: Reachability) -> Mapping[str, list[int]]:
    """Pod indices per namespace, found once per engine: the redundancy check asks per policy (read only)."""
    out = _BY_NAMESPACE.get(r)
    if out is None:
        out = {}
        for i, p in enumerate(r.pods):
            out.setdefault(p.namespace, []).append(i)
        _BY_NAMESPACE[r] = out
    return out


def fmt_pods(r: Reachability, idx: Sequence[int], limit: int = 8) -> str:
    names = [r.pods[i].key for i in idx[:limit]]
    return ", ".join(names) + (f" and {len(idx) - limit} more" if len(idx) > limit else "")
