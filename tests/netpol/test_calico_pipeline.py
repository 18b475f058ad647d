"""Calico's policies through the real pipeline (`netpol.pipeline.analyze`, the engine's tiered evaluation) and
the CLI: the hand-derived cases of tests/netpol/test_calico_semantics.py (Kubernetes NetworkPolicies at order
1000 included), random clusters against the reference evaluator, and the sample's expectations."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import analyze_objects, run_cli
from tests.netpol.calico_random import PROBES, endpoints, random_cluster
from tests.netpol.calico_reference import Reference
from tests.netpol.test_calico_semantics import CASES, Case

ROOT = Path(__file__).resolve().parents[2]



def _verdicts(objs: list[dict], probes: list[tuple[str, str, str, int]]) -> list[bool]:
    a = analyze_objects(*objs)
    r = a.reachability
    out = []
    for s, d, proto, port in probes:
        out.append(_allowed(r, s, d, proto, port))
    return out


def _allowed(r, s: str, d: str, proto: str, port: int) -> bool:  # noqa: ANN001
    """A pod pair from the matrix read-out; an address end through its IP atom (the engine's endpoint read-out)."""
    if "/" in s and "/" in d:
        return r.connection(r.pod_index[s], r.pod_index[d]).contains(proto, port)
    if "/" in d:
        return r.ingress_from_atom(r.ipspace.atom_index(s), r.pod_index[d]).contains(proto, port)
    return r.egress_to_atom(r.pod_index[s], r.ipspace.atom_index(d)).contains(proto, port)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_documented_calico_verdicts_through_the_pipeline(case: Case) -> None:
    probes = [(s, d, p, n) for s, d, p, n, _ in case.expect]
    assert _verdicts(case.objs, probes) == [e[4] for e in case.expect], case.cite


@pytest.mark.parametrize("seed", range(25))
def test_random_calico_clusters_through_the_pipeline_match_the_reference(seed: int) -> None:
    objs = random_cluster(seed)
    ref = Reference(objs)
    eps = endpoints(objs)
    probes = [(s, d, p, n) for s in eps for d in eps if s != d and ("/" in s or "/" in d) for p, n in PROBES]
    want = [ref.allowed(*p) for p in probes]
    got = _verdicts(objs, probes)
    diffs = [(p, w) for p, w, g in zip(probes, want, got, strict=True) if w != g]
    assert not diffs, diffs[:5]


def test_the_calico_sample_meets_its_expectations() -> None:
    r = run_cli("check", "samples/calico-tiers", "--expect", "samples/expectations/calico-tiers.yaml", cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
