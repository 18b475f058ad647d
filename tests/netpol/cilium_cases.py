"""Builders and the three-way check shared by the Cilium tests.

Every case is checked against the independent reference (tests/netpol/cilium_reference.py), against the
compiler through a per-pair walk of its tiers (tests/netpol/tiered.py; Cilium-only inputs), and against the
real pipeline (`netpol.pipeline.analyze`) once the tiered evaluation is wired.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import yaml

from netpol.engine.compile.cilium import CiliumCompiler
from netpol.engine.options import CiliumEnforcement, EngineOptions
from netpol.manifests import load_text
from netpol.pipeline import prepare
from netpol.ports import ConnectionSet
from tests.netpol import reference as np_ref
from tests.netpol.cilium_reference import CiliumReference
from tests.netpol.tiered import Tiered


def cpod(
    ns: str,
    name: str,
    labels: dict[str, str] | None = None,
    ip: str = "",
    *,
    node: str = "n1",
    ports: list[dict] | None = None,
    host_network: bool = False,
    sa: str | None = None,
) -> dict:
    spec: dict[str, Any] = {"nodeName": node, "containers": [{"name": "c", "image": "img", "ports": ports or []}]}
    if host_network:
        spec["hostNetwork"] = True
    if sa:
        spec["serviceAccountName"] = sa
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": ns, "labels": labels or {}},
        "spec": spec,
        "status": {"podIP": ip, "phase": "Running"},
    }


def cnode(name: str, ip: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name},
        "status": {"addresses": [{"type": "InternalIP", "address": ip}]},
    }


def cns(name: str, labels: dict[str, str] | None = None) -> dict:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels or {}}}


def cnp(ns: str, name: str, spec: dict | None = None, specs: list[dict] | None = None) -> dict:
    obj: dict[str, Any] = {"apiVersion": "cilium.io/v2", "kind": "CiliumNetworkPolicy", "metadata": {"name": name}}
    obj["metadata"]["namespace"] = ns
    if spec is not None:
        obj["spec"] = spec
    if specs is not None:
        obj["specs"] = specs
    return obj


def ccnp(name: str, spec: dict) -> dict:
    return {
        "apiVersion": "cilium.io/v2",
        "kind": "CiliumClusterwideNetworkPolicy",
        "metadata": {"name": name},
        "spec": spec,
    }


def knp(ns: str, name: str, spec: dict) -> dict:
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": name, "namespace": ns},
        "spec": spec,
    }


def csvc(ns: str, name: str, selector: dict[str, str] | None, labels: dict[str, str] | None = None) -> dict:
    spec: dict[str, Any] = {"ports": [{"port": 80}]}
    if selector is not None:
        spec["selector"] = selector
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "namespace": ns, "labels": labels or {}},
        "spec": spec,
    }


def tcp(port: str | int, protocol: str | None = "TCP", **extra: Any) -> dict:
    out: dict[str, Any] = {"port": str(port)}
    if protocol is not None:
        out["protocol"] = protocol
    out.update(extra)
    return out


def render(r: np_ref.Ranges) -> str:
    return ConnectionSet.of(np_ref.items(r)).render()


def tiered(objs: list[Mapping[str, Any]], enforcement: CiliumEnforcement = "default") -> Tiered:
    cluster, _ = prepare(load_text(yaml.safe_dump_all(list(objs))))
    compiler = CiliumCompiler(cluster.cilium_policies, cluster.services)
    return Tiered.build(cluster, [compiler], EngineOptions(cilium_enforcement=enforcement))


def check(
    objs: list[dict],
    pairs: Mapping[tuple[str, str], str],
    *,
    enforcement: CiliumEnforcement = "default",
    from_ip: Mapping[tuple[str, str], str] | None = None,
    to_ip: Mapping[tuple[str, str], str] | None = None,
    l7: Mapping[tuple[str, str], str] | None = None,
) -> None:
    """Each expectation (derived by hand in the test) against every evaluator available."""
    ref = CiliumReference(objs, enforcement)
    for (s, d), want in pairs.items():
        assert render(ref.connection(s, d)[0]) == want, f"reference {s} => {d}"
    for (ip, d), want in (from_ip or {}).items():
        assert render(ref.from_ip(ip, d)) == want, f"reference {ip} => {d}"
    for (s, ip), want in (to_ip or {}).items():
        assert render(ref.to_ip(s, ip)) == want, f"reference {s} => {ip}"
    for (s, d), want in (l7 or {}).items():
        assert render(ref.connection(s, d)[1]) == want, f"reference L7 {s} => {d}"
    if not any(o["kind"] == "NetworkPolicy" for o in objs):
        t = tiered(objs, enforcement)
        for (s, d), want in pairs.items():
            assert t.connection(s, d).render() == want, f"compiled tiers {s} => {d}"
        for (ip, d), want in (from_ip or {}).items():
            assert t.from_ip(ip, d).render() == want, f"compiled tiers {ip} => {d}"
        for (s, ip), want in (to_ip or {}).items():
            assert t.to_ip(s, ip).render() == want, f"compiled tiers {s} => {ip}"
        for (s, d), want in (l7 or {}).items():
            filtered = t.l7(s, d)
            assert bool(filtered) == (want != "No Connections"), f"compiled tiers L7 {s} => {d}: {filtered}"
    check_engine(objs, pairs, enforcement=enforcement, from_ip=from_ip, to_ip=to_ip, l7=l7)


def check_engine(
    objs: list[dict],
    pairs: Mapping[tuple[str, str], str],
    *,
    enforcement: CiliumEnforcement = "default",
    from_ip: Mapping[tuple[str, str], str] | None = None,
    to_ip: Mapping[tuple[str, str], str] | None = None,
    l7: Mapping[tuple[str, str], str] | None = None,
) -> None:
    """Through `analyze`; `l7`: the ports each pair gets only through a layer-7 filter (the engine's
    `endpoint_filtered`)."""
    from netpol.engine import Endpoint
    from tests.helpers import analyze_objects

    a = analyze_objects(*objs, options=EngineOptions(cilium_enforcement=enforcement))
    r = a.reachability
    for (s, d), want in pairs.items():
        assert r.connection(r.pod_index[s], r.pod_index[d]).render() == want, f"engine {s} => {d}"
    for (ip, d), want in (from_ip or {}).items():
        atom = r.ipspace.atom_index(ip)
        assert r.ingress_from_atom(atom, r.pod_index[d]).render() == want, f"engine {ip} => {d}"
    for (s, ip), want in (to_ip or {}).items():
        atom = r.ipspace.atom_index(ip)
        assert r.egress_to_atom(r.pod_index[s], atom).render() == want, f"engine {s} => {ip}"
    for (s, d), want in (l7 or {}).items():
        bits = r.endpoint_filtered(Endpoint(pod=r.pod_index[s]), Endpoint(pod=r.pod_index[d]))
        assert r.ports.to_set(bits).render() == want, f"engine L7 {s} => {d}"
