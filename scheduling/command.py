"""`netpol schedule PATH...`: where every pod would run, and why the others are Pending.

Output formats: `wide` (like `kubectl get pods -o wide`, plus the Pending reason), `json`/`yaml` (one
document: pods, nodes, drain, evictions), `nodes` (what `kubectl describe node` shows for taints and
"Allocated resources", computed from requests). The CLI's composition root loads and expands the cluster
and hands it to `run`.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from typing import Any, Protocol, TextIO

from netpol.errors import UsageError
from netpol.model.cluster import Cluster
from netpol.model.objects import Node, Pod, Workload
from netpol.model.quantity import format_units
from netpol.workloads import pod_template_hash
from scheduling.controllers import DrainOptions
from scheduling.diagnosis import render_trace
from scheduling.framework import UNLIMITED, container_limits, container_requests
from scheduling.simulation import ScheduleResult, schedule

FORMATS = ("wide", "json", "yaml", "nodes")
DESCRIBE_RESOURCES = ("cpu", "memory", "ephemeral-storage", "hugepages-1Gi", "hugepages-2Mi")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-o", "--output", choices=FORMATS, default="wide", help="output format (default %(default)s)")
    parser.add_argument(
        "--cordon", action="append", default=[], metavar="NODE", help="cordon NODE before scheduling (repeatable)"
    )
    parser.add_argument(
        "--drain",
        action="append",
        default=[],
        metavar="NODE",
        help="after scheduling, drain NODE like `kubectl drain` (repeatable)",
    )
    parser.add_argument("--ignore-daemonsets", action="store_true", help="drain: leave DaemonSet-managed pods")
    parser.add_argument("--delete-emptydir-data", action="store_true", help="drain: evict pods using emptyDir volumes")
    parser.add_argument("--force", action="store_true", help="drain: also delete pods no controller manages")
    parser.add_argument(
        "--explain",
        action="append",
        default=[],
        metavar="NS/POD",
        help="print the per-node filter verdicts and scores for a pod (repeatable)",
    )
    try:  # the composition root may already offer --seed to every subcommand
        parser.add_argument(
            "--seed", type=int, default=None, help="random tie-breaking seed (default: first node by name)"
        )
    except argparse.ArgumentError:
        pass


class NodeUsage(Protocol):
    """A live cluster's metrics.k8s.io node usage (netpol.loading.live.NodeUsage)."""

    cpu_millis: Mapping[str, int]
    memory_bytes: Mapping[str, int]
    unavailable: str


def run(args: argparse.Namespace, cluster: Cluster, out: TextIO, usage: NodeUsage | None = None) -> int:
    from netpol.ipam import assign_ips

    explain = [_pod_key(k) for k in getattr(args, "explain", None) or []]
    result = schedule(
        cluster,
        seed=getattr(args, "seed", None),
        cordon=tuple(getattr(args, "cordon", None) or ()),
        drain=tuple(getattr(args, "drain", None) or ()),
        drain_options=DrainOptions(
            ignore_daemonsets=bool(getattr(args, "ignore_daemonsets", False)),
            delete_emptydir_data=bool(getattr(args, "delete_emptydir_data", False)),
            force=bool(getattr(args, "force", False)),
        ),
        explain=explain,
    )
    for key in explain:
        if key not in result.traces:
            raise UsageError(f'pods "{key}" not found')
    placed = assign_ips(result.cluster, getattr(args, "cluster_cidr", None) or "10.244.0.0/16")
    result = ScheduleResult(placed, result.traces, result.drain, result.evictions)
    match getattr(args, "output", "wide"):
        case "json":
            out.write(json.dumps(document(result), indent=2) + "\n")
        case "yaml":
            import yaml

            out.write(yaml.safe_dump(document(result), sort_keys=False, default_flow_style=False))
        case "nodes":
            out.write(render_nodes(result.cluster, usage))
        case _:
            out.write(render_wide(result))
    if getattr(args, "output", "wide") in ("wide", "nodes"):
        for key in explain:
            out.write("\n" + render_trace(result.traces[key]))
    return 0


def _pod_key(text: str) -> str:
    return text if "/" in text else f"default/{text}"


# ---------------------------------------------------------------------------------------------- documents


