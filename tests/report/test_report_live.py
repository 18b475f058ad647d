"""`netpol report --live`: the real kubectl against the stand-in API server (tests/live) serving the seed lab."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import run_cli
from tests.live.conftest import kubeconfig, needs_kubectl, seed_standin, standin  # noqa: F401 - fixtures
from tests.report.page import read_page

ROOT = Path(__file__).resolve().parent.parent.parent


@needs_kubectl
def test_report_live_reads_the_cluster_through_kubectl(seed_standin, kubeconfig: Path, tmp_path: Path) -> None:  # noqa: ANN001, F811
    out = tmp_path / "live.html"
    res = run_cli("report", "--live", "--kubeconfig", str(kubeconfig), "-O", str(out), cwd=ROOT)
    assert res.returncode == 0, res.stderr
    page = read_page(out.read_text(encoding="utf-8"))
    assert page.data["sources"] == ["--live"]
    keys = page.pod_keys()
    test, web1, web2 = keys.index("web/test"), keys.index("web/web1"), keys.index("web/web2")
    assert page.conn(test, web1) == "TCP 80"  # the seed lab's policy, read from the API server
    assert page.conn(web2, web1) == ""
