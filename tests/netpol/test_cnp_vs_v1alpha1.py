"""The v1alpha1 ↔ v1alpha2 differential test of issue 21: every ClusterNetworkPolicy input expressible in v1alpha1
(Admin-tier policies, at most one Baseline-tier policy, no Pass in it) rewritten as AdminNetworkPolicies and a
BaselineAdminNetworkPolicy gives the same matrix through the v1alpha1 path.

The rewrite follows the two APIs' field documentation (apis/v1alpha1, apis/v1alpha2 in kubernetes-sigs/
network-policy-api): tier Admin → AdminNetworkPolicy with the same priority; tier Baseline → the
BaselineAdminNetworkPolicy `default`; Accept → Allow; the peers are the same objects; `tcp`/`udp`/`sctp` with a
`number` → `portNumber`, with a `range` → `portRange`, `destinationNamedPort` → `namedPort`.
"""

from __future__ import annotations

import copy

import netaddr
import pytest

from tests.helpers import analyze_objects
from tests.netpol.random_tiers import ANP_API, random_tiered_cluster

SEEDS = range(30)


def expressible(objs: list[dict]) -> list[dict]:
    """A generated cluster made expressible in v1alpha1: the first Baseline policy stays (its Pass rules become
    Deny, its domainNames peers a documentation range); later Baseline policies move to the Admin tier."""
    out = []
    baseline_seen = False
    for o in copy.deepcopy(objs):
        if o["kind"] == "ClusterNetworkPolicy" and o["spec"]["tier"] == "Baseline":
            if baseline_seen:
                o["spec"]["tier"] = "Admin"
                o["spec"]["priority"] = 100 + len(out)  # above every generated Admin priority (< 60): distinct
            else:
                baseline_seen = True
                for d, pk in (("ingress", "from"), ("egress", "to")):
                    for rule in o["spec"].get(d) or []:
                        if rule["action"] == "Pass":
                            rule["action"] = "Deny"
                        # (a domainNames rule has no named port: the CRD refuses both together)
                        rule[pk] = [p if "domainNames" not in p else {"networks": ["192.0.2.0/24"]} for p in rule[pk]]
        out.append(o)
    return out


def to_v1alpha1(objs: list[dict]) -> list[dict]:
    out = []
    for o in objs:
        if o["kind"] != "ClusterNetworkPolicy":
            out.append(o)
            continue
        spec = o["spec"]
        baseline = spec["tier"] == "Baseline"
        new: dict = {"subject": spec["subject"]}
        if not baseline:
            new["priority"] = spec["priority"]
        for d, pk in (("ingress", "from"), ("egress", "to")):
            if spec.get(d):
                new[d] = [_rule(r, pk) for r in spec[d]]
        out.append(
            {
                "apiVersion": ANP_API,
                "kind": "BaselineAdminNetworkPolicy" if baseline else "AdminNetworkPolicy",
                "metadata": {"name": "default" if baseline else o["metadata"]["name"]},
                "spec": new,
            }
        )
    return out


def _rule(rule: dict, pk: str) -> dict:
    new = {"name": rule["name"], "action": "Allow" if rule["action"] == "Accept" else rule["action"], pk: rule[pk]}
    if "protocols" in rule:
        ports = []
        for p in rule["protocols"]:
            if "destinationNamedPort" in p:
                ports.append({"namedPort": p["destinationNamedPort"]})
                continue
            (key,) = p
            port = p[key]["destinationPort"]
            if "number" in port:
                ports.append({"portNumber": {"protocol": key.upper(), "port": port["number"]}})
            else:
                ports.append({"portRange": {"protocol": key.upper(), **port["range"]}})
        new["ports"] = ports
    return new


def matrix(objs: list[dict]) -> dict[tuple[str, str], str]:
    a = analyze_objects(*objs)
    r = a.reachability
    out = {}
    keys = [p.key for p in a.pods]
    for s in keys:
        for d in keys:
            out[(s, d)] = r.connection(r.pod_index[s], r.pod_index[d]).render()
    for ai, atom in enumerate(r.atoms):
        ip = str(netaddr.IPAddress(atom.first, atom.version))
        for d in keys:
            out[(ip, d)] = r.ingress_from_atom(ai, r.pod_index[d]).render()
            out[(d, ip)] = r.egress_to_atom(r.pod_index[d], ai).render()
    return out


@pytest.mark.parametrize("stack", ["mixed", "dual"])
@pytest.mark.parametrize("seed", SEEDS)
def test_v1alpha2_and_its_v1alpha1_rewrite_give_the_same_matrix(seed: int, stack: str) -> None:
    v2 = expressible(random_tiered_cluster(seed, stack, v1alpha1=False))
    v1 = to_v1alpha1(v2)
    assert any(o["kind"] == "ClusterNetworkPolicy" for o in v2)
    assert not any(o["kind"] == "ClusterNetworkPolicy" for o in v1)
    got2, got1 = matrix(v2), matrix(v1)
    assert got2.keys() == got1.keys()
    assert {k: (got2[k], got1[k]) for k in got2 if got2[k] != got1[k]} == {}


def test_the_rewrite_exercises_both_tiers_and_every_action() -> None:
    seen = set()
    for seed in SEEDS:
        for o in to_v1alpha1(expressible(random_tiered_cluster(seed, "mixed", v1alpha1=False))):
            if o["kind"] in ("AdminNetworkPolicy", "BaselineAdminNetworkPolicy"):
                for d in ("ingress", "egress"):
                    seen.update(f"{o['kind']}:{r['action']}" for r in o["spec"].get(d) or [])
    assert seen >= {
        "AdminNetworkPolicy:Allow",
        "AdminNetworkPolicy:Deny",
        "AdminNetworkPolicy:Pass",
        "BaselineAdminNetworkPolicy:Allow",
        "BaselineAdminNetworkPolicy:Deny",
    }
