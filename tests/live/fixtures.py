"""Recorded-cluster fixtures in `kubectl get -o json` shape, made from the project's samples.

The seed lab is read by the project's own loader and placed by its scheduler; the objects the stand-in
serves are the sample's manifests with what a running cluster adds: `spec.nodeName`, `status.phase`,
`status.podIP`, the `PodScheduled` condition, uids and resourceVersions. One pod the cluster could not
place (`web/big`, asking for more CPU than any node has) carries kube-scheduler's FailedScheduling text
as its PodScheduled=False message, as a real cluster records it.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from netpol.manifests import load_paths
from netpol.pipeline import prepare
from scheduling import schedule

ROOT = Path(__file__).resolve().parents[2]
SEED_LAB = ROOT / "samples" / "seed-lab"
CREATED = "2026-11-30T12:00:00Z"

# What kube-scheduler says for a pod no node can hold (pkg/scheduler/framework/plugins/noderesources/fit.go
# "Insufficient cpu"; the "0/N nodes are available" sentence from framework/types.go FitError.Error).
BIG_POD_MESSAGE = (
    "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, "
    "2 Insufficient cpu. preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, "
    "2 No preemption victims found for incoming pod."
)

BIG_POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "big", "namespace": "web", "labels": {"run": "big"}},
    "spec": {"containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "64"}}}]},
}


def _uid(*parts: str) -> str:
    h = hashlib.sha1("/".join(parts).encode()).hexdigest()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def _as_running(obj: dict[str, Any], rv: int) -> dict[str, Any]:
    obj = copy.deepcopy(obj)
    meta = obj.setdefault("metadata", {})
    meta.setdefault("uid", _uid(obj["kind"], meta.get("namespace", ""), meta["name"]))
    meta.setdefault("resourceVersion", str(rv))
    meta.setdefault("creationTimestamp", CREATED)
    if obj["kind"] == "Namespace":
        meta.setdefault("labels", {})["kubernetes.io/metadata.name"] = meta["name"]
        obj["status"] = {"phase": "Active"}
    return obj


def _manifests(paths: Iterable[Path]) -> list[dict[str, Any]]:
    out = []
    for p in paths:
        for f in sorted(p.rglob("*.yaml")) if p.is_dir() else [p]:
            out += [d for d in yaml.safe_load_all(f.read_text()) if d]
    return out


def seed_lab_objects(*, with_pending: bool = True) -> list[dict[str, Any]]:
    """The seed lab as its cluster would answer `kubectl get -o json`: pods bound where the project's
    scheduler puts them, with the IPs its IPAM gives; `web/big` Pending with the cluster's message."""
    placed, _ = prepare(load_paths([str(SEED_LAB)]), lambda c: schedule(c))
    by_key = {p.key: p for p in placed.pods}
    out = []
    for rv, obj in enumerate(_manifests([SEED_LAB]), start=100):
        obj = _as_running(obj, rv)
        if obj["kind"] == "Pod":
            pod = by_key[f"{obj['metadata']['namespace']}/{obj['metadata']['name']}"]
            obj["spec"]["nodeName"] = pod.node_name
            obj["status"] = running_status(pod.pod_ip)
        out.append(obj)
    if with_pending:
        big = _as_running(BIG_POD, 999)
        big["status"] = pending_status(BIG_POD_MESSAGE)
        out.append(big)
    return out


def running_status(ip: str) -> dict[str, Any]:
    return {
        "phase": "Running",
        "conditions": [{"type": "PodScheduled", "status": "True", "lastTransitionTime": CREATED}],
        "podIP": ip,
        "podIPs": [{"ip": ip}],
        "startTime": CREATED,
    }


def pending_status(message: str) -> dict[str, Any]:
    return {
        "phase": "Pending",
        "conditions": [
            {
                "type": "PodScheduled",
                "status": "False",
                "reason": "Unschedulable",
                "message": message,
                "lastTransitionTime": CREATED,
            }
        ],
        "qosClass": "Burstable",
    }


def node_metrics(usage: dict[str, tuple[str, str]]) -> list[dict[str, Any]]:
    """metrics.k8s.io/v1beta1 NodeMetrics as metrics-server serves them (cpu in nanocores, memory in Ki)."""
    return [
        {
            "kind": "NodeMetrics",
            "apiVersion": "metrics.k8s.io/v1beta1",
            "metadata": {"name": name, "creationTimestamp": CREATED},
            "timestamp": CREATED,
            "window": "20.05s",
            "usage": {"cpu": cpu, "memory": mem},
        }
        for name, (cpu, mem) in sorted(usage.items())
    ]


def large_cluster_objects(pods: int = 10_000, policies: int = 2_000, nodes: int = 50) -> list[dict[str, Any]]:
    """The benchmark generator's cluster as bare pods, bound round-robin with addresses from each node's
    pod CIDR (a recorded cluster of that size: no scheduler run at fixture time)."""
    from tests.helpers import generate_cluster_module

    objs, _ = generate_cluster_module().generate_objects(pods, policies, seed=1, bare_pods=True, nodes=nodes)
    out = [_as_running(obj, 10_000 + i) for i, obj in enumerate(objs)]
    node_names = []
    for obj in out:
        if obj["kind"] == "Node":
            obj.setdefault("spec", {})["podCIDR"] = f"10.200.{len(node_names)}.0/24"
            node_names.append(obj["metadata"]["name"])
    assert node_names and pods <= 250 * len(node_names), "one /24 per node holds 250 pods here"
    bound = 0
    for obj in out:
        if obj["kind"] == "Pod":
            n = bound % len(node_names)
            obj["spec"]["nodeName"] = node_names[n]
            obj["status"] = running_status(f"10.200.{n}.{2 + bound // len(node_names)}")
            bound += 1
    return out
