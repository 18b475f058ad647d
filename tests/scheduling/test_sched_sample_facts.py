"""The outcome each scenario's README (samples/scheduling/README.md and the comment atop its workloads.yaml)
states in words, asserted directly on a fresh `netpol schedule -o json` run: node per pod, Pending reasons,
drain and preemption results. These facts are independent of the expected.golden files, which the code
writes; a golden regenerated after a regression would still fail here."""

from __future__ import annotations

import contextlib
import io
import json
from collections import Counter
from pathlib import Path

import pytest

from netpol.cli import main

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "scheduling"
MASTER, W31, W32 = "master30.cyh.cloud", "worker31.cyh.cloud", "worker32.cyh.cloud"
NOT_HELPFUL_EVERYWHERE = " preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."


def run(folder: str, *argv: str) -> dict:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        main(["schedule", str(SAMPLES / folder), "-o", "json", *argv])
    return json.loads(out.getvalue())


def by_prefix(doc: dict, prefix: str) -> list[dict]:
    return [p for p in doc["pods"] if p["name"].split("/", 1)[1].startswith(prefix)]


def nodes_of(pods: list[dict]) -> Counter[str | None]:
    return Counter(p["node"] if p["phase"] == "Running" else None for p in pods)


def test_node_affinity_deployment_puts_seven_on_worker32_and_one_on_worker31() -> None:
    pods = by_prefix(run("node-affinity-deployment"), "node-affinity-")
    assert nodes_of(pods) == Counter({W32: 7, W31: 1})


def test_pod_affinity_hostname_follows_busybox_to_worker31() -> None:
    doc = run("pod-affinity-hostname")
    assert by_prefix(doc, "test-busybox")[0]["node"] == W31
    assert nodes_of(by_prefix(doc, "affinity-")) == Counter({W31: 3})


def test_pod_affinity_pending_without_the_busybox_pod() -> None:
    pods = by_prefix(run("pod-affinity-pending"), "affinity-")
    assert len(pods) == 3 and all(p["phase"] == "Pending" for p in pods)
    assert all("2 node(s) didn't match pod affinity rules" in p["reason"] for p in pods)
    assert all(p["reason"].endswith(NOT_HELPFUL_EVERYWHERE) for p in pods)  # affinity is unresolvable


def test_pod_affinity_os_lands_on_any_worker() -> None:
    pods = by_prefix(run("pod-affinity-os"), "affinity-")
    assert all(p["phase"] == "Running" and p["node"] in (W31, W32) for p in pods)


def test_pod_anti_affinity_hostname_avoids_busybox_on_worker31() -> None:
    doc = run("pod-anti-affinity-hostname")
    assert by_prefix(doc, "test-busybox")[0]["node"] == W31
    assert nodes_of(by_prefix(doc, "affinity-")) == Counter({W32: 3})


def test_pod_anti_affinity_os_leaves_no_node() -> None:
    pods = by_prefix(run("pod-anti-affinity-os"), "affinity-")
    assert [p["phase"] for p in pods] == ["Pending"] * 3
    assert all("didn't match pod anti-affinity rules" in p["reason"] for p in pods)


def test_store_web_store_runs_one_of_each_per_worker_and_the_third_replicas_pend() -> None:
    doc = run("store-web-store")
    for prefix in ("redis-cache-", "web-server-"):
        assert nodes_of(by_prefix(doc, prefix)) == Counter({W31: 1, W32: 1, None: 1}), prefix


def test_taints_pending_gives_the_source_materials_text() -> None:
    (p,) = run("taints-pending")["pods"]
    assert p["phase"] == "Pending"
    assert p["reason"] == (
        "0/3 nodes are available: 1 node(s) had untolerated taint {CPU: L1}, 1 node(s) had untolerated taint "
        "{CPU: L2}, 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }." + NOT_HELPFUL_EVERYWHERE
    )


def test_taints_tolerated_opens_worker31_only() -> None:
    (p,) = run("taints-tolerated")["pods"]
    assert (p["phase"], p["node"]) == ("Running", W31)


def test_three_taints_need_every_hard_taint_tolerated() -> None:
    doc = run("three-taints")
    assert by_prefix(doc, "tolerates-all")[0]["node"] == W31
    two = by_prefix(doc, "tolerates-two")[0]
    assert two["phase"] == "Pending" and "1 node(s) had untolerated taint {DISK: D1}" in two["reason"]


def test_node_affinity_cpu_mem_prefers_the_node_with_mem() -> None:
    pods = by_prefix(run("node-affinity-cpu-mem"), "cpu-mem-")
    assert nodes_of(pods) == Counter({W32: 3})  # required CPU In [L1, L2]: both workers; preferred MEM: worker32


def test_zone_pod_affinity_stays_in_the_databases_zone() -> None:
    doc = run("zone-pod-affinity")
    assert by_prefix(doc, "db")[0]["node"] == W31
    web = by_prefix(doc, "web-")
    assert web and all(p["phase"] == "Running" and p["node"] in (MASTER, W31) for p in web)  # zone-a only


