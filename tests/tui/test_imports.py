"""The UI imports the core, never the other way round; CI commands never load Textual."""

from __future__ import annotations

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


def test_tui_refuses_stdin() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "netpol.cli", "tui", "-"], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert out.returncode == 2
    assert "stdin" in out.stderr and "Traceback" not in out.stderr
