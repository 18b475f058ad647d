"""The report's per-pair reasons carry Cilium's layer-7 filters as who-can-reach words them (issue 22 item 4):
its grouping of pairs never merges a pair whose filter applies with one whose filter has no effect.

tests/data/cilium-l7/shop.yaml (ours; docs.cilium.io security/policy/layer7.rst): admin's TCP 80 into the api is
allowed both with a filter (api-ingress rule #1) and without one (rule #2), so the filter has no effect for it;
viewer's and client's TCP 80 go through filters.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from netpol.manifests import load_paths
from netpol.pipeline import analyze
from tests.conftest import REAL_APPS
from tests.report.test_report_reasons import _assert_every_pair_is_the_engines, _page, _words

SHOP = Path(__file__).resolve().parents[2] / "tests" / "data" / "cilium-l7"


@pytest.mark.parametrize("path", [SHOP, REAL_APPS / "cilium-starwars" / "l7"], ids=["shop", "starwars-l7"])
def test_every_pair_reads_back_as_the_engines_words(path: Path) -> None:
    a = analyze(load_paths([str(path)]))
    _assert_every_pair_is_the_engines(a, _page(a))


def test_the_words_say_whether_the_filter_applies() -> None:
    a = analyze(load_paths([str(SHOP)]))
    page = _page(a)
    assert _words(page, a, "shop/viewer", "shop/api")["ingress"] == [
        "cnp shop/api-ingress ingress rule #1 (Allow) (TCP 80) through the L7 filter HTTP GET /health",
        "cnp shop/api-ingress ingress rule #3 (Allow) (TCP 8080)",
    ]
    assert _words(page, a, "shop/admin", "shop/api")["ingress"] == [
        "cnp shop/api-ingress ingress rule #1 (Allow) (TCP 80) (its L7 filter HTTP GET /health has no effect: a rule "
        "allows the same port without one)",
        "cnp shop/api-ingress ingress rule #2 (Allow) (TCP 80)",
    ]
