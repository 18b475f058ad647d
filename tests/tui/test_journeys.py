"""Pilot journeys through the UI on the seed lab: the questions a new user comes with."""

from __future__ import annotations

import argparse
import asyncio
import shutil

import yaml
from textual.message import Message
from textual.notifications import Notify

from netpol.commands.context import Context
from netpol.errors import InputError
from tests.tui.conftest import SEED, audited, loaded, pending_loader, seed_loader, settle
from tui.app import ReachApp
from tui.messages import AnalysisReady, LoadFailed
from tui.screens.audit import AuditScreen, ObjectsScreen
from tui.screens.detail import ExplainScreen, PodDetailScreen
from tui.screens.matrix import MatrixScreen
from tui.screens.nodes import NodesScreen
from tui.screens.pods import PodsScreen
from tui.screens.policies import PoliciesScreen
from tui.widgets.matrix import MatrixGrid
from tui.widgets.vtable import VirtualTable


def table(app: ReachApp, sel: str) -> VirtualTable:
    return app.screen.query_one(sel, VirtualTable)


def text_of(app: ReachApp, sel: str) -> str:
    return str(app.screen.query_one(sel).render())


async def test_who_can_reach_web1_find_open_jump_back(seed_app: ReachApp) -> None:
    async with seed_app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        app = seed_app
        assert isinstance(app.screen, PodsScreen)
        assert table(app, "#pods").count == 4
        await pilot.press("slash", *"web1")
        assert table(app, "#pods").count == 1
        assert table(app, "#pods").row_text(0)[:2] == ["web", "web1"]
        await pilot.press("enter", "enter")  # keep the filter, open the pod
        assert isinstance(app.screen, PodDetailScreen) and app.screen.key == "web/web1"
        sources = table(app, "#sources")
        assert sources.count == 1
        peer, ports, via = sources.row_text(0)
        assert (peer, ports) == ("web/test", "TCP 80")
        assert "web1-allow-test" in via
        explain = text_of(app, "#explain")
        assert "web/test => web/web1" in explain and "web1-allow-test" in explain
        await pilot.press("enter")  # jump to the source
        assert isinstance(app.screen, PodDetailScreen) and app.screen.key == "web/test"
        reach = [table(app, "#targets").row_text(k)[0] for k in range(table(app, "#targets").count)]
        assert "web/web1" in reach
        await pilot.press("escape")
        assert isinstance(app.screen, PodDetailScreen) and app.screen.key == "web/web1"
        await pilot.press("escape")
        assert isinstance(app.screen, PodsScreen)


async def test_matrix_cell_explains_and_port_filter(seed_app: ReachApp) -> None:
    async with seed_app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("colon", *"matrix", "enter")
        screen = seed_app.screen
        assert isinstance(screen, MatrixScreen)
        names = screen.names
        assert names == ["cyh/test", "web/test", "web/web1", "web/web2"]
        grid = screen.query_one(MatrixGrid)
        grid.row, grid.col = names.index("web/web2"), names.index("web/web1")
        await pilot.pause()
        assert "[X] web/web2 => web/web1 : No Connections" in text_of(seed_app, "#cell")
        await pilot.press("up", "up")  # web/test => web/web1: some ports
        assert text_of(seed_app, "#cell").startswith("[~] web/test => web/web1 : TCP 80")
        await pilot.press("enter")
        assert isinstance(seed_app.screen, ExplainScreen)
        text = text_of(seed_app, "#explain")
        assert "ALLOWED" in text and "web/test => web/web1" in text and "web1-allow-test" in text
        await pilot.press("escape", "p", *"80", "enter")
        assert screen.probe == ("TCP", 80)
        assert text_of(seed_app, "#cell").startswith("[.] web/test => web/web1")
        await pilot.press("w")  # by workload, named as `netpol matrix --by workload` does: bare pods stand alone
        assert screen.by_workload and screen.names == [f"{n}[Pod]" for n in names]


