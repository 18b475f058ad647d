"""Seeded random clusters mixing NetworkPolicy, v1alpha1 Admin/BaselineAdminNetworkPolicy and v1alpha2
ClusterNetworkPolicy, for the cross-checks against tests/netpol/reference_tiers.py.

Every feature the tiers have is drawn: subjects by namespaces or pods (host-network pods among the pods, never
selected), Allow/Accept, Deny and Pass (Pass in Baseline CNPs too), every peer kind (namespaces, pods, nodes,
networks around pod, node and external addresses, domainNames), ports by number, range, name and none, several
policies per tier. Priorities are distinct inside a tier (equal ones are ambiguous upstream and pinned by their
own tests); the v1alpha1 BaselineAdminNetworkPolicy and Baseline-tier ClusterNetworkPolicies are not drawn
together (upstream orders nothing between two API versions' baselines).
"""

from __future__ import annotations

import random

from tests.netpol.test_engine_vs_reference import (
    LABEL_VALUES,
    NS_LABEL_VALUES,
    PORT_NAMES,
    PORT_NUMBERS,
    PROTOCOLS,
    WIDE,
    WIDE_DUAL,
    _labels,
    _rule,
    _selector,
)

ANP_API = "policy.networking.k8s.io/v1alpha1"
CNP_API = "policy.networking.k8s.io/v1alpha2"
NODE_LABEL_VALUES = {"zone": ["a", "b"], "role": ["worker", "infra"]}
DOMAINS = ["example.com", "*.kubernetes.io"]


def _ns_selector(rng: random.Random, namespaces: list[str]) -> dict:
    return _selector(rng, {**NS_LABEL_VALUES, "kubernetes.io/metadata.name": namespaces}, [])


def _subject(rng: random.Random, namespaces: list[str]) -> dict:
    if rng.random() < 0.5:
        return {"namespaces": _ns_selector(rng, namespaces)}
    return {
        "pods": {"namespaceSelector": _ns_selector(rng, namespaces), "podSelector": _selector(rng, LABEL_VALUES, [])}
    }


def _networks(rng: random.Random, addresses: list[str], wide: list[str]) -> list[str]:
    out = []
    for _ in range(rng.randint(1, 2)):
        r = rng.random()
        if r < 0.4:
            ip = rng.choice(addresses)
            out.append(f"{ip}/{32 if ':' not in ip else 128}")
        elif r < 0.8:
            out.append(rng.choice(wide))
        else:
            out.append(rng.choice(["192.168.0.0/16", "10.250.0.0/24", "172.16.0.0/12"]))
    return list(dict.fromkeys(out))


def _tier_peer(
    rng: random.Random,
    direction: str,
    namespaces: list[str],
    addresses: list[str],
    wide: list[str],
    *,
    domain_names: bool,
) -> dict:
    r = rng.random()
    if direction == "ingress" or r < 0.45:
        if rng.random() < 0.5:
            return {"namespaces": _ns_selector(rng, namespaces)}
        return {
            "pods": {
                "namespaceSelector": _ns_selector(rng, namespaces),
                "podSelector": _selector(rng, LABEL_VALUES, []),
            }
        }
    if r < 0.6:
        return {"nodes": _selector(rng, NODE_LABEL_VALUES, [])}
    if r < 0.92 or not domain_names:
        return {"networks": _networks(rng, addresses, wide)}
    return {"domainNames": rng.sample(DOMAINS, rng.randint(1, 2))}


def _v1alpha1_ports(rng: random.Random, named_ok: bool) -> list[dict]:
    out = []
    for _ in range(rng.randint(1, 2)):
        r = rng.random()
        proto = rng.choice(PROTOCOLS)
        if r < 0.45:
            out.append({"portNumber": {"protocol": proto, "port": rng.choice(PORT_NUMBERS)}})
        elif r < 0.75 or not named_ok:
            lo = rng.choice(PORT_NUMBERS)
            out.append({"portRange": {"protocol": proto, "start": lo, "end": lo + rng.choice([0, 1, 400])}})
        else:
            out.append({"namedPort": rng.choice(PORT_NAMES)})
    return out


