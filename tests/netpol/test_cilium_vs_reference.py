"""The Cilium compiler against the independent reference (tests/netpol/cilium_reference.py) on seeded random
clusters: for every ordered pod pair, and between every pod and a set of external and node addresses,
the compiled tiers (walked pair by pair, tests/netpol/tiered.py) must give the reference's connections.

The clusters use what the compiler reads: CiliumNetworkPolicies and clusterwide ones, `spec` and `specs`,
selector keys with and without a source prefix, namespace-label and service-account identity labels,
peers naming the namespace or not, `{}` peers, CIDR/CIDRSet around pod, node and external addresses,
entities, toServices, numeric / ANY / 0 / endPort / named ports, HTTP rules, deny rules, port-only and
empty rules, enableDefaultDeny; nodes with hostNetwork pods; the three enforcement modes. The same clusters,
some with Kubernetes NetworkPolicies beside, go through the real pipeline too.
"""

from __future__ import annotations

import random

import pytest

from netpol.engine.options import CiliumEnforcement
from tests.netpol.cilium_cases import ccnp, check_engine, cnode, cnp, cns, cpod, csvc, knp, render, tiered
from tests.netpol.cilium_reference import CiliumReference

SEEDS = range(40)
LABELS = {"app": ["web", "db", "api"], "tier": ["fe", "be"]}
NS_LABELS = {"team": ["a", "b"]}
NUMBERS = ["53", "80", "443", "8080"]
NAMES = ["http", "dns"]
EXTERNAL = ["203.0.113.7", "198.51.100.1", "10.200.0.1", "10.96.0.10"]
NODE_IPS = ["192.168.0.1", "192.168.0.2"]


def _key(rng: random.Random, key: str) -> str:
    return rng.choice(["", "", "k8s:", "any:"]) + key


def _selector(rng: random.Random, namespaces: list[str], *, peer: bool) -> dict:
    sel: dict = {}
    r = rng.random()
    if r < 0.2:
        return sel
    labels = {_key(rng, k): rng.choice(v) for k, v in LABELS.items() if rng.random() < 0.5}
    if peer and rng.random() < 0.25:
        labels[_key(rng, "io.kubernetes.pod.namespace")] = rng.choice(namespaces)
    if peer and rng.random() < 0.15:
        labels["io.cilium.k8s.namespace.labels.team"] = rng.choice(NS_LABELS["team"])
    if rng.random() < 0.1:
        labels["io.cilium.k8s.policy.serviceaccount"] = rng.choice(["default", "robot"])
    if labels:
        sel["matchLabels"] = labels
    if rng.random() < 0.3:
        key = rng.choice(list(LABELS))
        op = rng.choice(["In", "NotIn", "Exists", "DoesNotExist"])
        req: dict = {"key": _key(rng, key), "operator": op}
        if op in ("In", "NotIn"):
            req["values"] = rng.sample([*LABELS[key], "zz"], 2)
        sel["matchExpressions"] = [req]
    return sel


def _port(rng: random.Random) -> dict:
    r = rng.random()
    out: dict
    if r < 0.45:
        out = {"port": rng.choice(NUMBERS)}
    elif r < 0.6:
        lo = int(rng.choice(NUMBERS))
        out = {"port": str(lo), "endPort": lo + rng.choice([1, 100])}
    elif r < 0.7:
        out = {"port": "0"}
    else:
        out = {"port": rng.choice([*NAMES, "nowhere"])}
    proto = rng.choice([None, "TCP", "UDP", "ANY", "SCTP"])
    if proto:
        out["protocol"] = proto
    return out


