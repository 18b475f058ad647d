"""What `netpol schedule` prints: where every pod would run, and why the others are Pending.

`render_wide` (like `kubectl get pods -o wide`, plus the Pending reason), `document` (the JSON/YAML shape:
pods, nodes, drain, evictions, preemptions), `render_nodes` (what `kubectl describe node` shows for taints
and "Allocated resources", computed from requests). The command itself lives in netpol/commands/schedule.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from netpol.model.cluster import Cluster
from netpol.model.naming import pod_template_hash
from netpol.model.objects import Node, Pod, Workload
from netpol.model.quantity import format_units
from scheduling.drain import DrainReport
from scheduling.podinfo import container_limits, container_requests
from scheduling.simulation import ScheduleResult
from scheduling.snapshot import UNLIMITED

DESCRIBE_RESOURCES = ("cpu", "memory", "ephemeral-storage", "hugepages-1Gi", "hugepages-2Mi")


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
    if pod.phase == "Pending" and pod.node_name:  # bound, but the CNI cannot set up its network
        return "ContainerCreating"
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
        "preemptions": [
            {
                "pod": p.pod,
                "node": p.node,
                "victims": [
                    {"pod": v, "message": p.message(), "replacement": r}
                    for v, r in zip(p.victims, p.replacements, strict=True)
                ],
            }
            for p in result.preemptions
        ],
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
    """stdout of `netpol schedule`: the pod table, then what kubectl drain prints on its standard output."""
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
    for e in d.evicted:
        text += (
            f"pod/{e.pod.split('/', 1)[1]} evicted"
            + (f" (recreated as {e.replacement})" if e.replacement else "")
            + "\n"
        )
    for name in drained_nodes(d):
        text += f"node/{name} drained\n"
    for pre in result.preemptions:
        for victim, replacement in zip(pre.victims, pre.replacements, strict=True):
            text += f"pod/{victim.split('/', 1)[1]} -n {victim.split('/', 1)[0]}: {pre.message()}"
            text += f" (recreated as {replacement})\n" if replacement else "\n"
    for e in result.evictions:
        when = "now" if e.after_seconds is None else f"after {e.after_seconds}s"
        text += f"evicted {e.pod} from {e.node} by taint {e.taint} ({when})"
        text += f", recreated as {e.replacement}\n" if e.replacement else "\n"
    return text


def drained_nodes(d: DrainReport) -> list[str]:
    return [n for n in d.nodes if not d.errors and not any(b.node == n for b in d.blocked)]


RETRY = "error when evicting"


def drain_warnings(d: DrainReport) -> list[str]:
    """What kubectl drain writes to standard error while it works, never to stdout: the pod filters' warnings
    (ignored DaemonSet pods, deleted unmanaged pods), which cmd/drain/drain.go hands to its WarningPrinter as
    one `Warning: a: ns/p; b: ns/q` line (PodDeleteList.Warnings joins them with "; ", here in sorted order),
    and the evictions pkg/drain/drain.go retries ("error when evicting … (will retry after 5s)"), unprefixed."""
    notes = [w for w in d.warnings if not w.startswith(RETRY)]
    lines = [f"Warning: {'; '.join(notes)}"] if notes else []
    return lines + [w for w in d.warnings if w.startswith(RETRY)]


def drain_errors(d: DrainReport) -> list[str]:
    """What kubectl drain prints on its standard error when a drain fails (it then exits 1): the pod filters'
    errors (nothing was evicted), evictions the API refused, and the nodes left undrained."""
    lines = [f"error: {e}" for e in d.errors]
    for b in d.blocked:
        ns, name = b.pod.split("/", 1)
        lines.append(f'error when evicting pods/"{name}" -n "{ns}": {b.reason}')
    pending = [n for n in d.nodes if n not in drained_nodes(d)]
    if pending:
        lines.append("There are pending nodes to be drained:")
        lines += [f" {n}" for n in pending]
    return lines


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


class NodeUsage(Protocol):
    """A live cluster's metrics.k8s.io node usage (netpol.loading.live.NodeUsage); read-only members, so a frozen
    dataclass satisfies it."""

    @property
    def cpu_millis(self) -> Mapping[str, int]: ...
    @property
    def memory_bytes(self) -> Mapping[str, int]: ...
    @property
    def unavailable(self) -> str: ...


def _usage_lines(n: Node, usage: NodeUsage) -> list[str]:
    """What `kubectl top node` shows for the node (usage and its share of allocatable), under the requests."""
    if usage.unavailable:
        return [f"Usage:              metrics not available ({usage.unavailable})"]
    if n.name not in usage.cpu_millis:
        return ["Usage:              metrics not available (metrics-server reports nothing for this node)"]
    cpu, memory = usage.cpu_millis[n.name], usage.memory_bytes.get(n.name, 0)
    rows = [["  Resource", "Usage"], ["  --------", "-----"]]
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
