"""A deliberately simple evaluator of Calico's policies, written straight from Calico's reference docs.

It exists only to cross-check the engine's Calico compiler, so it shares no code with `netpol`: it reads the
raw manifest dicts, parses selectors itself (a regex tokenizer and a small recursive descent), does address
math with the standard library's `ipaddress`, and walks tiers → policies → rules for one connection at a time.
Slow on purpose; obviously right on purpose.

Rules (docs.tigera.io, Calico reference: "NetworkPolicy", "GlobalNetworkPolicy", "Tier", "Rule", "Entity rule",
"Selectors", "NetworkSet", "GlobalNetworkSet"; "Policy ordering"; "Kubernetes policy" → Calico's conversion):
- A connection is allowed when the source's egress and the destination's ingress both allow it; an external
  address has no side. A pod reaching itself is always allowed.
- A side: tiers by order (omitted = last; ties by name). In a tier, the policies that select the endpoint and
  whose `types` hold the direction, by order (omitted = last; ties by the name alone, then namespace). Rules in
  order: Allow → allowed, Deny → denied, Pass → next tier, Log → go on. Selected in a tier with no match → the
  tier's defaultAction (Deny; Pass for kube-admin and kube-baseline). No tier decided → allowed.
- `types` omitted: Egress alone when only egress rules, both when both, else Ingress.
- Kubernetes NetworkPolicies: the default tier at order 1000, tie name `knp.default.<name>`; their
  rules all Allow, so the policy "matches" when any of its rules admits the connection (k8s semantics).
- Workload labels: pod labels + projectcalico.org/namespace, projectcalico.org/orchestrator=k8s,
  projectcalico.org/serviceaccount; namespace labels (+ projectcalico.org/name) are what namespaceSelector sees.
- Entity rule: every given field must match. Selector fields (selector, serviceAccounts, namespaceSelector,
  and in a namespaced policy also a lone notSelector) restrict to labelled entities: pods, or NetworkSets (an
  address inside a NetworkSet's nets carries that set's labels; a namespaced set also its namespace). In a
  namespaced policy such a rule is limited to the policy's namespace unless namespaceSelector is given;
  namespaceSelector all() = any namespaced entity, global() = non-namespaced ones. notSelector: no labelled
  entity at the address matches. nets / notNets: the address (pod addresses too). services: the Service's
  selected pods; as a destination only its target ports.
- Ports are destination ports: numbers, "first:last", names resolved on the destination pod (with the rule's
  protocol, or any protocol when the rule names none). Protocols other than TCP/UDP/SCTP never match the
  connections asked about here. Source ports are not modelled: evaluated as matching (as the engine documents).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

CALICO = ("projectcalico.org/", "crd.projectcalico.org/")
PROTO_NUMBERS = {"tcp": 6, "udp": 17, "sctp": 132, "icmp": 1, "icmpv6": 58, "udplite": 136}
NUMBER_NAMES = {6: "TCP", 17: "UDP", 132: "SCTP"}
BUILTIN_TIERS = {"kube-admin": (1000.0, "Pass"), "default": (1_000_000.0, "Deny"), "kube-baseline": (1e7, "Pass")}


# --- selectors: tokens by regex, a recursive descent, evaluation by closures -------------------------------

_TOKEN = re.compile(
    r"""\s*(?:(?P<str>"[^"]*"|'[^']*')|(?P<has>has\(\s*[A-Za-z0-9_./-]+\s*\))|(?P<fn>all\(\s*\)|global\(\s*\))"""
    r"""|(?P<op>==|!=|&&|\|\||!|\(|\)|\{|\}|,)|(?P<word>starts\s+with|ends\s+with|not\s+in|contains|in)(?![A-Za-z0-9_./-])"""
    r"""|(?P<key>[A-Za-z0-9_./-]+))"""
)


def tokenize(text: str) -> list[tuple[str, str]]:
    out = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise ValueError(f"bad selector at {pos}: {text!r}")
        pos = m.end()
        kind = m.lastgroup
        assert kind is not None
        value = m.group(kind)
        if kind == "str":
            value = value[1:-1]
        elif kind == "has":
            value = value[4:-1].strip()
        elif kind == "fn":
            value = "all()" if value.startswith("all") else "global()"
        elif kind == "word":
            value = " ".join(value.split())
        out.append((kind, value))
    return out


Pred = Any  # Callable[[Mapping[str, str]], bool]


