"""What the report embeds equals what the engine and the CLI say (the page only reads it back)."""

from __future__ import annotations

import itertools
import re

import pytest

from netpol.explain import EP, explain_pair
from netpol.manifests import load_paths
from netpol.pipeline import analyze
from netpol.report import report_html
from tests.helpers import analyze_objects, namespace, pod, policy
from tests.report.page import read_page

SEED = "samples/seed-lab"


def _page(analysis, sources=("x",)):
    return read_page(report_html(analysis, list(sources)))


def _brute_heat(analysis, page):
    """Per namespace pair: (allowed, total) counted pod pair by pod pair from the engine."""
    r = analysis.reachability
    out = {}
    for s, d in itertools.product(range(len(r.pods)), repeat=2):
        if s == d:
            continue
        key = (r.pods[s].namespace, r.pods[d].namespace)
        a, t = out.get(key, (0, 0))
        out[key] = (a + (not r.connection(s, d).is_empty), t + 1)
    return out


def _heat_cells(page):
    ns, N = page.data["ns"], len(page.data["ns"])
    heat = page.data["heat"]
    return {(ns[k // N], ns[k % N]): (heat["allowed"][k], heat["total"][k]) for k in range(N * N) if heat["total"][k]}


def test_every_pod_pair_reads_back_as_the_engines_connection() -> None:
    a = analyze(load_paths([SEED]))
    page = _page(a)
    r = a.reachability
    keys = page.pod_keys()
    assert keys == [p.key for p in r.pods]
    for s, d in itertools.product(range(len(r.pods)), repeat=2):
        cs = r.connection(s, d)
        assert page.conn(s, d) == (cs.render() if not cs.is_empty else ""), (keys[s], keys[d])


def test_heatmap_counts_pod_pairs_without_self_pairs() -> None:
    a = analyze(load_paths([SEED]))
    page = _page(a)
    # seed lab: web2 cannot reach web1 (the policy admits run=test only); every other pair is open
    assert _heat_cells(page) == _brute_heat(a, page)
    assert _heat_cells(page)[("web", "web")] == (5, 6)


def test_heatmap_counts_host_network_pods_reaching_their_own_node() -> None:
    deny = {"podSelector": {}, "policyTypes": ["Ingress"]}
    objs = [
        namespace("a"),
        namespace("b"),
        pod("a", "host", nodeName="n1", hostNetwork=True),
        pod("b", "x", nodeName="n1"),
        pod("b", "y", nodeName="n2"),
        policy("b", "deny", deny),
    ]
    a = analyze_objects(*objs)
    page = _page(a)
    assert _heat_cells(page) == _brute_heat(a, page)
    r = a.reachability
    host, x = r.pod_index["a/host"], r.pod_index["b/x"]
    assert page.conn(host, x) == "All Connections"  # same node: always allowed, whatever b's default-deny says
    assert page.conn(x, host) == "All Connections"  # and back: a pod and its node, both ways
    for s, d in itertools.product(range(len(r.pods)), repeat=2):
        cs = r.connection(s, d)
        assert page.conn(s, d) == (cs.render() if not cs.is_empty else "")


def test_embedded_explanations_are_the_cli_explain_text_for_the_class_pair() -> None:
    a = analyze(load_paths([SEED]))
    page = _page(a)
    ex = page.data["explain"]
    C = page.data["C"]
    r = a.reachability
    test, web1 = r.pod_index["web/test"], r.pod_index["web/web1"]
    cs, cd = r.pod_class(test), r.pod_class(web1)
    text = ex["texts"][ex["pairs"][cs * C + cd]]
    rs, rd = ex["rep"][cs], ex["rep"][cd]
    assert text == "\n".join(explain_pair(a, EP(pod=rs), EP(pod=rd)).lines())
    assert "web/web1-allow-test ingress rule #1" in text and text.startswith("ALLOWED")


def test_summary_counts_and_findings_come_from_the_cluster_and_the_audit() -> None:
    a = analyze(load_paths([SEED]))
    page = _page(a)
    c = page.data["counts"]
    assert (c["namespaces"], c["pods"], c["policies"], c["nodes"], c["pending"]) == (2, 4, 1, 3, 0)
    ids = {f["id"] for f in page.data["findings"]}
    assert {"NP001", "NP003"} <= ids
    web = page.data["nsinfo"][page.data["ns"].index("web")]
    assert (web["pods"], web["iso_in"], web["iso_out"], web["dd_in"]) == (3, 1, 0, [])


def test_page_is_self_contained() -> None:
    html = report_html(analyze(load_paths([SEED])), [SEED])
    assert not re.search(r"""(src|href)\s*=\s*["'](https?:)?//""", html)
    assert "<link" not in html and "@import" not in html and "url(http" not in html
    assert "default-src 'none'" in html  # the page's own CSP forbids any fetch


@pytest.mark.parametrize("app", ["online-boutique", "npg-acs-security-demos"])
def test_real_apps_read_back_pair_by_pair(real_apps, app: str) -> None:  # noqa: ANN001
    a = analyze(load_paths([str(real_apps / app)]))
    page = _page(a)
    r = a.reachability
    for s, d in itertools.product(range(len(r.pods)), repeat=2):
        cs = r.connection(s, d)
        assert page.conn(s, d) == (cs.render() if not cs.is_empty else "")
    assert _heat_cells(page) == _brute_heat(a, page)
    assert page.data["explain"] is not None  # small clusters embed every class pair's explanation


def test_small_clusters_draw_one_arrow_per_allowed_pod_pair() -> None:
    a = analyze(load_paths([SEED]))
    page = _page(a)
    r = a.reachability
    allowed = sum(
        1 for s, d in itertools.product(range(len(r.pods)), repeat=2) if s != d and not r.connection(s, d).is_empty
    )
    g = page.data["graph"]
    assert (g["unit"], g["nodes"], g["edges"], g["merged"]) == ("pod", 4, allowed, False)
    assert page.html.count('class="edge"') == allowed
    assert "web/web2 → web/web1" not in page.html  # the one denied pair has no arrow


def test_merged_arrows_keep_the_heaviest_and_count_the_rest() -> None:
    import numpy as np

    from netpol.report import layout

    n = 40
    labels = [f"ns{i}/p" for i in range(n)]
    adj = np.arange(n * n, dtype=np.int64).reshape(n, n) + 1  # every pair connected, weights all different
    old = layout.MAX_EDGES, layout.MAX_MERGED
    layout.MAX_EDGES, layout.MAX_MERGED = 100, 50
    try:
        d = layout.draw(labels, [x.split("/")[0] for x in labels], adj, "namespace")
    finally:
        layout.MAX_EDGES, layout.MAX_MERGED = old
    assert d.merged and d.edges == 50 and d.dropped == n * (n - 1) - 50
    assert "ns39 → ns38" in d.svg  # among the heaviest
    assert "ns0 → ns1:" not in d.svg  # the lightest is left out


def test_cluster_network_policies_are_counted_listed_and_decide_the_embedded_matrix() -> None:
    """Issue 21: the report lists ClusterNetworkPolicies with the other policies, and its matrix is the engine's
    (user story 3 of samples/cluster-network-policy: foo-ns-1 reaches svc-pub on TCP 8080 only)."""
    story = "samples/cluster-network-policy"
    a = analyze(load_paths([f"{story}/cluster.yaml", f"{story}/user-story-3"]))
    page = _page(a)
    assert page.data["counts"]["kinds"] == {"ClusterNetworkPolicy": 2}
    assert [p["key"] for p in page.data["policies"]] == [
        "CNP pub-svc-delegate-example",
        "CNP bar-ns-1-admin-deny",
        "foo-ns-1/allow-svc-pub-http",
    ]
    assert any(
        label.startswith("CNP pub-svc-delegate-example egress rule #1")
        for p in page.data["policies"]
        for label in p["rules"]
    )
    keys = page.pod_keys()
    r = a.reachability
    src, dst = keys.index("foo-ns-1/client"), keys.index("bar-ns-1/svc-pub")
    assert page.conn(src, dst) == "TCP 8080" == r.connection(src, dst).render()
