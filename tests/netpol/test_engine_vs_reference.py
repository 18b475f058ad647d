"""The engine against an independent per-pair evaluator (tests/netpol/reference.py) on seeded random clusters.

Each seed builds a small cluster with every feature the engine compiles: namespace and pod labels,
matchLabels and all four matchExpressions operators, podSelector / namespaceSelector / both / ipBlock
peers (cidrs and excepts around pod IPs, and external ones), empty and absent `from`/`to`/`ports`,
numeric, named (same name → different numbers on different pods, and per protocol) and endPort ports,
IPv4 and IPv6 pod addresses and blocks,
protocol-only entries, defaulted and explicit policyTypes, ingress and egress. For every ordered pod
pair the engine's ConnectionSet must equal the reference's; so must the single-port probes
(the `--port` probe rows) and the connections to and from every external IP atom.

Two kinds of clusters: "mixed" (single-stack pods, a few of them IPv6-only) and "dual" (dual-stack pods with
`status.podIPs`, either family first, among single-stack ones of both families, ipBlocks of both families
around their addresses). Both follow the per-family rule of kubernetes.io/docs/concepts/services-networking/
dual-stack and network-policies ("ipBlock"): a connection uses one family at both ends.
"""

from __future__ import annotations

import random

import netaddr
import pytest

from netpol.readout.export import MatrixView, probe_pairs
from tests.helpers import analyze_objects
from tests.netpol import reference as ref

SEEDS = range(30)
LABEL_VALUES = {"app": ["web", "db", "api"], "tier": ["fe", "be"], "version": ["v1", "v2"]}
NS_LABEL_VALUES = {"team": ["a", "b"], "env": ["prod", "dev"]}
PORT_NUMBERS = [53, 80, 81, 443, 8080]
PORT_NAMES = ["http", "metrics", "dns"]
PROTOCOLS = ["TCP", "UDP", "SCTP"]


def _labels(rng: random.Random, values: dict[str, list[str]]) -> dict[str, str]:
    return {k: rng.choice(vs) for k, vs in values.items() if rng.random() < 0.6}


def _selector(rng: random.Random, values: dict[str, list[str]], extra_keys: list[str]) -> dict:
    sel: dict = {}
    if rng.random() < 0.5:
        sel["matchLabels"] = _labels(rng, values)
    if rng.random() < 0.4:
        exprs = []
        for _ in range(rng.randint(1, 2)):
            key = rng.choice([*values, *extra_keys])
            op = rng.choice(["In", "NotIn", "Exists", "DoesNotExist"])
            req: dict = {"key": key, "operator": op}
            if op in ("In", "NotIn"):
                pool = [*values.get(key, ["x"]), "zz"]
                req["values"] = rng.sample(pool, rng.randint(1, min(2, len(pool))))
            exprs.append(req)
        sel["matchExpressions"] = exprs
    return sel


WIDE = ["10.0.0.0/8", "10.1.0.0/16", "0.0.0.0/0", "fd00::/16", "::/0"]
WIDE_DUAL = [*WIDE, "fd00::1:0/112", "fd00::2:0/112", "10.0.1.0/24"]  # one namespace's IPv6 / IPv4 addresses


def _ip_block(rng: random.Random, pod_ips: list[str], wide: list[str] = WIDE) -> dict:
    kind = rng.random()
    if kind < 0.35:  # a pod's host route or the few addresses around it
        ip = rng.choice(pod_ips)
        return {"cidr": str(netaddr.IPNetwork(f"{ip}/{_host_prefix(ip, rng, [0, 2])}").cidr)}
    if kind < 0.75:  # a wide block with excepts around pod IPs
        cidr = rng.choice(wide)
        net = netaddr.IPNetwork(cidr)
        excepts = sorted(
            {f"{ip}/{_host_prefix(ip, rng, [0, 1, 4])}" for ip in rng.sample(pod_ips, rng.randint(0, 2)) if ip in net}
        )
        excepts = [str(netaddr.IPNetwork(e).cidr) for e in excepts]
        excepts = [e for e in dict.fromkeys(excepts) if netaddr.IPNetwork(e) != net]
        return {"cidr": cidr, "except": excepts} if excepts else {"cidr": cidr}
    return {"cidr": rng.choice(["192.168.0.0/16", "172.16.0.0/12", "10.1.2.0/24"])}


def _host_prefix(ip: str, rng: random.Random, shorter_by: list[int]) -> int:
    """A host route for the address (/32 or /128), or a prefix a few bits shorter."""
    return (32 if netaddr.IPAddress(ip).version == 4 else 128) - rng.choice(shorter_by)