async def test_audit_lists_findings_by_severity_and_jumps(seed_app: ReachApp) -> None:
    async with seed_app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("colon", *"audit", "enter")
        await audited(pilot)
        screen = seed_app.screen
        assert isinstance(screen, AuditScreen)
        findings = seed_app.model.findings
        assert findings and table(seed_app, "#findings").count == len(findings)
        ranks = ["critical", "high", "medium", "low", "info"]
        assert [ranks.index(f.severity) for f in findings] == sorted(ranks.index(f.severity) for f in findings)
        assert findings[0].severity in text_of(seed_app, "#finding")
        multi = next(k for k, f in enumerate(findings) if len(f.objects) > 1)
        table(seed_app, "#findings").cursor = multi
        await pilot.press("enter")
        assert isinstance(seed_app.screen, ObjectsScreen)
        await pilot.press("enter")
        assert isinstance(seed_app.screen, PodDetailScreen)


async def test_nodes_show_capacity_and_pending_reason() -> None:
    app = ReachApp(pending_loader)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("colon", *"nodes", "enter")
        assert isinstance(app.screen, NodesScreen)
        assert table(app, "#nodes").count == 3
        assert "cpu" in text_of(app, "#node-detail")
        pending = table(app, "#pending")
        assert pending.count == 1 and pending.row_text(0)[0] == "web/db"
        pending.focus()
        await pilot.pause()
        detail = text_of(app, "#node-detail")
        assert "web/db is Pending" in detail
        if app.model.analysis.placement is not None:  # the scheduler ran: its message and per-node trace
            assert "0/3 nodes are available" in detail
            assert "worker31.cyh.cloud" in detail
        await pilot.press("enter")
        assert isinstance(app.screen, PodDetailScreen)
        assert "Pending" in text_of(app, "#explain")


async def test_policies_show_yaml_and_selected_pods(seed_app: ReachApp) -> None:
    async with seed_app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("colon", *"np", "enter")
        assert isinstance(seed_app.screen, PoliciesScreen)
        assert table(seed_app, "#policies").row_text(0)[0] == "web/web1-allow-test"
        assert "web/web1" in text_of(seed_app, "#policy-pods")
        assert "web/test" in text_of(seed_app, "#policy-pods")  # admitted by the ingress rule


async def test_namespace_scope_and_filter_syntax(seed_app: ReachApp) -> None:
    async with seed_app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("colon", *"ns cyh", "enter")
        assert table(seed_app, "#pods").count == 1
        await pilot.press("colon", *"ns all", "enter")  # `:ns` alone opens the namespace picker (k9s)
        assert table(seed_app, "#pods").count == 4
        await pilot.press("slash", *"run=test")
        assert table(seed_app, "#pods").count == 2
        await pilot.press("escape")  # Esc clears the filter
        assert table(seed_app, "#pods").count == 4
        await pilot.press("slash", *"web/", "enter")
        assert table(seed_app, "#pods").count == 3


async def test_export_writes_the_current_view_once_confirmed(seed_app: ReachApp, tmp_path) -> None:
    async with seed_app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("colon", *"matrix", "enter", "e")
        out = tmp_path / "netpol-matrix.txt"
        assert str(out) in text_of(seed_app, "#export-path")  # the dialog names the file
        await pilot.press("enter")  # the default does nothing
        assert not out.exists() and isinstance(seed_app.screen, MatrixScreen)
        await pilot.press("e", "y")
        assert out.exists()
        assert "web/test" in out.read_text() and " X" in out.read_text()


