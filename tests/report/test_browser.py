"""The report in a real browser: headless Chromium (the system's, driven by Playwright), offline.

Each cluster's page is opened from a file; the tests click a heatmap cell, check the pod × pod matrix
against the engine, open an explanation and compare it with `netpol explain`, search a pod, and fail on
any console error or any request other than the file itself. Screenshots at two window sizes land in
tests/report/artifacts/ (gitignored; looked at, not compared) with the time to first paint.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from netpol.engine import Endpoint
from netpol.manifests import load_paths
from netpol.pipeline import analyze
from tests.helpers import generate_cluster_module, run_cli
from tests.report.page import read_page

ROOT = Path(__file__).resolve().parent.parent.parent
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
SIZES = ((1400, 900), (390, 844))  # a desktop window and a phone
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

sync_api = pytest.importorskip("playwright.sync_api", reason="the test extra installs playwright")


def _chromium() -> str | None:
    for candidate in (os.environ.get("NETPOL_CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium")):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    exe = _chromium()
    if exe is None:
        pytest.skip("no Chromium (Debian: apt-get install chromium; .ci/run installs it)")
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_api.sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(
            str(profile),
            executable_path=exe,
            headless=True,
            args=FLAGS,
            viewport={"width": SIZES[0][0], "height": SIZES[0][1]},
        )
        yield ctx
        ctx.close()


class Opened:
    """A page opened on a report file, recording console errors and every request it makes."""

    def __init__(self, context, path: Path, size: tuple[int, int]) -> None:  # noqa: ANN001
        self.page = context.new_page()
        self.page.set_viewport_size({"width": size[0], "height": size[1]})
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", lambda m: self.errors.append(f"{m.type}: {m.text}") if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.url = path.as_uri()
        self.page.goto(self.url)
        self.page.wait_for_selector("body[data-ready='1']", timeout=60_000)

    def first_paint_ms(self) -> float:
        """A figure to print, not to assert: on a loaded machine the paint entry may come after data-ready.

        Waits inside one `evaluate` on a buffered PerformanceObserver, not with `wait_for_function`: that one
        polls by `eval` of its predicate in a later animation frame, which the report's CSP (no 'unsafe-eval')
        blocks whenever the first check comes too early. Code compiled by the DevTools call itself is exempt."""
        return float(
            self.page.evaluate(
                """() => new Promise(resolve => {
                    const fcp = list => list.find(e => e.name === 'first-contentful-paint');
                    const now = fcp(performance.getEntriesByType('paint'));
                    if (now) { resolve(now.startTime); return; }
                    const obs = new PerformanceObserver(entries => {
                        const e = fcp(entries.getEntries());
                        if (e) { obs.disconnect(); resolve(e.startTime); }
                    });
                    obs.observe({type: 'paint', buffered: true});
                    setTimeout(() => resolve(-1), 60000);
                })"""
            )
        )

    def offline_and_clean(self) -> None:
        assert self.errors == []
        assert [u for u in self.requests if u != self.url] == []


def _write_report(tmp: Path, name: str, paths: list[str]) -> Path:
    out = tmp / f"{name}.html"
    res = run_cli("report", *paths, "-O", str(out), cwd=ROOT)
    assert res.returncode == 0, res.stderr
    return out


def _glyph(analysis, s: int, d: int) -> str:  # noqa: ANN001
    """The legend: X denied, f some allowed port only through a layer-7 filter (the engine's `endpoint_filtered`),
    . every port, ~ some ports."""
    r = analysis.reachability
    cs = r.connection(s, d)
    if not cs.is_empty and s != d and r.endpoint_filtered(Endpoint(pod=s), Endpoint(pod=d)).any():
        return "f"
    return "X" if cs.is_empty else "." if cs.is_all else "~"


CASES = {
    # name: (paths relative to the real apps or the checkout, namespace pair to open, pod cell, search, finds)
    "seed-lab": (None, ("web", "web"), ("web/test", "web/web1"), "web1", "web/web1"),
    "online-boutique": ("online-boutique", ("default", "default"), None, "frontend", "default/frontend-"),
    "npg-acs-security-demos": ("npg-acs-security-demos", ("frontend", "backend"), None, "webapp", "frontend/webapp-"),
    "cilium-starwars-l7": ("cilium-starwars/l7", ("default", "default"), None, "xwing", "default/xwing"),
    # Calico's tiers beside Kubernetes NetworkPolicies (docs/calico.md)
    "calico-tiers": (
        "samples/calico-tiers", ("monitoring", "shop"), ("monitoring/prometheus", "shop/checkout"), "checkout",
        "shop/checkout",
    ),
    # ClusterNetworkPolicy user story 3 (samples/cluster-network-policy): an Admin Pass, then a NetworkPolicy
    "cnp-user-story-3": (
        ("samples/cluster-network-policy/cluster.yaml", "samples/cluster-network-policy/user-story-3"),
        ("foo-ns-1", "bar-ns-1"),
        ("foo-ns-1/client", "bar-ns-1/svc-pub"),
        "svc-pub",
        "bar-ns-1/svc-pub",
    ),
}


@pytest.fixture(params=sorted(CASES))
def case(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple:
    name = request.param
    app = CASES[name][0]
    if app is None:
        paths = [str(ROOT / "samples" / "seed-lab")]
    elif isinstance(app, tuple):  # files of the checkout's samples
        paths = [str(ROOT / p) for p in app]
    elif app.startswith("samples/"):
        paths = [str(ROOT / app)]
    else:
        real_apps = request.getfixturevalue("real_apps")
        paths = [str(real_apps / app)]
    out = _write_report(tmp_path_factory.mktemp("reports"), name, paths)
    return name, paths, out, CASES[name][1:]


def test_report_drives_in_chromium(browser, case) -> None:  # noqa: ANN001
    name, paths, path, (ns_pair, pod_pair, query, finds) = case
    analysis = analyze(load_paths(paths))
    r = analysis.reachability
    data = read_page(path.read_text(encoding="utf-8")).data
    opened = Opened(browser, path, SIZES[0])
    page = opened.page
    fcp = opened.first_paint_ms()
    print(f"{name}: first contentful paint {fcp:.0f} ms")

    # the heatmap cell of the namespace pair opens that pair's pod matrix
    a, b = data["ns"].index(ns_pair[0]), data["ns"].index(ns_pair[1])
    page.click(f"#heat td[data-a='{a}'][data-b='{b}']")
    page.wait_for_selector("#pm td[data-s]")
    assert page.inner_text("#pm-title") == f"Pods of {ns_pair[0]} → pods of {ns_pair[1]}"
    cells = page.eval_on_selector_all(
        "#pm td[data-s]", "tds => tds.map(t => [+t.dataset.s, +t.dataset.d, t.textContent])"
    )
    rows = [i for i, p in enumerate(r.pods) if p.namespace == ns_pair[0]]
    cols = [i for i, p in enumerate(r.pods) if p.namespace == ns_pair[1]]
    assert sorted((s, d) for s, d, _ in cells) == sorted((s, d) for s in rows for d in cols)
    assert all(g == _glyph(analysis, s, d) for s, d, g in cells)
    assert {g for _, _, g in cells} - {"."}, "the chosen pair should show some isolation"

    # a pod cell's explanation is `netpol explain` for that pair (or for the same classes' representatives)
    if pod_pair is None:  # the first denied cell between two different pods
        s, d = next((s, d) for s, d, g in cells if g == "X" and s != d)
    else:
        s, d = r.pod_index[pod_pair[0]], r.pod_index[pod_pair[1]]
    page.click(f"#pm td[data-s='{s}'][data-d='{d}']")
    page.wait_for_selector("#pm-explain pre.explain")
    shown = page.inner_text("#pm-explain pre.explain")
    ex = data["explain"]
    C = data["C"]
    cs, cd = data["pods"]["cls"][s], data["pods"]["cls"][d]
    rs, rd = ex["rep"][cs], (ex["second"][cd] if cs == cd else ex["rep"][cd])
    cli = run_cli("explain", r.pods[rs].key, r.pods[rd].key, *paths, cwd=ROOT)
    # the pair's explanation; explain's closing block on what lies beyond the input is the command's own
    explained = cli.stdout.split("\n\nbeyond the input", 1)[0].strip()
    assert explained in shown
    if (rs, rd) == (s, d):
        assert shown == explained
    assert ex["pairs"][cs * C + cd] >= 0

    # search finds the pod as one types; its reach lists open
    page.fill("#pod-search", query)
    page.wait_for_selector("button.pod")
    found = page.eval_on_selector_all("button.pod", "bs => bs.map(b => b.textContent)")
    assert found and all(query in f for f in found)
    assert any(f.startswith(finds) for f in found)
    page.click("button.pod")
    page.wait_for_selector("#reach-in")
    target = r.pod_index[page.inner_text("#pod-title")]
    sources = sum(1 for o in range(len(r.pods)) if o != target and not r.connection(o, target).is_empty)
    sources += sum(1 for k in range(len(r.atoms)) if not r.ingress_from_atom(k, target).is_empty)
    assert sources == 0 or page.locator("#reach-in li").count() >= 1
    if name == "seed-lab":
        text = page.inner_text("#reach-in")
        assert "web/test : TCP 80" in text and "web/web1-allow-test ingress rule #1 (TCP 80)" in text
        assert "web/web2" not in text and "cyh/test" not in text
        page.click("#reach-in li button.link")
        page.wait_for_selector("#pod-explain pre.explain")
        assert page.inner_text("#pod-explain pre.explain").startswith("ALLOWED  web/test => web/web1 : TCP 80")

    if name == "calico-tiers":  # Calico's policies are counted and named as explain names them
        assert "4\nCalico policies" in page.inner_text("#cards")
        text = page.inner_text("#reach-in")
        assert "monitoring/prometheus : TCP 9090" in text and "Calico shop/scrape ingress rule #1 (Allow)" in text

    opened.offline_and_clean()
    _screenshots(browser, path, name, fcp)
    page.close()


def _screenshots(browser, path: Path, name: str, fcp: float) -> None:  # noqa: ANN001
    ARTIFACTS.mkdir(exist_ok=True)
    for w, h in SIZES:
        opened = Opened(browser, path, (w, h))
        opened.page.locator("#heat td[data-a]").last.click()
        opened.page.wait_for_selector("#pm td")
        opened.page.evaluate("window.scrollTo(0, 0)")
        opened.page.screenshot(path=str(ARTIFACTS / f"{name}-{w}x{h}.png"), full_page=True)
        opened.offline_and_clean()
        opened.page.close()
    with (ARTIFACTS / "first-paint.txt").open("a", encoding="utf-8") as f:
        f.write(f"{name}: first contentful paint {fcp:.0f} ms\n")


def test_diff_report_marks_the_gained_connection(browser, tmp_path: Path) -> None:  # noqa: ANN001
    new = tmp_path / "new"
    new.mkdir()
    (new / "cluster.yaml").write_text((ROOT / "samples/seed-lab/cluster.yaml").read_text())
    res = run_cli("diff", "samples/seed-lab", str(new), "-o", "html", cwd=ROOT)
    assert res.returncode == 0, res.stderr
    out = tmp_path / "diff.html"
    out.write_text(res.stdout, encoding="utf-8")
    data = read_page(res.stdout).data
    opened = Opened(browser, out, SIZES[0])
    page = opened.page
    assert "web/web2" in page.inner_text("#diff-table")
    web = data["ns"].index("web")
    cell = page.locator(f"#heat td[data-a='{web}'][data-b='{web}']")
    assert "+" in cell.inner_text() and "gained" in (cell.get_attribute("title") or "")
    cell.click()
    keys = read_page(res.stdout).pod_keys()
    s, d = keys.index("web/web2"), keys.index("web/web1")
    gained = page.locator(f"#pm td[data-s='{s}'][data-d='{d}']")
    assert gained.inner_text() == "+" and "gain" in (gained.get_attribute("class") or "")
    opened.offline_and_clean()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "diff-seed-lab-1400x900.png"), full_page=True)


def test_many_namespaces_draw_the_heatmap_on_a_canvas(browser, tmp_path: Path) -> None:  # noqa: ANN001
    """Above 40 namespaces the heatmap is a canvas (a table of thousands of cells takes seconds to lay out):
    hovering a cell shows its counts, clicking it opens that namespace pair's pod matrix. 800 pods also
    exceed the pod graph's 300, so the graph is the workload or namespace graph, and explanations above
    64 classes come from the embedded rules."""
    cluster = tmp_path / "c.yaml"
    cluster.write_text(generate_cluster_module().generate_yaml(800, 150, 3, namespaces=45))
    out = _write_report(tmp_path, "generated-45ns", [str(cluster)])
    page_data = read_page(out.read_text(encoding="utf-8"))
    data = page_data.data
    N = len(data["ns"])
    assert N > 40 and data["graph"]["unit"] in ("workload", "namespace")
    opened = Opened(browser, out, SIZES[0])
    page = opened.page
    print(f"generated 800 pods / 45 namespaces: first contentful paint {opened.first_paint_ms():.0f} ms")
    assert page.locator("#heat td").count() == 0
    a = next(i for i, n in enumerate(data["ns"]) if data["nsinfo"][i]["pods"] >= 2)
    spot = {"x": 170 + 14 * a + 7, "y": 170 + 14 * a + 7}
    page.locator("#heat-canvas").hover(position=spot)
    k = a * N + a
    tip = page.inner_text("#heat-tip")
    assert tip.startswith(
        f"{data['ns'][a]} → {data['ns'][a]}: {data['heat']['allowed'][k]} of {data['heat']['total'][k]} pod pairs"
    )
    page.locator("#heat-canvas").click(position=spot)
    page.wait_for_selector("#pm td[data-s]")
    assert page.inner_text("#pm-title") == f"Pods of {data['ns'][a]} → pods of {data['ns'][a]}"
    s, d = page.eval_on_selector("#pm td[data-s]:not(.self)", "t => [+t.dataset.s, +t.dataset.d]")
    page.click(f"#pm td[data-s='{s}'][data-d='{d}']")
    shown = page.inner_text("#pm-explain pre.explain")
    keys = page_data.pod_keys()
    verdict = "ALLOWED" if page_data.conn(s, d) else "DENIED"
    assert shown.splitlines()[0].startswith(f"{verdict}") and keys[s] in shown.splitlines()[0]
    opened.offline_and_clean()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "generated-45ns-1400x900.png"), full_page=False)


def test_report_prints_without_the_controls(browser, tmp_path: Path) -> None:  # noqa: ANN001
    """@media print: navigation and search hidden, the heatmap and findings kept; a PDF lands in artifacts."""
    out = _write_report(tmp_path, "seed-lab-print", [str(ROOT / "samples" / "seed-lab")])
    opened = Opened(browser, out, SIZES[0])
    page = opened.page
    page.emulate_media(media="print")
    assert not page.is_visible("nav") and not page.is_visible("#pod-search")
    assert page.is_visible("#heat") and page.is_visible("#findings") and page.is_visible("#graph-svg")
    ARTIFACTS.mkdir(exist_ok=True)
    page.pdf(path=str(ARTIFACTS / "seed-lab-print.pdf"), format="A4", print_background=True)
    page.screenshot(path=str(ARTIFACTS / "seed-lab-print-media.png"), full_page=True)
    assert (ARTIFACTS / "seed-lab-print.pdf").stat().st_size > 10_000
    opened.offline_and_clean()


def test_a_cluster_without_running_pods_still_opens(browser, tmp_path: Path) -> None:  # noqa: ANN001
    manifest = tmp_path / "ns.yaml"
    manifest.write_text(  # its only pod is bound to a node that does not exist: Pending, never running
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\n"
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Pod\n"
        "metadata: {name: p, namespace: a}\nspec: {nodeName: gone, containers: [{name: c, image: i}]}\n"
    )
    out = _write_report(tmp_path, "empty", [str(manifest)])
    opened = Opened(browser, out, SIZES[0])
    opened.page.click("#heat td[data-a='0'][data-b='0']")
    assert "No running pods" in opened.page.inner_text("#pm-box")
    assert "no running pods" in opened.page.inner_text("#graph-box")
    opened.offline_and_clean()


HOST_NETWORK_CLUSTER = """
apiVersion: v1
kind: Node
metadata: {name: n1}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
---
apiVersion: v1
kind: Pod
metadata: {name: agent, namespace: a}
spec: {nodeName: n1, hostNetwork: true, containers: [{name: c, image: i}]}
---
apiVersion: v1
kind: Pod
metadata: {name: x, namespace: b}
spec: {nodeName: n1, containers: [{name: c, image: i}]}
---
apiVersion: v1
kind: Pod
metadata: {name: y, namespace: b}
spec: {nodeName: n2, containers: [{name: c, image: i}]}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny, namespace: b}
spec: {podSelector: {}, policyTypes: [Ingress, Egress]}
"""


def test_pod_matrix_shows_node_local_traffic_as_the_engine_lists_it(browser, tmp_path: Path) -> None:  # noqa: ANN001
    """A hostNetwork pod and a pod of its own node reach each other both ways despite a deny-all
    ("traffic to and from the node where a Pod is running is always allowed", Kubernetes docs,
    concepts/services-networking/network-policies); the page reads those pairs from the engine's list."""
    cluster = tmp_path / "host.yaml"
    cluster.write_text(HOST_NETWORK_CLUSTER)
    out = _write_report(tmp_path, "host-network", [str(cluster)])
    analysis = analyze(load_paths([str(cluster)]))
    r = analysis.reachability
    data = read_page(out.read_text(encoding="utf-8")).data
    page = Opened(browser, out, SIZES[0]).page
    seen: dict[tuple[int, int], str] = {}
    for src_ns, dst_ns in (("a", "b"), ("b", "a")):
        a, b = data["ns"].index(src_ns), data["ns"].index(dst_ns)
        page.click(f"#heat td[data-a='{a}'][data-b='{b}']")
        page.wait_for_selector(f"#pm-title:has-text('Pods of {src_ns} → pods of {dst_ns}')")
        cells = page.eval_on_selector_all(
            "#pm td[data-s]", "tds => tds.map(t => [+t.dataset.s, +t.dataset.d, t.textContent])"
        )
        seen.update({(s, d): g for s, d, g in cells})
    agent, x, y = (r.pod_index[k] for k in ("a/agent", "b/x", "b/y"))
    assert seen == {(agent, x): ".", (agent, y): "X", (x, agent): ".", (y, agent): "X"}
    assert all(g == _glyph(analysis, s, d) for (s, d), g in seen.items())


