"""`netpol tui --live` through the real kubectl and the stand-in: the stand-in's pods, never the bundled sample;
`--watch` re-reads the cluster keeping the selection, and a failed re-read keeps the last good state."""

from __future__ import annotations

import asyncio
import copy
from pathlib import Path

from netpol.cli import build_parser
from netpol.commands.context import Context
from netpol.commands.tui import build_app
from tests.helpers import run_cli
from tests.live.conftest import needs_kubectl
from tests.live.fixtures import running_status, seed_lab_objects
from tests.live.standin import StandIn
from tests.tui.conftest import loaded

pytestmark = needs_kubectl


def _web3() -> dict:
    web1 = next(o for o in seed_lab_objects() if o["kind"] == "Pod" and o["metadata"]["name"] == "web1")
    pod = copy.deepcopy(web1)
    pod["metadata"].update(name="web3", uid="web3-uid", labels={"run": "web3"})
    pod["status"] = running_status("10.224.1.9")
    return pod


def _app(kubeconfig: Path, *extra: str):  # noqa: ANN202 - tui.app.ReachApp
    args = build_parser("tui").parse_args(["tui", "--live", "--kubeconfig", str(kubeconfig), *extra])
    return build_app(args, Context(args))


def _pod_keys(app) -> list[str]:  # noqa: ANN001
    t = app.screen.query_one("#pods")
    return ["/".join(t.row_text(i)[:2]) for i in range(t.count)]


def test_tui_live_shows_the_clusters_pods(seed_standin: StandIn, kubeconfig: Path) -> None:
    seed_standin.load([_web3()])  # not in the bundled sample: proves the UI shows the cluster

    async def journey() -> None:
        app = _app(kubeconfig)
        async with app.run_test(size=(100, 30)) as pilot:
            await loaded(pilot)
            assert "web/web3" in _pod_keys(app)
            assert {p.key for p in app.model.analysis.pending} == {"web/big"}

    asyncio.run(journey())
    assert seed_standin.methods() == {"GET"}


def test_tui_live_with_a_wrong_context_exits_2_before_drawing(seed_standin: StandIn, kubeconfig: Path) -> None:
    out = run_cli("tui", "--live", "--kubeconfig", str(kubeconfig), "--context", "does-not-exist")
    assert out.returncode == 2
    assert out.stderr == 'error: kubectl: context "does-not-exist" does not exist\n'
    assert "\x1b[" not in out.stdout  # no screen was drawn


def test_tui_live_watch_follows_the_cluster_and_survives_a_failed_refresh(
    seed_standin: StandIn, kubeconfig: Path
) -> None:
    async def journey() -> None:
        app = _app(kubeconfig, "--watch", "--interval", "0.2")
        async with app.run_test(size=(100, 30)) as pilot:
            await loaded(pilot)
            keys = _pod_keys(app)
            assert "web/web3" not in keys
            table = app.screen.query_one("#pods")
            table.cursor = keys.index("web/web2")
            selected = app.screen.selected_key()
            loads = app.loads
            seed_standin.load([_web3()])  # the cluster changes
            while app.loads == loads or "web/web3" not in _pod_keys(app):
                await pilot.pause(0.05)
            assert app.screen.selected_key() == selected
            last_good = app.model
            seed_standin.fail_all = True  # the next re-read fails
            while not app.status.startswith("error"):
                await pilot.pause(0.05)
            assert app.model is last_good and "web/web3" in _pod_keys(app)
            seed_standin.fail_all = False  # and the watch recovers by itself
            while app.status.startswith("error") or app.model is last_good:
                await pilot.pause(0.05)
            assert app.screen.selected_key() == selected

    asyncio.run(asyncio.wait_for(journey(), timeout=300))  # each step waits on the app; the bound is for a wedged run
    assert seed_standin.methods() == {"GET"}
