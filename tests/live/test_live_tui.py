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
            while app.load_error is None:
                await pilot.pause(0.05)
            assert app.model is last_good and "web/web3" in _pod_keys(app)
            seed_standin.fail_all = False  # and the watch recovers by itself
            while app.load_error is not None or app.model is last_good:
                await pilot.pause(0.05)
            assert app.screen.selected_key() == selected

    asyncio.run(asyncio.wait_for(journey(), timeout=300))  # each step waits on the app; the bound is for a wedged run
    assert seed_standin.methods() == {"GET"}


def test_tui_live_says_it_is_live_and_which_context(seed_standin: StandIn, kubeconfig: Path) -> None:
    """Issue 25 item 7: live mode never said it was live, nor which context (prod and staging looked alike). The
    title says `live CONTEXT`: kubectl's current context (the stand-in's kubeconfig names it `standin`), or the
    one --context names."""

    async def journey(*extra: str) -> str:
        app = _app(kubeconfig, *extra)
        async with app.run_test(size=(100, 30)) as pilot:
            await loaded(pilot)
            return str(app.screen.query_one("#title").render())

    assert asyncio.run(journey()).startswith("netpol · live standin · pods (")
    assert asyncio.run(journey("--context", "standin")).startswith("netpol · live standin · pods (")


def test_tui_live_says_why_there_are_no_nodes(seed_standin: StandIn, kubeconfig: Path, capfd) -> None:  # noqa: ANN001
    """Issue 25 item 7: with nodes forbidden (RBAC), the warning flashed on the terminal for a second before the UI
    covered it, and the Nodes view said "no Node objects in the input". The UI keeps what loading said
    (`:warnings`, counted in the title) and the Nodes view says the nodes could not be read, and why."""
    seed_standin.forbid.add(("nodes", None))
    why = (
        "cannot list nodes: forbidden; reachability without scheduling (pods run where the cluster put them;"
        " node addresses and Pending reasons per node are unknown)"
    )

    async def journey() -> None:
        app = _app(kubeconfig)
        async with app.run_test(size=(160, 40)) as pilot:
            await loaded(pilot)
            assert "1 warning (:warnings)" in str(app.screen.query_one("#title").render())
            app.run_command_line("nodes")
            await pilot.pause()
            nodes = app.screen.query_one("#nodes")
            assert nodes.count == 0 and nodes.empty_text == f"Nodes could not be read: {why}"
            assert str(app.screen.query_one("#node-detail").render()) == f"Nodes could not be read: {why}."
            app.run_command_line("warnings")
            await pilot.pause()
            sheet = str(app.screen.query_one("#text-body").render())
            # The CLI's own line (tests/live/test_live_permissions.py NODES_WARNING), kept instead of printed.
            assert f"warning: <kubectl get nodes>, document 1: {why}" in sheet

    asyncio.run(journey())
    assert "cannot list nodes" not in capfd.readouterr().err  # nothing scribbled under the UI
