"""The report's reasons in a real browser equal the engine's, for every pod pair of two real apps.

Headless Chromium (as tests/report/test_browser.py) opens two pages per app: the one `netpol report` writes,
whose pod lists show each side's rules per pair, and one written with an explain budget of 0, so that every
pair's explanation is the verdict with each side's embedded reasons (what a cluster above the budget gets).
The references are the commands users run: `netpol who-can-reach` and `netpol can-reach` (subprocesses,
-o json) for every allowed pair, and `netpol explain`'s JSON for every pair (its verdict line; for a
denied pair, its isolation, allowing rules and tier steps). npg-anp-demo has Admin and Baseline tiers
(Allow, Deny, Pass); online-boutique is NetworkPolicies only, with a default deny.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from netpol.explain import EXCEPTION_WORDS, explain_targets
from netpol.manifests import load_paths
from netpol.pipeline import Analysis, analyze
from netpol.report.data import build
from netpol.report.html import render
from netpol.targets import Resolver
from tests.helpers import run_cli
from tests.report.test_browser import SIZES, Opened, _write_report, browser  # noqa: F401 (the fixture)

ROOT = Path(__file__).resolve().parent.parent.parent
APPS = ("npg-anp-demo", "online-boutique")
EVERY_POD = "!netpol-test-no-such-label"  # a selector every pod matches (DoesNotExist of a key nobody sets)
Words = tuple[list[str], list[str]]


def _listed(question: str, path: str, namespaces: list[str]) -> dict[tuple[str, str], Words]:
    """(source, destination) → (egress rules, ingress rules) of every connection the command lists for every
    pod of the namespaces."""
    args = [question, "-l", EVERY_POD, *[x for ns in namespaces for x in ("-n", ns)], "-o", "json", "-q", path]
    res = run_cli(*args, cwd=ROOT)
    assert res.returncode in (0, 1), res.stderr
    return {
        (c["src"], c["dst"]): (c["egress_rules"], c["ingress_rules"]) for c in json.loads(res.stdout)["connections"]
    }


def _explained(analysis: Analysis) -> dict[tuple[int, int], dict]:
    """`netpol explain SRC DST -o json` for every ordered pod pair (its command's own calls, one analysis)."""
    r = analysis.reachability
    res = Resolver(analysis)
    out = {}
    for s, src in enumerate(r.pods):
        for d, dst in enumerate(r.pods):
            (e,) = explain_targets(analysis, res.resolve(src.key), res.resolve(dst.key))
            out[(s, d)] = e.to_json()
    return out


def _split(text: str) -> list[str]:
    """A side's words as the page joins them ("; "), split back ("isolated by …; no rule allows it" is one)."""
    words: list[str] = []
    for part in text.split("; "):
        if part == "no rule allows it" and words:
            words[-1] += "; " + part
        else:
            words.append(part)
    return words


def _agrees_with_explain(words: list[str], side: dict) -> None:
    """A side of a pair no command lists (denied) against `netpol explain`'s JSON for that side: "not isolated",
    or the allowing rules, or "isolated by" its policies when nothing allows; then each rule of another tier
    that decided ports (the walk's steps, in order)."""
    steps = [
        t
        for t in side["tiers"]
        if t["action"] in ("Deny", "Pass") and t["tier"] != "NetworkPolicy tier" and t["ports"] != "No Connections"
    ]
    head, tiered = words[: len(words) - len(steps)], words[len(words) - len(steps) :]
    for word, step in zip(tiered, steps, strict=True):
        label, sep, rest = word.rpartition(f": {step['action']} (")
        assert sep and step["step"].startswith(label) and rest == step["ports"] + ")", (word, step)
    if not side["isolated"]:
        assert head == ["not isolated"]
    elif side["allowed_by"]:
        assert all(w.startswith(a["rule"] + " (") for w, a in zip(head, side["allowed_by"], strict=True)), head
        if len(head) == 1:
            assert head == [f"{side['allowed_by'][0]['rule']} ({side['allowed_text']})"]
    elif steps:
        assert head == []
    else:
        assert head == [f"isolated by {', '.join(side['policies'])}; no rule allows it"]


def _verdict_line(e: dict) -> str:
    """`netpol explain`'s first line."""
    if e["allowed"]:
        return f"ALLOWED  {e['src']} => {e['dst']} : {e['text']}"
    return f"DENIED   {e['src']} => {e['dst']}"


COLLECT_EXPLANATIONS = """tds => tds.map(td => {
    td.click();
    return [+td.dataset.s, +td.dataset.d, document.querySelector('#pm-explain pre.explain').textContent];
})"""

COLLECT_LIST = """lis => lis.filter(li => li.querySelector('b')).map(li =>
    [li.querySelector('b').textContent, li.querySelector('.rules').textContent])"""


@pytest.mark.parametrize("app", APPS)
def test_every_pod_pairs_reasons_on_the_page_are_the_engines(browser, real_apps, tmp_path, app) -> None:  # noqa: ANN001, F811
    path = str(real_apps / app)
    analysis = analyze(load_paths([path]))
    r = analysis.reachability
    keys = [p.key for p in r.pods]
    namespaces = sorted({p.namespace for p in r.pods})
    who = _listed("who-can-reach", path, namespaces)  # every allowed pair into a pod, with both sides' words
    can = _listed("can-reach", path, namespaces)  # every allowed pair out of a pod
    pods = set(keys)
    assert {k: v for k, v in can.items() if k[1] in pods} == {k: v for k, v in who.items() if k[0] in pods}
    explained = _explained(analysis)

    # The page as `netpol report` writes it: each pod's lists, both ways, name each pair's rules as the commands do
    opened = Opened(browser, _write_report(tmp_path, app, [path]), SIZES[0])
    page = opened.page
    for p, key in enumerate(keys):
        page.fill("#pod-search", key)
        page.click(f"button.pod[data-pod='{p}']")
        page.wait_for_selector("#reach-in")
        assert page.inner_text("#pod-title") == key
        for ul, listed, inbound in (("#reach-in", who, True), ("#reach-out", can, False)):
            shown = {}
            for names, rules in page.eval_on_selector_all(f"{ul} li", COLLECT_LIST):
                assert "pods)" not in names  # groups of up to four pods name them
                for other in names.split(", "):
                    shown[(other, key) if inbound else (key, other)] = rules
            expected = {pair: w for pair, w in listed.items() if pair[1 if inbound else 0] == key}
            assert shown == {
                pair: f"egress: {'; '.join(eg)} · ingress: {'; '.join(ig)}" for pair, (eg, ig) in expected.items()
            }
    opened.offline_and_clean()
    page.close()

    # Explain budget 0: every pod pair's explanation is the verdict and each side's embedded reasons
    data, blobs = build(analysis, title=f"{app} (no explanation embedded)", sources=[path], explain_budget=0)
    assert data["explain"] is None
    lazy = tmp_path / f"{app}-budget-0.html"
    lazy.write_text(render(data, blobs), encoding="utf-8")
    opened = Opened(browser, lazy, SIZES[0])
    page = opened.page
    seen = set()
    for a, src_ns in enumerate(data["ns"]):
        for b, dst_ns in enumerate(data["ns"]):
            if not data["nsinfo"][a]["pods"] or not data["nsinfo"][b]["pods"]:
                continue
            page.click(f"#heat td[data-a='{a}'][data-b='{b}']")
            page.wait_for_selector(f"#pm-title:text-is('Pods of {src_ns} → pods of {dst_ns}')")
            for s, d, text in page.eval_on_selector_all("#pm td[data-s]", COLLECT_EXPLANATIONS):
                seen.add((s, d))
                _check_explanation(text, keys[s], keys[d], explained[(s, d)], who.get((keys[s], keys[d])))
    assert seen == set(explained)
    opened.offline_and_clean()


def _check_explanation(text: str, src: str, dst: str, e: dict, listed: Words | None) -> None:
    lines = text.splitlines()
    assert lines[0] == _verdict_line(e)
    sides = {}
    for direction, me in (("egress", src), ("ingress", dst)):
        (line,) = [x for x in lines if x.startswith(f"  {direction} ({me}): ")]
        sides[direction] = line.split("): ", 1)[1]
    if src == dst:  # loopback: explain has no sides, only its note; the page the engine's exception words
        assert any("loopback" in n for n in e["notes"])
        egress, ingress = EXCEPTION_WORDS["loopback"]
        assert sides == {"egress": "; ".join(egress), "ingress": "; ".join(ingress)}
    elif listed is not None:  # allowed: who-can-reach's words, side by side
        assert sides == {"egress": "; ".join(listed[0]), "ingress": "; ".join(listed[1])}
    else:
        assert not e["allowed"]
        for direction in ("egress", "ingress"):
            _agrees_with_explain(_split(sides[direction]), e[direction])
