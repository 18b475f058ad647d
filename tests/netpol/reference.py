"""A deliberately simple NetworkPolicy evaluator, written straight from the Kubernetes rules.

It exists only to cross-check the engine (tests/netpol/test_engine_vs_reference.py), so it shares no
code with `netpol`: it reads the raw manifest dicts, matches selectors itself, does CIDR math with the
standard library's `ipaddress`, and loops over policies → rules → peers → ports for one pair at a time.
Slow on purpose; obviously right on purpose.

Rules (networking/v1 API reference, "Network Policies" concept page, apimachinery label selectors):
- policyTypes absent: ["Ingress"] plus "Egress" when the egress list is non-empty; rules of a direction
  not in policyTypes have no effect.
- A pod is isolated for a direction iff a policy of its namespace selects it with that type; allowed
  is then the union over the selecting policies' rules of that direction.
- A rule's peers: absent or empty = every endpoint; a peer with podSelector only = pods of the policy's
  namespace; namespaceSelector (+ podSelector) = AND; ipBlock = cidr minus excepts (matches pod IPs too).
- A rule's ports: absent or empty = everything; an entry without port = every port of its protocol
  (default TCP); endPort inclusive; a named port resolves on the destination pod (name AND protocol),
  unresolved = nothing; never on an external address.
- A connection needs the source's egress and the destination's ingress; a pod reaching itself is always
  allowed.
- Dual-stack (concepts/services-networking/dual-stack; network-policies "ipBlock"): a pod holds every
  address of `status.podIPs` (at most one per family). A connection uses one address family at both ends:
  it is allowed on a port when, for some family both pods have, the source's egress admits the
  destination's address of that family and the destination's ingress admits the source's address of that
  family. Selector peers do not depend on the family; an ipBlock matches the address of its own family
  only. An external address reaches (or is reached by) a pod only over its own family.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

PROTOCOLS = ("TCP", "UDP", "SCTP")
MAX_PORT = 65535

Ranges = tuple[tuple[str, tuple[tuple[int, int], ...]], ...]
"""Per protocol (in PROTOCOLS order, absent when empty), merged inclusive port ranges."""

ALL: Ranges = tuple((p, ((1, MAX_PORT),)) for p in PROTOCOLS)
NONE: Ranges = ()


def normalize(items: Iterable[tuple[str, int, int]]) -> Ranges:
    by: dict[str, list[tuple[int, int]]] = {}
    for proto, lo, hi in items:
        by.setdefault(proto, []).append((lo, hi))
    out = []
    for proto in PROTOCOLS:
        merged: list[tuple[int, int]] = []
        for lo, hi in sorted(by.get(proto, [])):
            if merged and lo <= merged[-1][1] + 1:
                merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
            else:
                merged.append((lo, hi))
        if merged:
            out.append((proto, tuple(merged)))
    return tuple(out)


def items(r: Ranges) -> list[tuple[str, int, int]]:
    return [(p, lo, hi) for p, rs in r for lo, hi in rs]


def intersect(a: Ranges, b: Ranges) -> Ranges:
    out = []
    for p, alo, ahi in items(a):
        for q, blo, bhi in items(b):
            if p == q and max(alo, blo) <= min(ahi, bhi):
                out.append((p, max(alo, blo), min(ahi, bhi)))
    return normalize(out)


def contains(r: Ranges, protocol: str, port: int) -> bool:
    return any(p == protocol and lo <= port <= hi for p, lo, hi in items(r))


# ------------------------------------------------------------------------------------------ selectors


def selector_matches(sel: Mapping[str, Any] | None, labels: Mapping[str, str]) -> bool:
    """metav1.LabelSelector; an empty selector matches everything."""
    if sel is None:
        return True
    for k, v in (sel.get("matchLabels") or {}).items():
        if labels.get(k) != v:
            return False
    for req in sel.get("matchExpressions") or []:
        key, op, values = req["key"], req["operator"], req.get("values") or []
        present = key in labels
        if op == "In" and not (present and labels[key] in values):
            return False
        if op == "NotIn" and present and labels[key] in values:
            return False
        if op == "Exists" and not present:
            return False
        if op == "DoesNotExist" and present:
            return False
    return True


# ------------------------------------------------------------------------------------------ cluster


@dataclass(frozen=True)
class RPod:
    namespace: str
    name: str
    labels: Mapping[str, str]
    ips: tuple[str, ...]  # status.podIPs (status.podIP alone when podIPs is absent); the primary first
    named: Mapping[tuple[str, str], int]  # (name, protocol) → number

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def ip(self) -> str:
        return self.ips[0] if self.ips else ""

    def address(self, family: int) -> str | None:
        """The pod's address of this family (4 or 6), None when it has none."""
        return next((ip for ip in self.ips if ipaddress.ip_address(ip).version == family), None)

    @property
    def families(self) -> set[int]:
        return {ipaddress.ip_address(ip).version for ip in self.ips}


