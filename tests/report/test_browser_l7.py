"""The report's pod matrix marks Cilium's layer-7 filters (issue 22 item 4), in headless Chromium: a pair allowed
only through a filter reads `f` (the CLI grid's and the UI's glyph), its tooltip names the filter, and the legend
says what `f` means.

tests/data/cilium-l7/shop.yaml (ours; docs.cilium.io security/policy/layer7.rst): client and viewer reach the api
on TCP 80 through HTTP filters (client through two), admin on TCP 80 without one (its plain rule wins over the
filter, "the layer 7 portions of the latter rule will have no effect"); client reaches kube-dns on UDP 53
through a DNS rule.
"""

from __future__ import annotations

from pathlib import Path

from tests.report.page import read_page
from tests.report.test_browser import ROOT, SIZES, Opened, _write_report, browser  # noqa: F401 (the fixture)

SHOP = ROOT / "tests" / "data" / "cilium-l7" / "shop.yaml"


def _cells(page, data: dict, src_ns: str, dst_ns: str) -> dict[tuple[str, str], tuple[str, str]]:  # noqa: ANN001
    """(source, destination) pod keys → (glyph, tooltip) of the pod matrix of one namespace pair."""
    a, b = data["ns"].index(src_ns), data["ns"].index(dst_ns)
    page.click(f"#heat td[data-a='{a}'][data-b='{b}']")
    page.wait_for_selector(f"#pm-title:has-text('Pods of {src_ns} → pods of {dst_ns}')")
    got = page.eval_on_selector_all(
        "#pm td[data-s]", "tds => tds.map(t => [+t.dataset.s, +t.dataset.d, t.textContent, t.title])"
    )
    P = data["pods"]
    key = [f"{data['ns'][n]}/{name}" for n, name in zip(P["ns"], P["name"], strict=True)]
    return {(key[s], key[d]): (g, tip) for s, d, g, tip in got}


def test_pod_matrix_marks_filtered_pairs_f(browser, tmp_path: Path) -> None:  # noqa: ANN001, F811
    out = _write_report(tmp_path, "shop", [str(SHOP)])
    data = read_page(out.read_text(encoding="utf-8")).data
    opened = Opened(browser, out, SIZES[0])
    page = opened.page
    shop = _cells(page, data, "shop", "shop")
    assert sorted(k for k, (g, _) in shop.items() if g == "f") == [
        ("shop/client", "shop/api"),
        ("shop/viewer", "shop/api"),
    ]
    assert shop[("shop/admin", "shop/api")][0] == "~"  # TCP 80 only, and no filter
    assert shop[("shop/client", "shop/api")][1].endswith(": TCP 80,8080 (2 L7 filters on TCP 80)")
    assert shop[("shop/viewer", "shop/api")][1].endswith(": TCP 80,8080 (L7 filter on TCP 80: HTTP GET /health)")
    assert "f through an L7 filter" in page.inner_text("#pm-box p.legend")
    dns = _cells(page, data, "shop", "kube-system")
    assert dns[("shop/client", "kube-system/coredns")] == (
        "f",
        "shop/client → kube-system/coredns: UDP 53 (L7 filter: DNS matchPattern *)",
    )
    opened.offline_and_clean()
