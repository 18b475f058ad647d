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
        # remain-on-exit: the pane stays when the command exits, its last screen (a traceback) readable; set in the
        # same tmux call, before the command starts, so that a command that exits at once is kept too.
        self._tmux(
            "start-server", ";", "set-option", "-g", "remain-on-exit", "on", ";",
            "new-session", "-d", "-x", "80", "-y", "24", "-c", str(cwd), *command,
        )  # fmt: skip

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

    def exited(self) -> bool:
        """Whether the command has exited (its pane is kept dead: remain-on-exit)."""
        return self._tmux("display-message", "-p", "#{pane_dead}").strip() == "1"

    def paste(self, text: str) -> None:
        """Paste `text` as a terminal does (bracketed paste: the app receives it as one Paste, not as keys)."""
        self._tmux("set-buffer", "--", text)
        self._tmux("paste-buffer", "-p")

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


def test_keys_after_enter_in_the_same_burst_go_to_the_view_it_opened(terminal: Terminal) -> None:
    """`:nodes⏎P` in one write. Input's Enter binding once ran only after `P` was typed into the prompt (the
    command became `:nodesp`, unknown); then `P` was typed into the closing prompt and dropped with it (issue 25:
    keys typed right after a prompt's Enter are dropped). Now Enter runs what was typed before it, and `P` reaches
    the view the command opened: Nodes, sorted by pods (k9s: shift+P)."""
    terminal.send(":nodes", "Enter", "P")
    screen = terminal.wait_for(lambda s: "netpol · nodes" in s and "PODS↑" in s, "the nodes view sorted by pods")
    assert "unknown command" not in _flat(screen), screen
    terminal.send(":")  # a fresh prompt is empty (its placeholder shows): nothing was left typed in it
    terminal.wait_for(lambda s: "enter run" in s and "pods nodes policies" in s, "an empty prompt")


def test_two_commands_typed_in_one_burst_both_run(terminal: Terminal) -> None:
    """`:matrix⏎:nodes⏎` in one write: the second command used to be typed into the first's closing prompt and
    dropped. Both run: Nodes is on top of the matrix (Esc goes back to it)."""
    terminal.send(":matrix", "Enter", ":nodes", "Enter")
    terminal.wait_for(lambda s: "netpol · nodes" in s, "the nodes view")
    terminal.send("Escape")
    terminal.wait_for(lambda s: "netpol · matrix" in s, "the matrix under it")


def test_pasting_two_commands_says_that_only_the_first_is_in_the_prompt(terminal: Terminal) -> None:
    """A paste is text, never keys: its first line fills the prompt (Enter runs it), and the lines after it, once
    dropped without a word, are named in a warning."""
    terminal.paste(":matrix\n:nodes\n")
    screen = terminal.wait_for(lambda s: "pasted2lines" in _flat(s), "the warning about the second line")
    assert "':nodes'" in _flat(screen)
    prompt = next(line for line in screen.split("\n") if "enter run" in line)
    assert prompt.replace(" ", "").startswith(":matrix"), screen
    terminal.send("Enter")
    terminal.wait_for(lambda s: "netpol · matrix" in s, "the matrix")


def _pods_view(s: str) -> bool:
    return s.startswith(" netpol · pods")


def test_two_keys_over_the_export_dialog_close_it_once(terminal: Terminal, tmp_path: Path) -> None:
    """Issue 25, item 1: `e`, then two keys that are not y/n/Esc/Enter in one write (`ab`): each key dismissed
    the dialog, the second with nothing left to pop: `ScreenStackError: Can't pop screen` and exit status 0
    (textual/screen.py `Screen.dismiss` calls `App.pop_screen`, which pops whatever screen is on top, and
    textual/app.py queues each key on the focused screen before that screen handles the one before it).
    The first key answers (nothing written), the second is the dialog's too and does nothing; the UI goes on."""
    terminal.send("e")
    terminal.wait_for(lambda s: "y write" in s, "the export dialog")
    terminal.send("a", "b")
    terminal.wait_for(lambda s: "nothing written" in s or "Error" in s, "the cancelled export")
    screen = terminal.screen()
    assert not terminal.exited() and "Error" not in screen, screen
    assert _pods_view(screen), screen
    terminal.send(":nodes", "Enter")  # the app still answers
    terminal.wait_for(lambda s: "netpol · nodes" in s, "the nodes view")
    assert list(tmp_path.iterdir()) == []