def _peer(rng: random.Random, namespaces: list[str], pod_ips: list[str], wide: list[str] = WIDE) -> dict:
    kind = rng.random()
    if kind < 0.3:
        return {"podSelector": _selector(rng, LABEL_VALUES, ["missing"])}
    if kind < 0.5:
        return {"namespaceSelector": _selector(rng, {**NS_LABEL_VALUES, "kubernetes.io/metadata.name": namespaces}, [])}
    if kind < 0.75:
        return {
            "namespaceSelector": _selector(rng, {**NS_LABEL_VALUES, "kubernetes.io/metadata.name": namespaces}, []),
            "podSelector": _selector(rng, LABEL_VALUES, []),
        }
    return {"ipBlock": _ip_block(rng, pod_ips, wide)}


def _port(rng: random.Random) -> dict:
    out: dict = {}
    if rng.random() < 0.7:
        out["protocol"] = rng.choice(PROTOCOLS)
    kind = rng.random()
    if kind < 0.35:
        out["port"] = rng.choice(PORT_NUMBERS)
    elif kind < 0.55:
        lo = rng.choice(PORT_NUMBERS)
        out["port"] = lo
        out["endPort"] = lo + rng.choice([0, 1, 400, 8000])
    elif kind < 0.85:
        out["port"] = rng.choice(PORT_NAMES + ["nowhere"])
    return out  # else: protocol only (every port of it)


def _rule(rng: random.Random, peers_key: str, namespaces: list[str], pod_ips: list[str], wide: list[str]) -> dict:
    rule: dict = {}
    r = rng.random()
    if r < 0.15:
        rule[peers_key] = []
    elif r < 0.85:
        rule[peers_key] = [_peer(rng, namespaces, pod_ips, wide) for _ in range(rng.randint(1, 3))]
    r = rng.random()
    if r < 0.15:
        rule["ports"] = []
    elif r < 0.75:
        rule["ports"] = [_port(rng) for _ in range(rng.randint(1, 3))]
    return rule


def _addresses(rng: random.Random, n: int, i: int, stack: str) -> list[str]:
    """status.podIPs of pod i of namespace n: "mixed" clusters have single-stack pods (some IPv6-only);
    "dual" ones mostly dual-stack pods (either family first) among single-stack pods of both families."""
    v4, v6 = f"10.{rng.choice([0, 1])}.{n}.{i + 1}", f"fd00::{n}:{i + 1}"
    if stack == "mixed":
        return [v6 if rng.random() < 0.15 else v4]  # the draw order of the original generator
    kind = rng.random()
    if kind < 0.15:
        return [v4]
    if kind < 0.3:
        return [v6]
    return [v4, v6] if kind < 0.7 else [v6, v4]


def random_cluster(seed: int, stack: str = "mixed") -> list[dict]:
    rng = random.Random(seed)
    wide = WIDE_DUAL if stack == "dual" else WIDE
    namespaces = [f"ns{i}" for i in range(rng.randint(2, 4))]
    objs: list[dict] = []
    for ns in namespaces:
        objs.append(
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns, "labels": _labels(rng, NS_LABEL_VALUES)}}
        )
    pod_ips = []
    for n, ns in enumerate(namespaces):
        for i in range(rng.randint(2, 5)):
            if stack == "mixed":  # the original draw order, so the mixed clusters stay what they were
                ip = f"fd00::{n}:{i + 1}" if rng.random() < 0.15 else f"10.{rng.choice([0, 1])}.{n}.{i + 1}"
                ips = [ip]
            else:
                ips = _addresses(rng, n, i, stack)
            pod_ips.extend(ips)
            # Port names are unique within a pod; the same name may mean another number or protocol elsewhere.
            ports = [
                {"name": name, "containerPort": rng.choice(PORT_NUMBERS), "protocol": rng.choice(PROTOCOLS)}
                for name in rng.sample(PORT_NAMES, rng.randint(0, 3))
            ]
            objs.append(
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "metadata": {"name": f"p{i}", "namespace": ns, "labels": _labels(rng, LABEL_VALUES)},
                    "spec": {"containers": [{"name": "c", "image": "img", "ports": ports}]},
                    "status": {"podIP": ips[0], "podIPs": [{"ip": ip} for ip in ips]}
                    if len(ips) > 1
                    else {"podIP": ips[0]},
                }
            )
    for k in range(rng.randint(1, 5)):
        ns = rng.choice(namespaces)
        spec: dict = {"podSelector": _selector(rng, LABEL_VALUES, ["missing"])}
        if rng.random() < 0.8:
            spec["ingress"] = [_rule(rng, "from", namespaces, pod_ips, wide) for _ in range(rng.randint(0, 3))]
        if rng.random() < 0.6:
            spec["egress"] = [_rule(rng, "to", namespaces, pod_ips, wide) for _ in range(rng.randint(0, 3))]
        types = rng.choice([None, ["Ingress"], ["Egress"], ["Ingress", "Egress"]])
        if types is not None:
            spec["policyTypes"] = types
        objs.append(
            {
                "apiVersion": "networking.k8s.io/v1",
                "kind": "NetworkPolicy",
                "metadata": {"name": f"pol{k}", "namespace": ns},
                "spec": spec,
            }
        )
    return objs