def owner_of(pod: Pod, workloads: tuple[Workload, ...]) -> str | None:
    """The workload a user wrote: a Deployment for its ReplicaSet's pods, a CronJob for its Job's pods."""
    if pod.owner is None:
        return None
    for wl in workloads:
        if wl.namespace != pod.namespace:
            continue
        if (
            wl.kind == "Deployment"
            and pod.owner.kind == "ReplicaSet"
            and pod.owner.name == f"{wl.name}-{pod_template_hash(wl)}"
        ):
            return f"Deployment/{wl.name}"
        if wl.kind == "CronJob" and pod.owner.kind == "Job" and pod.owner.name.startswith(f"{wl.name}-"):
            return f"CronJob/{wl.name}"
    return pod.owner.render()


def _status(pod: Pod) -> str:
    """kubectl's STATUS column: the kubelet's rejection reason (OutOfcpu, ...) for failed pods, else the phase."""
    if pod.phase == "Failed" and pod.reason:
        return pod.reason
    return pod.phase or "Pending"


def _sorted_pods(cluster: Cluster) -> list[Pod]:
    return sorted(cluster.pods, key=lambda p: (p.namespace, p.name))


def document(result: ScheduleResult) -> dict[str, Any]:
    c = result.cluster
    pods = [
        {
            "name": p.key,
            "owner": owner_of(p, c.workloads),
            "node": p.node_name or None,
            "ip": p.pod_ip or None,
            "phase": p.phase,
            "reason": p.reason or None,
        }
        for p in _sorted_pods(c)
    ]
    nodes = []
    for n in sorted(c.nodes, key=lambda n: n.name):
        alloc = node_allocation(c, n)
        nodes.append(
            {
                "name": n.name,
                "ip": n.internal_ip,
                "unschedulable": n.unschedulable,
                "taints": [t.render() for t in n.taints],
                "pods": alloc["pods"],
                "allocatable": {r: format_units(r, v) for r, v in sorted(n.allocatable.items())},
                "requests": {r: format_units(r, v) for r, v in sorted(alloc["requests"].items())},
                "limits": {r: format_units(r, v) for r, v in sorted(alloc["limits"].items())},
            }
        )
    d = result.drain
    return {
        "pods": pods,
        "nodes": nodes,
        "drain": {
            "evicted": [{"pod": e.pod, "node": e.node, "replacement": e.replacement} for e in d.evicted],
            "blocked": [{"pod": b.pod, "node": b.node, "reason": b.reason} for b in d.blocked],
            "errors": list(d.errors),
        },
        "evictions": [
            {
                "pod": e.pod,
                "node": e.node,
                "taint": e.taint,
                "afterSeconds": e.after_seconds,
                "replacement": e.replacement,
            }
            for e in result.evictions
        ],
    }


# ---------------------------------------------------------------------------------------------- wide


