"""The Policies view on Calico's policies (samples/calico-tiers): a TIER column with each policy's tier and its
order, sorted in evaluation order by shift+O (docs.tigera.io "Tiered network policy": tiers by order, then
policies by order). With Kubernetes NetworkPolicies alone the view keeps its three columns."""

from __future__ import annotations

import argparse
from pathlib import Path

from netpol.commands.context import Context
from tests.tui.conftest import loaded
from tui.app import ReachApp
from tui.widgets.vtable import VirtualTable

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "calico-tiers"


def calico_loader():  # noqa: ANN201
    ctx = Context(argparse.Namespace(paths=[str(SAMPLE)]))
    return ctx.analyze(ctx.load())


async def test_policies_view_shows_tiers_and_sorts_in_evaluation_order(tmp_path: Path) -> None:
    app = ReachApp(calico_loader, export_dir=tmp_path)
    async with app.run_test(size=(160, 30)) as pilot:
        await loaded(pilot)
        await pilot.press("colon", *"policies", "enter")
        await pilot.pause()
        table = app.screen.query_one("#policies", VirtualTable)
        assert [c.title for c in table.columns] == ["POLICY", "KIND", "TIER", "TYPES", "SELECTS"]
        await pilot.press("O")
        await pilot.pause()
        got = [(table.row_text(k)[0], table.row_text(k)[2]) for k in range(table.count)]
        # security (order 100) before default; inside default order 500, then Kubernetes' at 1000, then 2000
        assert got == [
            ("GNP pci-fence", "security (order 10)"),
            ("Calico payments/api-from-checkout", "default (order 500)"),
            ("Calico payments/ledger-from-api", "default (order 500)"),
            ("shop/checkout-from-frontend", "default"),
            ("shop/frontend-open", "default"),
            ("Calico shop/scrape", "default (order 2000)"),
        ]
