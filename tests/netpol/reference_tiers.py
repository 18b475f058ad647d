"""A deliberately simple evaluator of NetworkPolicy + v1alpha1 Admin/BaselineAdminNetworkPolicy + v1alpha2
ClusterNetworkPolicy together, written straight from the upstream documentation.

It exists only to cross-check the engine, so it shares no code with `netpol`: it reads the raw manifest dicts and
loops over tiers → policies → rules → peers → ports for one pair at a time. It reuses the NetworkPolicy evaluator
of tests/netpol/reference.py (itself independent of netpol) for the NetworkPolicy tier.

Rules (kubernetes-sigs/network-policy-api: apis/v1alpha2/clusternetworkpolicy_types.go for ClusterNetworkPolicy,
apis/v1alpha1/{adminnetworkpolicy,baselineadminnetworkpolicy,shared}_types.go for the v1alpha1 kinds):
- Per side (ingress decided at the destination, egress at the source) and per port, tiers in order: Admin (ANPs and
  Admin-tier CNPs), NetworkPolicy, Baseline (the BANP and Baseline-tier CNPs), then allowed.
- In the Admin and Baseline tiers, policies by priority (lower first; the BANP has none), rules of the direction in
  the order written; the first rule whose subject holds the owner, one of whose peers holds the other end and
  whose ports hold the port decides: Accept/Allow → allowed, Deny → denied, Pass → on to the next tier.
- The NetworkPolicy tier decides for a pod that a NetworkPolicy selects in that direction (allowed iff a rule
  allows it); otherwise the port goes on to the Baseline tier.
- Subjects and `namespaces`/`pods` peers never hold host-network pods ("host-networked pods are not included").
- `networks` hold external addresses and pod addresses of their family (`ipblock_matches_pods`: the upstream
  reading; off: only host-network pods, which use their node's address); `nodes` hold the matching nodes'
  InternalIP addresses, so the host-network pods on those nodes; `domainNames` hold nothing statically.
- Ports: absent = every port; v1alpha1 portNumber/portRange (protocol default TCP) and namedPort; v1alpha2
  tcp/udp/sctp destinationPort number/range and destinationNamedPort; a name resolves on the destination pod's
  container ports whatever the protocol, never on an address.
- NetworkPolicy (tests/netpol/reference.py) with host-network pods: a podSelector never selects them (as a subject
  or as a peer, the namespaceSelector too); an ipBlock holds them by their node's address.
- A pod reaching itself, and a pod and a host-network pod of its own node (both ways), are always allowed
  (concepts/services-networking/network-policies: "traffic to and from the node where a Pod is running is always
  allowed").
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from tests.netpol.reference import (
    ALL,
    MAX_PORT,
    NONE,
    Ranges,
    ReferenceCluster,
    RPod,
    intersect,
    items,
    normalize,
    selector_matches,
)

ADMIN, BASELINE = "Admin", "Baseline"


def subtract(a: Ranges, b: Ranges) -> Ranges:
    """Ports in a but not in b."""
    out: list[tuple[str, int, int]] = []
    for p, lo, hi in items(a):
        pieces = [(lo, hi)]
        for q, blo, bhi in items(b):
            if q != p:
                continue
            nxt = []
            for plo, phi in pieces:
                if bhi < plo or blo > phi:
                    nxt.append((plo, phi))
                    continue
                if plo < blo:
                    nxt.append((plo, blo - 1))
                if bhi < phi:
                    nxt.append((bhi + 1, phi))
            pieces = nxt
        out.extend((p, x, y) for x, y in pieces)
    return normalize(out)


def union(*rs: Ranges) -> Ranges:
    return normalize(x for r in rs for x in items(r))


@dataclass(frozen=True)
class TierRule:
    """One rule of an Admin/Baseline-tier policy, as read from its manifest."""

    policy: str  # "ANP x", "BANP default", "CNP x"
    version: str  # "v1alpha1" | "v1alpha2"
    subject: Mapping[str, Any]
    action: str  # "Allow" | "Deny" | "Pass" (Accept read as Allow)
    peers: tuple[Mapping[str, Any], ...]
    rule: Mapping[str, Any]


class TieredReference(ReferenceCluster):
    def __init__(self, objs: Iterable[Mapping[str, Any]], *, ipblock_matches_pods: bool = True) -> None:
        objs = list(objs)
        super().__init__(objs)
        self.ipblock_matches_pods = ipblock_matches_pods
        self.node_labels: dict[str, Mapping[str, str]] = {}
        self.node_ips: dict[str, tuple[str, ...]] = {}
        self.host: set[str] = set()
        self.node_of: dict[str, str] = {}
        # tier → ordered list of (precedence, policy manifest, version)
        ordered: dict[str, list[tuple[tuple[float, str], Mapping[str, Any], str]]] = {ADMIN: [], BASELINE: []}
        for o in objs:
            meta = o.get("metadata") or {}
            kind = o["kind"]
            if kind == "Node":
                self.node_labels[meta["name"]] = meta.get("labels") or {}
                self.node_ips[meta["name"]] = tuple(
                    a["address"] for a in (o.get("status") or {}).get("addresses") or () if a["type"] == "InternalIP"
                )
            elif kind == "Pod":
                key = f"{meta.get('namespace') or 'default'}/{meta['name']}"
                if o["spec"].get("hostNetwork"):
                    self.host.add(key)
                if o["spec"].get("nodeName"):
                    self.node_of[key] = o["spec"]["nodeName"]
            elif kind == "AdminNetworkPolicy":
                ordered[ADMIN].append(((o["spec"]["priority"], meta["name"]), o, "v1alpha1"))
            elif kind == "BaselineAdminNetworkPolicy":
                ordered[BASELINE].append(((float("inf"), meta["name"]), o, "v1alpha1"))
            elif kind == "ClusterNetworkPolicy":
                ordered[o["spec"]["tier"]].append(((o["spec"]["priority"], meta["name"]), o, "v1alpha2"))
        self.tier_rules: dict[tuple[str, str], list[TierRule]] = {}
        for tier, pols in ordered.items():
            for direction, key, peers_key in (("Ingress", "ingress", "from"), ("Egress", "egress", "to")):
                rules = []
                for _, pol, version in sorted(pols, key=lambda t: t[0]):
                    prefix = {"AdminNetworkPolicy": "ANP", "BaselineAdminNetworkPolicy": "BANP"}.get(pol["kind"], "CNP")
                    for rule in pol["spec"].get(key) or []:
                        rules.append(
                            TierRule(
                                f"{prefix} {pol['metadata']['name']}",
                                version,
                                pol["spec"]["subject"],
                                "Allow" if rule["action"] == "Accept" else rule["action"],
                                tuple(rule[peers_key]),
                                rule,
                            )
                        )
                self.tier_rules[(tier, direction)] = rules

    # ------------------------------------------------------------------ NetworkPolicy with host-network pods

    def selecting(self, pod: RPod, direction: str) -> list[Mapping[str, Any]]:
        return [] if pod.key in self.host else super().selecting(pod, direction)

    def peer_matches_pod(self, peer: Mapping[str, Any], policy_ns: str, pod: RPod, family: int) -> bool:
        if pod.key in self.host and "ipBlock" not in peer:
            return False
        if "ipBlock" in peer and not self.ipblock_matches_pods and pod.key not in self.host:
            return False
        return super().peer_matches_pod(peer, policy_ns, pod, family)

    # ------------------------------------------------------------------ Admin and Baseline tiers

    def subject_holds(self, subject: Mapping[str, Any], pod: RPod) -> bool:
        if pod.key in self.host:
            return False
        if "namespaces" in subject:
            return selector_matches(subject["namespaces"] or {}, self.ns_labels[pod.namespace])
        pods = subject["pods"]
        return selector_matches(pods.get("namespaceSelector") or {}, self.ns_labels[pod.namespace]) and (
            selector_matches(pods.get("podSelector") or {}, pod.labels)
        )

    def tier_peer_holds(self, peer: Mapping[str, Any], other: RPod | None, ip: str, family: int) -> bool:
        """Does one Admin/Baseline peer hold the other end (a pod, or the external address `ip`)?"""
        if "namespaces" in peer or "pods" in peer:
            if other is None or other.key in self.host:
                return False
            if "namespaces" in peer:
                return selector_matches(peer["namespaces"] or {}, self.ns_labels[other.namespace])
            p = peer["pods"]
            return selector_matches(p.get("namespaceSelector") or {}, self.ns_labels[other.namespace]) and (
                selector_matches(p.get("podSelector") or {}, other.labels)
            )
        if "networks" in peer:
            if other is not None:
                if not self.ipblock_matches_pods and other.key not in self.host:
                    return False
                addr = other.address(family)
                if addr is None:
                    return False
            else:
                addr = ip
            a = ipaddress.ip_address(addr)
            return any(
                a.version == (n := ipaddress.ip_network(c, strict=False)).version and a in n for c in peer["networks"]
            )
        if "nodes" in peer:
            chosen = [n for n, labels in self.node_labels.items() if selector_matches(peer["nodes"] or {}, labels)]
            if other is not None:
                return other.key in self.host and self.node_of.get(other.key) in chosen
            return any(ip in self.node_ips[n] for n in chosen)
        if "domainNames" in peer:
            return False
        raise AssertionError(peer)

    @staticmethod
    def tier_ports(rule: TierRule, dst: RPod | None) -> Ranges:
        if rule.version == "v1alpha1":
            ports = rule.rule.get("ports")
            if not ports:
                return ALL
            out = []
            for p in ports:
                if "portNumber" in p:
                    n = p["portNumber"]["port"]
                    out.append((p["portNumber"].get("protocol") or "TCP", n, n))
                elif "portRange" in p:
                    r = p["portRange"]
                    out.append((r.get("protocol") or "TCP", r["start"], r["end"]))
                elif dst is not None:
                    out.extend((proto, n, n) for (name, proto), n in dst.named.items() if name == p["namedPort"])
            return normalize(out)
        protocols = rule.rule.get("protocols")
        if not protocols:
            return ALL
        out = []
        for p in protocols:
            if "destinationNamedPort" in p:
                if dst is not None:
                    out.extend(
                        (proto, n, n) for (name, proto), n in dst.named.items() if name == p["destinationNamedPort"]
                    )
                continue
            (key,) = p
            port = p[key]["destinationPort"]
            lo, hi = (
                (port["number"], port["number"]) if "number" in port else (port["range"]["start"], port["range"]["end"])
            )
            out.append((key.upper(), lo, hi))
        return normalize(out)

    def walk_tier(
        self, tier: str, owner: RPod, direction: str, other: RPod | None, ip: str, dst: RPod | None, family: int
    ) -> tuple[Ranges, Ranges]:
        """(allowed, going on) after one Admin/Baseline tier, from every port undecided before it."""
        undecided, allowed, passed = ALL, NONE, NONE
        for rule in self.tier_rules[(tier, direction)]:
            if not self.subject_holds(rule.subject, owner):
                continue
            if not any(self.tier_peer_holds(peer, other, ip, family) for peer in rule.peers):
                continue
            ports = self.tier_ports(rule, dst)
            matched = intersect(undecided, ports)
            if rule.action == "Allow":
                allowed = union(allowed, matched)
            elif rule.action == "Pass":
                passed = union(passed, matched)
            undecided = subtract(undecided, ports)
        return allowed, union(undecided, passed)

    def side(self, owner: RPod, direction: str, other: RPod | None, ip: str, dst: RPod | None, family: int) -> Ranges:
        """What one side (the owner's ingress or egress) admits to/from the other end over one family."""
        if owner.key in self.host:  # never a subject of any tier
            return ALL
        allowed, going = self.walk_tier(ADMIN, owner, direction, other, ip, dst, family)
        if self.selecting(owner, direction):  # the NetworkPolicy tier decides for pods it selects
            decided = self._allowed(owner, direction, other, ip, dst, family)
            return union(allowed, intersect(going, decided))
        base_allowed, base_going = self.walk_tier(BASELINE, owner, direction, other, ip, dst, family)
        return union(allowed, intersect(going, union(base_allowed, base_going)))  # after Baseline: allowed

    # ------------------------------------------------------------------ answers

    def node_local(self, a: str, b: str) -> bool:
        na, nb = self.node_of.get(a), self.node_of.get(b)
        return na is not None and na == nb and (a in self.host or b in self.host)

    def connection(self, src_key: str, dst_key: str) -> Ranges:
        if src_key == dst_key or self.node_local(src_key, dst_key):
            return ALL
        src, dst = self.by_key[src_key], self.by_key[dst_key]
        acc: list[tuple[str, int, int]] = []
        for family in sorted(src.families & dst.families):
            src_ip, dst_ip = src.address(family), dst.address(family)
            assert src_ip is not None and dst_ip is not None
            egress = self.side(src, "Egress", dst, dst_ip, dst, family)
            ingress = self.side(dst, "Ingress", src, src_ip, dst, family)
            acc.extend(items(intersect(egress, ingress)))
        return normalize(acc)

    def ingress_from_ip(self, ip: str, dst_key: str) -> Ranges:
        dst = self.by_key[dst_key]
        family = ipaddress.ip_address(ip).version
        return self.side(dst, "Ingress", None, ip, dst, family) if family in dst.families else NONE

    def egress_to_ip(self, src_key: str, ip: str) -> Ranges:
        src = self.by_key[src_key]
        family = ipaddress.ip_address(ip).version
        return self.side(src, "Egress", None, ip, None, family) if family in src.families else NONE


__all__ = ["ADMIN", "BASELINE", "MAX_PORT", "TieredReference", "subtract", "union"]