def test_a_policy_netpol_does_not_evaluate_is_shown_and_its_pods_marked(browser, tmp_path: Path) -> None:  # noqa: ANN001
    """Issue 25 item 4: the page names the skipped policy (Istio's AuthorizationPolicy selecting run=web1, i.e.
    web/web1 of the seed lab) in the summary, and the pod's own page says its answers may be wrong."""
    skipped = tmp_path / "authz.yaml"
    skipped.write_text(
        "apiVersion: security.istio.io/v1\nkind: AuthorizationPolicy\nmetadata: {name: only-test, namespace: web}\n"
        "spec: {selector: {matchLabels: {run: web1}}, action: ALLOW, rules: [{}]}\n"
    )
    out = _write_report(tmp_path, "seed-lab-unevaluated", [str(ROOT / "samples" / "seed-lab"), str(skipped)])
    labels = {p.key: dict(p.labels) for p in load_paths([str(ROOT / "samples" / "seed-lab")]).pods}
    assert labels["web/web1"].get("run") == "web1" and labels["web/web2"].get("run") != "web1"
    opened = Opened(browser, out, SIZES[0])
    page = opened.page
    text = page.inner_text("#unevaluated")
    assert "AuthorizationPolicy/web/only-test" in text and "is an Istio policy" in text and "web/web1" in text
    assert "web/web2" not in text
    page.fill("#pod-search", "web/")
    page.wait_for_selector("button.pod")
    marked = page.eval_on_selector_all("button.pod.maybe-wrong", "bs => bs.map(b => b.textContent)")
    assert marked == ["web/web1"]
    page.click("button.pod.maybe-wrong")
    page.wait_for_selector("#pod-maybe-wrong")
    assert "AuthorizationPolicy/web/only-test is a policy netpol does not evaluate" in page.inner_text(
        "#pod-maybe-wrong"
    )
    opened.offline_and_clean()
