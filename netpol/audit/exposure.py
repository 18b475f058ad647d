"""NP090–NP092: what reaches the cluster's pods from outside it (netpol/exposure), as findings.

- NP090, one per door (and entry port): the pods a client outside the cluster reaches through it. Its grade:
  `direct` when the door forwards to the pod's port unchanged by a proxy (a LoadBalancer, NodePort or
  externalIPs Service; a Gateway TCP, UDP or TLS listener), `direct-web` when that port is 80 or 443 (a
  Service door's Service port, whatever nodePort fronts it; a listener's port), `proxied` through an HTTP(S)
  proxy (an Ingress, a Route, an HTTP or HTTPS listener's routes); `-restricted` when only some client ranges
  or nodes get through.
- NP091: a door none of whose paths reaches a pod (every one blocked or not routed).
- NP092, per namespace and per peer beyond the input: isolated pods whose ingress rules admit pods of a
  namespace the input does not contain (`any-namespace`: any namespace at all; `labelled-namespaces`: those
  carrying some labels).
"""

from __future__ import annotations

from collections.abc import Sequence

from netpol.audit.rules import Finding, finding
from netpol.exposure import EVERYWHERE, Door, Exposure, Path
from netpol.exposure.paths import Hop

WEB_PORTS = (80, 443)
PROXIED_LISTENERS = ("HTTP", "HTTPS")


def door_object(door: Door) -> str:
    """The door's object as the audit names objects: `Service/shop/frontend`, `HTTPRoute/apps/web-route`."""
    kind, _, key = door.object.partition(" ")
    return f"{kind}/{key}"


def exposure_findings(exposure: Exposure, namespaces: Sequence[str]) -> list[Finding]:
    chosen = set(namespaces)
    by_door: dict[tuple[str, str, str], list[Path]] = {}
    for p in exposure.paths:
        by_door.setdefault((p.door.object, p.door.kind, p.door.entry), []).append(p)
    out: list[Finding] = []
    for paths in by_door.values():
        door = paths[0].door
        pod_ns = {p.pod.split("/", 1)[0] for p in paths if p.pod}
        if door.namespace not in chosen and not pod_ns & chosen:
            continue
        open_ = [p for p in paths if p.verdict in ("allowed", "restricted")]
        if open_:
            out.append(_exposed(door, open_))
        else:
            out.append(_unreachable(door, paths))
    out += _unknown_namespaces(exposure, namespaces)
    return out


def _grade(door: Door, paths: list[Path], restricted: bool) -> str:
    """By door and port: through an HTTP(S) proxy, or straight to the pods' port; web (80, 443) when every port
    exposed is (the Service port behind a Service door, whatever nodePort fronts it; a Gateway's listener port)."""
    listener = door.entry.rsplit("(", 1)[-1].split(" ", 1)[0] if door.kind == "Gateway" else ""
    proxied = door.kind in ("Ingress", "Route") or (door.kind == "Gateway" and listener in PROXIED_LISTENERS)
    if door.kind == "Gateway":
        ports = {door.entry_port}
    else:
        ports = {p.backend.port.port for p in paths if p.backend is not None and p.backend.port is not None}
    web = ports <= set(WEB_PORTS)
    grade = "proxied" if proxied else "direct-web" if web else "direct"
    return grade + ("-restricted" if restricted else "")


def _exposed(door: Door, paths: list[Path]) -> Finding:
    restricted = all(p.verdict == "restricted" for p in paths)
    pods = sorted({f"{p.pod} ({p.target})" for p in paths})
    via = sorted({p.proxy for p in paths if p.proxy})
    sources = sorted({src for p in paths for h in p.hops[:1] for src in h.admitted}) if restricted else []
    message = f"{_words(door)} exposes {', '.join(pods)} to the internet"
    if via:
        message += f" through {', '.join(via)}"
    if sources:
        message += f", from {', '.join(sources)} only"
    return finding(
        "NP090",
        door.namespace,
        message,
        (door_object(door), *sorted({f"Pod/{p.pod}" for p in paths})),
        door.source,
        detail=f"{door.kind} {door.entry}",
        grade=_grade(door, paths, restricted),
    )


def _unreachable(door: Door, paths: list[Path]) -> Finding:
    why = sorted({_why(p) for p in paths})
    return finding(
        "NP091",
        door.namespace,
        f"{_words(door)} reaches no pod: {'; '.join(why)}",
        (door_object(door), *sorted({f"Pod/{p.pod}" for p in paths if p.pod})),
        door.source,
        detail=f"{door.kind} {door.entry}",
    )


def _why(p: Path) -> str:
    if p.problem:
        return f"not routed ({p.problem})"
    blocked: Hop = next(h for h in p.hops if not h.allowed)
    rules = "; ".join(r for r in (*blocked.egress, *blocked.ingress) if "no rule admits" in r) or "; ".join(
        blocked.ingress
    )
    return f"{blocked.src} => {blocked.dst} : {blocked.port} blocked ({rules})"


def _words(door: Door) -> str:
    kind, _, key = door.object.partition(" ")
    if kind == "Service":
        return f"{door.kind} Service {key} ({door.entry})"
    return f"{kind} {key} ({door.entry})"


def _unknown_namespaces(exposure: Exposure, namespaces: Sequence[str]) -> list[Finding]:
    chosen = set(namespaces)
    pods = sorted(k for k in exposure.real if k.split("/", 1)[0] in chosen)
    grouped: dict[tuple[str, str, str, tuple[str, ...]], list[str]] = {}
    for b in exposure.beyond(pods):
        for a in b.admissions:
            if a.direction == "ingress" and a.isolated and a.unknown_namespace:
                key = (b.pod.split("/", 1)[0], a.peer, a.conn.render(), a.rules)
                grouped.setdefault(key, []).append(b.pod)
    sources = {p.key: p.source for p in exposure.cluster.policies}
    out = []
    for (ns, peer, conn, rules), members in sorted(grouped.items()):
        policies = sorted({r.split(" ", 1)[0] for r in rules if " rule #" in r})
        grade = "any-namespace" if peer == EVERYWHERE or " in any namespace" in peer else "labelled-namespaces"
        out.append(
            finding(
                "NP092",
                ns,
                f"{', '.join(members)} admit{'s' if len(members) == 1 else ''} {peer}, not in the input, on {conn} "
                f"({'; '.join(rules)})",
                (*(f"NetworkPolicy/{p}" for p in policies), *(f"Pod/{m}" for m in members)),
                sources.get(policies[0]) if policies else None,
                detail=f"{peer} {conn} {','.join(members)}",  # never the rules: which policy admits may change
                subject=f"Namespace/{ns}",
                grade=grade,
            )
        )
    return out
