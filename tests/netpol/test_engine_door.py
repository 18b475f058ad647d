"""The engine has one door (issue 20): outside netpol/engine/, code imports engine things from `netpol.engine`
only — never a module inside it — and the door exports a closed list of names. Every import is checked, lazy ones
inside functions included (the same AST walk as tests/scheduling/test_import_contract.py)."""

from __future__ import annotations

import ast
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


# The compiled cluster's insides: the universe (read through `Reachability.pod_classes`, typed as the `PodClasses`
# Protocol so the type checker holds every other member back), the address space (`Reachability.atom_index`) and
# what the walk keeps. An attribute of one of these names read outside the engine is a reader reaching in.
INSIDE = {"universe", "ipspace", "tier_rules", "TierRules"}


def _attribute_reads(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        (node.lineno, node.attr)
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and (node.attr in INSIDE or (node.attr.startswith("_") and not node.attr.startswith("__") and _on_engine(node)))
    ]


def _on_engine(node: ast.Attribute) -> bool:
    """`r._x`, `rb._x`, `reach._x`, `self.r._x`, `….reachability._x`: a private attribute of a Reachability."""
    value = node.value
    name = value.attr if isinstance(value, ast.Attribute) else value.id if isinstance(value, ast.Name) else ""
    return name in {"r", "rb", "reach", "reachability"}


@pytest.mark.parametrize("path", _outside_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_nothing_outside_the_engine_reads_its_insides(path: Path) -> None:
    reads = _attribute_reads(path)
    assert not reads, f"{path.relative_to(ROOT)} reads the engine's insides: {reads}"


def test_the_insides_check_catches_a_reader_reaching_in(tmp_path: Path) -> None:
    probe = tmp_path / "reader.py"
    probe.write_text("def f(r):\n    return r.universe.pod_class, r._tier_rules, self.r._cell_eid\n")
    assert sorted(a for _, a in _attribute_reads(probe)) == ["_cell_eid", "_tier_rules", "universe"]
