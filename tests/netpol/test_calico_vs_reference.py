"""Random clusters with Calico policies: the compiled form, walked as tiers.py specifies, equals the reference
evaluator (tests/netpol/calico_reference.py, written from Calico's docs) on every pair and probe."""

from __future__ import annotations

import pytest

from tests.netpol.calico_harness import compile_objects
from tests.netpol.calico_random import PROBES, endpoints, random_cluster
from tests.netpol.calico_reference import Reference


@pytest.mark.parametrize("seed", range(60))
def test_random_calico_clusters_match_the_reference(seed: int) -> None:
    objs = random_cluster(seed)
    ref = Reference(objs)
    compiled = compile_objects(objs)
    eps = endpoints(objs)
    diffs = []
    for s in eps:
        for d in eps:
            if "/" not in s and "/" not in d:
                continue
            for proto, port in PROBES:
                want = ref.allowed(s, d, proto, port)
                if compiled.allowed(s, d, proto, port) != want:
                    diffs.append((s, d, proto, port, want))
    assert not diffs, diffs[:5]
