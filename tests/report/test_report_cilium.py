"""The HTML report of a cluster with Cilium's policies: they are listed with their rules, the pairs read back as
the engine's connections, the layer-7 filter is named in the explanations, and the Cilium findings are there."""

from __future__ import annotations

from pathlib import Path

from netpol.engine import Endpoint as EP
from netpol.manifests import load_paths
from netpol.pipeline import analyze
from netpol.report import report_html
from tests.report.page import read_page


def test_the_demo_report_lists_the_policy_and_names_the_filter(real_apps: Path) -> None:
    folder = str(real_apps / "cilium-starwars" / "l7")
    analysis = analyze(load_paths([folder]))
    page = read_page(report_html(analysis, [folder]))
    assert [p["key"] for p in page.data["policies"]] == ["cnp default/rule1"]
    assert page.data["policies"][0]["in"] and not page.data["policies"][0]["out"]
    assert page.data["policies"][0]["rules"] == ["cnp default/rule1 ingress rule #1 (Allow)"]
    assert page.data["counts"]["kinds"] == {"CiliumNetworkPolicy": 1}
    r = analysis.reachability
    keys = page.pod_keys()
    filtered = 0
    for s, src in enumerate(keys):
        for d, dst in enumerate(keys):
            i, j = r.pod_index[src], r.pod_index[dst]
            want = r.connection(i, j)
            # the demo's one HTTP rule filters the whole connection (TCP 80) of every pair it holds (issue 22: the
            # page says so in the pair's text, not a plain allow)
            mark = (
                " (L7 filter: HTTP POST /v1/request-landing)" if r.endpoint_filtered(EP(pod=i), EP(pod=j)).any() else ""
            )
            filtered += bool(mark)
            assert page.conn(s, d) == ("" if want.is_empty else want.render() + mark), (src, dst)
    assert filtered == 4  # tiefighter and each Death Star replica into the (other) Death Star replicas
    assert page.data["l7"], "the connection ids the pod matrix marks `f`"
    assert "only through the layer-7 filter HTTP POST /v1/request-landing" in page.html
    assert any(f["id"] == "CIL004" for f in page.data["findings"])