def test_cordon_keeps_new_pods_off_worker31() -> None:
    pods = run("cordon", "--cordon", W31)["pods"]
    assert pods and all(p["phase"] == "Running" and p["node"] != W31 for p in pods)


def test_drain_pdb_moves_every_replica_to_worker32_one_at_a_time() -> None:
    doc = run("drain-pdb", "--drain", W31, "--ignore-daemonsets")
    assert nodes_of(doc["pods"]) == Counter({W32: 3})
    evicted = doc["drain"]["evicted"]
    assert len(evicted) == 2 and all(e["replacement"] for e in evicted) and doc["drain"]["blocked"] == []


def test_drain_pdb_blocked_refuses_the_second_eviction() -> None:
    doc = run("drain-pdb-blocked", "--drain", W31, "--drain", W32)
    (evicted,) = doc["drain"]["evicted"]
    (blocked,) = doc["drain"]["blocked"]
    assert evicted["node"] == W31 and blocked["node"] == W32
    assert blocked["reason"].startswith("Cannot evict pod as it would violate the pod's disruption budget.")
    replacement = next(p for p in doc["pods"] if p["name"] == evicted["replacement"])
    assert replacement["phase"] == "Pending"


def test_daemonsets_with_and_without_the_control_plane_toleration() -> None:
    doc = run("daemonset")
    assert nodes_of(by_prefix(doc, "node-agent-")) == Counter({MASTER: 1, W31: 1, W32: 1})
    assert nodes_of(by_prefix(doc, "log-agent-")) == Counter({W31: 1, W32: 1})


def test_daemonset_like_deployment_leaves_the_fourth_replica_pending() -> None:
    pods = by_prefix(run("daemonset-like-deployment"), "per-node-")
    assert nodes_of(pods) == Counter({MASTER: 1, W31: 1, W32: 1, None: 1})


def test_nodename_bypass_skips_the_scheduler_but_not_the_kubelet() -> None:
    pods = {p["name"].split("/", 1)[1]: p for p in run("nodename-bypass")["pods"]}
    assert (pods["on-master"]["phase"], pods["on-master"]["node"]) == ("Running", MASTER)  # taint not checked
    assert (pods["too-big"]["phase"], pods["too-big"]["reason"]) == ("Failed", "OutOfcpu")
    assert (pods["wrong-selector"]["phase"], pods["wrong-selector"]["reason"]) == ("Failed", "NodeAffinity")
    assert pods["ghost"]["phase"] == "Pending" and "not found" in pods["ghost"]["reason"]


def test_statefulset_ordered_ready_stops_at_the_first_pending_ordinal() -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        main(["schedule", str(SAMPLES / "statefulset-ordered")])
    wide = out.getvalue()
    doc = run("statefulset-ordered")
    web = {p["name"]: p["phase"] for p in by_prefix(doc, "web-")}
    assert web == {"default/web-0": "Running", "default/web-1": "Running", "default/web-2": "Pending"}
    assert "not created: default/web-3" in wide and "not created: default/web-4" in wide
    cache = by_prefix(doc, "cache-")
    assert len(cache) == 3 and any(p["phase"] == "Pending" for p in cache)  # Parallel: every pod created


def test_preemption_sample_evicts_the_batch_pods_on_worker31() -> None:
    doc = run("preemption")
    payments = by_prefix(doc, "payments-")[0]
    assert (payments["phase"], payments["node"]) == ("Running", W31)
    (pre,) = doc["preemptions"]
    assert pre["node"] == W31
    assert sorted(v["pod"] for v in pre["victims"]) == ["default/batch-6d5f8c-k2x7q", "default/batch-6d5f8c-m9z4t"]
    names = {p["name"] for p in doc["pods"]}
    assert not names & {v["pod"] for v in pre["victims"]}  # evicted...
    for v in pre["victims"]:  # ...recreated by the ReplicaSet, and nothing lower left to preempt
        replacement = next(p for p in doc["pods"] if p["name"] == v["replacement"])
        assert replacement["phase"] == "Pending"
        assert replacement["reason"].endswith("2 No preemption victims found for incoming pod.")
    assert by_prefix(doc, "web-")[0]["node"] == W32  # the medium-priority pod was not touched
    report = by_prefix(doc, "report")[0]
    assert report["phase"] == "Pending"
    assert report["reason"].endswith(" preemption: not eligible due to preemptionPolicy=Never.")


@pytest.mark.parametrize("folder", sorted(p.name for p in SAMPLES.iterdir() if p.is_dir()))
def test_every_sample_has_a_facts_test(folder: str) -> None:
    names = {name for name in globals() if name.startswith("test_")}
    key = folder.replace("-", "_")
    assert any(key in name for name in names), f"no facts test for samples/scheduling/{folder}"
