"""`netpol schedule --drain A --drain B` behaves as `kubectl drain A B` (issue 25 item 3).

kubectl's RunDrain (staging/src/k8s.io/kubectl/pkg/cmd/drain/drain.go) first calls RunCordonOrUncordon(true),
which cordons every named node, and only then walks the nodes calling deleteOrEvictPodsSimple on each. So while
the first node's pods are evicted, the second node is already unschedulable: no replacement lands there, and
no pod is evicted twice. Expected texts are derived here by hand from kube-scheduler's FailedScheduling format
(pkg/scheduler/schedule_one.go FitError.Error: each node counted once under the first filter that rejects it,
in the framework's filter order NodeUnschedulable → NodeName → TaintToleration → NodeAffinity → … →
InterPodAffinity; "count reason" strings sorted as strings and joined by ", "; then DefaultPreemption's
"preemption: 0/N nodes are available: …" with the same histogram rule).
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import run_cli
from tests.scheduling.manifests import node_doc, pod_doc, write

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "samples" / "scheduling" / "drain-pdb-blocked"
MASTER, W31, W32 = "master30.cyh.cloud", "worker31.cyh.cloud", "worker32.cyh.cloud"


def test_two_drained_nodes_are_both_unschedulable_when_the_first_ones_pod_is_recreated() -> None:
    """The sample: quorum (3 replicas, required anti-affinity on kubernetes.io/hostname, PDB minAvailable 2),
    one replica per node: master30, worker31, worker32.

    kubectl drain worker31 worker32:
    1. both workers cordoned.
    2. worker31: its replica is evicted (3 healthy, 2 needed: 1 disruption allowed); the replacement is scheduled:
       - worker31, worker32: NodeUnschedulable rejects them first → "node(s) were unschedulable" ×2
         (before the fix worker32 was still schedulable and counted under InterPodAffinity instead);
       - master30 (tolerated taint): InterPodAffinity, the master's replica → "node(s) didn't match pod
         anti-affinity rules" ×1.
       Sorted: "1 node(s) didn't match …" < "2 node(s) were unschedulable".
       Preemption: the unschedulable nodes are UnschedulableAndUnresolvable → "Preemption is not helpful for
       scheduling" ×2; on master30 the only pod has the same priority, so no victim → "No preemption victims
       found for incoming pod" ×1. Sorted: "1 No …" < "2 Preemption …".
    3. worker32: its replica's eviction would leave 1 healthy pod of 2 needed (the replacement is Pending) →
       refused; worker32 is left undrained, kubectl exits 1.
    """
    r = run_cli("schedule", str(SAMPLE), "--drain", W31, "--drain", W32, "-o", "json")
    assert r.returncode == 1, r.stderr
    doc = json.loads(r.stdout)
    evicted = [(e["pod"], e["node"]) for e in doc["drain"]["evicted"]]
    assert len(evicted) == 1 and evicted[0][1] == W31
    replacement = doc["drain"]["evicted"][0]["replacement"]
    pods = {p["name"]: p for p in doc["pods"]}
    assert pods[replacement]["phase"] == "Pending"
    assert pods[replacement]["reason"] == (
        "0/3 nodes are available: 1 node(s) didn't match pod anti-affinity rules, 2 node(s) were unschedulable. "
        "preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, "
        "2 Preemption is not helpful for scheduling."
    )
    assert [(b["node"], pods[b["pod"]]["node"]) for b in doc["drain"]["blocked"]] == [(W32, W32)]
    assert {n["name"]: n["unschedulable"] for n in doc["nodes"]} == {MASTER: False, W31: True, W32: True}


def test_the_wide_output_cordons_both_then_drains_the_first_and_leaves_the_second_pending() -> None:
    """kubectl's output order: `node/A cordoned`, `node/B cordoned` (RunCordonOrUncordon), then per node the
    evictions and `node/A drained`; the refused node is listed on stderr under "There are pending nodes to be
    drained:"."""
    r = run_cli("schedule", str(SAMPLE), "--drain", W31, "--drain", W32)
    assert r.returncode == 1
    tail = r.stdout[r.stdout.index(f"node/{W31} cordoned") :].splitlines()
    assert tail[0] == f"node/{W31} cordoned" and tail[1] == f"node/{W32} cordoned"
    assert tail[2].startswith("pod/quorum-") and " evicted (recreated as default/quorum-" in tail[2]
    assert tail[3] == f"node/{W31} drained" and len(tail) == 4
    assert r.stderr.endswith(f"There are pending nodes to be drained:\n {W32}\n")


def test_a_pod_barred_from_the_master_is_evicted_once_and_stays_pending(tmp_path: Path) -> None:
    """A one-replica workload on w1, not tolerating the control-plane taint. `kubectl drain w1 w2`: w2 is cordoned
    before w1's pod is evicted, so its replacement has nowhere to go (before the fix it landed on w2 and was
    evicted a second time when w2's turn came).

    Replacement's FailedScheduling, by hand: master → TaintToleration "node(s) had untolerated taint
    {node-role.kubernetes.io/control-plane: }" ×1; w1, w2 → NodeUnschedulable "node(s) were unschedulable" ×2.
    Both filters answer UnschedulableAndUnresolvable, so preemption is not helpful on any of the 3 nodes.
    w2 has no pod: drained. Both drains succeed: exit 0.
    """
    taint = [{"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}]
    path = write(
        tmp_path / "c.yaml",
        node_doc("master", "10.1.0.1", taints=taint),
        node_doc("w1", "10.1.0.2"),
        node_doc("w2", "10.1.0.3"),
        pod_doc("solo-5d8f9-abcde", node="w1", owner=("ReplicaSet", "solo-5d8f9"), phase="Running"),
    )
    r = run_cli("schedule", path, "--drain", "w1", "--drain", "w2", "-o", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    ((pod, node, replacement),) = [(e["pod"], e["node"], e["replacement"]) for e in doc["drain"]["evicted"]]
    assert (pod, node) == ("default/solo-5d8f9-abcde", "w1")
    (placed,) = [p for p in doc["pods"] if p["name"] == replacement]
    assert placed["phase"] == "Pending" and placed["node"] is None
    assert placed["reason"] == (
        "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, "
        "2 node(s) were unschedulable. preemption: 0/3 nodes are available: 3 Preemption is not helpful for "
        "scheduling."
    )
    assert doc["drain"]["blocked"] == [] and doc["drain"]["errors"] == []
    wide = run_cli("schedule", path, "--drain", "w1", "--drain", "w2")
    assert "node/w1 drained\nnode/w2 drained\n" in wide.stdout and wide.returncode == 0
