"""Usage beside requests (issue 12, item 5): metrics.k8s.io node usage, checked against `kubectl top node`
run by the real kubectl on the same stand-in, in `netpol schedule -o nodes` and in the UI's Nodes view."""

from __future__ import annotations

import asyncio
import re
import subprocess
from pathlib import Path

from netpol.cli import build_parser
from netpol.commands.context import Context
from netpol.commands.tui import build_app
from tests.helpers import run_cli
from tests.live.conftest import needs_kubectl
from tests.live.fixtures import node_metrics
from tests.live.standin import StandIn
from tests.tui.conftest import loaded

pytestmark = needs_kubectl

USAGE = {  # metrics-server's units: nanocores and Ki, as it reports them
    "master30.cyh.cloud": ("412345678n", "1843200Ki"),
    "worker31.cyh.cloud": ("250m", "1Gi"),
    "worker32.cyh.cloud": ("1", "3000Mi"),
}


def _usage_by_node(text: str) -> dict[str, tuple[str, str]]:
    """node → (cpu, memory) of `netpol schedule -o nodes`'s usage sections."""
    out = {}
    for block in re.split(r"^Name:\s+", text, flags=re.M)[1:]:
        name = block.split("\n", 1)[0].strip()
        section = block.split("Usage (metrics.k8s.io, like kubectl top node):\n", 1)[1]
        cpu = re.search(r"^  cpu\s+(\d+m \(\d+%\))$", section, re.M)
        mem = re.search(r"^  memory\s+(\d+Mi \(\d+%\))$", section, re.M)
        out[name] = (cpu.group(1), mem.group(1))
    return out


def test_schedule_nodes_shows_usage_as_kubectl_top_node_does(seed_standin: StandIn, kubeconfig: Path) -> None:
    seed_standin.load(node_metrics(USAGE))
    ours = run_cli("schedule", "-o", "nodes", "--live", "--kubeconfig", str(kubeconfig))
    assert ours.returncode == 0, ours.stderr
    top = subprocess.run(
        ["kubectl", "top", "node", "--kubeconfig", str(kubeconfig), "--no-headers"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    theirs = {}
    for line in top.stdout.splitlines():  # NAME CPU(cores) CPU(%) MEMORY(bytes) MEMORY(%)
        name, cpu, cpu_pct, mem, mem_pct = line.split()
        theirs[name] = (f"{cpu} ({cpu_pct})", f"{mem} ({mem_pct})")
    assert len(theirs) == 3
    assert _usage_by_node(ours.stdout) == theirs
    assert seed_standin.methods() == {"GET"}


def test_without_metrics_server_usage_is_not_available(seed_standin: StandIn, kubeconfig: Path) -> None:
    seed_standin.drop_group.add("metrics.k8s.io")
    out = run_cli("schedule", "-o", "nodes", "--live", "--kubeconfig", str(kubeconfig))
    assert out.returncode == 0, out.stderr
    line = "Usage:              metrics not available (the cluster serves no metrics.k8s.io API (metrics-server))"
    assert out.stdout.count(line) == 3
    files = run_cli("schedule", "-o", "nodes", "samples/seed-lab")  # manifests have no usage to speak of
    assert "Usage" not in files.stdout


def test_the_nodes_view_shows_usage_beside_requests(seed_standin: StandIn, kubeconfig: Path) -> None:
    seed_standin.load(node_metrics(USAGE))
    args = build_parser("tui").parse_args(["tui", "--live", "--kubeconfig", str(kubeconfig)])
    app = build_app(args, Context(args))

    async def journey() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await loaded(pilot)
            await pilot.press("colon", *"nodes", "enter")
            await pilot.pause()
            table = app.screen.query_one("#nodes")
            table.cursor = 1  # worker31
            await pilot.pause()
            detail = str(app.screen.query_one("#node-detail").render())
            assert "requests / allocatable:" in detail
            assert "usage / allocatable (metrics.k8s.io, like kubectl top node):" in detail
            assert re.search(r"cpu\s+█░+\s+6%\s+250m / 4", detail), detail
            assert re.search(r"memory\s+█+░+\s+13%\s+1024Mi / 7.6Gi", detail), detail

    asyncio.run(journey())
