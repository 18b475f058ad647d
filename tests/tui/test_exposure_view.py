"""Issue 24 in the UI: the Exposure view lists every path from outside the cluster with its verdict and the hops'
deciding rules, the Pods view marks the pods a door reaches (↗), a pod's page says which doors lead to it and
what its policies admit beyond the input. With Pilot on samples/exposure, and once in a real terminal (tmux)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from netpol.commands.context import Context
from netpol.pipeline import Analysis
from tests.tui.conftest import audited, loaded, settle
from tests.tui.test_terminal import Terminal
from tests.tui.test_terminal import pytestmark as tmux_mark
from tui.app import ReachApp
from tui.screens.detail import PodDetailScreen
from tui.screens.exposure import ExposureScreen
from tui.screens.pods import PodsScreen
from tui.widgets.vtable import VirtualTable

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "samples" / "exposure"


def sample_loader() -> Analysis:
    ctx = Context(argparse.Namespace(paths=[str(SAMPLE)]))
    return ctx.analyze(ctx.load())


def rows(app: ReachApp, sel: str) -> list[list[str]]:
    t = app.screen.query_one(sel, VirtualTable)
    return [t.row_text(k) for k in range(t.count)]


async def test_the_exposure_view_lists_the_paths_and_explains_the_highlighted_one(tmp_path: Path) -> None:
    app = ReachApp(sample_loader, export_dir=tmp_path)
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot)
        await pilot.press("colon", *"exposure", "enter")
        await settle(pilot)
        assert isinstance(app.screen, ExposureScreen)
        listed = rows(app, "#paths")
        # the paths of tests/questions/test_exposure_sample.py: 16 routed (10 allowed, 3 restricted, 3 blocked) and
        # 2 not routed
        assert len(listed) == 18
        assert "exposure · 18 paths: 10 allowed, 3 restricted, 3 blocked, 2 not-routed" in str(
            app.screen.query_one("#title").render()
        )
        # sorted by pod (shift+P), then to the Ingress path blocked on its way to shop/admin
        await pilot.press("P")
        k = next(
            i
            for i, r in enumerate(rows(app, "#paths"))
            if r[2] == "shop/admin" and r[1].startswith("Ingress shop/site (HTTP 80)")
        )
        await pilot.press("home")  # the sort kept the cursor on its path: from the first row
        for _ in range(k):
            await pilot.press("down")
        await settle(pilot)
        panel = str(app.screen.query_one("#path").render())
        assert panel.startswith(
            "BLOCKED     internet → Ingress shop/site (HTTP 80) → ingress-nginx/ingress-nginx-controller"
        )
        assert "ingress: isolated by shop/admin-from-ops: no rule admits it" in panel
        await pilot.press("enter")  # opens the backend pod
        await settle(pilot)
        assert isinstance(app.screen, PodDetailScreen) and app.screen.key == "shop/admin"


async def test_pods_are_marked_and_a_pods_page_names_its_doors_and_what_lies_beyond(tmp_path: Path) -> None:
    app = ReachApp(sample_loader, export_dir=tmp_path)
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot)
        assert isinstance(app.screen, PodsScreen)
        marked = {r[1] for r in rows(app, "#pods") if r[-1] == "↗"}
        # every pod with an allowed or restricted path; apps/web's blocked Ingress does not count, its HTTPRoute
        # and Route do
        assert marked == {
            "admin", "api", "frontend", "legacy", "ingress-nginx-controller", "web", "grpc", "postgres", "dns"
        }  # fmt: skip
        await audited(pilot)  # the audit computes what lies beyond the input (NP092)
        app.run_command_line("pod apps/web")
        await settle(pilot)
        info = str(app.screen.query_one("#pod-info").render())
        assert "from outside (3 paths, :exposure): allowed via HTTPRoute apps/web-route" in info
        assert (
            "beyond the input: admits any pod in namespaces labelled policy-group.network.openshift.io/ingress= "
            "(TCP 8080)" in info.replace("\n", " ")
        )


@tmux_mark
def test_the_exposure_view_in_a_real_terminal(tmp_path: Path) -> None:
    term = Terminal(tmp_path, sys.executable, "-m", "netpol.cli", "tui", str(SAMPLE))
    try:
        term.wait_for(lambda s: "pods (" in s and "frontend" in s, "the loaded pods view")
        term.send(":ex", "Enter")
        screen = term.wait_for(lambda s: "netpol · exposure · 18 paths" in s, "the exposure view")
        assert "VERDICT" in screen and "DOOR" in screen, screen
        term.send("V", "V", "Home")  # by verdict, reversed (not-routed first), then the first row
        screen = term.wait_for(lambda s: "VERDICT↓" in s and "not routed:" in s, "the first not-routed path")
        lines = screen.split("\n")
        header = next(k for k, line in enumerate(lines) if "VERDICT" in line)
        assert lines[header + 1].split()[0] == "not-routed", screen
    finally:
        term.close()
