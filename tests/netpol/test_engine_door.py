"""The engine has one door (issue 20): outside netpol/engine/, code imports engine things from `netpol.engine`
only — never a module inside it — and the door exports a closed list of names. Every import is checked, lazy ones
inside functions included (the same AST walk as tests/scheduling/test_import_contract.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

import netpol.engine
from tests.scheduling.test_import_contract import ROOT, imports

PRODUCT = ("netpol", "tui", "scheduling", "benchmarks")

# What outside code may use; adding a name here is a decision about the engine's face, not a convenience.
FACE = {
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
}


def _outside_files() -> list[Path]:
    out = []
    for top in PRODUCT:
        for path in sorted((ROOT / top).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if not rel.startswith("netpol/engine/"):
                out.append(path)
    return out


@pytest.mark.parametrize("path", _outside_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_nothing_outside_the_engine_imports_a_module_inside_it(path: Path) -> None:
    deep = sorted(
        m for m in imports(path) if m.startswith("netpol.engine.") and m.removeprefix("netpol.engine.") not in FACE
    )
    assert not deep, f"{path.relative_to(ROOT)} reaches inside the engine: {deep}; import from netpol.engine"


def test_the_door_exports_exactly_its_face() -> None:
    assert set(netpol.engine.__all__) == FACE
    for name in FACE:
        assert hasattr(netpol.engine, name), name
