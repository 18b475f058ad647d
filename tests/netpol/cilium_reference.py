"""A deliberately simple evaluator of Cilium's policies, written straight from docs.cilium.io.

It exists to cross-check netpol's Cilium compiler, so it shares no code with `netpol`: it reads the raw
manifest dicts (pods with their `status.podIP`, nodes with an InternalIP, namespaces, Services,
NetworkPolicies, CiliumNetworkPolicies, CiliumClusterwideNetworkPolicies), matches selectors itself, does
CIDR math with `ipaddress`, and loops over policies → rules → peers → ports for one pair at a time.

Rules, each from the page named:
- "Policy Enforcement Modes": `default` — an endpoint enters default deny for a direction when a rule
  selecting it has a section for that direction (ingress or ingressDeny; egress or egressDeny), unless the
  rule's `enableDefaultDeny` says otherwise; `always` — every endpoint is in default deny; `never` — nothing
  is enforced. "Rule Basics": allowed is the union of what the rules allow.
- "Deny Policies": a deny wins over every allow, Kubernetes NetworkPolicies included; a deny-only policy
  still puts the endpoint in default deny (the page's table, last column).
- "Limiting Identity-Relevant Labels": pod labels under the default exclusions (pod-template-hash,
  statefulset.kubernetes.io/pod-name, …) are not part of a pod's identity.
- "Using Kubernetes Constructs in Policy": a CiliumNetworkPolicy's endpointSelector applies in its namespace;
  fromEndpoints/toEndpoints without `io.kubernetes.pod.namespace` stay in the policy's namespace; a
  CiliumClusterwideNetworkPolicy's peers without it match pods of every namespace. Identity labels:
  `io.kubernetes.pod.namespace`, `io.cilium.k8s.namespace.labels.<key>`, `io.cilium.k8s.policy.serviceaccount`,
  `io.cilium.k8s.policy.cluster` (= "default"). A key's source prefix: none/`any:`/`k8s:` read pod labels,
  `reserved:` names a reserved identity (no pod has one).
- "Layer 3": an empty rule admits no one; CIDR rules match addresses outside the cluster (not pods, not
  nodes); entities: `all` everything, `world` outside the cluster, `cluster` every pod and node,
  `remote-node` the nodes (their addresses and hostNetwork pods), `host` the own node (always allowed
  anyway); toServices: the pods a Service selects, in the Service's namespace.
- "Layer 4": no toPorts = all ports; toPorts alone = any peer; port "0" = every port; endPort; protocol
  ANY (or none) = TCP, UDP, SCTP; a named port resolves on the destination pod. L7 rules admit the port
  through a filter: reported separately, also for an endpoint not in default deny ("EnableDefaultDeny
  does not apply to layer-7 policy", intro.rst).
- A pod reaching itself, and traffic between a pod and its own node (hostNetwork pods), are always allowed.
- NetworkPolicies: tests/netpol/reference.py decides what they admit; they add allows and isolate as usual.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from tests.netpol import reference as np_ref

PROTOCOLS = ("TCP", "UDP", "SCTP")
L3_FIELDS = {
    "ingress": ("fromEndpoints", "fromCIDR", "fromCIDRSet", "fromEntities", "fromNodes", "fromGroups"),
    "egress": ("toEndpoints", "toCIDR", "toCIDRSet", "toEntities", "toServices", "toFQDNs", "toNodes", "toGroups"),
}
ALL = np_ref.ALL
NONE = np_ref.NONE


# "Limiting Identity-Relevant Labels": the default exclusions, anchored at the start of the key; and the
# io.cilium.k8s keys Cilium owns.
IRRELEVANT = (
    "io.kubernetes",
    "kubernetes.io",
    "statefulset.kubernetes.io/pod-name",
    "apps.kubernetes.io/pod-index",
    "batch.kubernetes.io/job-completion-index",
    "batch.kubernetes.io/controller-uid",
    "beta.kubernetes.io",
    "k8s.io",
    "pod-template-generation",
    "pod-template-hash",
    "controller-revision-hash",
    "annotation",
    "controller-uid",
    "etcd_node",
    "io.cilium.k8s",
)


def subtract(a: np_ref.Ranges, b: np_ref.Ranges) -> np_ref.Ranges:
    """Port ranges of `a` not in `b`."""
    out = []
    for proto, lo, hi in np_ref.items(a):
        pieces = [(lo, hi)]
        for q, blo, bhi in np_ref.items(b):
            if q != proto:
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
        out.extend((proto, x, y) for x, y in pieces)
    return np_ref.normalize(out)


def union(*rs: np_ref.Ranges) -> np_ref.Ranges:
    return np_ref.normalize([i for r in rs for i in np_ref.items(r)])


def source_of(key: str) -> tuple[str, str]:
    if key.startswith("$"):
        return "reserved", key[1:]
    src, sep, rest = key.partition(":")
    return (src, rest) if sep else ("any", key)


@dataclass(frozen=True)
class CPod:
    namespace: str
    name: str
    labels: Mapping[str, str]
    ip: str
    node: str
    host_network: bool
    service_account: str
    named: Mapping[tuple[str, str], int]

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


class CiliumReference:
    def __init__(self, objs: Iterable[Mapping[str, Any]], enforcement: str = "default") -> None:
        objs = list(objs)
        self.enforcement = enforcement
        self.np = np_ref.ReferenceCluster(objs)
        self.ns_labels: dict[str, dict[str, str]] = {}
        self.pods: dict[str, CPod] = {}
        self.node_ips: dict[str, str] = {}
        self.services: list[Mapping[str, Any]] = []
        self.policies: list[Mapping[str, Any]] = []
        for o in objs:
            meta = o.get("metadata") or {}
            kind = o["kind"]
            if kind == "Namespace":
                self.ns_labels[meta["name"]] = {
                    **(meta.get("labels") or {}),
                    "kubernetes.io/metadata.name": meta["name"],
                }
            elif kind == "Node":
                for a in o["status"]["addresses"]:
                    if a["type"] == "InternalIP":
                        self.node_ips[meta["name"]] = a["address"]
            elif kind == "Pod":
                spec = o["spec"]
                named = {}
                for c in spec.get("containers") or []:
                    for p in c.get("ports") or []:
                        if p.get("name"):
                            named[(p["name"], p.get("protocol") or "TCP")] = p["containerPort"]
                ns = meta.get("namespace") or "default"
                self.pods[f"{ns}/{meta['name']}"] = CPod(
                    ns,
                    meta["name"],
                    meta.get("labels") or {},
                    o["status"]["podIP"],
                    spec.get("nodeName", ""),
                    bool(spec.get("hostNetwork")),
                    spec.get("serviceAccountName") or "default",
                    named,
                )
            elif kind == "Service":
                self.services.append(o)
            elif kind in ("CiliumNetworkPolicy", "CiliumClusterwideNetworkPolicy"):
                self.policies.append(o)
        for p in self.pods.values():
            self.ns_labels.setdefault(p.namespace, {"kubernetes.io/metadata.name": p.namespace})

    # ------------------------------------------------------------------------------------- identity

    def identity(self, pod: CPod) -> dict[str, str]:
        ident = {k: v for k, v in pod.labels.items() if not k.startswith(IRRELEVANT)}
        ident["io.kubernetes.pod.namespace"] = pod.namespace
        for k, v in self.ns_labels[pod.namespace].items():
            ident["io.cilium.k8s.namespace.labels." + k] = v
        ident["io.cilium.k8s.policy.serviceaccount"] = pod.service_account
        ident["io.cilium.k8s.policy.cluster"] = "default"
        return ident

    @staticmethod
    def selector_matches(sel: Mapping[str, Any], ident: Mapping[str, str]) -> bool:
        """A label selector whose keys may carry a source; only `any`/`k8s` keys exist on a pod."""

        def value(key: str) -> str | None:
            src, k = source_of(key)
            return ident.get(k) if src in ("any", "k8s") else None

        for k, v in (sel.get("matchLabels") or {}).items():
            if value(k) != v:
                return False
        for req in sel.get("matchExpressions") or []:
            have = value(req["key"])
            op, values = req["operator"], req.get("values") or []
            if op == "In" and have not in values:
                return False
            if op == "NotIn" and have is not None and have in values:
                return False
            if op == "Exists" and have is None:
                return False
            if op == "DoesNotExist" and have is not None:
                return False
        return True

    @staticmethod
    def keys(sel: Mapping[str, Any]) -> list[tuple[str, str]]:
        return [source_of(k) for k in (sel.get("matchLabels") or {})] + [
            source_of(r["key"]) for r in sel.get("matchExpressions") or []
        ]

    # ------------------------------------------------------------------------------------- policies

    @staticmethod
    def specs(pol: Mapping[str, Any]) -> list[Mapping[str, Any]]:
        out = [pol["spec"]] if pol.get("spec") else []
        return out + list(pol.get("specs") or [])

    def selecting(self, pod: CPod) -> list[tuple[Mapping[str, Any], Mapping[str, Any]]]:
        """(policy, spec) pairs whose endpointSelector selects the pod."""
        if pod.host_network:
            return []
        out = []
        for pol in self.policies:
            ns = (pol["metadata"].get("namespace") or "default") if pol["kind"] == "CiliumNetworkPolicy" else None
            if ns is not None and ns != pod.namespace:
                continue
            for spec in self.specs(pol):
                if "endpointSelector" not in spec:
                    continue
                sel = spec["endpointSelector"]
                if ns is not None:
                    # utils.go ParseToCiliumRule: AddMatch("k8s:io.kubernetes.pod.namespace", ns) writes over the
                    # user's match label of that key (the log says: "removing illegal namespace match").
                    labels = dict(sel.get("matchLabels") or {})
                    labels.pop("k8s:io.kubernetes.pod.namespace", None)
                    sel = {**sel, "matchLabels": labels}
                if self.selector_matches(sel, self.identity(pod)):
                    out.append((pol, spec))
        return out

    @staticmethod
    def default_deny(spec: Mapping[str, Any], direction: str) -> bool:
        given = (spec.get("enableDefaultDeny") or {}).get(direction)
        if given is not None:
            return bool(given)
        return bool(spec.get(direction) or spec.get(direction + "Deny"))

    # ------------------------------------------------------------------------------------- peers

    def endpoint_peer(self, pol: Mapping[str, Any], sel: Mapping[str, Any], pod: CPod) -> bool:
        if pod.host_network:
            return False
        keys = self.keys(sel)
        names_ns = any(s in ("any", "k8s") and k == "io.kubernetes.pod.namespace" for s, k in keys)
        reserved = any(s == "reserved" for s, _ in keys)
        if pol["kind"] == "CiliumNetworkPolicy" and not names_ns and not reserved:
            if pod.namespace != (pol["metadata"].get("namespace") or "default"):
                return False
        return self.selector_matches(sel, self.identity(pod))

    def is_node_ip(self, ip: str) -> bool:
        return ip in self.node_ips.values()

    def in_cidr(self, ip: str, cidr: str, excepts: Iterable[str] = ()) -> bool:
        addr = ipaddress.ip_address(ip)
        net = ipaddress.ip_network(cidr, strict=False)
        if addr.version != net.version or addr not in net:
            return False
        return not any(
            addr in ipaddress.ip_network(e, strict=False)
            for e in excepts
            if ipaddress.ip_network(e).version == addr.version
        )

    def peer_matches(self, pol: Mapping[str, Any], rule: Mapping[str, Any], side: str, other: CPod | str) -> bool:
        """Does one of the rule's layer-3 members hold the other end (a pod, or an external IP)?"""
        pod = other if isinstance(other, CPod) else None
        ip = other if isinstance(other, str) else None
        for sel in rule.get(f"{side}Endpoints") or []:
            if pod is not None and self.endpoint_peer(pol, sel, pod):
                return True
        for cidr in rule.get(f"{side}CIDR") or []:
            if ip is not None and not self.is_node_ip(ip) and self.in_cidr(ip, cidr):
                return True
        for cs in rule.get(f"{side}CIDRSet") or []:
            if ip is not None and not self.is_node_ip(ip) and self.in_cidr(ip, cs["cidr"], cs.get("except") or []):
                return True
        for entity in rule.get(f"{side}Entities") or []:
            if entity == "all":
                return True
            if entity == "world" and ip is not None and not self.is_node_ip(ip):
                return True
            if entity in ("cluster", "remote-node"):
                if pod is not None and (entity == "cluster" or pod.host_network):
                    return True
                if ip is not None and self.is_node_ip(ip):
                    return True
        for svc_ref in rule.get("toServices") or [] if side == "to" else []:
            for svc in self.services:
                smeta = svc["metadata"]
                sns = smeta.get("namespace") or "default"
                if "k8sService" in svc_ref:
                    ref = svc_ref["k8sService"]
                    if ref.get("serviceName") != smeta["name"] or ref.get("namespace", sns) not in (sns, ""):
                        continue
                else:
                    ref = svc_ref["k8sServiceSelector"]
                    if ref.get("namespace") not in (None, "", sns):
                        continue
                    if not self.selector_matches(ref["selector"], smeta.get("labels") or {}):
                        continue
                selector = (svc.get("spec") or {}).get("selector")
                if pod is not None and selector and not pod.host_network and pod.namespace == sns:
                    if all(pod.labels.get(k) == v for k, v in selector.items()):
                        return True
        return False

    @staticmethod
    def port_ranges(rule: Mapping[str, Any], dst: CPod | None) -> tuple[np_ref.Ranges, np_ref.Ranges]:
        """(ports admitted without a filter, ports admitted through an L7 filter)."""
        if "toPorts" not in rule:
            return ALL, NONE
        plain, l7 = [], []
        for pr in rule["toPorts"] or []:
            acc = l7 if pr.get("rules") else plain
            for p in pr.get("ports") or []:
                proto = p.get("protocol") or "ANY"
                protos = PROTOCOLS if proto == "ANY" else (proto,)
                port = p["port"]
                if port.isdigit():
                    n = int(port)
                    end = p.get("endPort") or 0
                    for q in protos:
                        acc.append((q, 1, 65535) if n == 0 else (q, n, end if end > n else n))
                elif dst is not None:
                    for (name, q), number in dst.named.items():
                        if name == port.lower() and q in protos:
                            acc.append((q, number, number))
        return np_ref.normalize(plain), np_ref.normalize(l7)

    # ------------------------------------------------------------------------------------- decisions

    def side(
        self, owner: CPod, direction: str, other: CPod | str, dst: CPod | None
    ) -> tuple[np_ref.Ranges, np_ref.Ranges]:
        """(allowed, allowed only through an L7 filter) at `owner` for `direction` towards/from `other`."""
        if self.enforcement == "never" or owner.host_network:
            return ALL, NONE
        side = "from" if direction == "ingress" else "to"
        chosen = self.selecting(owner)
        isolated = self.enforcement == "always" or any(self.default_deny(s, direction) for _, s in chosen)
        plain: list[np_ref.Ranges] = []
        l7: list[np_ref.Ranges] = []
        denied: list[np_ref.Ranges] = []
        for pol, spec in chosen:
            for deny, key in ((False, direction), (True, direction + "Deny")):
                for rule in spec.get(key) or []:
                    rule = rule or {}
                    has_l3 = any(rule.get(k) for k in L3_FIELDS[direction])
                    if has_l3:
                        if not self.peer_matches(pol, rule, side, other):
                            continue
                    elif "toPorts" not in rule:
                        continue  # `{}`: admits no one
                    p, f = self.port_ranges(rule, dst)
                    if deny:
                        denied.append(union(p, f))
                    else:
                        plain.append(p)
                        l7.append(f)
        # NetworkPolicies (enforced by Cilium as its own rules) isolate and add allows.
        np_dir = "Ingress" if direction == "ingress" else "Egress"
        if isinstance(other, CPod):
            np_owner = self.np.by_key[owner.key]
            np_other = self.np.by_key[other.key]
        if self.np.selecting(self.np.by_key[owner.key], np_dir):
            isolated = True
            if isinstance(other, CPod):
                if direction == "ingress":
                    plain.append(self.np._allowed(np_owner, "Ingress", np_other, other.ip, np_owner, 4))
                else:
                    plain.append(self.np._allowed(np_owner, "Egress", np_other, other.ip, np_other, 4))
            else:
                pod = self.np.by_key[owner.key]
                plain.append(self.np._allowed(pod, np_dir, None, other, None, 4))
        deny_all = union(*denied)
        plain_r, l7_r = union(*plain), union(*l7)
        filtered = subtract(subtract(l7_r, plain_r), deny_all)
        if not isolated:
            # intro.rst: "EnableDefaultDeny does not apply to layer-7 policy": a matching L7 rule still
            # sends its port through the filter when the endpoint is not in default deny.
            return subtract(ALL, deny_all), filtered
        return subtract(union(plain_r, l7_r), deny_all), filtered

    def node_local(self, a: CPod, b: CPod) -> bool:
        return bool(a.node) and a.node == b.node and (a.host_network or b.host_network)

    def connection(self, src: str, dst: str) -> tuple[np_ref.Ranges, np_ref.Ranges]:
        """(allowed, allowed only through an L7 filter on either side)."""
        s, d = self.pods[src], self.pods[dst]
        if src == dst or self.node_local(s, d):
            return ALL, NONE
        eg, eg7 = self.side(s, "egress", d, d)
        ing, ing7 = self.side(d, "ingress", s, d)
        allowed = np_ref.intersect(eg, ing)
        return allowed, np_ref.intersect(allowed, union(eg7, ing7))

    def from_ip(self, ip: str, dst: str) -> np_ref.Ranges:
        d = self.pods[dst]
        return self.side(d, "ingress", ip, d)[0]

    def to_ip(self, src: str, ip: str) -> np_ref.Ranges:
        return self.side(self.pods[src], "egress", ip, None)[0]
