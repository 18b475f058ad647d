"""The UI opens before the audit is done (at 100,000 pods the checks are seconds of CPU): the audit runs in a
worker, the Audit view says it is pending until then (never "no findings"), then lists the findings; what-if
edits made meanwhile are audited as edited.

The audit is held by a gate (a threading.Event the test sets), so "before it finishes" is a fact, not a race.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from tests.tui.conftest import audited, seed_loader, settle
from tui.app import ReachApp
from tui.model import ViewModel
from tui.screens.audit import AuditScreen
from tui.screens.detail import PodDetailScreen
from tui.widgets.vtable import VirtualTable


@dataclass
class Gate:
    """`entered`: the audit was called (its worker runs); it returns only once `release` is set."""

    entered: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)
    calls: int = 0

    async def running(self) -> None:
        assert await asyncio.to_thread(self.entered.wait, 60), "the audit worker never started"


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> Iterator[Gate]:
    import tui.findings

    held = Gate()
    real = tui.findings.audit

    def audit(analysis, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        held.calls += 1
        held.entered.set()
        held.release.wait(60)
        return real(analysis, *args, **kwargs)

    monkeypatch.setattr(tui.findings, "audit", audit)
    yield held
    held.release.set()  # a failed test never leaves a worker blocked


def table(app: ReachApp, sel: str) -> VirtualTable:
    return app.screen.query_one(sel, VirtualTable)


def text_of(app: ReachApp, sel: str) -> str:
    return str(app.screen.query_one(sel).render())


def ids(app: ReachApp) -> list[str]:
    t = table(app, "#findings")
    return [t.row_text(k)[1] for k in range(t.count)]


async def whatif_done(app: ReachApp, pilot) -> None:  # noqa: ANN001
    """Until the what-if worker delivered the edited model (not every worker: the audit's is held)."""
    await asyncio.wait_for(asyncio.gather(*(w.wait() for w in app.workers if w.group == "whatif")), 60)
    await settle(pilot)


def test_a_model_lists_no_finding_until_its_audit_ran_and_says_it_is_pending() -> None:
    model = ViewModel(seed_loader())
    assert not model.base_ready and not model.audit_done and model.findings == []
    model.run_base_audit()
    assert model.base_ready and not model.redundancy_ready
    assert "NP001" in {f.id for f in model.findings}
    model.run_redundancy()
    assert model.audit_done and model.redundancy_notes == []


async def test_pods_and_their_reachability_answer_while_the_audit_still_runs(gate: Gate, tmp_path) -> None:
    app = ReachApp(seed_loader, export_dir=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await asyncio.wait_for(app.settled.wait(), 120)
        await gate.running()  # started once the views were ready and the keyboard idle; held
        await pilot.press("slash", *"web1", "enter", "enter")
        assert isinstance(app.screen, PodDetailScreen) and app.screen.key == "web/web1"
        assert table(app, "#sources").row_text(0)[:2] == ["web/test", "TCP 80"]
        assert app.model is not None and not app.model.base_ready and not app.audited.is_set()
        gate.release.set()
        await audited(pilot)
        assert app.model.audit_done


async def test_the_audit_view_says_auditing_until_the_findings_come_then_lists_them(gate: Gate, tmp_path) -> None:
    app = ReachApp(seed_loader, export_dir=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await asyncio.wait_for(app.settled.wait(), 120)
        await pilot.press("colon", *"audit", "enter")  # opening the view starts the audit if idle did not yet
        await gate.running()
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AuditScreen)
        title = text_of(app, "#title")
        assert "auditing…" in title and "no findings" not in title
        findings = table(app, "#findings")
        assert findings.count == 0 and "auditing…" in findings.render_line(1).text
        assert text_of(app, "#finding").startswith("Auditing")
        assert screen.export_text()[1].startswith("note: the audit is still running")
        gate.release.set()
        await audited(pilot)
        assert "NP001" in ids(app) and len(ids(app)) == len(app.model.findings)
        title = text_of(app, "#title")
        assert "auditing" not in title and "checking" not in title and "medium" in title
        assert text_of(app, "#finding").startswith("[")  # the first finding's detail
        assert "still running" not in screen.export_text()[1]


async def test_a_what_if_edit_made_while_the_audit_runs_is_audited_as_edited(gate: Gate, tmp_path) -> None:
    app = ReachApp(seed_loader, export_dir=tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await asyncio.wait_for(app.settled.wait(), 120)
        await gate.running()  # the loaded cluster's audit, held
        loaded = app.model
        await pilot.press("colon", *"np", "enter", "space")  # disable web/web1-allow-test: web1 is open again
        await whatif_done(app, pilot)
        assert "what-if: 1 edit" in text_of(app, "#title") and app.model is not loaded
        await pilot.press("colon", *"audit", "enter")
        await settle(pilot)
        assert "auditing…" in text_of(app, "#title")
        gate.release.set()
        await audited(pilot)
        open_in = next(f for f in app.model.findings if f.id == "NP003" and f.namespace == "web")
        assert "pod:web/web1" in open_in.objects  # the edited cluster's audit, not the loaded one's
        assert [f.id for f in app.model.findings] == ids(app)
        await pilot.press("u")  # undo: the loaded model again, audited to the end when shown
        await whatif_done(app, pilot)
        await audited(pilot)
        assert app.model is loaded and loaded.audit_done
        open_in = next(f for f in loaded.findings if f.id == "NP003" and f.namespace == "web")
        assert "pod:web/web1" not in open_in.objects and ids(app) == [f.id for f in loaded.findings]
        assert gate.calls == 2  # each model audited once


async def test_an_audit_that_fails_says_so_instead_of_auditing_for_ever(monkeypatch, tmp_path) -> None:  # noqa: ANN001
    import tui.findings

    def broken(analysis, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        raise ValueError("a check went wrong")

    monkeypatch.setattr(tui.findings, "audit", broken)
    app = ReachApp(seed_loader, export_dir=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await asyncio.wait_for(app.settled.wait(), 120)
        await pilot.press("colon", *"audit", "enter")
        await audited(pilot)
        assert "failed" in text_of(app, "#title") and "auditing" not in text_of(app, "#title")
        assert "ValueError: a check went wrong" in text_of(app, "#finding")
        assert table(app, "#findings").count == 0 and "failed" in table(app, "#findings").render_line(1).text


QUIT_WHILE_AUDITING = """
import asyncio, sys, threading
import tui.findings
from tests.tui.conftest import seed_loader
from tui.app import ReachApp

entered, never = threading.Event(), threading.Event()

def held(*args, **kwargs):
    entered.set()
    never.wait()  # an audit that would never end

tui.findings.audit = held

async def main():
    app = ReachApp(seed_loader)
    async with app.run_test() as pilot:
        await app.settled.wait()
        assert await asyncio.to_thread(entered.wait, 60)
        await pilot.press("ctrl+c")

asyncio.run(main())
print("exited")
"""


def test_quitting_while_the_audit_runs_does_not_wait_for_it() -> None:
    """The audit thread is dropped at exit: with a Textual thread worker (asyncio's default executor, joined at
    exit) quitting during NP060 waited for it, minutes at 100,000 pods. Here the audit never ends."""
    import subprocess
    import sys

    from tests.tui.conftest import ROOT

    done = subprocess.run(
        [sys.executable, "-c", QUIT_WHILE_AUDITING], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and done.stdout.strip() == "exited", done.stderr
