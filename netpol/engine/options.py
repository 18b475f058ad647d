"""How the engine reads what the API leaves to the network plugin: choices a user makes, with upstream defaults."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

CiliumEnforcement = Literal["default", "always", "never"]
"""Cilium's `policyEnforcementMode` (docs.cilium.io, "Policy Enforcement Modes"): `default` isolates an endpoint
in a direction once a policy with rules for it selects it; `always` isolates every endpoint; `never` enforces
no policy."""


@dataclass(frozen=True, slots=True)
class EngineOptions:
    # The upstream e2e suite expects ipBlock to match pod IPs; some CNIs (those that SNAT or evaluate
    # ipBlock only for cluster-external traffic) differ. Default: upstream behaviour.
    ipblock_matches_pods: bool = True
    # Compute blocks over cells, classes no rule tells apart (netpol/engine/cells.py); False only to check that
    # collapsing changes nothing (tests compare both).
    collapse_classes: bool = True
    cilium_enforcement: CiliumEnforcement = "default"