def _rule(rng: random.Random, direction: str, namespaces: list[str], *, deny: bool) -> dict:
    side = "from" if direction == "ingress" else "to"
    rule: dict = {}
    r = rng.random()
    if r < 0.35:
        rule[f"{side}Endpoints"] = [_selector(rng, namespaces, peer=True) for _ in range(rng.randint(1, 2))]
    elif r < 0.5:
        rule[f"{side}CIDRSet"] = [
            rng.choice(
                [
                    {"cidr": "10.0.0.0/8", "except": ["10.96.0.0/12"]},
                    {"cidr": "0.0.0.0/0"},
                    {"cidr": "203.0.113.0/24"},
                    {"cidr": "192.168.0.0/24"},
                ]
            )
        ]
    elif r < 0.55:
        rule[f"{side}CIDR"] = [rng.choice(["10.0.1.0/24", "198.51.100.0/24", "192.168.0.2/32"])]
    elif r < 0.7:
        rule[f"{side}Entities"] = rng.sample(
            ["world", "cluster", "all", "remote-node", "host", "kube-apiserver", "none"], 2
        )
    elif r < 0.78 and direction == "egress":
        rule["toServices"] = [
            rng.choice(
                [
                    {"k8sService": {"serviceName": "web", "namespace": rng.choice(namespaces)}},
                    {"k8sService": {"serviceName": "web"}},
                    {"k8sServiceSelector": {"selector": {"matchLabels": {"expose": "yes"}}}},
                ]
            )
        ]
    # else: no layer-3 member (a port-only rule, or the empty rule)
    if rng.random() < 0.55:
        entry: dict = {"ports": [_port(rng) for _ in range(rng.randint(1, 2))]}
        if not deny and rng.random() < 0.2:
            entry = {
                "ports": [{"port": rng.choice(NUMBERS), "protocol": "TCP"}],
                "rules": {"http": [{"method": "GET"}]},
            }
        rule["toPorts"] = [entry]
    return rule


def _spec(rng: random.Random, namespaces: list[str]) -> dict:
    spec: dict = {"endpointSelector": _selector(rng, namespaces, peer=False)}
    for direction in ("ingress", "egress"):
        if rng.random() < 0.6:
            spec[direction] = [_rule(rng, direction, namespaces, deny=False) for _ in range(rng.randint(1, 2))]
        if rng.random() < 0.2:
            spec[direction + "Deny"] = [_rule(rng, direction, namespaces, deny=True)]
    if not any(k in spec for k in ("ingress", "egress", "ingressDeny", "egressDeny")):
        spec["ingress"] = [{}]
    if rng.random() < 0.15:
        spec["enableDefaultDeny"] = {rng.choice(["ingress", "egress"]): rng.choice([True, False])}
    return spec


