"""Random small clusters with Calico policies (seeded), for the differential tests and the NCA comparison.

Everything drawn is valid for Calico's validator, so both the reference and netpol read it; `nca_safe` keeps to
what network-config-analyzer reads (it has no Tier objects, NetworkSets of tiers, Pass/Log, or serviceAccounts).
"""

from __future__ import annotations

import random
from typing import Any

from tests.netpol.calico_cases import V3, netset, ns, pod, tier

APPS = ("web", "db", "api", "cache")
ROLES = ("front", "back")
TEAMS = ("alpha", "beta")
PROBES = (("TCP", 80), ("TCP", 8080), ("TCP", 5432), ("UDP", 53))
EXTERNAL = ("192.0.2.10", "198.51.100.20")


def _selector(rng: random.Random, depth: int = 0) -> str:
    choice = rng.randrange(9 if depth < 2 else 7)
    key = rng.choice(("app", "role"))
    vals = APPS if key == "app" else ROLES
    v = rng.choice(vals)
    match choice:
        case 0:
            return f"{key} == '{v}'"
        case 1:
            return f"{key} != '{v}'"
        case 2:
            return f"has({key})"
        case 3:
            return f"!has({key})"
        case 4:
            return f"{key} in {{'{v}', '{rng.choice(vals)}'}}"
        case 5:
            return f"{key} not in {{'{v}'}}"
        case 6:
            return f"{key} starts with '{v[:2]}'"
        case 7:
            return f"({_selector(rng, depth + 1)}) && {_selector(rng, depth + 1)}"
        case _:
            return f"{_selector(rng, depth + 1)} || !({_selector(rng, depth + 1)})"


def _entity(rng: random.Random, *, dst: bool, protocol: str | None, nca_safe: bool) -> dict[str, Any]:
    e: dict[str, Any] = {}
    if rng.random() < 0.45:
        e["selector"] = _selector(rng)
    if rng.random() < 0.2:
        e["notSelector"] = _selector(rng)
    if rng.random() < 0.3:
        e["namespaceSelector"] = rng.choice(("all()", f"team == '{rng.choice(TEAMS)}'", "team != 'alpha'"))
    if rng.random() < 0.2:
        e["nets"] = [rng.choice(("10.1.1.0/24", "10.1.2.0/24", "10.1.0.0/16", "192.0.2.0/24", "10.1.1.16/28"))]
    if rng.random() < 0.15:
        e["notNets"] = [rng.choice(("10.1.2.0/24", "192.0.2.0/25", "10.1.1.0/28"))]
    if dst and protocol in ("TCP", "UDP") and rng.random() < 0.6:
        e["ports"] = rng.sample([80, 8080, "5000:6000", "8000:8100", 53, "http"], rng.randint(1, 2))
        if rng.random() < 0.3:
            e["notPorts"] = [rng.choice([8080, 5432, "8050:8090", "http"])]
    return e


def _rule(rng: random.Random, direction: str, nca_safe: bool) -> dict[str, Any]:
    actions = ("Allow", "Deny") if nca_safe else ("Allow", "Deny", "Pass", "Log")
    r: dict[str, Any] = {"action": rng.choice(actions)}
    protocol = rng.choice((None, None, "TCP", "TCP", "UDP"))
    if protocol:
        r["protocol"] = protocol
    elif rng.random() < 0.1:
        r["notProtocol"] = "UDP"
    peer = "source" if direction == "ingress" else "destination"
    if rng.random() < 0.8:
        r[peer] = _entity(rng, dst=peer == "destination", protocol=protocol, nca_safe=nca_safe)
    if direction == "ingress" and protocol in ("TCP", "UDP") and rng.random() < 0.5:
        r["destination"] = {"ports": rng.sample([80, 8080, "5000:6000", 53, "http"], rng.randint(1, 2))}
    return {k: v for k, v in r.items() if v != {}}


def random_cluster(seed: int, *, nca_safe: bool = False) -> list[dict]:
    rng = random.Random(seed)
    objs: list[dict] = []
    namespaces = ["ns1", "ns2", "ns3"][: rng.randint(2, 3)]
    for name in namespaces:
        objs.append(ns(name, {"team": rng.choice(TEAMS)}))
    n = 0
    for i in range(rng.randint(3, 6)):
        namespace = rng.choice(namespaces)
        labels = {"app": rng.choice(APPS)}
        if rng.random() < 0.5:
            labels["role"] = rng.choice(ROLES)
        ports = (
            [{"name": "http", "containerPort": rng.choice((80, 8080)), "protocol": "TCP"}] if rng.random() < 0.5 else []
        )
        subnet = 1 + (n % 2)
        n += 1
        objs.append(pod(namespace, f"p{i}", f"10.1.{subnet}.{10 + i}", labels, ports))
    tiers = ["default"]
    if not nca_safe and rng.random() < 0.5:
        objs.append(tier("security", rng.choice((100, 500, 2_000_000)), rng.choice(("Deny", "Pass"))))
        tiers.append("security")
    if not nca_safe and rng.random() < 0.4:
        objs.append(netset("ext", ["192.0.2.0/24"], {"role": rng.choice(ROLES)}))
    for j in range(rng.randint(1, 4)):
        glob = rng.random() < 0.3
        spec: dict[str, Any] = {"selector": _selector(rng) if rng.random() < 0.7 else "all()"}
        t = rng.choice(tiers)
        if t != "default":
            spec["tier"] = t
        if rng.random() < 0.7:
            spec["order"] = rng.choice((10, 100, 100, 500, 1500))
        directions = rng.choice((("ingress",), ("egress",), ("ingress", "egress")))
        for d in directions:
            spec[d] = [_rule(rng, d, nca_safe) for _ in range(rng.randint(0, 3))]
        if rng.random() < 0.3:
            spec["types"] = [d.capitalize() for d in directions]
        if glob and rng.random() < 0.3:
            spec["namespaceSelector"] = f"team == '{rng.choice(TEAMS)}'"
        meta: dict[str, Any] = {"name": f"pol{j}"}
        if not glob:
            meta["namespace"] = rng.choice(namespaces)
        objs.append(
            {
                "apiVersion": V3,
                "kind": "GlobalNetworkPolicy" if glob else "NetworkPolicy",
                "metadata": meta,
                "spec": spec,
            }
        )
    return objs


def endpoints(objs: list[dict]) -> list[str]:
    pods = [f"{o['metadata']['namespace']}/{o['metadata']['name']}" for o in objs if o["kind"] == "Pod"]
    return pods + list(EXTERNAL)