def _ranges(cs) -> ref.Ranges:
    return ref.normalize(cs.items())


PROBES = [("TCP", 80), ("TCP", 81), ("UDP", 53), ("SCTP", 443), ("TCP", 8080), ("UDP", 8400), ("TCP", 1)]


@pytest.mark.parametrize("stack", ["mixed", "dual"])
@pytest.mark.parametrize("seed", SEEDS)
def test_engine_matches_reference_on_random_cluster(seed: int, stack: str) -> None:
    objs = random_cluster(seed, stack)
    a = analyze_objects(*objs)
    r = a.reachability
    rc = ref.ReferenceCluster(objs)
    keys = [p.key for p in a.pods]
    assert sorted(keys) == sorted(p.key for p in rc.pods)
    assert {p.key: p.pod_ips for p in a.pods} == {p.key: p.ips for p in rc.pods}
    for s in keys:
        for d in keys:
            got = _ranges(r.connection(r.pod_index[s], r.pod_index[d]))
            want = rc.connection(s, d)
            assert got == want, f"{stack} seed {seed}: {s} -> {d}: engine {got} != reference {want}"
    view = MatrixView(a)
    for protocol, port in PROBES:
        got_pairs = set(probe_pairs(view, protocol, port))
        want_pairs = {(s, d) for s in keys for d in keys if ref.contains(rc.connection(s, d), protocol, port)}
        assert got_pairs == want_pairs, f"seed {seed}: probe {protocol}/{port}"
    for ai, atom in enumerate(r.atoms):
        ip = str(netaddr.IPAddress(atom.first, atom.version))
        for d in keys:
            got = _ranges(r.ingress_from_atom(ai, r.pod_index[d]))
            assert got == rc.ingress_from_ip(ip, d), f"seed {seed}: {atom.render()} -> {d}"
            got = _ranges(r.egress_to_atom(r.pod_index[d], ai))
            assert got == rc.egress_to_ip(d, ip), f"seed {seed}: {d} -> {atom.render()}"


def test_random_clusters_exercise_every_feature() -> None:
    """The generator is only a guard if it produces the features; count them over all seeds."""
    seen: set[str] = set()
    for seed, stack in [(s, k) for s in SEEDS for k in ("mixed", "dual")]:
        for o in random_cluster(seed, stack):
            if o["kind"] == "Pod" and ":" in o["status"]["podIP"]:
                seen.add("ipv6-pod")
            if o["kind"] == "Pod" and len(o["status"].get("podIPs", ())) == 2:
                seen.add("dual-stack-pod" if ":" not in o["status"]["podIP"] else "dual-stack-pod-ipv6-first")
            if o["kind"] != "NetworkPolicy":
                continue
            spec = o["spec"]
            seen.add(f"types:{spec.get('policyTypes')}")
            for key, pk in (("ingress", "from"), ("egress", "to")):
                for rule in spec.get(key) or []:
                    seen.add(f"{key}")
                    if pk not in rule:
                        seen.add("peers-absent")
                    for peer in rule.get(pk) or []:
                        seen.add("+".join(sorted(peer)))
                        if "ipBlock" in peer and peer["ipBlock"].get("except"):
                            seen.add("except")
                        if "ipBlock" in peer and ":" in peer["ipBlock"]["cidr"]:
                            seen.add("ipv6-block")
                        for sel in (peer.get("podSelector"), peer.get("namespaceSelector")):
                            for req in (sel or {}).get("matchExpressions") or []:
                                seen.add(req["operator"])
                    for p in rule.get("ports") or []:
                        if "endPort" in p:
                            seen.add("endPort")
                        elif isinstance(p.get("port"), str):
                            seen.add("named")
                        elif "port" not in p:
                            seen.add("protocol-only")
    for feature in [
        "ingress",
        "egress",
        "peers-absent",
        "podSelector",
        "namespaceSelector",
        "namespaceSelector+podSelector",
        "ipBlock",
        "except",
        "In",
        "NotIn",
        "Exists",
        "DoesNotExist",
        "endPort",
        "named",
        "protocol-only",
        "types:None",
        "types:['Egress']",
        "ipv6-pod",
        "ipv6-block",
        "dual-stack-pod",
        "dual-stack-pod-ipv6-first",
    ]:
        assert feature in seen, feature