def test_a_command_sent_over_a_dialog_of_a_deeper_view_leaves_that_view_in_place(
    terminal: Terminal, tmp_path: Path
) -> None:
    """Issue 25, item 1, from a deeper view: `:nodes⏎` arriving over the export dialog of the Nodes view. `:`
    cancelled, `n` dismissed again and popped the Nodes view underneath; and keys of the burst that reached the
    view once the dialog was gone ran there (`d`escribe, `e`xport). Keys typed while the dialog was up are its:
    the Nodes view stays, nothing else runs, nothing is written."""
    terminal.send(":nodes", "Enter")
    terminal.wait_for(lambda s: "netpol · nodes" in s, "the nodes view")
    terminal.send("e")
    terminal.wait_for(lambda s: "y write" in s, "the export dialog")
    terminal.send(":nodes", "Enter")
    terminal.wait_for(lambda s: "nothing written" in s or "Error" in s, "the cancelled export")
    screen = terminal.screen()
    assert not terminal.exited() and screen.startswith(" netpol · nodes"), screen
    assert "describe node" not in screen and "y write" not in screen, screen
    assert list(tmp_path.iterdir()) == []


def test_two_quick_closes_of_a_describe_sheet_leave_the_view_open(terminal: Terminal) -> None:
    """`d` then `qq` in one write: the second `q` closed the sheet again (popping the Nodes view) or, once it was
    gone, quit the app. Only the sheet closes."""
    terminal.send(":nodes", "Enter")
    terminal.wait_for(lambda s: "netpol · nodes" in s, "the nodes view")
    terminal.send("d")
    terminal.wait_for(lambda s: "describe node" in s, "the describe sheet")
    terminal.send("q", "q")
    screen = terminal.wait_for(lambda s: "describe node" not in s, "the sheet closed")
    assert not terminal.exited() and screen.startswith(" netpol · nodes"), screen


def test_a_load_error_stays_on_screen_until_r_loads(tmp_path: Path) -> None:
    """Issue 25, item 5: a folder holding a file that is no Kubernetes object (a test suite's `meta.json`) opened
    on `error (see message; r retries) · loading…` with a spinner that never stopped, the reason gone with its
    toast. The reason stays on screen under the title, no spinner; r after fixing the input loads it; q quits."""
    folder = tmp_path / "cluster"
    (folder / "case").mkdir(parents=True)
    for f in SEED.glob("*.yaml"):
        shutil.copy(f, folder / f.name)
    meta = folder / "case" / "meta.json"
    meta.write_text('{"tools": ["kubectl"], "description": "a test case"}\n')
    term = Terminal(tmp_path, sys.executable, "-m", "netpol.cli", "tui", "cluster")
    try:
        # netpol matrix says: error: cluster/case/meta.json, document 1: kind: Required value: every object has a kind
        screen = term.wait_for(lambda s: "kind:Requiredvalue:everyobjecthasakind" in _flat(s), "the load error")
        lines = screen.split("\n")
        assert "load failed" in lines[0] and "loading" not in lines[0], screen
        assert "cannot load: cluster/case/meta.json" in "".join(lines[1:4]), screen  # under the title, not a toast
        assert "●" not in screen, screen  # Textual's loading indicator: stopped
        assert "r tries again" in screen and "q quits" in screen
        meta.unlink()
        term.send("r")
        term.wait_for(lambda s: "pods (4)" in s and "web1" in s, "the pods, loaded")
        assert "cannot load" not in term.screen()
        term.send("q")
        term.wait_for(lambda s: term.exited(), "netpol exited")
    finally:
        term.close()