def _network_policy(rng: random.Random, ns: str, k: int, namespaces: list[str]) -> dict:
    """A NetworkPolicy of selector peers (the NetworkPolicy reference knows no hostNetwork pods, so no
    ipBlocks: these clusters have none)."""
    spec: dict = {"podSelector": {"matchLabels": {"app": rng.choice(LABELS["app"])}} if rng.random() < 0.7 else {}}
    for direction, peers_key in (("ingress", "from"), ("egress", "to")):
        if rng.random() < 0.6:
            rule: dict = {}
            r = rng.random()
            if r < 0.4:
                rule[peers_key] = [{"podSelector": {"matchLabels": {"tier": rng.choice(LABELS["tier"])}}}]
            elif r < 0.7:
                rule[peers_key] = [
                    {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": rng.choice(namespaces)}}}
                ]
            if rng.random() < 0.5:
                rule["ports"] = [{"port": int(rng.choice(NUMBERS)), "protocol": rng.choice(["TCP", "UDP"])}]
            spec[direction] = [rule]
    types = [t for t, d in (("Ingress", "ingress"), ("Egress", "egress")) if d in spec] or ["Ingress"]
    spec["policyTypes"] = types
    return knp(ns, f"np{k}", spec)


def random_cluster(seed: int, *, with_network_policies: bool = False) -> list[dict]:
    rng = random.Random(seed)
    namespaces = [f"ns{i}" for i in range(rng.randint(2, 3))]
    objs: list[dict] = [cnode("n1", NODE_IPS[0]), cnode("n2", NODE_IPS[1])]
    for ns in namespaces:
        objs.append(cns(ns, {k: rng.choice(v) for k, v in NS_LABELS.items()}))
    for n, ns in enumerate(namespaces):
        for i in range(rng.randint(2, 4)):
            ports = [
                {"name": name, "containerPort": int(rng.choice(NUMBERS)), "protocol": rng.choice(["TCP", "UDP"])}
                for name in rng.sample(NAMES, rng.randint(0, 2))
            ]
            labels = {k: rng.choice(v) for k, v in LABELS.items() if rng.random() < 0.7}
            if rng.random() < 0.3:
                labels["expose"] = "yes"
            sa = rng.choice([None, "robot"])
            objs.append(
                cpod(ns, f"p{i}", labels, f"10.0.{n + 1}.{i + 1}", node=rng.choice(["n1", "n2"]), ports=ports, sa=sa)
            )
    if not with_network_policies:
        for k, ip in enumerate(NODE_IPS):
            objs.append(cpod(namespaces[0], f"host{k}", {"app": "web"}, ip, node=f"n{k + 1}", host_network=True))
    for ns in namespaces:
        if rng.random() < 0.6:
            objs.append(csvc(ns, "web", {"app": "web"}, labels={"expose": rng.choice(["yes", "no"])}))
    for k in range(rng.randint(1, 4)):
        if rng.random() < 0.3:
            objs.append(ccnp(f"cw{k}", _spec(rng, namespaces)))
        elif rng.random() < 0.2:
            objs.append(cnp(rng.choice(namespaces), f"pol{k}", specs=[_spec(rng, namespaces) for _ in range(2)]))
        else:
            objs.append(cnp(rng.choice(namespaces), f"pol{k}", _spec(rng, namespaces)))
    if with_network_policies:
        objs += [_network_policy(rng, rng.choice(namespaces), k, namespaces) for k in range(rng.randint(1, 2))]
    return objs


@pytest.mark.parametrize("seed", SEEDS)
def test_compiled_tiers_equal_the_reference(seed: int) -> None:
    objs = random_cluster(seed)
    enforcement: CiliumEnforcement = ("default", "default", "default", "always", "never")[seed % 5]  # type: ignore[assignment]
    ref = CiliumReference(objs, enforcement)
    t = tiered(objs, enforcement)
    pods = sorted(ref.pods)
    for s in pods:
        for d in pods:
            want, want7 = ref.connection(s, d)
            assert t.connection(s, d).render() == render(want), f"seed {seed}: {s} => {d}"
            assert bool(t.l7(s, d)) == bool(want7), f"seed {seed}: L7 {s} => {d}"
        for ip in [*EXTERNAL, *NODE_IPS]:
            assert t.to_ip(s, ip).render() == render(ref.to_ip(s, ip)), f"seed {seed}: {s} => {ip}"
            assert t.from_ip(ip, s).render() == render(ref.from_ip(ip, s)), f"seed {seed}: {ip} => {s}"


@pytest.mark.parametrize("seed", SEEDS)
def test_the_engine_equals_the_reference(seed: int) -> None:
    """The same clusters through the real pipeline (`analyze`: every compiler, the tiered evaluation, the
    read-out), odd seeds with Kubernetes NetworkPolicies beside Cilium's policies."""
    objs = random_cluster(seed, with_network_policies=seed % 2 == 1)
    enforcement: CiliumEnforcement = ("default", "default", "default", "always", "never")[seed % 5]  # type: ignore[assignment]
    ref = CiliumReference(objs, enforcement)
    pods = sorted(ref.pods)
    pairs = {(s, d): render(ref.connection(s, d)[0]) for s in pods for d in pods}
    l7 = {(s, d): render(ref.connection(s, d)[1]) for s in pods for d in pods}
    to_ip = {(s, ip): render(ref.to_ip(s, ip)) for s in pods for ip in [*EXTERNAL, *NODE_IPS]}
    from_ip = {(ip, s): render(ref.from_ip(ip, s)) for s in pods for ip in [*EXTERNAL, *NODE_IPS]}
    check_engine(objs, pairs, enforcement=enforcement, from_ip=from_ip, to_ip=to_ip, l7=l7)
