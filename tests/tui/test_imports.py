"""The UI imports the core, never the other way round; CI commands never load Textual."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
IMPORTS_TUI = re.compile(r"^\s*(import\s+tui\b|from\s+tui(\.|\s))", re.MULTILINE)


def test_core_packages_never_import_tui() -> None:
    offenders = [
        str(path.relative_to(ROOT))
        for pkg in ("netpol", "scheduling")
        for path in sorted((ROOT / pkg).rglob("*.py"))
        if IMPORTS_TUI.search(path.read_text(encoding="utf-8"))
        and path.relative_to(ROOT).as_posix() != "netpol/commands/tui.py"
    ]
    assert offenders == []


def test_tui_command_imports_tui_only_inside_run() -> None:
    text = (ROOT / "netpol/commands/tui.py").read_text(encoding="utf-8")
    top_level = [line for line in text.splitlines() if IMPORTS_TUI.match(line) and not line.startswith(" ")]
    assert top_level == []


def test_cli_commands_do_not_load_textual() -> None:
    code = (
        "import sys, netpol.cli, netpol.commands.matrix, netpol.commands.tui\n"
        "netpol.cli.build_parser()\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'tui'))\n"
        "print(bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def _tui_imports(path: Path) -> set[str]:
    """Every `tui` module a file imports, wherever the import is (top level, `if TYPE_CHECKING:`, a function)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] == "tui"}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "tui":
            out.add(node.module)
            out |= {f"{node.module}.{a.name}" for a in node.names}  # `from tui.screens import pods`
    return out


def _module(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    return ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)


APP_MODULES = {"tui.app", "tui.navigation", "tui.editing"}  # the app and the parts it is made of


def test_screens_and_widgets_never_import_the_app() -> None:
    """Issue 20 item 6: screens typed against the concrete app and called its methods, so 13 UI files formed one
    import circle. Screens read the app through `tui.state.AppState` and post `tui.messages` requests; not even a
    type-checking import of the app is allowed back."""
    offenders = {
        _module(path): sorted(_tui_imports(path) & APP_MODULES)
        for folder in ("tui/screens", "tui/widgets")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if _tui_imports(path) & APP_MODULES
    }
    assert offenders == {}


def test_the_ui_modules_import_one_another_without_a_circle() -> None:
    """The whole `tui` package, every import counted (type-checking ones too): the graph has no cycle. A cycle is
    reported as the chain of modules that closes it."""
    files = {_module(path): path for path in sorted((ROOT / "tui").rglob("*.py"))}
    graph = {m: sorted(i for i in _tui_imports(path) if i in files and i != m) for m, path in files.items()}
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    cycles: list[list[str]] = []

    def visit(m: str, path: list[str]) -> None:
        state[m] = 1
        for n in graph[m]:
            if state.get(n) == 1:
                cycles.append(path[path.index(n) :] + [n] if n in path else [m, n])
            elif n not in state:
                visit(n, [*path, n])
        state[m] = 2

    for m in graph:
        if m not in state:
            visit(m, [m])
    assert cycles == []


def test_the_screens_are_told_nothing_by_method_call() -> None:
    """Screens change the app's state only by posting requests: no `self.reach.<method>(…)` call is left (reading
    the state, `self.reach.model`, is how they see it)."""
    calls = {
        _module(path): sorted(set(re.findall(r"self\.reach\.(\w+)\(", path.read_text(encoding="utf-8"))))
        for path in sorted((ROOT / "tui/screens").glob("*.py"))
    }
    assert {m: c for m, c in calls.items() if c and c != ["pod_changes"]} == {}  # pod_changes reads, it is a query