def compile_selector(text: str) -> Pred:
    """A predicate over a label map; all() and global() hold for every map ("" is all())."""
    toks = tokenize(text)
    if not toks:
        return lambda labels: True
    pos = 0

    def peek() -> tuple[str, str] | None:
        return toks[pos] if pos < len(toks) else None

    def take() -> tuple[str, str]:
        nonlocal pos
        tok = toks[pos]
        pos += 1
        return tok

    def or_expr() -> Pred:
        terms = [and_expr()]
        while peek() == ("op", "||"):
            take()
            terms.append(and_expr())
        return lambda labels: any(t(labels) for t in terms)

    def and_expr() -> Pred:
        terms = [unary()]
        while peek() == ("op", "&&"):
            take()
            terms.append(unary())
        return lambda labels: all(t(labels) for t in terms)

    def unary() -> Pred:
        if peek() == ("op", "!"):
            take()
            inner = unary()
            return lambda labels: not inner(labels)
        kind, value = take()
        if kind == "fn":
            return lambda labels: True
        if kind == "has":
            return lambda labels: value in labels
        if (kind, value) == ("op", "("):
            inner = or_expr()
            assert take() == ("op", ")")
            return inner
        assert kind == "key", (kind, value)
        key = value
        okind, op = take()
        if op in ("in", "not in"):
            assert take() == ("op", "{")
            values = set()
            while peek() != ("op", "}"):
                skind, s = take()
                assert skind == "str"
                values.add(s)
                if peek() == ("op", ","):
                    take()
            take()
            if op == "in":
                return lambda labels: labels.get(key) in values
            return lambda labels: labels.get(key) not in values
        skind, s = take()
        assert skind == "str"
        if op == "==":
            return lambda labels: labels.get(key) == s
        if op == "!=":
            return lambda labels: labels.get(key) != s
        if op == "contains":
            return lambda labels: key in labels and s in labels[key]
        if op == "starts with":
            return lambda labels: key in labels and labels[key].startswith(s)
        if op == "ends with":
            return lambda labels: key in labels and labels[key].endswith(s)
        raise AssertionError(op)

    pred = or_expr()
    assert pos == len(toks), text
    return pred


def namespace_selector(text: str) -> Pred:
    """A namespaceSelector over (namespace labels or None for a non-namespaced entity): all() = namespaced,
    global() = not namespaced; the rest reads the namespace's labels ({} when none)."""
    stripped = text.strip()
    if stripped == "global()":
        return lambda ns_labels: ns_labels is None
    if stripped == "all()":
        return lambda ns_labels: ns_labels is not None
    pred = compile_selector(text)
    # (all() inside a larger expression also means "namespaced": the cases used in tests keep it alone)
    return lambda ns_labels: pred(ns_labels or {})


# --- the cluster -----------------------------------------------------------------------------------------


@dataclass
class PodRef:
    ns: str
    name: str
    labels: dict[str, str]
    ip: str
    sa: str
    ports: list[tuple[str, str, int]]  # (name, protocol, number)


def _api(obj: Mapping[str, Any]) -> str:
    return obj.get("apiVersion", "")