def _v1alpha2_protocols(rng: random.Random, named_ok: bool) -> list[dict]:
    out = []
    for _ in range(rng.randint(1, 2)):
        r = rng.random()
        key = rng.choice(["tcp", "udp", "sctp"])
        if r < 0.45:
            out.append({key: {"destinationPort": {"number": rng.choice(PORT_NUMBERS)}}})
        elif r < 0.75 or not named_ok:
            lo = rng.choice(PORT_NUMBERS)
            out.append(
                {key: {"destinationPort": {"range": {"start": lo, "end": lo + rng.choice([1, 400, 65535 - lo])}}}}
            )
        else:
            out.append({"destinationNamedPort": rng.choice(PORT_NAMES)})
    return out


def _tier_rule(
    rng: random.Random,
    version: str,
    actions: list[str],
    direction: str,
    namespaces: list[str],
    addresses: list[str],
    wide: list[str],
    *,
    domain_names: bool,
) -> dict:
    action = rng.choice(actions)
    allowing = "Allow" if version == "v1alpha1" else "Accept"
    peers = [
        _tier_peer(rng, direction, namespaces, addresses, wide, domain_names=domain_names and action == allowing)
        for _ in range(rng.randint(1, 2))
    ]
    named_ok = all(("namespaces" in p or "pods" in p) for p in peers)
    rule: dict = {
        "name": f"r{rng.randint(0, 99)}",
        "action": action,
        ("from" if direction == "ingress" else "to"): peers,
    }
    if rng.random() < 0.65:
        if version == "v1alpha1":
            rule["ports"] = _v1alpha1_ports(rng, named_ok)
        else:
            rule["protocols"] = _v1alpha2_protocols(rng, named_ok)
    return rule


