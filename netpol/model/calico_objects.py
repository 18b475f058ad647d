"""Every Calico object of an input, as `Cluster.calico` holds it: a module of its own, so that reading a cluster
without Calico's policies does not import Calico's model (netpol/model/calico.py) at start-up."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from netpol.model.calico import CalicoPolicy, CalicoTier, NetworkSet, ServiceAccount


@dataclass(frozen=True, slots=True)
class CalicoObjects:
    """Every Calico object of the input, sorted (tiers by name, policies by key, sets by key)."""

    tiers: tuple[CalicoTier, ...] = ()
    policies: tuple[CalicoPolicy, ...] = ()
    network_sets: tuple[NetworkSet, ...] = ()
    service_accounts: tuple[ServiceAccount, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.policies)

    def tier(self, name: str) -> CalicoTier | None:
        for t in self.tiers:
            if t.name == name:
                return t
        from netpol.model.calico import BUILTIN_TIERS

        for t in BUILTIN_TIERS:
            if t.name == name:
                return t
        return None
