"""The UI's ViewModel against the definition it shortcuts: workload cells read from the class matrix must
equal the combination of every pod pair's own state (a pod to itself always allowed)."""

from __future__ import annotations

import pytest

from netpol.manifests import load_paths, load_text
from netpol.pipeline import analyze
from tests.helpers import generate_cluster_module
from tests.tui.conftest import _context
from tui.model import ALLOWED, DENIED, PARTIAL, ViewModel

HOST_NETWORK_DAEMON = """
apiVersion: v1
kind: Pod
metadata:
  name: agent-{i}
  namespace: kube-system
  labels: {{app: agent}}
  ownerReferences: [{{apiVersion: apps/v1, kind: DaemonSet, name: agent, uid: u1}}]
spec:
  nodeName: node-000{i}
  hostNetwork: true
  containers: [{{name: a, image: agent, ports: [{{containerPort: 9100}}]}}]
"""
DENY_ALL_IN_KUBE_SYSTEM = """
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny, namespace: kube-system}
spec: {podSelector: {}, policyTypes: [Ingress, Egress]}
"""


def _generated() -> str:
    mod = generate_cluster_module()
    text = mod.generate_yaml(300, 40, 3, nodes=3)
    extra = [HOST_NETWORK_DAEMON.format(i=i) for i in range(3)] + [DENY_ALL_IN_KUBE_SYSTEM]
    return text + "\n---\n" + "\n---\n".join(extra)


def brute_force(model: ViewModel, src: tuple[int, ...], dst: tuple[int, ...], probe) -> int:  # noqa: ANN001
    seen = {ALLOWED if a == b else model.cell_state(a, b, probe) for a in src for b in dst}
    return ALLOWED if seen == {ALLOWED} else DENIED if seen == {DENIED} else PARTIAL


def check_every_cell(model: ViewModel, probe) -> set[int]:  # noqa: ANN001
    groups = model.workloads(range(model.n))
    states: set[int] = set()
    for g in groups:
        row = model.group_states(g, groups, probe)
        expected = [brute_force(model, g.pods, d.pods, probe) for d in groups]
        assert row.tolist() == expected, g.name
        states.update(expected)
    return states


@pytest.mark.parametrize("probe", [None, ("TCP", 8080), ("UDP", 53)], ids=["all-ports", "tcp-8080", "udp-53"])
def test_workload_cells_equal_every_pod_pair_combined(probe) -> None:  # noqa: ANN001
    model = ViewModel(_context().analyze(load_text(_generated())))  # scheduled: pods share nodes with agents
    assert any(len(g.pods) > 1 for g in model.workloads(range(model.n)))
    assert any(g.host_network for g in model.workloads(range(model.n)))
    states = check_every_cell(model, probe)
    assert DENIED in states and ALLOWED in states  # the cluster exercises both ends


@pytest.mark.parametrize("app", ["online-boutique", "npg-onlineboutique-workloads", "bookinfo"])
def test_workload_cells_on_real_apps(real_apps, app: str) -> None:  # noqa: ANN001
    model = ViewModel(analyze(load_paths([str(real_apps / app)])))
    check_every_cell(model, None)


def test_workloads_group_replicas_under_their_deployment(real_apps) -> None:  # noqa: ANN001
    model = ViewModel(analyze(load_paths([str(real_apps / "online-boutique")])))
    groups = model.workloads(range(model.n))
    assert groups and all(g.name.endswith("[Deployment]") for g in groups)
    assert "default/frontend[Deployment]" in {g.name for g in groups}
