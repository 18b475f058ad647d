"""Smoke tests for the benchmark cluster generator: valid input for netpol, exact sizes, seeded output.

No timing here: the figures come from benchmarks/bench_matrix.py and go in notes, never in tests.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
import yaml

from netpol.manifests import load_text
from netpol.pipeline import analyze
from tests.conftest import ROOT
from tests.helpers import allowed, generate_cluster_module

SCRIPT = ROOT / "benchmarks" / "generate_cluster.py"


@pytest.fixture(scope="module")
def gen():
    return generate_cluster_module()


def test_small_cluster_loads_and_analyzes_cleanly(gen):
    text = gen.generate_yaml(200, 40, seed=5)
    cluster = load_text(text)
    assert not cluster.nodes  # no Node objects unless asked
    assert {w.kind for w in cluster.workloads} == {"Deployment", "StatefulSet"}
    assert not cluster.pods  # pods come from the workload expander
    a = analyze(cluster)
    assert len(a.pods) == 200
    assert len(a.cluster.policies) == 40
    assert a.warnings == ()  # no skipped kinds, no unresolved named ports, no implicit namespaces
    assert 1 < a.reachability.universe.class_count < 200


def test_policies_mean_what_they_say(gen):
    a = analyze(load_text(gen.generate_yaml(300, 60, seed=2)))
    ns_denied = {p.namespace for p in a.cluster.policies if p.name == "allow-dns-egress"}
    assert ns_denied, "some namespace is egress-isolated with a DNS allow"
    src = next(p for p in a.pods if p.namespace in ns_denied)
    dns = next(p for p in a.pods if p.namespace == "kube-system" and p.labels.get("k8s-app") == "kube-dns")
    assert allowed(a, src.key, dns.key, 53, "UDP")
    assert allowed(a, src.key, dns.key, 53, "TCP")
    assert not allowed(a, src.key, dns.key, 9153, "TCP")  # metrics: not in the DNS allow


def test_every_policy_shape_appears(gen):
    objs, stats = gen.generate_objects(1000, 200, seed=1)
    assert stats.pods == 1000 and sum(stats.policies.values()) == 200
    assert {
        "default-deny-ingress", "default-deny-both", "dns-egress", "from-ingress-controller", "namespace-selector",
        "and-peer", "pod-to-pod-named", "pod-to-pod-numeric", "pod-to-pod-egress", "ipblock-except", "endport",
    } <= set(stats.policies)  # fmt: skip
    text = yaml.safe_dump_all([o for o in objs if o["kind"] == "NetworkPolicy"])
    assert "except:" in text and "endPort:" in text and "namespaceSelector:" in text


def test_seeded_and_deterministic(gen):
    a = gen.generate_yaml(150, 30, seed=11)
    assert a == gen.generate_yaml(150, 30, seed=11)
    assert a != gen.generate_yaml(150, 30, seed=12)


def test_bare_pods_and_nodes(gen):
    bare = load_text(gen.generate_yaml(120, 20, seed=3, bare_pods=True))
    assert len(bare.pods) == 120 and not bare.workloads
    assert len({p.key for p in bare.pods}) == 120
    with_nodes = load_text(gen.generate_yaml(120, 20, seed=3, nodes=4))
    assert len(with_nodes.nodes) == 4


def test_command_line(gen, tmp_path):
    out = tmp_path / "c.yaml"
    r = subprocess.run(
        [sys.executable, str(SCRIPT), "--pods", "60", "--policies", "12", "--seed", "4", "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    assert out.read_text() == gen.generate_yaml(60, 12, seed=4)
    assert "60 pods" in r.stderr