async def test_reload_keeps_the_selection(tmp_path) -> None:
    calls = []

    def loader():
        calls.append(1)
        return seed_loader()

    app = ReachApp(loader, export_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        table(app, "#pods").cursor = 2
        key = app.screen.selected_key()
        await pilot.press("r")
        await loaded(pilot)
        assert len(calls) == 2 and app.loads == 2
        assert app.screen.selected_key() == key


async def test_watch_reloads_when_the_stamp_changes(tmp_path) -> None:
    stamp = [0]
    app = ReachApp(seed_loader, stamp=lambda: stamp[0], watch=True, interval=0.05, export_dir=tmp_path)
    ready: list[AnalysisReady] = []
    second = asyncio.Event()

    def hook(message: Message) -> None:
        if isinstance(message, AnalysisReady):
            ready.append(message)
            if len(ready) == 2:
                second.set()

    async with app.run_test(size=(80, 24), message_hook=hook) as pilot:
        await loaded(pilot)
        await pilot.app.workers.wait_for_complete()  # a few polls ran meanwhile: same stamp, no reload
        assert app.loads == 1
        stamp[0] = 1
        await asyncio.wait_for(second.wait(), timeout=60)
        await loaded(pilot)
        assert app.loads == 2


async def test_load_errors_are_shown_not_raised(tmp_path) -> None:
    from netpol.errors import InputError

    def broken():
        raise InputError("bad manifest")

    app = ReachApp(broken, export_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await asyncio.wait_for(app.settled.wait(), timeout=60)
        await settle(pilot)
        assert app.model is None and app.load_error == "bad manifest" and app.is_running
        banner = app.screen.query_one("#load-error")
        assert banner.display and "cannot load: bad manifest" in str(banner.render())
        assert not app.screen.main_widget().loading  # no spinner for ever


async def test_command_palette_has_every_action(seed_app: ReachApp) -> None:
    async with seed_app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        titles = {c.title for c in seed_app.get_system_commands(seed_app.screen)}
        for t in ("Pods", "Matrix", "Audit", "Nodes", "Policies", "Reload", "Export view", "Help", "Filter"):
            assert t in titles
        assert "Open pod web/web1" in titles and "Namespace: web" in titles
        await pilot.press("question_mark")
        assert type(seed_app.screen).__name__ == "HelpScreen"


REDUNDANT_TWIN = """
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: web1-allow-test-copy, namespace: web}
spec:
  podSelector: {matchLabels: {run: web1}}
  policyTypes: [Ingress]
  ingress:
  - from: [{podSelector: {matchLabels: {run: test}}}]
    ports: [{protocol: TCP, port: 80}]
"""


def _twin_loader():  # noqa: ANN202 - the seed lab plus a copy of its policy: each copy is redundant (NP060)
    from netpol.manifests import load_text
    from tests.tui.conftest import SEED, _context

    text = "\n---\n".join(p.read_text() for p in sorted(SEED.glob("*.yaml"))) + "\n---\n" + REDUNDANT_TWIN
    return _context().analyze(load_text(text))


async def test_audit_lists_other_findings_while_the_redundancy_check_runs(monkeypatch, tmp_path) -> None:
    import threading

    import tui.findings

    release = threading.Event()
    real = tui.findings.redundancy_findings

    def slow(analysis):  # noqa: ANN001, ANN202
        release.wait(10)
        return real(analysis)

    monkeypatch.setattr(tui.findings, "redundancy_findings", slow)
    app = ReachApp(_twin_loader, export_dir=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await asyncio.wait_for(app.settled.wait(), timeout=120)  # not `loaded`: the check's worker is held
        await pilot.press("colon", *"audit", "enter")
        await settle(pilot)
        assert isinstance(app.screen, AuditScreen)
        assert "checking for redundant policies" in text_of(app, "#title")
        ids = [table(app, "#findings").row_text(k)[1] for k in range(table(app, "#findings").count)]
        assert "NP001" in ids and "NP060" not in ids
        release.set()
        await audited(pilot)
        ids = [table(app, "#findings").row_text(k)[1] for k in range(table(app, "#findings").count)]
        assert ids.count("NP060") == 2  # either copy can go: both are reported
        assert "checking" not in text_of(app, "#title")


async def test_back_in_pod_detail_restores_the_list_and_row_it_left_from(seed_app: ReachApp) -> None:
    async with seed_app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        seed_app.run_command_line("pod web/test")
        await pilot.pause()
        detail = seed_app.screen
        assert isinstance(detail, PodDetailScreen)
        await pilot.press("tab")  # "this pod can reach"
        targets = table(seed_app, "#targets")
        row = [targets.row_text(k)[0] for k in range(targets.count)].index("web/web1")
        targets.cursor = row
        await pilot.press("enter")
        assert seed_app.screen is detail and detail.key == "web/web1"  # followed in place
        assert table(seed_app, "#targets").cursor == 0
        await pilot.press("escape")
        assert seed_app.screen is detail and detail.key == "web/test"
        assert seed_app.focused is table(seed_app, "#targets") and table(seed_app, "#targets").cursor == row
        await pilot.press("escape")
        assert isinstance(seed_app.screen, PodsScreen)


async def test_going_to_a_view_open_below_returns_to_it(seed_app: ReachApp) -> None:
    async with seed_app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("colon", *"matrix", "enter")
        matrix = seed_app.screen
        await pilot.press("enter")
        assert isinstance(seed_app.screen, ExplainScreen)
        depth = len(seed_app.screen_stack)
        seed_app.run_command_line("matrix")
        await pilot.pause()
        assert seed_app.screen is matrix and len(seed_app.screen_stack) == depth - 1


async def test_a_view_hidden_during_a_reload_shows_the_new_model_when_opened(tmp_path) -> None:
    loaders = iter([seed_loader, _twin_loader, _twin_loader])
    app = ReachApp(lambda: next(loaders)(), export_dir=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await loaded(pilot)
        await pilot.press("colon", *"policies", "enter")
        assert table(app, "#policies").count == 1
        await pilot.press("escape")
        await pilot.press("r")
        await loaded(pilot)
        await pilot.press("colon", *"policies", "enter")
        assert table(app, "#policies").count == 2


async def test_footer_keys_are_clickable(seed_app: ReachApp) -> None:
    from tui.widgets.keybar import KeyBar

    async with seed_app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        bar = seed_app.screen.query_one(KeyBar)
        text = str(bar.render())
        assert "Filter" in text and "Help" in text
        start = next(s for s, _, key in bar._spans if key == "question_mark")
        await pilot.click(KeyBar, offset=(start + 1, 0))
        await pilot.pause()
        assert type(seed_app.screen).__name__ == "HelpScreen"


async def test_a_pod_opened_afresh_starts_on_its_sources(seed_app: ReachApp) -> None:
    async with seed_app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        seed_app.run_command_line("pod web/test")
        await pilot.pause()
        await pilot.press("tab")  # leave the detail on "this pod can reach"
        assert seed_app.focused is table(seed_app, "#targets")
        await pilot.press("escape")
        seed_app.run_command_line("pod web/web1")
        await pilot.pause()
        assert seed_app.screen.key == "web/web1" and seed_app.focused is table(seed_app, "#sources")
        await pilot.press("escape")  # no history from the earlier visit
        assert isinstance(seed_app.screen, PodsScreen)


async def test_a_pending_pods_page_says_why_it_is_pending_as_describe_does(tmp_path) -> None:
    """Issue 25: a Pending pod's page lacked its reason, which `d` gives. Its header says it, in `d`'s words."""
    app = ReachApp(pending_loader, export_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        app.run_command_line("pod web/db")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, PodDetailScreen) and screen.key == "web/db"
        described = screen.describe_text()
        assert described is not None
        status = next(line for line in described[1].splitlines() if line.startswith("Status:"))
        reason = status.removeprefix("Status:").strip()  # `Pending: 0/3 nodes are available: …`
        assert reason.startswith("Pending: ") and len(reason) > len("Pending: ")
        assert reason in text_of(app, "#pod-info")


def _seed_copy(tmp_path):  # noqa: ANN202 - (folder, loader reading it afresh each time)
    folder = tmp_path / "seed"
    shutil.copytree(SEED, folder)

    def load():  # noqa: ANN202
        ctx = Context(argparse.Namespace(paths=[str(folder)]))
        return ctx.analyze(ctx.load())

    return folder, load


def _drop_pod(folder, name: str) -> None:  # noqa: ANN001
    path = folder / "cluster.yaml"
    docs = [d for d in yaml.safe_load_all(path.read_text()) if d]
    path.write_text(yaml.safe_dump_all([d for d in docs if not (d["kind"] == "Pod" and d["metadata"]["name"] == name)]))


async def test_a_deleted_pods_page_says_it_is_gone_and_keeps_nothing_stale(tmp_path) -> None:
    """Issue 25: under --watch, a pod deleted while its page was open left the page as it was: the lists' counts
    and the explain panel of a pod that no longer exists. The page now says it is gone, and nothing of it stays."""
    folder, load = _seed_copy(tmp_path)
    app = ReachApp(load, export_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        app.run_command_line("pod web/web2")
        await settle(pilot)
        assert "(4)" in text_of(app, "#src-label") and "web/web2" in text_of(app, "#explain")
        _drop_pod(folder, "web2")
        await pilot.press("r")
        await loaded(pilot)
        assert app.model is not None and "web/web2" not in app.model.index_of
        assert "web/web2 is no longer in the input" in text_of(app, "#pod-info")
        assert text_of(app, "#src-label") == "Can reach this pod" and text_of(app, "#dst-label") == "This pod can reach"
        assert text_of(app, "#explain") == "web/web2 is gone: nothing to explain."
        assert table(app, "#sources").count == 0 and table(app, "#sources").empty_text == "the pod is gone"


async def test_watch_says_reloads_in_the_title_and_an_error_once(tmp_path) -> None:
    """Issue 25: under --watch every reload was a toast, and a broken input toasted the same error at every tick.
    A reload is said in the title; a reload that fails keeps the last good model, says why under the title (for
    as long as it fails) and toasts the reason once, however often the broken files change. A broken input is
    read again when its files change, not at every tick."""
    broken = [False]

    def load():  # noqa: ANN202
        if broken[0]:
            raise InputError("cluster.yaml, document 3: kind: Required value")
        return seed_loader()

    stamp = [0]
    polls = [0]

    def read_stamp() -> int:  # what --watch compares at each tick (and each load, before it reads)
        polls[0] += 1
        return stamp[0]

    toasts: list[str] = []
    failed: list[LoadFailed] = []
    reloaded = asyncio.Event()
    three_failures = asyncio.Event()

    def hook(message: Message) -> None:
        if isinstance(message, Notify):
            toasts.append(message.notification.message)
        elif isinstance(message, AnalysisReady) and app.loads >= 1:
            reloaded.set()
        elif isinstance(message, LoadFailed):
            failed.append(message)
            if len(failed) >= 3:
                three_failures.set()

    app = ReachApp(load, stamp=read_stamp, watch=True, interval=0.05, export_dir=tmp_path)
    async with app.run_test(size=(80, 24), message_hook=hook) as pilot:
        await loaded(pilot)
        stamp[0] = 1  # a file changed
        await asyncio.wait_for(reloaded.wait(), timeout=60)
        await settle(pilot)
        assert "watching · reloaded " in text_of(app, "#title")
        assert not any(t.startswith("reloaded") for t in toasts)
        good = app.model
        broken[0] = True
        for change in (2, 3, 4):  # three edits that each leave the input broken the same way
            stamp[0] = change
            while len(failed) < change - 1:
                await pilot.pause(0.05)
        await asyncio.wait_for(three_failures.wait(), timeout=60)
        seen = polls[0]
        while polls[0] < seen + 5:  # five ticks of --watch with nothing changed: no attempt more
            await pilot.pause(0.05)
        assert len(failed) == 3
        await settle(pilot)
        assert app.model is good and app.load_error == "cluster.yaml, document 3: kind: Required value"
        banner = app.screen.query_one("#load-error")
        assert banner.display and "reload failed: cluster.yaml, document 3" in str(banner.render())
        assert toasts.count("cluster.yaml, document 3: kind: Required value") == 1
        broken[0] = False
        stamp[0] = 5  # fixed
        while app.load_error is not None:
            await pilot.pause(0.05)
        await settle(pilot)
        assert not app.screen.query_one("#load-error").display
