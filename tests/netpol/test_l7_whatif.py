"""What-if edits (the UI's `:changes`) list the changes `netpol diff` lists, layer-7 filters included (issue 22
item 4: a connection whose filter appears or disappears is a change).

tests/data/cilium-l7/shop.yaml (ours; docs.cilium.io security/policy/layer7.rst): client reaches the api on TCP 80
through GET /health (api-ingress rule #1) and POST /submit (api-submit), which the proxy combines, and on TCP 8080
without a filter.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from netpol.commands.context import Context
from netpol.pipeline import Analysis
from netpol.whatif import DisablePolicy, apply_edits, changes
from tests.conftest import REAL_APPS
from tests.netpol.test_whatif_incremental import assert_changes_as_netpol_diff_says

ROOT = Path(__file__).resolve().parents[2]
SHOP = ROOT / "tests" / "data" / "cilium-l7"


def _load(path: Path) -> Analysis:
    ctx = Context(argparse.Namespace(paths=[str(path)], quiet=True))
    return ctx.analyze(ctx.load())


@pytest.mark.parametrize("path", [SHOP, REAL_APPS / "cilium-starwars" / "l7"], ids=["shop", "starwars-l7"])
def test_disabling_each_policy_changes_what_netpol_diff_says(path: Path) -> None:
    base = _load(path)
    for cp in base.reachability.policies:
        edits = [DisablePolicy(cp.key)]
        assert_changes_as_netpol_diff_says(base, apply_edits(base, edits), edits)


def test_a_filter_taken_away_with_the_same_ports_is_a_change() -> None:
    """Without api-submit client still reaches the api on TCP 80,8080, TCP 80 now through GET /health alone."""
    base = _load(SHOP)
    edits = [DisablePolicy("cnp shop/api-submit")]
    (c,) = changes(base, apply_edits(base, edits), edits).changes
    assert (c.src, c.dst, c.kind) == ("shop/client", "shop/api", "changed")
    assert c.old == c.new
    assert (c.old_text, c.new_text) == (
        "TCP 80,8080 (2 L7 filters on TCP 80)",
        "TCP 80,8080 (L7 filter on TCP 80: HTTP GET /health)",
    )
