"""The upstream e2e suite's cluster and truth tables, rebuilt in Python.

kubernetes/kubernetes test/e2e/network/netpol: namespaces x, y, z (labels ``ns=<name>`` plus the API
server's ``kubernetes.io/metadata.name``) × pods a, b, c (label ``pod=<name>``), every pod serving ports
80 and 81 on TCP, UDP and SCTP through one container per (port, protocol) whose port is named
``serve-<port>-<protocol>`` (model.go: ``cont-80-tcp`` / ``serve-80-tcp``).

``Truth`` mirrors reachability.go's ``Reachability``: start from all-true or all-false, then
``expect`` / ``expect_peer`` / ``expect_all_ingress`` / ``expect_all_egress`` edits. Upstream ignores
loopback; this project defines it as always allowed, so ``matrix()`` sets the diagonal true.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import yaml

NAMESPACES = ("x", "y", "z")
POD_NAMES = ("a", "b", "c")
PORTS = (80, 81)
PROTOCOLS = ("TCP", "UDP", "SCTP")
ALL_PODS = tuple(f"{ns}/{p}" for ns in NAMESPACES for p in POD_NAMES)


def container(port: int, protocol: str) -> dict:
    proto = protocol.lower()
    return {
        "name": f"cont-{port}-{proto}",
        "image": "registry.k8s.io/e2e-test-images/agnhost:2.53",
        "ports": [{"containerPort": port, "protocol": protocol, "name": f"serve-{port}-{proto}"}],
    }


def model_objects(
    ns_labels: dict[str, dict[str, str]] | None = None, pod_labels: dict[str, dict[str, str]] | None = None
) -> list[dict]:
    """Namespaces and pods of the model; extra labels per namespace name / per ``ns/pod`` ("updated" states)."""
    ns_labels = ns_labels or {}
    pod_labels = pod_labels or {}
    objs: list[dict] = []
    for ns in NAMESPACES:
        objs.append(
            {
                "apiVersion": "v1",
                "kind": "Namespace",
                "metadata": {
                    "name": ns,
                    "labels": {"ns": ns, "kubernetes.io/metadata.name": ns, **ns_labels.get(ns, {})},
                },
            }
        )
    for ns in NAMESPACES:
        for p in POD_NAMES:
            objs.append(
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "metadata": {"name": p, "namespace": ns, "labels": {"pod": p, **pod_labels.get(f"{ns}/{p}", {})}},
                    "spec": {"containers": [container(port, proto) for port in PORTS for proto in PROTOCOLS]},
                }
            )
    return objs


def write_model(directory: Path, policies: Iterable[dict] = ()) -> Path:
    """Write the model (and policies) as a folder of manifests, the way a user would keep them."""
    directory.mkdir(parents=True, exist_ok=True)
    objs = model_objects()
    (directory / "namespaces.yaml").write_text(yaml.safe_dump_all([o for o in objs if o["kind"] == "Namespace"]))
    (directory / "pods.yaml").write_text(yaml.safe_dump_all([o for o in objs if o["kind"] == "Pod"]))
    pols = list(policies)
    if pols:
        (directory / "policies.yaml").write_text(yaml.safe_dump_all(pols))
    return directory


# ------------------------------------------------------------------------------------------ policies
# policies.go builders: GenNetworkPolicyWithNameAndPodMatchLabel + SetSpecIngressRules/SetSpecEgressRules.
# Upstream sets policyTypes explicitly: Ingress when ingress rules were set (even none), Egress likewise.


def netpol(
    name: str,
    pod_labels: dict[str, str] | None = None,
    *,
    ingress: list[dict] | None = None,
    egress: list[dict] | None = None,
    pod_selector: dict | None = None,
    policy_types: list[str] | None = None,
) -> dict:
    spec: dict = {"podSelector": pod_selector if pod_selector is not None else {"matchLabels": pod_labels or {}}}
    types = []
    if ingress is not None:
        spec["ingress"] = ingress
        types.append("Ingress")
    if egress is not None:
        spec["egress"] = egress
        types.append("Egress")
    spec["policyTypes"] = policy_types if policy_types is not None else types
    return {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": {"name": name}, "spec": spec}


def in_ns(policy: dict, ns: str) -> dict:
    """CreatePolicy(k8s, policy, ns)."""
    return {**policy, "metadata": {**policy["metadata"], "namespace": ns}}


def ns_name(ns: str) -> dict:
    return {"matchLabels": {"kubernetes.io/metadata.name": ns}}


def labels(**kv: str) -> dict:
    return {"matchLabels": kv}


def expr(key: str, op: str, *values: str) -> dict:
    req: dict = {"key": key, "operator": op}
    if values:
        req["values"] = list(values)
    return {"matchExpressions": [req]}


def port(p: int | str | None = None, protocol: str | None = None, end_port: int | None = None) -> dict:
    out: dict = {}
    if p is not None:
        out["port"] = p
    if protocol is not None:
        out["protocol"] = protocol
    if end_port is not None:
        out["endPort"] = end_port
    return out


# ------------------------------------------------------------------------------------------ truth tables


@dataclass(frozen=True)
class Peer:
    """reachability.go's Peer: empty fields match everything."""

    namespace: str = ""
    pod: str = ""

    def matches(self, key: str) -> bool:
        ns, name = key.split("/")
        return (not self.namespace or self.namespace == ns) and (not self.pod or self.pod == name)


class Truth:
    """The expected truth table over ALL_PODS (rows sources, columns destinations)."""

    def __init__(self, default: bool = True, pods: tuple[str, ...] = ALL_PODS) -> None:
        self.pods = pods
        self.table = {(s, d): default for s in pods for d in pods}

    def expect(self, src: str, dst: str, value: bool) -> Truth:
        self.table[(src, dst)] = value
        return self

    def expect_peer(self, src: Peer, dst: Peer, value: bool) -> Truth:
        for s, d in self.table:
            if src.matches(s) and dst.matches(d):
                self.table[(s, d)] = value
        return self

    def expect_all_ingress(self, pod: str, value: bool) -> Truth:
        return self.expect_peer(Peer(), Peer(*pod.split("/")), value)

    def expect_all_egress(self, pod: str, value: bool) -> Truth:
        return self.expect_peer(Peer(*pod.split("/")), Peer(), value)

    def allowed(self) -> set[tuple[str, str]]:
        """Allowed ordered pairs, loopback included (always allowed here; upstream ignores it)."""
        return {k for k, v in self.table.items() if v} | {(p, p) for p in self.pods}


def grid(pods: tuple[str, ...], allowed: set[tuple[str, str]]) -> str:
    """Upstream's PrintTruthTable layout: `.` allowed, `X` denied."""
    head = "      " + " ".join(f"{p:>5}" for p in pods)
    rows = [f"{s:<5} " + " ".join(f"{'.' if (s, d) in allowed else 'X':>5}" for d in pods) for s in pods]
    return "\n".join([head, *rows])
