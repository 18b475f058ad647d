"""The real app in a real terminal: `netpol tui` under tmux, keys sent in one burst, the screen read back.

Pilot delivers keys one at a time and waits for the app to go idle between them; a terminal does not. This is
where a pasted or fast-typed `:nodes⏎` once ran `e`xport and Enter on the pods view (netpol-pods.txt written).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "samples" / "seed-lab"
DEADLINE = 60.0  # seconds for the screen to show what is awaited (a loaded CI machine starts Python slowly)

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (.ci/run installs it)")


class Terminal:
    """One tmux server (its own socket) running one command in an 80×24 window."""

    def __init__(self, cwd: Path, *command: str) -> None:
        self.socket = f"netpol-test-{uuid.uuid4().hex[:8]}"
        env = {**os.environ, "PYTHONPATH": str(ROOT), "TERM": "xterm-256color"}
        env.pop("TMUX", None)
        self.env = env
        self._tmux("new-session", "-d", "-x", "80", "-y", "24", "-c", str(cwd), *command)

    def _tmux(self, *args: str) -> str:
        return subprocess.run(
            ["tmux", "-L", self.socket, *args], env=self.env, capture_output=True, text=True, check=True
        ).stdout

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p")

    def send(self, *keys: str) -> None:
        """One send-keys call: tmux writes the keys to the terminal in one go, as a paste would."""
        self._tmux("send-keys", *keys)

    def wait_for(self, ready: Callable[[str], bool], what: str) -> str:
        """The screen once `ready(screen)` holds; fails with the last screen after DEADLINE seconds."""
        end = time.monotonic() + DEADLINE
        text = ""
        while time.monotonic() < end:
            text = self.screen()
            if ready(text):
                return text
            time.sleep(0.1)
        raise AssertionError(f"screen never showed {what}:\n{text}")

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], env=self.env, capture_output=True)


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Terminal]:
    term = Terminal(tmp_path, sys.executable, "-m", "netpol.cli", "tui", str(SEED))
    try:
        term.wait_for(lambda s: "pods (" in s and "web1" in s, "the loaded pods view")
        yield term
    finally:
        term.close()


def test_a_command_sent_in_one_burst_runs_only_that_command(terminal: Terminal, tmp_path: Path) -> None:
    terminal.send(":nodes", "Enter")
    screen = terminal.wait_for(lambda s: "netpol · nodes" in s, "the nodes view")
    assert "worker31.cyh.cloud" in screen
    assert list(tmp_path.iterdir()) == []  # no export ran (it writes netpol-pods.txt in the working directory)


def test_the_prompt_shows_what_is_typed_above_the_key_bar(terminal: Terminal) -> None:
    terminal.send(":nod")
    screen = terminal.wait_for(lambda s: ": nod" in s or ":nod" in s, "the typed command")
    lines = screen.rstrip("\n").split("\n")
    typed = next(k for k, line in enumerate(lines) if ":nod" in line.replace(" ", "")[:6])
    assert typed < len(lines) - 1 and "esc cancel" in lines[typed]
    terminal.send("Escape")
    terminal.wait_for(lambda s: ":nod" not in s.replace(" ", ""), "the prompt closed")


def test_export_asks_first_and_enter_writes_nothing(terminal: Terminal, tmp_path: Path) -> None:
    terminal.send("e", "Enter")
    terminal.wait_for(lambda s: "nothing written" in s, "the cancelled export")
    assert list(tmp_path.iterdir()) == []
    terminal.send("e")
    screen = terminal.wait_for(lambda s: "Write the pods view to" in s and "y write" in s, "the dialog")
    flat = "".join(line.strip(" │") for line in screen.split("\n"))  # the path may wrap in the dialog
    assert str(tmp_path / "netpol-pods.txt") in flat
    terminal.send("y")
    terminal.wait_for(lambda s: "wrote" in s, "the export done")
    assert [p.name for p in tmp_path.iterdir()] == ["netpol-pods.txt"]


def test_keys_after_enter_in_the_same_burst_do_not_change_the_command(terminal: Terminal) -> None:
    """`:nodes⏎P` in one write: Input's Enter binding ran only after `P` was typed into the prompt, so the
    command became `:nodesp` (unknown) and nothing ran. Enter now submits what was typed before it."""
    terminal.send(":nodes", "Enter", "P")
    screen = terminal.wait_for(lambda s: "netpol · nodes" in s, "the nodes view")
    assert "unknown command" not in _flat(screen), screen
    terminal.send(":")  # a fresh prompt is empty (its placeholder shows): the dropped `P` left nothing behind
    terminal.wait_for(lambda s: "enter run" in s and "pods nodes policies" in s, "an empty prompt")


def _flat(screen: str) -> str:
    """The screen without spaces and box edges: a toast's words may wrap anywhere."""
    return "".join(ch for ch in screen if ch not in " │▎▊▌▐\n")


def test_shift_letter_sorts_the_nodes_view_in_a_real_terminal(terminal: Terminal) -> None:
    terminal.send(":nodes", "Enter")
    terminal.wait_for(lambda s: "netpol · nodes" in s, "the nodes view")
    terminal.send("P")
    screen = terminal.wait_for(lambda s: "PODS↑" in s, "the nodes sorted by pods")
    rows = [line for line in screen.split("\n") if ".cyh.cloud" in line]
    counts = [int(line.split("│")[1].strip()) if "│" in line else int(line.split()[1]) for line in rows[:3]]
    assert counts == sorted(counts), screen
    terminal.send("P")
    terminal.wait_for(lambda s: "PODS↓" in s, "the order reversed")


def test_pod_command_says_did_you_mean_in_a_real_terminal(terminal: Terminal) -> None:
    terminal.send(":pod wbe1", "Enter")
    terminal.wait_for(lambda s: "didyoumeanweb/web1?" in _flat(s), "the did-you-mean")
    terminal.send(":pod web1", "Enter")
    terminal.wait_for(lambda s: "pod web/web1" in s, "the pod's page")


def test_x_removes_a_rule_in_a_real_terminal(terminal: Terminal) -> None:
    terminal.send(":np", "Enter")
    terminal.wait_for(lambda s: "web/web1-allow-test" in s and "policies (" in s, "the policies view")
    terminal.send("x")
    terminal.wait_for(lambda s: "rules of web/web1-allow-test" in s and "ingress #1" in s, "the rule picker")
    terminal.send("Enter")
    screen = terminal.wait_for(lambda s: "(rules removed)" in s and "what-if: 1 edit" in s, "the edited policy")
    assert "ingress: []" in screen  # the detail shows the policy as edited


def test_the_audit_view_fills_in_its_findings_in_a_real_terminal(terminal: Terminal) -> None:
    """The audit runs in a worker after the UI opens; the view shows "auditing…" until then, then the findings
    (tests/tui/test_audit_in_background.py holds the audit to see the pending state)."""
    terminal.send(":audit", "Enter")
    screen = terminal.wait_for(lambda s: "NP001" in s and "checking" not in s, "the findings, NP060 checked")
    # the seed lab's NodePort Services are doors: NP080 for web2 (medium) and web1 (low, its own node only)
    assert "netpol · audit · 5 medium, 5 low" in screen.split("\n")[0], screen
    assert "auditing" not in screen and "no findings" not in screen, screen
