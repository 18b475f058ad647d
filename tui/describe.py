"""`d` describe and `y` YAML of the object under the cursor: pods, policies, nodes, findings (no Textual here).

Describe is kubectl's facts plus what only this tool knows: for a pod, whether it is isolated each way and by
which policies, and how many peers it reaches or is reached by; for a policy, the pods it selects and its peers.
YAML is the object as the analyzer read it (API defaults applied), or the manifest as written when it was kept.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import yaml

from netpol.model.objects import Pod

if TYPE_CHECKING:
    from tui.findings import Finding
    from tui.model import ViewModel
    from tui.nodes import NodeInfo

SHOWN = 20  # peers or pods named before "… and N more"


def _listing(names: list[str], total: int | None = None) -> list[str]:
    total = len(names) if total is None else total
    out = [f"    {n}" for n in names[:SHOWN]]
    if total > SHOWN:
        out.append(f"    … and {total - SHOWN} more")
    return out or ["    (none)"]


def _source(ref: object) -> str:
    describe = getattr(ref, "describe", None)
    file = getattr(ref, "file", "")
    return f"{file}, document {getattr(ref, 'document', 0) + 1}" if file and describe else "-"


def describe_pod(model: ViewModel, i: int) -> str:
    p = model.all_pods[i]
    lines = [
        f"Name:        {p.name}",
        f"Namespace:   {p.namespace}",
        f"Labels:      {', '.join(f'{k}={v}' for k, v in sorted(p.labels.items())) or '<none>'}",
        f"Controlled:  {p.owner.render() if p.owner else '<none>'}",
        f"Node:        {p.node_name or '<none>'}",
        f"IP:          {p.pod_ip or '<none>'}",
        f"Host net:    {'yes' if p.host_network else 'no'}",
        f"Source:      {_source(p.source)}",
        "Containers:",
    ]
    for c in p.containers:
        ports = ", ".join(
            f"{cp.container_port}/{cp.protocol}{' (' + cp.name + ')' if cp.name else ''}" for cp in c.ports
        )
        lines.append(f"  {c.name}: {c.image or '-'}  ports: {ports or '-'}")
    if i >= model.n:
        lines += ["", f"Status:      Pending: {p.reason or 'not scheduled'}", "  (takes no part in traffic)"]
        return "\n".join(lines) + "\n"
    cls = int(model.pc[i])
    r = model.r
    selecting = [cp.key for cp in model.policies if cp.selected[cls]]
    sources, targets = model.sources(i), model.targets(i)
    lines += [
        f"Status:      {p.phase or 'Running'}",
        "",
        "Computed:",
        f"  Ingress:   {'isolated' if r.isolated_ingress[cls] else 'open (no policy selects it for ingress)'}",
        f"  Egress:    {'isolated' if r.isolated_egress[cls] else 'open (no policy selects it for egress)'}",
        f"  Selected by {len(selecting)} policies:",
        *_listing(selecting),
        f"  Can be reached by {len(sources)} peers:",
        *_listing([model.endpoint_name(int(e)) for e in sources[: SHOWN + 1]], len(sources)),
        f"  Can reach {len(targets)} peers:",
        *_listing([model.endpoint_name(int(e)) for e in targets[: SHOWN + 1]], len(targets)),
    ]
    return "\n".join(lines) + "\n"


def pod_yaml(model: ViewModel, i: int) -> str:
    """The pod as the analyzer read it (only what it models), in the manifest's shape."""
    p: Pod = model.all_pods[i]
    meta: dict = {"name": p.name, "namespace": p.namespace}
    if p.labels:
        meta["labels"] = dict(sorted(p.labels.items()))
    if p.owner:
        meta["ownerReferences"] = [{"kind": p.owner.kind, "name": p.owner.name}]
    containers = []
    for c in p.containers:
        entry: dict = {"name": c.name, "image": c.image}
        if c.ports:
            entry["ports"] = [
                {
                    k: v
                    for k, v in (("name", cp.name), ("containerPort", cp.container_port), ("protocol", cp.protocol))
                    if v
                }
                for cp in c.ports
            ]
        containers.append(entry)
    spec: dict = {"containers": containers}
    if p.node_name:
        spec["nodeName"] = p.node_name
    if p.host_network:
        spec["hostNetwork"] = True
    status = {k: v for k, v in (("phase", p.phase or ("Pending" if i >= model.n else "")), ("podIP", p.pod_ip)) if v}
    doc = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
    if status:
        doc["status"] = status
    head = f"# as netpol read it (defaults applied); from {_source(p.source)}\n"
    return head + yaml.safe_dump(doc, sort_keys=False, default_flow_style=False)


