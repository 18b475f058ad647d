"""Dependencies point one way (DESIGN.md "Data flow, one way"; issue 15): the model depends on nothing of ours
but errors; the scheduler on the model and errors only; the netpol core never on the scheduler or the UI
(only the composition root — cli.py and commands/ — wires them in). Every import is checked, including the
ones inside functions, so a lazy import cannot hide a cycle."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OURS = ("netpol", "scheduling", "tui")


def imports(path: Path) -> set[str]:
    return imports_of(path.read_text(encoding="utf-8"), ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1]))


def imports_of(text: str, package: str) -> set[str]:
    """Every first-party module a source imports (absolute names; relative imports resolved against `package`)."""
    tree = ast.parse(text)
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)  # `from netpol import workloads`
    return {m for m in out if m.split(".")[0] in OURS}


def allowed(module: str, rules: tuple[str, ...]) -> bool:
    return any(module == r or module.startswith(r + ".") for r in rules)


# (files, the first-party modules they may import)
CONTRACT: dict[str, tuple[str, ...]] = {
    "netpol/model": ("netpol.model", "netpol.errors"),
    "netpol/errors.py": (),
    "scheduling": ("scheduling", "netpol.model", "netpol.errors"),
    "netpol": ("netpol",),  # the core: never scheduling, never tui (but the composition root, below)
    "netpol/commands": ("netpol", "scheduling", "tui"),
    "netpol/cli.py": ("netpol", "scheduling"),
    "tui": ("tui", "netpol", "scheduling"),
}


def governing_rule(rel: str) -> str:
    """The most specific CONTRACT entry covering a file."""
    best = ""
    for key in CONTRACT:
        if (rel == key or rel.startswith(key.rstrip("/") + "/")) and len(key) > len(best):
            best = key
    return best


def files() -> list[Path]:
    return sorted(p for pkg in OURS for p in (ROOT / pkg).rglob("*.py"))


@pytest.mark.parametrize("path", files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_module_imports_only_what_its_package_may(path: Path) -> None:
    rel = path.relative_to(ROOT).as_posix()
    rule = governing_rule(rel)
    assert rule, f"{rel} is covered by no rule of the import contract"
    bad = sorted(m for m in imports(path) if not allowed(m, CONTRACT[rule]))
    assert bad == [], f"{rel} may import only {CONTRACT[rule]}"


def test_tui_is_imported_only_by_its_command() -> None:
    users = sorted(
        p.relative_to(ROOT).as_posix()
        for p in files()
        if not p.relative_to(ROOT).as_posix().startswith("tui/") and any(m.startswith("tui") for m in imports(p))
    )
    assert users == ["netpol/commands/tui.py"]


def test_the_contract_catches_a_backward_import() -> None:
    """The checker itself: a lazy import of netpol.workloads (or a relative one) in scheduling breaks the contract."""
    rules = CONTRACT[governing_rule("scheduling/probe.py")]
    lazy = imports_of("def f():\n    from netpol.workloads import expand_workloads\n", "scheduling")
    assert sorted(m for m in lazy if not allowed(m, rules)) == ["netpol.workloads", "netpol.workloads.expand_workloads"]
    assert allowed("netpol.model.objects", rules) and not allowed("netpol.ipam", rules)
    assert imports_of("from .. import framework\n", "scheduling.plugins") >= {"scheduling.framework"}
