"""On every seed-lab policy variant, who-can-reach web1 equals the variant's pinned matrix (the lines into
web/web1), and explain agrees pair by pair."""

from __future__ import annotations

import pytest

from netpol.explain import EP, explain_pair, who_can_reach
from netpol.targets import Resolver
from tests.questions.conftest import ROOT, SEED, analyze_path

VARIANTS = sorted(p for p in (ROOT / "samples" / "seed-lab-variants").glob("*") if (p / "expected.txt").is_file())


@pytest.mark.parametrize("variant", VARIANTS, ids=[v.name for v in VARIANTS])
def test_who_can_reach_web1_matches_pinned_matrix(variant) -> None:
    a = analyze_path(SEED / "cluster.yaml", variant)
    got = [f"{e.src} => {e.dst} : {e.conn.render()}" for e in who_can_reach(a, Resolver(a).resolve("web1")).entries]
    want = [line for line in (variant / "expected.txt").read_text().splitlines() if " => web/web1 : " in line]
    assert sorted(got) == sorted(want)
    r = a.reachability
    d = r.pod_index["web/web1"]
    sources = {e.src for e in who_can_reach(a, Resolver(a).resolve("web1")).entries}
    for s, p in enumerate(r.pods):
        if s == d:
            continue
        x = explain_pair(a, EP(pod=s), EP(pod=d))
        assert x.allowed == (p.key in sources)
        if not x.allowed:  # a denial is always explained by one side with no allowing rule
            assert any(side.isolated and not side.ok for side in (x.egress, x.ingress))
