"""Scheduler throughput on workloads shaped like upstream's scheduler_perf (test/integration/scheduler_perf).

    python benchmarks/scheduler_perf.py [--quick] [--only NAME] [--cli]

`--cli` runs SchedulingBasic through the real command as a user would: the cluster is written as manifests
(5,000 Nodes without spec.podCIDR, the init pods bound by spec.nodeName, the measured pods bare) and
`python -m netpol.cli schedule FILE -o json` is timed end to end (reading YAML, scheduling, IPAM, JSON out).
The default 10.244.0.0/16 holds 256 /24 node ranges, so the command warns CIDRNotAvailable and the pods
bound to the other nodes stay ContainerCreating; pass `--cli-cidr 10.0.0.0/8` to give every node a range.

Each workload runs in its own process so the peak RSS printed is that workload's. Throughput counts the
measured pods only (existing pods are bound first, as upstream's `createPods` of init pods). The targets
are kube-scheduler's CI floors: SchedulingBasic 680, SchedulingNodeAffinity 220,
SchedulingPodAntiAffinity 60, SchedulingPodAffinity 35 pods/s.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from netpol.model.cluster import Cluster  # noqa: E402
from netpol.model.labels import (  # noqa: E402
    Labels,
    LabelSelector,
    LabelSelectorRequirement,
    NodeSelectorRequirement,
    NodeSelectorTerm,
)
from netpol.model.objects import (  # noqa: E402
    Affinity,
    Container,
    Node,
    NodeAffinity,
    Pod,
    PodAffinity,
    PodAffinityTerm,
    PodAntiAffinity,
    WeightedPodAffinityTerm,
)
from netpol.model.quantity import to_units  # noqa: E402
from scheduling import schedule  # noqa: E402

ZONE = "topology.kubernetes.io/zone"
HOSTNAME = "kubernetes.io/hostname"
FLOORS = {
    "SchedulingBasic": 680,
    "SchedulingNodeAffinity": 220,
    "SchedulingPodAntiAffinity": 60,
    "SchedulingPodAffinity": 35,
}


@dataclass(frozen=True)
class Workload:
    name: str
    nodes: int
    init_pods: int
    pods: int


FULL = (
    Workload("SchedulingBasic", 5000, 1000, 10000),
    Workload("SchedulingNodeAffinity", 5000, 0, 10000),
    Workload("SchedulingPodAntiAffinity", 5000, 0, 2000),
    Workload("SchedulingPodAffinity", 5000, 0, 5000),
)


def nodes(n: int, zoned: bool) -> tuple[Node, ...]:
    """node-default.yaml: 4 CPU, 32Gi, 110 pods; the affinity workloads label every node zone1."""
    alloc = {"cpu": 4000, "memory": to_units("memory", "32Gi"), "pods": 110}
    out = []
    for i in range(n):
        name = f"node-{i:05d}"
        labels = {HOSTNAME: name}
        if zoned:
            labels[ZONE] = "zone1"
        out.append(Node(name, Labels(labels), capacity=alloc, allocatable=alloc))
    return tuple(out)


def base_pod(name: str, labels: dict[str, str], affinity: Affinity | None, order: int) -> Pod:
    """pod-default.yaml: one pause container requesting 100m CPU and 500Mi."""
    c = Container("pause", "registry.k8s.io/pause:3.9", requests={"cpu": 100, "memory": to_units("memory", "500Mi")})
    return Pod("default", name, Labels(labels), (c,), affinity=affinity, order=order)


def build(w: Workload) -> Cluster:
    zoned = w.name != "SchedulingBasic"
    ns = nodes(w.nodes, zoned)
    pods = []
    for i in range(w.init_pods):
        pods.append(base_pod(f"init-{i:05d}", {"type": "init"}, None, i))
    aff: Affinity | None = None
    labels: dict[str, str] = {}
    if w.name == "SchedulingNodeAffinity":
        term = NodeSelectorTerm((NodeSelectorRequirement(ZONE, "In", ("zone1", "zone2")),))
        aff = Affinity(node_affinity=NodeAffinity(required=(term,)))
    elif w.name == "SchedulingPodAntiAffinity":
        labels = {"color": "green"}
        sel = LabelSelector(match_expressions=(LabelSelectorRequirement("color", "In", ("green",)),))
        term = PodAffinityTerm(HOSTNAME, sel)
        aff = Affinity(
            pod_anti_affinity=PodAntiAffinity(required=(term,), preferred=(WeightedPodAffinityTerm(1, term),))
        )
    elif w.name == "SchedulingPodAffinity":
        labels = {"foo": ""}
        sel = LabelSelector(match_expressions=(LabelSelectorRequirement("foo", "In", ("",)),))
        term = PodAffinityTerm(ZONE, sel)
        aff = Affinity(pod_affinity=PodAffinity(required=(term,), preferred=(WeightedPodAffinityTerm(1, term),)))
    for i in range(w.pods):
        pods.append(base_pod(f"pod-{i:05d}", labels, aff, w.init_pods + i))
    init = Cluster(nodes=ns, pods=tuple(pods[: w.init_pods]))
    if w.init_pods:  # existing pods are bound before the measured ones, as upstream creates them first
        pods = list(schedule(init).cluster.pods) + pods[w.init_pods :]
    return Cluster(nodes=ns, pods=tuple(pods))


def run_one(w: Workload) -> None:
    cluster = build(w)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    result = schedule(cluster)
    elapsed = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    measured = [p for p in result.cluster.pods if not p.name.startswith("init-")]
    running = sum(1 for p in measured if p.phase == "Running")
    rate = w.pods / elapsed
    floor = FLOORS[w.name]
    print(
        f"{w.name:<26} nodes={w.nodes:<5} init={w.init_pods:<5} pods={w.pods:<6} scheduled={running:<6} "
        f"{elapsed:7.2f}s {rate:8.1f} pods/s (floor {floor}: {'ok' if rate >= floor else 'BELOW'}) "
        f"peak RSS {peak / 1024:.0f} MiB (+{(peak - before) / 1024:.0f} MiB while scheduling)",
        flush=True,
    )


def pod_doc(p: Pod) -> dict:
    spec: dict = {
        "containers": [
            {
                "name": "pause",
                "image": "registry.k8s.io/pause:3.9",
                "resources": {"requests": {"cpu": "100m", "memory": "500Mi"}},
            }
        ]
    }
    doc: dict = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": p.name, "namespace": p.namespace},
        "spec": spec,
    }
    if p.node_name:
        spec["nodeName"] = p.node_name
        doc["status"] = {"phase": "Running"}
    return doc


def run_cli(w: Workload, cidr: str | None) -> None:
    """SchedulingBasic through `netpol schedule` in a subprocess: manifests in, JSON out."""
    import json
    import tempfile

    import yaml

    cluster = build(w)
    docs = [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": n.name, "labels": dict(n.labels)},
            "status": {"allocatable": {"cpu": "4", "memory": "32Gi", "pods": "110"}},
        }
        for n in cluster.nodes
    ] + [pod_doc(p) for p in cluster.pods]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cluster.yaml"
        path.write_text(yaml.dump_all(docs, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper)))
        cmd = [sys.executable, "-m", "netpol.cli", "schedule", str(path), "-o", "json"]
        if cidr:
            cmd += ["--cluster-cidr", cidr]
        start = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True, text=True, cwd=Path(__file__).resolve().parent.parent)
        elapsed = time.perf_counter() - start
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if out.returncode != 0:
        raise SystemExit(f"netpol schedule failed ({out.returncode}): {out.stderr[-2000:]}")
    pods = [p for p in json.loads(out.stdout)["pods"] if not p["name"].startswith("default/init-")]
    bound = sum(1 for p in pods if p["node"])
    running = sum(1 for p in pods if p["phase"] == "Running")
    warned = "CIDRNotAvailable" in out.stderr
    print(
        f"{w.name + ' (netpol schedule)':<26} nodes={w.nodes:<5} init={w.init_pods:<5} pods={w.pods:<6} "
        f"bound={bound:<6} running={running:<6} {elapsed:7.2f}s end to end ({w.pods / elapsed:.1f} pods/s) "
        f"peak RSS {peak / 1024:.0f} MiB{'; warned CIDRNotAvailable' if warned else ''}",
        flush=True,
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="a tenth of the nodes and pods (smoke run)")
    ap.add_argument("--only", help="run one workload in this process")
    ap.add_argument("--cli", action="store_true", help="SchedulingBasic through `netpol schedule` (subprocess)")
    ap.add_argument("--cli-cidr", help="with --cli: the --cluster-cidr to pass (default: the command's)")
    args = ap.parse_args()
    workloads = FULL
    if args.quick:
        workloads = tuple(Workload(w.name, w.nodes // 10, w.init_pods // 10, w.pods // 10) for w in FULL)
    if args.cli:
        run_cli(next(w for w in workloads if w.name == "SchedulingBasic"), args.cli_cidr)
        return 0
    if args.only:
        run_one(next(w for w in workloads if w.name == args.only))
        return 0
    for w in workloads:
        cmd = [sys.executable, __file__, "--only", w.name] + (["--quick"] if args.quick else [])
        subprocess.run(cmd, check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