class Reference:
    def __init__(self, objs: list[dict]) -> None:
        self.pods: dict[str, PodRef] = {}
        self.ns_labels: dict[str, dict[str, str]] = {}
        self.sa_labels: dict[tuple[str, str], dict[str, str]] = {}
        self.services: list[dict] = []
        self.sets: list[tuple[str | None, dict[str, str], list[Any]]] = []  # (namespace, labels, networks)
        self.tiers: dict[str, tuple[float, str]] = dict(BUILTIN_TIERS)
        self.policies: list[dict] = []  # normalised: tier, order, sortname, ns, selects(pod), types, rules
        calico_policies = []
        knps = []
        for o in objs:
            kind, meta = o["kind"], o.get("metadata", {})
            if kind == "Namespace":
                self.ns_labels[meta["name"]] = {**meta.get("labels", {}), "projectcalico.org/name": meta["name"]}
            elif kind == "Pod":
                ns = meta.get("namespace", "default")
                spec = o.get("spec", {})
                ports = [
                    (p["name"], p.get("protocol", "TCP"), p["containerPort"])
                    for c in spec.get("containers", [])
                    for p in c.get("ports", [])
                    if p.get("name")
                ]
                self.pods[f"{ns}/{meta['name']}"] = PodRef(
                    ns,
                    meta["name"],
                    dict(meta.get("labels", {})),
                    o["status"]["podIP"],
                    spec.get("serviceAccountName", "default"),
                    ports,
                )
            elif kind == "ServiceAccount":
                self.sa_labels[(meta.get("namespace", "default"), meta["name"])] = dict(meta.get("labels", {}))
            elif kind == "Service":
                self.services.append(o)
            elif _api(o).startswith(CALICO) and kind in ("NetworkSet", "GlobalNetworkSet"):
                ns = meta.get("namespace", "default") if kind == "NetworkSet" else None
                nets = [ipaddress.ip_network(n, strict=False) for n in o.get("spec", {}).get("nets", [])]
                self.sets.append((ns, dict(meta.get("labels", {})), nets))
            elif _api(o).startswith(CALICO) and kind == "Tier":
                name = meta["name"]
                order = o.get("spec", {}).get("order")
                default = "Pass" if name in ("kube-admin", "kube-baseline") else "Deny"
                self.tiers[name] = (
                    float(order) if order is not None else float("inf"),
                    o.get("spec", {}).get("defaultAction", default),
                )
            elif _api(o).startswith(CALICO) and kind in ("NetworkPolicy", "GlobalNetworkPolicy"):
                calico_policies.append(o)
            elif kind == "NetworkPolicy" and _api(o).startswith("networking.k8s.io/"):
                knps.append(o)
        for ns in {p.ns for p in self.pods.values()}:
            self.ns_labels.setdefault(ns, {"kubernetes.io/metadata.name": ns, "projectcalico.org/name": ns})
        for o in calico_policies:
            self.policies.append(self._calico_policy(o))
        for o in knps:
            self.policies.append(self._k8s_policy(o))

    # policies

    def _calico_policy(self, o: dict) -> dict:
        meta, spec = o["metadata"], o.get("spec", {})
        glob = o["kind"] == "GlobalNetworkPolicy"
        ns = None if glob else meta.get("namespace", "default")
        ingress, egress = spec.get("ingress") or [], spec.get("egress") or []
        types = spec.get("types")
        if not types:
            types = ["Egress"] if egress and not ingress else (["Ingress", "Egress"] if egress else ["Ingress"])
        sel = compile_selector(spec.get("selector", ""))
        ns_sel = namespace_selector(spec["namespaceSelector"]) if glob and spec.get("namespaceSelector") else None
        sa_sel = compile_selector(spec["serviceAccountSelector"]) if spec.get("serviceAccountSelector") else None

        def selects(pod: PodRef) -> bool:
            if ns is not None and pod.ns != ns:
                return False
            if ns_sel is not None and not ns_sel(self.ns_labels[pod.ns]):
                return False
            if sa_sel is not None and not sa_sel(self.sa_labels.get((pod.ns, pod.sa), {})):
                return False
            return sel(self.workload_labels(pod))

        order = spec.get("order")
        return {
            "tier": spec.get("tier") or "default",
            "order": float(order) if order is not None else float("inf"),
            "sortname": (meta["name"], ns or ""),
            "selects": selects,
            "types": types,
            "Ingress": [self._rule(r, ns) for r in ingress] if "Ingress" in types else [],
            "Egress": [self._rule(r, ns) for r in egress] if "Egress" in types else [],
        }

    def _k8s_policy(self, o: dict) -> dict:
        meta, spec = o["metadata"], o.get("spec", {})
        ns = meta.get("namespace", "default")
        types = spec.get("policyTypes") or (["Ingress", "Egress"] if spec.get("egress") else ["Ingress"])
        pod_sel = spec.get("podSelector") or {}

        def selects(pod: PodRef) -> bool:
            return pod.ns == ns and _label_selector(pod_sel, pod.labels)

        def rule_for(direction: str) -> list[Any]:
            rules = spec.get("ingress" if direction == "Ingress" else "egress") or []
            key = "from" if direction == "Ingress" else "to"

            def match(src: Any, dst: Any, proto: str, port: int, family: int) -> str | None:
                other = src if direction == "Ingress" else dst
                for r in rules:
                    peers = r.get(key) or []
                    if peers and not any(self._k8s_peer(p, ns, other) for p in peers):
                        continue
                    if not _k8s_ports(r.get("ports") or [], dst, proto, port):
                        continue
                    return "Allow"
                return None

            return [match]

        return {
            "tier": "default",
            "order": 1000.0,
            "sortname": (f"knp.default.{meta['name']}", ns),
            "selects": selects,
            "types": types,
            "Ingress": rule_for("Ingress") if "Ingress" in types else [],
            "Egress": rule_for("Egress") if "Egress" in types else [],
        }

    def _k8s_peer(self, peer: dict, ns: str, other: Any) -> bool:
        if "ipBlock" in peer:
            ip = ipaddress.ip_address(other.ip if isinstance(other, PodRef) else other)
            block = peer["ipBlock"]
            net = ipaddress.ip_network(block["cidr"], strict=False)
            if ip.version != net.version or ip not in net:
                return False
            return not any(ip in ipaddress.ip_network(e, strict=False) for e in block.get("except", []))
        if not isinstance(other, PodRef):
            return False
        if "namespaceSelector" in peer:
            if not _label_selector(peer["namespaceSelector"] or {}, self.ns_labels[other.ns]):
                return False
        elif other.ns != ns:
            return False
        return _label_selector(peer.get("podSelector") or {}, other.labels)

    # rules and entities

    def _rule(self, r: dict, ns: str | None) -> Any:
        action = r["action"]
        protocol = _proto(r.get("protocol"))
        not_protocol = _proto(r.get("notProtocol"))
        ip_version = r.get("ipVersion")
        src_e, dst_e = r.get("source") or {}, r.get("destination") or {}

        def match(src: Any, dst: Any, proto: str, port: int, family: int) -> str | None:
            number = PROTO_NUMBERS[proto.lower()]
            if protocol is not None and protocol != number:
                return None
            if not_protocol is not None and not_protocol == number:
                return None
            if ip_version is not None and ip_version != family:
                return None
            if not self._entity(src_e, ns, src):
                return None
            if not self._entity(dst_e, ns, dst):
                return None
            if not self._dst_ports(dst_e, dst, proto, port, protocol):
                return None
            return action

        return match

    def _labelled(self, endpoint: Any) -> list[tuple[dict[str, str], str | None]]:
        """Every labelled entity at this address: the pod itself, and NetworkSets holding the address, each
        with its labels as selectors see them and its namespace (None: not namespaced)."""
        out = []
        ip = ipaddress.ip_address(endpoint.ip if isinstance(endpoint, PodRef) else endpoint)
        if isinstance(endpoint, PodRef):
            out.append((self.workload_labels(endpoint), endpoint.ns))
        for set_ns, labels, nets in self.sets:
            if any(ip.version == n.version and ip in n for n in nets):
                lab = dict(labels)
                if set_ns is not None:
                    lab["projectcalico.org/namespace"] = set_ns
                out.append((lab, set_ns))
        return out

    def _entity(self, e: dict, ns: str | None, endpoint: Any) -> bool:
        ip = ipaddress.ip_address(endpoint.ip if isinstance(endpoint, PodRef) else endpoint)
        nets = [ipaddress.ip_network(n, strict=False) for n in e.get("nets", [])]
        if nets and not any(ip.version == n.version and ip in n for n in nets):
            return False
        not_nets = [ipaddress.ip_network(n, strict=False) for n in e.get("notNets", [])]
        if any(ip.version == n.version and ip in n for n in not_nets):
            return False
        if "services" in e:
            svc = e["services"]
            return isinstance(endpoint, PodRef) and self._service_pod(svc["name"], svc.get("namespace") or ns, endpoint)
        selector = e.get("selector") or ""
        not_selector = e.get("notSelector") or ""
        ns_selector = e.get("namespaceSelector") or ""
        sa = e.get("serviceAccounts")
        uses = bool(selector or not_selector or ns_selector or sa is not None)
        restricted = bool(selector or sa is not None or ns_selector or (ns is not None and uses))
        if restricted:
            sel = compile_selector(selector)
            ns_pred = namespace_selector(ns_selector) if ns_selector else None

            def holds(labels: dict[str, str], ent_ns: str | None, is_pod: bool) -> bool:
                if ns_pred is not None:
                    if not ns_pred(self.ns_labels.get(ent_ns, {}) if ent_ns is not None else None):
                        return False
                elif ns is not None and ent_ns != ns:
                    return False
                if sa is not None:
                    if not is_pod:
                        return (
                            False
                            if sa.get("names")
                            else (not sa.get("selector") or compile_selector(sa["selector"])({}))
                        )
                    pod = endpoint
                    if sa.get("names") and pod.sa not in sa["names"]:
                        return False
                    if sa.get("selector") and not compile_selector(sa["selector"])(
                        self.sa_labels.get((pod.ns, pod.sa), {})
                    ):
                        return False
                return sel(labels)

            entities = self._labelled(endpoint)
            is_pod = [isinstance(endpoint, PodRef) and i == 0 for i in range(len(entities))]
            if not any(holds(lab, ent_ns, p) for (lab, ent_ns), p in zip(entities, is_pod, strict=True)):
                return False
        if not_selector:
            neg = compile_selector(not_selector)
            if any(neg(lab) for lab, _ in self._labelled(endpoint)):
                return False
        return True

    def _service_pod(self, name: str, ns: str, pod: PodRef) -> bool:
        for svc in self.services:
            m = svc["metadata"]
            if m["name"] == name and m.get("namespace", "default") == ns:
                sel = svc.get("spec", {}).get("selector")
                return bool(sel) and pod.ns == ns and all(pod.labels.get(k) == v for k, v in sel.items())
        return False

    def _dst_ports(self, e: dict, dst: Any, proto: str, port: int, protocol: int | None) -> bool:
        if "services" in e:
            svc_ns = e["services"].get("namespace")
            for svc in self.services:
                m = svc["metadata"]
                if m["name"] == e["services"]["name"] and (svc_ns is None or m.get("namespace") == svc_ns):
                    for sp in svc["spec"].get("ports", []):
                        if sp.get("protocol", "TCP") != proto:
                            continue
                        target = sp.get("targetPort", sp["port"])
                        if isinstance(target, int) and target == port:
                            return True
                        if isinstance(target, str) and isinstance(dst, PodRef) and (target, proto, port) in dst.ports:
                            return True
            return False

        def holds(spec: Any) -> bool:
            if isinstance(spec, int):
                return spec == port
            if re.fullmatch(r"\d+", spec):
                return int(spec) == port
            m = re.fullmatch(r"(\d+):(\d+)", spec)
            if m:
                return int(m[1]) <= port <= int(m[2])
            if not isinstance(dst, PodRef):
                return False
            # a name resolves to the destination's (protocol, number): the connection must use both
            return any(n == spec and num == port and p == proto for n, p, num in dst.ports)

        ports = e.get("ports") or []
        if ports and not any(holds(p) for p in ports):
            return False
        return not any(holds(p) for p in e.get("notPorts") or [])

    # evaluation

    def workload_labels(self, pod: PodRef) -> dict[str, str]:
        return {
            **pod.labels,
            "projectcalico.org/namespace": pod.ns,
            "projectcalico.org/orchestrator": "k8s",
            "projectcalico.org/serviceaccount": pod.sa,
        }

    def side(self, direction: str, owner: PodRef, src: Any, dst: Any, proto: str, port: int, family: int) -> bool:
        tiers = sorted({p["tier"] for p in self.policies}, key=lambda t: (self.tiers.get(t, (float("inf"), ""))[0], t))
        for tier in tiers:
            pols = [p for p in self.policies if p["tier"] == tier and direction in p["types"] and p["selects"](owner)]
            if not pols:
                continue
            pols.sort(key=lambda p: (p["order"], p["sortname"]))
            verdict = None
            for pol in pols:
                for rule in pol[direction]:
                    action = rule(src, dst, proto, port, family)
                    if action in ("Allow", "Deny", "Pass"):
                        verdict = action
                        break
                if verdict is not None:
                    break
            if verdict is None:
                verdict = self.tiers.get(tier, (0, "Deny"))[1]
            if verdict == "Allow":
                return True
            if verdict == "Deny":
                return False
        return True

    def allowed(self, src: str, dst: str, proto: str = "TCP", port: int = 80) -> bool:
        """src / dst: `ns/name` of a pod, or an IP address (an external endpoint)."""
        s = self.pods.get(src, src)
        d = self.pods.get(dst, dst)
        if isinstance(s, PodRef) and s is d:
            return True
        family = ipaddress.ip_address(s.ip if isinstance(s, PodRef) else s).version
        if isinstance(s, PodRef) and not self.side("Egress", s, s, d, proto, port, family):
            return False
        return not (isinstance(d, PodRef) and not self.side("Ingress", d, s, d, proto, port, family))


def _proto(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, int):
        return value
    return PROTO_NUMBERS.get(value.lower(), int(value) if value.isdigit() else -1)


def _label_selector(sel: dict, labels: Mapping[str, str]) -> bool:
    for k, v in (sel.get("matchLabels") or {}).items():
        if labels.get(k) != v:
            return False
    for r in sel.get("matchExpressions") or []:
        have = labels.get(r["key"])
        op = r["operator"]
        if op == "In" and have not in r["values"]:
            return False
        if op == "NotIn" and have in r["values"]:
            return False
        if op == "Exists" and have is None:
            return False
        if op == "DoesNotExist" and have is not None:
            return False
    return True


def _k8s_ports(ports: list[dict], dst: Any, proto: str, port: int) -> bool:
    if not ports:
        return True
    for p in ports:
        if p.get("protocol", "TCP") != proto:
            continue
        want = p.get("port")
        if want is None:
            return True
        if isinstance(want, int):
            if want <= port <= p.get("endPort", want):
                return True
        elif isinstance(dst, PodRef) and (want, proto, port) in dst.ports:
            return True
    return False
