"""Pod lookups the checks share: pods per namespace, pod lists as a finding names them."""

from __future__ import annotations

from collections.abc import Sequence

from netpol.engine import CompiledPolicy, Reachability
from netpol.model.objects import NetworkPolicy


def pods_by_namespace(r: Reachability) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for i, p in enumerate(r.pods):
        out.setdefault(p.namespace, []).append(i)
    return out


def fmt_pods(r: Reachability, idx: Sequence[int], limit: int = 8) -> str:
    names = [r.pods[i].key for i in idx[:limit]]
    return ", ".join(names) + (f" and {len(idx) - limit} more" if len(idx) > limit else "")


def network_policy(cp: CompiledPolicy) -> NetworkPolicy:
    """The Kubernetes NetworkPolicy a compiled policy came from (the NP0xx checks read NetworkPolicies only)."""
    assert isinstance(cp.source, NetworkPolicy), cp.key
    return cp.source


def network_policies(r: Reachability) -> list[CompiledPolicy]:
    """The compiled Kubernetes NetworkPolicies, in the engine's order."""
    return [cp for cp in r.policies if cp.kind == "NetworkPolicy"]