class ReferenceCluster:
    def __init__(self, objs: Iterable[Mapping[str, Any]]) -> None:
        self.ns_labels: dict[str, dict[str, str]] = {}
        self.pods: list[RPod] = []
        self.policies: list[Mapping[str, Any]] = []
        for o in objs:
            meta = o.get("metadata") or {}
            if o["kind"] == "Namespace":
                self.ns_labels[meta["name"]] = {
                    **(meta.get("labels") or {}),
                    "kubernetes.io/metadata.name": meta["name"],
                }
            elif o["kind"] == "Pod":
                named = {}
                for c in o["spec"].get("containers") or []:
                    for p in c.get("ports") or []:
                        if p.get("name"):
                            named[(p["name"], p.get("protocol") or "TCP")] = p["containerPort"]
                ns = meta.get("namespace") or "default"
                status = o["status"]
                ips = tuple(i["ip"] for i in status.get("podIPs") or ()) or (status["podIP"],)
                self.pods.append(RPod(ns, meta["name"], meta.get("labels") or {}, ips, named))
            elif o["kind"] == "NetworkPolicy":
                self.policies.append(o)
        for p in self.pods:  # implicit namespaces
            self.ns_labels.setdefault(p.namespace, {"kubernetes.io/metadata.name": p.namespace})
        self.by_key = {p.key: p for p in self.pods}

    # -------------------------------------------------------------------------------------- rules

    @staticmethod
    def policy_types(pol: Mapping[str, Any]) -> list[str]:
        spec = pol["spec"]
        if spec.get("policyTypes"):
            return list(spec["policyTypes"])
        return ["Ingress", "Egress"] if spec.get("egress") else ["Ingress"]

    def selecting(self, pod: RPod, direction: str) -> list[Mapping[str, Any]]:
        """Policies of the pod's namespace that select it for `direction` ("Ingress" / "Egress")."""
        return [
            pol
            for pol in self.policies
            if (pol["metadata"].get("namespace") or "default") == pod.namespace
            and direction in self.policy_types(pol)
            and selector_matches(pol["spec"].get("podSelector") or {}, pod.labels)
        ]

    def peer_matches_pod(self, peer: Mapping[str, Any], policy_ns: str, pod: RPod, family: int) -> bool:
        if "ipBlock" in peer:
            ip = pod.address(family)
            return ip is not None and ip_in_block(ip, peer["ipBlock"])
        if "namespaceSelector" in peer:
            if not selector_matches(peer["namespaceSelector"] or {}, self.ns_labels[pod.namespace]):
                return False
        elif pod.namespace != policy_ns:
            return False
        if "podSelector" in peer:
            return selector_matches(peer["podSelector"] or {}, pod.labels)
        return True

    @staticmethod
    def rule_ports(rule: Mapping[str, Any], dst: RPod | None) -> Ranges:
        ports = rule.get("ports") or []
        if not ports:
            return ALL
        out = []
        for p in ports:
            proto = p.get("protocol") or "TCP"
            num = p.get("port")
            if num is None:
                out.append((proto, 1, MAX_PORT))
            elif isinstance(num, int):
                out.append((proto, num, p.get("endPort") or num))
            elif dst is not None and (num, proto) in dst.named:
                n = dst.named[(num, proto)]
                out.append((proto, n, n))
        return normalize(out)

    def _allowed(
        self,
        target: RPod,
        direction: str,
        peer_pod: RPod | None,
        peer_ip: str,
        dst_for_ports: RPod | None,
        family: int,
    ) -> Ranges:
        """What `target`'s policies of `direction` admit from/to the peer over one address family."""
        pols = self.selecting(target, direction)
        if not pols:
            return ALL
        key = "ingress" if direction == "Ingress" else "egress"
        peers_key = "from" if direction == "Ingress" else "to"
        acc: list[tuple[str, int, int]] = []
        for pol in pols:
            pol_ns = pol["metadata"].get("namespace") or "default"
            for rule in pol["spec"].get(key) or []:
                rule = rule or {}
                peers = rule.get(peers_key) or []
                if peers:
                    hit = False
                    for peer in peers:
                        if peer_pod is not None:
                            hit = self.peer_matches_pod(peer, pol_ns, peer_pod, family)
                        else:
                            hit = "ipBlock" in peer and ip_in_block(peer_ip, peer["ipBlock"])
                        if hit:
                            break
                    if not hit:
                        continue
                acc.extend(items(self.rule_ports(rule, dst_for_ports)))
        return normalize(acc)

    # -------------------------------------------------------------------------------------- answers

    def connection(self, src_key: str, dst_key: str) -> Ranges:
        """The union over the address families both pods have of (egress ∩ ingress) over that family."""
        if src_key == dst_key:
            return ALL
        src, dst = self.by_key[src_key], self.by_key[dst_key]
        acc: list[tuple[str, int, int]] = []
        for family in sorted(src.families & dst.families):
            src_ip, dst_ip = src.address(family), dst.address(family)
            assert src_ip is not None and dst_ip is not None
            egress = self._allowed(src, "Egress", dst, dst_ip, dst, family)
            ingress = self._allowed(dst, "Ingress", src, src_ip, dst, family)
            acc.extend(items(intersect(egress, ingress)))
        return normalize(acc)

    def ingress_from_ip(self, ip: str, dst_key: str) -> Ranges:
        dst = self.by_key[dst_key]
        family = ipaddress.ip_address(ip).version
        if family not in dst.families:
            return NONE
        return self._allowed(dst, "Ingress", None, ip, dst, family)

    def egress_to_ip(self, src_key: str, ip: str) -> Ranges:
        src = self.by_key[src_key]
        family = ipaddress.ip_address(ip).version
        if family not in src.families:
            return NONE
        return self._allowed(src, "Egress", None, ip, None, family)


def ip_in_block(ip: str, block: Mapping[str, Any]) -> bool:
    addr = ipaddress.ip_address(ip)
    net = ipaddress.ip_network(block["cidr"], strict=False)
    if addr.version != net.version or addr not in net:
        return False
    for e in block.get("except") or []:
        ex = ipaddress.ip_network(e, strict=False)
        if addr.version == ex.version and addr in ex:
            return False
    return True