def _table(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for r in rows:
        cells = [c.ljust(w) for c, w in zip(r[:-1], widths[:-1], strict=True)] + [r[-1]]
        lines.append("   ".join(cells).rstrip())
    return "\n".join(lines) + "\n"


def render_wide(result: ScheduleResult) -> str:
    rows = [["NAMESPACE", "NAME", "STATUS", "IP", "NODE", "REASON"]]
    for p in _sorted_pods(result.cluster):
        reason = p.reason if p.phase == "Pending" else ""
        rows.append([p.namespace, p.name, _status(p), p.pod_ip or "<none>", p.node_name or "<none>", reason])
    text = _table(rows)
    waiting = sorted(k for k, t in result.traces.items() if t.how == "waiting")
    for key in waiting:
        text += f"not created: {key}: {result.traces[key].reason}\n"
    d = result.drain
    for name in d.nodes:
        text += f"node/{name} cordoned\n"
    for w in d.warnings:
        text += f"Warning: {w}\n"
    for e in d.errors:
        text += f"error: {e}\n"
    for b in d.blocked:
        text += f'error when evicting pods/"{b.pod.split("/", 1)[1]}" -n "{b.pod.split("/", 1)[0]}": {b.reason}\n'
    for e in d.evicted:
        text += (
            f"pod/{e.pod.split('/', 1)[1]} evicted"
            + (f" (recreated as {e.replacement})" if e.replacement else "")
            + "\n"
        )
    for name in d.nodes:
        if not d.errors and not any(b.node == name for b in d.blocked):
            text += f"node/{name} drained\n"
    for e in result.evictions:
        when = "now" if e.after_seconds is None else f"after {e.after_seconds}s"
        text += f"evicted {e.pod} from {e.node} by taint {e.taint} ({when})"
        text += f", recreated as {e.replacement}\n" if e.replacement else "\n"
    return text


# ---------------------------------------------------------------------------------------------- nodes


def node_allocation(cluster: Cluster, node: Node) -> dict[str, Any]:
    """Sum of requests and limits of the non-terminated pods on the node (kubectl describe node)."""
    requests: dict[str, int] = {}
    limits: dict[str, int] = {}
    pods = [p for p in cluster.pods if p.node_name == node.name and p.phase == "Running"]
    for p in pods:
        for k, v in container_requests(p.containers, p.init_containers, p.overhead, non_zero=False).items():
            requests[k] = requests.get(k, 0) + v
        for k, v in container_limits(p).items():
            limits[k] = limits.get(k, 0) + v
    return {"pods": len(pods), "requests": requests, "limits": limits, "list": pods}


def _pct(value: int, alloc: int | None) -> str:
    if not alloc or alloc >= UNLIMITED:
        return ""
    return f" ({int(value / alloc * 100)}%)"


def _amount(resource: str, value: int, alloc: Mapping[str, int]) -> str:
    return f"{format_units(resource, value)}{_pct(value, alloc.get(resource))}"


def _usage_lines(n: Node, usage: NodeUsage) -> list[str]:
    """What `kubectl top node` shows for the node (usage and its share of allocatable), under the requests."""
    if usage.unavailable:
        return [f"Usage:              metrics not available ({usage.unavailable})"]
    if n.name not in usage.cpu_millis:
        return ["Usage:              metrics not available (metrics-server reports nothing for this node)"]
    rows = [["  Resource", "Usage"], ["  --------", "-----"]]
    cpu, memory = usage.cpu_millis[n.name], usage.memory_bytes.get(n.name, 0)
    rows.append(["  cpu", f"{cpu}m{_pct(cpu, n.allocatable.get('cpu'))}"])  # kubectl top: millicores, Mi
    rows.append(["  memory", f"{memory // 2**20}Mi{_pct(memory, n.allocatable.get('memory'))}"])
    return ["Usage (metrics.k8s.io, like kubectl top node):", _table(rows).rstrip("\n")]


def render_nodes(cluster: Cluster, usage: NodeUsage | None = None) -> str:
    out = []
    for n in sorted(cluster.nodes, key=lambda n: n.name):
        a = node_allocation(cluster, n)
        roles = sorted(k.split("/", 1)[1] for k in n.labels if k.startswith("node-role.kubernetes.io/"))
        taints = [t.render() for t in n.taints] or ["<none>"]
        lines = [
            f"Name:               {n.name}",
            f"Roles:              {','.join(roles) or '<none>'}",
            f"Taints:             {taints[0]}",
        ]
        lines += [f"                    {t}" for t in taints[1:]]
        lines.append(f"Unschedulable:      {'true' if n.unschedulable else 'false'}")
        if n.addresses:
            lines.append("Addresses:")
            lines += [f"  {ad.type}:  {ad.address}" for ad in n.addresses]
        if n.allocatable:
            lines.append("Allocatable:")
            lines += [f"  {r}:  {format_units(r, v)}" for r, v in sorted(n.allocatable.items())]
        lines.append(f"Non-terminated Pods:          ({a['pods']} in total)")
        rows = [
            ["  Namespace", "Name", "CPU Requests", "CPU Limits", "Memory Requests", "Memory Limits"],
            ["  ---------", "----", "------------", "----------", "---------------", "-------------"],
        ]
        for p in sorted(a["list"], key=lambda p: (p.namespace, p.name)):
            req = container_requests(p.containers, p.init_containers, p.overhead, non_zero=False)
            lim = container_limits(p)
            rows.append(
                [
                    f"  {p.namespace}",
                    p.name,
                    _amount("cpu", req.get("cpu", 0), n.allocatable),
                    _amount("cpu", lim.get("cpu", 0), n.allocatable),
                    _amount("memory", req.get("memory", 0), n.allocatable),
                    _amount("memory", lim.get("memory", 0), n.allocatable),
                ]
            )
        lines.append(_table(rows).rstrip("\n"))
        lines += ["Allocated resources:", "  (Total limits may be over 100 percent, i.e., overcommitted.)"]
        resources = list(DESCRIBE_RESOURCES) + sorted(
            r for r in set(n.allocatable) | set(a["requests"]) if r not in DESCRIBE_RESOURCES and r != "pods"
        )
        rows = [["  Resource", "Requests", "Limits"], ["  --------", "--------", "------"]]
        for r in resources:
            rows.append(
                [
                    f"  {r}",
                    _amount(r, a["requests"].get(r, 0), n.allocatable),
                    _amount(r, a["limits"].get(r, 0), n.allocatable),
                ]
            )
        lines.append(_table(rows).rstrip("\n"))
        if usage is not None:
            lines += _usage_lines(n, usage)
        out.append("\n".join(lines) + "\n")
    return "\n".join(out)
