"""Issue 24 in the HTML report: the Doors section lists every path from outside the cluster (netpol exposure) with
its verdict and the rules deciding each hop, in the data and in a real browser (headless Chromium, offline)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.helpers import run_cli
from tests.report.page import read_page
from tests.report.test_browser import SIZES, Opened, _write_report, browser  # noqa: F401 - the fixture

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "samples" / "exposure"
ACS = ROOT / "tests" / "data" / "real-apps" / "npg-acs-security-demos"


def test_the_report_embeds_the_doors_as_netpol_exposure_gives_them(tmp_path: Path) -> None:
    page = _write_report(tmp_path, "exposure", [str(SAMPLE)])
    data = read_page(page.read_text()).data
    cli = json.loads(run_cli("exposure", str(SAMPLE), "-o", "json").stdout)
    assert data["doors"] == cli["paths"]  # the same paths, verdicts and rules as the command


def test_the_doors_section_in_a_browser(browser, tmp_path: Path) -> None:  # noqa: ANN001, F811
    page = _write_report(tmp_path, "exposure", [str(SAMPLE)])
    opened = Opened(browser, page, SIZES[0])
    rows = opened.page.locator("#doors-table tbody tr")
    assert rows.count() == 18  # tests/questions/test_exposure_sample.py: 16 routed paths and 2 not routed
    texts = [rows.nth(k).inner_text() for k in range(rows.count())]
    [blocked] = [t for t in texts if t.startswith("blocked") and "Ingress apps/legacy-ingress" in t]
    assert "ingress: isolated by apps/web-from-gateway: no rule admits it" in blocked
    [refused] = [t for t in texts if "TLSRoute infra/tls-route" in t]
    assert re.search(r"not routed: no ReferenceGrant in namespace shop", refused)
    opened.offline_and_clean()


def test_the_acs_routes_in_the_report(browser, tmp_path: Path) -> None:  # noqa: ANN001, F811
    """npg-acs-security-demos' two Routes through the OpenShift router (not in the input), both allowed by the
    `namespaceSelector: {}` rules (tests/questions/test_exposure_real_apps.py derives them)."""
    page = _write_report(tmp_path, "acs", [str(ACS)])
    opened = Opened(browser, page, SIZES[1])
    rows = opened.page.locator("#doors-table tbody tr")
    texts = sorted(rows.nth(k).inner_text() for k in range(rows.count()))
    assert len(texts) == 2 and all(t.startswith("allowed") for t in texts)
    assert "frontend/asset-cache-netpol ingress rule #1 (TCP 8080)" in texts[0]
    assert "frontend/webapp-netpol ingress rule #1 (TCP 8080)" in texts[1]
    opened.offline_and_clean()