def describe_policy(model: ViewModel, k: int) -> str:
    cp = model.policies[k]
    pol = cp.source
    selected = model.policy_selected(k)
    admits, admits_ext = model.policy_admits(k)
    reaches, reaches_ext = model.policy_reaches(k)
    types = ", ".join(getattr(pol, "policy_types", ()) or ()) or "-"
    names = [model.pods[int(j)].key for j in selected[: SHOWN + 1]]
    lines = [
        f"Name:         {getattr(pol, 'name', cp.key)}",
        f"Namespace:    {cp.namespace or '-'}",
        f"Policy types: {types}",
        f"Rules:        {len(cp.ingress)} ingress, {len(cp.egress)} egress",
        f"Source:       {_source(getattr(pol, 'source', None))}",
        "",
        "Computed:",
        f"  Selects {len(selected)} pods (isolating them for {types}):",
        *_listing(names, len(selected)),
        f"  Ingress rules admit {len(admits) + len(admits_ext)} peers:",
        *_listing([model.pods[int(j)].key for j in admits[: SHOWN + 1]] + admits_ext, len(admits) + len(admits_ext)),
        f"  Egress rules reach {len(reaches) + len(reaches_ext)} peers:",
        *_listing(
            [model.pods[int(j)].key for j in reaches[: SHOWN + 1]] + reaches_ext, len(reaches) + len(reaches_ext)
        ),
    ]
    return "\n".join(lines) + "\n"


def describe_node(info: NodeInfo) -> str:
    n = info.node
    lines = [
        f"Name:          {n.name}",
        f"Labels:        {', '.join(f'{k}={v}' for k, v in sorted(n.labels.items())) or '<none>'}",
        f"Taints:        {', '.join(t.render() for t in n.taints) or '<none>'}",
        f"Unschedulable: {'yes' if n.unschedulable else 'no'}",
        f"Ready:         {'yes' if n.ready else 'no'}",
        f"Pod CIDR:      {n.pod_cidr or '-'}",
        f"Internal IP:   {n.internal_ip or '-'}",
        "Allocatable:   " + (", ".join(f"{k}={v}" for k, v in sorted(n.allocatable.items())) or "-"),
        "Requested:     " + (", ".join(f"{k}={v}" for k, v in sorted(info.requested.items())) or "-"),
        f"Pods ({len(info.pods)}):",
        *_listing([p.key for p in info.pods]),
    ]
    return "\n".join(lines) + "\n"


def node_yaml(info: NodeInfo) -> str:
    n = info.node
    doc = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": n.name, "labels": dict(sorted(n.labels.items()))},
        "spec": {
            k: v
            for k, v in (
                ("podCIDR", n.pod_cidr),
                ("unschedulable", n.unschedulable or None),
                ("taints", [{"key": t.key, "value": t.value, "effect": t.effect} for t in n.taints] or None),
            )
            if v
        },
        "status": {"allocatable": {k: str(v) for k, v in sorted(n.allocatable.items())}},
    }
    return "# as netpol read it (defaults applied)\n" + yaml.safe_dump(doc, sort_keys=False, default_flow_style=False)


def finding_yaml(f: Finding) -> str:
    doc = {
        "id": f.id,
        "severity": f.severity,
        "namespace": f.namespace,
        "message": f.message,
        "fix": f.fix,
        "objects": list(f.objects),
    }
    return yaml.safe_dump(doc, sort_keys=False, default_flow_style=False, allow_unicode=True)


def describe_finding(f: Finding) -> str:
    return (
        "\n".join(
            [
                f"[{f.severity}] {f.id}  {f.namespace}",
                f.message,
                f"fix: {f.fix or '-'}",
                "objects:",
                *_listing(list(f.objects)),
            ]
        )
        + "\n"
    )