def random_tiered_cluster(
    seed: int, stack: str = "mixed", *, v1alpha1: bool = True, v1alpha2: bool = True
) -> list[dict]:
    rng = random.Random(seed)
    wide = WIDE_DUAL if stack == "dual" else WIDE
    namespaces = [f"ns{i}" for i in range(rng.randint(2, 4))]
    objs: list[dict] = []
    for ns in namespaces:
        objs.append(
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns, "labels": _labels(rng, NS_LABEL_VALUES)}}
        )
    nodes = []
    for k in range(rng.randint(1, 3)):
        ips = [f"10.250.0.{k + 1}"] + ([f"fd00:250::{k + 1}"] if stack == "dual" else [])
        nodes.append((f"node{k}", ips))
        objs.append(
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": f"node{k}", "labels": _labels(rng, NODE_LABEL_VALUES)},
                "status": {"addresses": [{"type": "InternalIP", "address": ip} for ip in ips]},
            }
        )
    addresses: list[str] = [ip for _, ips in nodes for ip in ips]
    for n, ns in enumerate(namespaces):
        for i in range(rng.randint(2, 4)):
            node, node_ips = rng.choice(nodes)
            host = rng.random() < 0.12
            if host:
                ips = list(node_ips)
            elif stack == "dual" and rng.random() < 0.6:
                ips = [f"10.{rng.choice([0, 1])}.{n}.{i + 1}", f"fd00::{n}:{i + 1}"]
                rng.shuffle(ips)
            else:
                ips = [f"fd00::{n}:{i + 1}" if rng.random() < 0.15 else f"10.{rng.choice([0, 1])}.{n}.{i + 1}"]
            addresses.extend(ips)
            ports = [
                {"name": name, "containerPort": rng.choice(PORT_NUMBERS), "protocol": rng.choice(PROTOCOLS)}
                for name in rng.sample(PORT_NAMES, rng.randint(0, 3))
            ]
            spec: dict = {"nodeName": node, "containers": [{"name": "c", "image": "img", "ports": ports}]}
            if host:
                spec["hostNetwork"] = True
            status: dict = {"phase": "Running", "podIP": ips[0]}
            if len(ips) > 1:
                status["podIPs"] = [{"ip": ip} for ip in ips]
            objs.append(
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "metadata": {"name": f"p{i}", "namespace": ns, "labels": _labels(rng, LABEL_VALUES)},
                    "spec": spec,
                    "status": status,
                }
            )
    pod_ips = [
        ip
        for o in objs
        if o["kind"] == "Pod"
        for ip in ([o["status"]["podIP"]] + [x["ip"] for x in o["status"].get("podIPs", [])])
    ]
    for k in range(rng.randint(0, 3)):
        spec = {"podSelector": _selector(rng, LABEL_VALUES, ["missing"])}
        if rng.random() < 0.8:
            spec["ingress"] = [_rule(rng, "from", namespaces, pod_ips, wide) for _ in range(rng.randint(0, 2))]
        if rng.random() < 0.6:
            spec["egress"] = [_rule(rng, "to", namespaces, pod_ips, wide) for _ in range(rng.randint(0, 2))]
        types = rng.choice([None, ["Ingress"], ["Egress"], ["Ingress", "Egress"]])
        if types is not None:
            spec["policyTypes"] = types
        objs.append(
            {
                "apiVersion": "networking.k8s.io/v1",
                "kind": "NetworkPolicy",
                "metadata": {"name": f"pol{k}", "namespace": rng.choice(namespaces)},
                "spec": spec,
            }
        )
    admin_priorities = rng.sample(range(0, 60), 8)
    baseline_priorities = rng.sample(range(0, 60), 8)
    banp = v1alpha1 and rng.random() < 0.4
    if v1alpha1:
        for k in range(rng.randint(0, 3)):
            spec = {"priority": admin_priorities.pop(), "subject": _subject(rng, namespaces)}
            for d in ("ingress", "egress"):
                if rng.random() < 0.7:
                    spec[d] = [
                        _tier_rule(
                            rng,
                            "v1alpha1",
                            ["Allow", "Deny", "Pass"],
                            d,
                            namespaces,
                            addresses,
                            wide,
                            domain_names=True,
                        )
                        for _ in range(rng.randint(1, 3))
                    ]
            objs.append(
                {"apiVersion": ANP_API, "kind": "AdminNetworkPolicy", "metadata": {"name": f"anp{k}"}, "spec": spec}
            )
        if banp:
            spec = {"subject": _subject(rng, namespaces)}
            for d in ("ingress", "egress"):
                if rng.random() < 0.7:
                    spec[d] = [
                        _tier_rule(
                            rng, "v1alpha1", ["Allow", "Deny"], d, namespaces, addresses, wide, domain_names=False
                        )
                        for _ in range(rng.randint(1, 3))
                    ]
            objs.append(
                {
                    "apiVersion": ANP_API,
                    "kind": "BaselineAdminNetworkPolicy",
                    "metadata": {"name": "default"},
                    "spec": spec,
                }
            )
    if v1alpha2:
        for k in range(rng.randint(1, 4)):
            tier = "Admin" if banp or rng.random() < 0.55 else "Baseline"
            priority = (admin_priorities if tier == "Admin" else baseline_priorities).pop()
            spec = {"tier": tier, "priority": priority, "subject": _subject(rng, namespaces)}
            for d in ("ingress", "egress"):
                if rng.random() < 0.7:
                    spec[d] = [
                        _tier_rule(
                            rng,
                            "v1alpha2",
                            ["Accept", "Deny", "Pass"],
                            d,
                            namespaces,
                            addresses,
                            wide,
                            domain_names=True,
                        )
                        for _ in range(rng.randint(1, 3))
                    ]
            objs.append(
                {"apiVersion": CNP_API, "kind": "ClusterNetworkPolicy", "metadata": {"name": f"cnp{k}"}, "spec": spec}
            )
    return objs