def test_a_path_that_does_not_exist_exits_2_like_every_command(tmp_path: Path) -> None:
    """Issue 25, item 5: `netpol tui samples/seed-lba` (a typo) opened the UI on a spinner that never stopped,
    where `netpol matrix` exits 2 naming the path. A usage error is said before any screen is drawn."""
    # The shell stays (sleep): a pane whose command exits at once may lose its first lines in tmux.
    term = Terminal(
        tmp_path, "sh", "-c", f"{sys.executable} -m netpol.cli tui samples/seed-lba; echo exit=$?; sleep 60"
    )
    try:
        screen = term.wait_for(lambda s: "exit=" in s, "netpol exited")
        assert "error: no such file or directory: samples/seed-lba\nexit=2" in screen, screen
    finally:
        term.close()


def test_against_after_the_path_names_what_is_shown_and_what_it_is_compared_with(tmp_path: Path) -> None:
    """Issue 25, item 6: `netpol tui --against NEW OLD` (options first): `nargs='+'` made `--against` swallow OLD
    as well, and the UI compared both with the bundled sample, titled "against <the sample>". `--against` takes one
    path; the title says which version is shown and which it is compared with, in `netpol diff`'s words."""
    old, new = tmp_path / "v1", tmp_path / "v2"
    shutil.copytree(SEED, old)
    shutil.copytree(SEED, new)
    (new / "web3.yaml").write_text(  # one more pod, in v2 only
        "apiVersion: v1\nkind: Pod\nmetadata: {name: web3, namespace: web, labels: {run: web3}}\n"
        "spec: {nodeName: worker31.cyh.cloud, containers: [{name: c, image: nginx}]}\n"
    )
    term = Terminal(tmp_path, sys.executable, "-m", "netpol.cli", "tui", "--against", "v2", "v1")
    try:
        screen = term.wait_for(lambda s: "pods (5)" in s, "the five pods of v2")
        assert screen.startswith(" netpol · new v2 · old v1 · pods (5)"), screen
        assert "web3" in screen
        # The changes are v1 → v2: web3 came, so every connection of web3 is gained (+).
        term.send(":changes", "Enter")
        screen = term.wait_for(lambda s: "changes (" in s, "the changes")
        rows = [line for line in screen.split("\n") if line[:1] in ("+", "−", "~")]
        assert rows and all(line.startswith("+") and "web3" in line for line in rows), screen
    finally:
        term.close()


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
    # the seed lab's NodePort Services are doors: NP090 for web2 (medium) and web1 (low, its own node only)
    assert "netpol · audit · 5 medium, 5 low" in screen.split("\n")[0], screen
    assert "auditing" not in screen and "no findings" not in screen, screen


def test_manifests_piped_on_stdin_open_and_keys_come_from_the_terminal(tmp_path: Path) -> None:
    """Issue 25: `tui --help` offered `-` for stdin, then refused it. `… | netpol tui -` reads the manifests once,
    then the keys from the terminal (/dev/tty), as a pager does (less opens /dev/tty for its commands when its
    input is a pipe; Textual reads keys from file descriptor 0, textual/drivers/linux_driver.py
    `sys.__stdin__.fileno()`, so the terminal is put there)."""
    files = " ".join(str(f) for f in sorted(SEED.glob("*.yaml")))
    # Documents of several files in one stream, each file ended by `---` (as `kubectl get -o yaml` pipes do).
    term = Terminal(
        tmp_path, "sh", "-c", f"for f in {files}; do cat $f; echo ---; done | {sys.executable} -m netpol.cli tui -"
    )
    try:
        term.wait_for(lambda s: "pods (4)" in s and "web1" in s, "the piped pods")
        term.send(":nodes", "Enter")
        term.wait_for(lambda s: "netpol · nodes" in s and "worker31.cyh.cloud" in s, "the nodes view: keys work")
    finally:
        term.close()
