"""The reachability engine's one door: everything outside netpol/engine/ imports from here, nothing deeper
(tests/netpol/test_engine_door.py checks it).

- Build: `build_reachability(cluster, options)` → `Reachability`, the compiled cluster; `EngineOptions`.
- The pods' equivalence classes, read-only: `Reachability.pod_classes` (`PodClasses`), the one view of the
  engine's universe outside code reads.
- Endpoints: `Endpoint` (a running pod, or an external address range: an IP atom).
- The pod-level read-out, loopback and node-local traffic applied (`Reachability.endpoint_bits`, `connection`,
  `pod_line`, `atom_line`) and the streamed blocks the matrix writers read (`stream_cell_blocks`, …); the
  exceptions' one rule (`Reachability.exception`, `Exception_`) and, for readers expanding class blocks to pods,
  the pairs no class block gives with their ports (`Reachability.pod_overrides`).
- Verdicts with their reasons: `verdict` / `side_verdict` and what they hold (`Verdict`, `SideVerdict`,
  `RuleHit`, `Candidate`, `PeerMatch`, `TierEnd`), read from the same evaluation as the matrix.
- The compiled form, read-only (`CompiledPolicy`, `CompiledRule`, `CompiledPeer`, `PeerPart`, `Tier`), for the
  checks that read policies (audit) and the UI's lists.

How the package is built and how a policy kind plugs in: netpol/engine/ENGINE.md.
"""

from netpol.engine.build import build_reachability
from netpol.engine.capacity import BLOCK_BYTES, CapacityError, available_memory, estimated_bytes
from netpol.engine.compile.ipspace import IPAtom
from netpol.engine.endpoints import Endpoint, Exception_
from netpol.engine.options import CiliumEnforcement, EngineOptions
from netpol.engine.podclasses import PodClasses
from netpol.engine.provenance import (
    Candidate,
    PeerMatch,
    RuleHit,
    SideVerdict,
    TierEnd,
    Verdict,
    common_families,
    egress_rules_reaching,
    side_verdict,
    verdict,
)
from netpol.engine.reachability import Reachability
from netpol.engine.reasons import unresolved_named_ports
from netpol.engine.tiers import (
    ADMIN_TIER,
    BASELINE_TIER,
    DEFAULT_TIER,
    Action,
    CompiledPeer,
    CompiledPolicy,
    CompiledRule,
    PeerPart,
    PolicyObject,
    Tier,
)

__all__ = [
    "ADMIN_TIER",
    "BASELINE_TIER",
    "BLOCK_BYTES",
    "DEFAULT_TIER",
    "Action",
    "CapacityError",
    "Candidate",
    "CiliumEnforcement",
    "CompiledPeer",
    "CompiledPolicy",
    "CompiledRule",
    "Endpoint",
    "EngineOptions",
    "Exception_",
    "IPAtom",
    "PeerMatch",
    "PeerPart",
    "PodClasses",
    "PolicyObject",
    "Reachability",
    "RuleHit",
    "SideVerdict",
    "Tier",
    "TierEnd",
    "Verdict",
    "available_memory",
    "build_reachability",
    "common_families",
    "egress_rules_reaching",
    "estimated_bytes",
    "side_verdict",
    "unresolved_named_ports",
    "verdict",
]
