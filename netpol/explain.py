"""Answers with reasons: `explain SRC DST`, `who-can-reach TARGET`, `can-reach SOURCE`.

The verdicts are the engine's (compiled masks and port bits); this module adds the why. For each side
of a connection (the source's egress, the destination's ingress) it says whether the endpoint is
isolated, by which policies, which rule allows (peer and ports), and when nothing allows, the nearest
miss — the rule that came closest and what one thing kept it from matching. Peer reasons follow the
networking/v1 reference ("Behavior of to and from selectors"): one peer with namespaceSelector and
podSelector is an AND; a podSelector alone means the policy's own namespace; hostNetwork pods are
matched only by ipBlocks (their traffic carries the node address).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import netaddr

from netpol.compile.ipspace import IPAtom, block_set
from netpol.compile.policies import CompiledRule
from netpol.engine import Reachability
from netpol.errors import UsageError
from netpol.graph import Endpoint, side_verdict
from netpol.model.labels import EMPTY_LABELS, Labels
from netpol.model.objects import NetworkPolicyPeer, NetworkPolicyRule, Pod
from netpol.pipeline import Analysis
from netpol.ports import ConnectionSet
from netpol.targets import Probe, Target, workload_label

# ------------------------------------------------------------------------------------------ endpoints


@dataclass(frozen=True, slots=True)
class EP:
    """One concrete endpoint: a running pod (index) or an external IP atom (index)."""

    pod: int | None = None
    atom: int | None = None

    def name(self, r: Reachability) -> str:
        return r.pods[self.pod].key if self.pod is not None else r.atoms[self.atom].render()  # type: ignore[index]

    def graph_endpoint(self) -> Endpoint:
        return Endpoint(pod=self.pod, atom=self.atom)


def _ns_labels(analysis: Analysis, ns: str) -> Labels:
    obj = analysis.cluster.namespace(ns)
    return obj.labels if obj is not None else EMPTY_LABELS


def _restrict(cs: ConnectionSet, restrict: ConnectionSet | None) -> ConnectionSet:
    return cs if restrict is None else cs.intersection(restrict)


# ------------------------------------------------------------------------------------------ peer reasons


def _atom_in_block(atom: IPAtom, peer: NetworkPolicyPeer) -> bool:
    assert peer.ip_block is not None
    return netaddr.IPAddress(atom.first, atom.version) in block_set(peer.ip_block)


def _ip_in_block(ip: str, peer: NetworkPolicyPeer) -> tuple[bool, str]:
    assert peer.ip_block is not None
    addr = netaddr.IPAddress(ip)
    if addr not in netaddr.IPNetwork(peer.ip_block.cidr):
        return False, f"{ip} is outside ipBlock {peer.ip_block.cidr}"
    for ex in peer.ip_block.except_:
        if addr in netaddr.IPNetwork(ex):
            return False, f"{ip} is in ipBlock {peer.ip_block.cidr} but also in its except {ex}"
    return True, f"ipBlock {peer.ip_block.render()} contains {ip}"


def peer_reason(analysis: Analysis, peer: NetworkPolicyPeer, policy_ns: str, ep: EP) -> tuple[int, str]:
    """(score, reason) for one peer against one endpoint: 2 matches, 1 half matches (AND), 0 no match."""
    r = analysis.reachability
    if peer.ip_block is not None:
        if ep.atom is not None:
            atom = r.atoms[ep.atom]
            if _atom_in_block(atom, peer):
                return 2, f"ipBlock {peer.ip_block.render()} contains {atom.render()}"
            return 0, f"{atom.render()} is outside ipBlock {peer.ip_block.render()}"
        pod = r.pods[ep.pod]  # type: ignore[index]
        if not pod.pod_ip:
            return 0, f"{pod.key} has no IP, so ipBlock {peer.ip_block.render()} cannot match it"
        if not pod.host_network and not analysis.options.ipblock_matches_pods:
            return 0, f"ipBlock {peer.ip_block.render()} is not applied to pod IPs (--ipblock-pods ignore)"
        ok, why = _ip_in_block(pod.pod_ip, peer)
        return (2 if ok else 0), why
    if ep.atom is not None:
        return 0, f"peer {peer.render()} selects pods; {r.atoms[ep.atom].render()} is an external address"
    pod = r.pods[ep.pod]  # type: ignore[index]
    if pod.host_network:
        return 0, (
            f"{pod.key} is a hostNetwork pod: pod and namespace selectors never match it "
            "(its traffic carries the node's address; only an ipBlock can)"
        )
    ns_labels = _ns_labels(analysis, pod.namespace)
    if peer.namespace_selector is not None:
        ns_ok = peer.namespace_selector.matches(ns_labels)
    else:
        ns_ok = pod.namespace == policy_ns
    pod_ok = peer.pod_selector is None or peer.pod_selector.matches(pod.labels)
    if ns_ok and pod_ok:
        return 2, f"peer {peer.render()} matches {pod.key}"
    if peer.namespace_selector is not None and peer.pod_selector is not None:
        which = "pod matches, namespace does not" if pod_ok else "namespace matches, pod does not"
        if not ns_ok and not pod_ok:
            which = "neither the pod nor the namespace matches"
        return int(ns_ok) + int(pod_ok), (
            f"namespaceSelector and podSelector are in the same peer (AND): {which} "
            f"({peer.render()}; {pod.key} has labels {{{pod.labels.render()}}}, namespace {pod.namespace} "
            f"{{{ns_labels.render()}}})"
        )
    if peer.namespace_selector is not None:
        return 0, (
            f"namespaceSelector {peer.namespace_selector.render()} does not match namespace {pod.namespace} "
            f"(labels {{{ns_labels.render()}}})"
        )
    sel = peer.pod_selector.render() if peer.pod_selector is not None else "{}"
    if not ns_ok:
        return int(pod_ok), (
            f"podSelector {sel} alone selects pods of the policy's namespace {policy_ns} only; "
            f"{pod.key} is in {pod.namespace}"
            + ("" if pod_ok else f" (and its labels {{{pod.labels.render()}}} differ)")
        )
    return 1, f"podSelector {sel} does not match {pod.key} (labels {{{pod.labels.render()}}})"


def rule_peer_reason(analysis: Analysis, rule: NetworkPolicyRule, policy_ns: str, ep: EP) -> tuple[int, str]:
    if not rule.peers:
        return 2, "every peer (no from/to)"
    best = (-1, "")
    for peer in rule.peers:
        got = peer_reason(analysis, peer, policy_ns, ep)
        if got[0] > best[0]:
            best = got
    return best


def ports_text(rule: NetworkPolicyRule) -> str:
    return ", ".join(p.render() for p in rule.ports) if rule.ports else "all ports"


# ------------------------------------------------------------------------------------------ explain


@dataclass(frozen=True, slots=True)
class RuleCheck:
    label: str
    peer_ok: bool
    peer_reason: str
    ports: str
    port_ok: bool
    port_reason: str
    contribution: ConnectionSet
    score: int

    def render(self) -> str:
        if self.peer_ok and self.port_ok:
            return f"{self.label}: {self.peer_reason}; ports {self.ports} → {self.contribution.render()}"
        if self.peer_ok:
            return f"{self.label}: peer matches but {self.port_reason}"
        return f"{self.label}: {self.peer_reason}" + ("" if self.port_ok else f"; also {self.port_reason}")


@dataclass(frozen=True)
class SideExplanation:
    direction: str  # egress (the source's side) | ingress (the destination's side)
    endpoint: str
    applies: bool
    isolated: bool
    policies: tuple[str, ...]
    allowed: ConnectionSet  # what this side lets through towards the peer (within the asked ports)
    allows: tuple[RuleCheck, ...] = ()
    misses: tuple[RuleCheck, ...] = ()
    # (Baseline)AdminNetworkPolicy rules matching the pair, in evaluation order: (label, action, ports)
    admin: tuple[tuple[str, str, ConnectionSet], ...] = ()

    def admin_lines(self) -> list[str]:
        if not self.admin:
            return []
        out = ["  admin tiers (ANPs first, then NetworkPolicies, then the BANP; first match wins per port):"]
        out += [f"    {label}: {action} on {cs.render()}" for label, action, cs in self.admin]
        out.append(f"    result for this side: {self.allowed.render()}")
        return out

    @property
    def ok(self) -> bool:
        return not self.allowed.is_empty

    def lines(self) -> list[str]:
        head = f"{self.direction} ({self.endpoint}):"
        if not self.applies:
            return [f"{head} external endpoint, no policy of this cluster filters there"]
        if not self.isolated:
            return [
                f"{head} not isolated (no NetworkPolicy selects it for {self.direction}) → {self.allowed.render()}",
                *self.admin_lines(),
            ]
        out = [f"{head} isolated by {', '.join(self.policies)}"]
        if self.allows:
            out += [f"  allowed by {c.render()}" for c in self.allows]
            if self.allowed.is_empty:
                out.append("  but none of those ports is the one asked for")
        else:
            out.append("  no rule matches" + (": nearest miss" if self.misses else " (the policies have no rules)"))
            out += [f"  - {c.render()}" for c in self.misses]
        return out + self.admin_lines()

    def to_json(self) -> dict[str, object]:
        return {
            "direction": self.direction,
            "endpoint": self.endpoint,
            "applies": self.applies,
            "isolated": self.isolated,
            "policies": list(self.policies),
            "allowed": self.allowed.to_json(),
            "allowed_text": self.allowed.render(),
            "allowed_by": [{"rule": c.label, "peer": c.peer_reason, "ports": c.ports} for c in self.allows],
            "nearest_miss": [c.render() for c in self.misses],
            "admin": [{"rule": label, "action": action, "ports": cs.render()} for label, action, cs in self.admin],
        }


@dataclass(frozen=True)
class Explanation:
    src: str
    dst: str
    probe: Probe | None
    allowed: bool
    connection: ConnectionSet
    egress: SideExplanation | None
    ingress: SideExplanation | None
    notes: tuple[str, ...] = ()

    def lines(self) -> list[str]:
        what = self.probe.render() if self.probe else self.connection.render()
        if self.allowed:
            head = f"ALLOWED  {self.src} => {self.dst} : {what}"
        else:
            head = f"DENIED   {self.src} => {self.dst}" + (f" : {self.probe.render()}" if self.probe else "")
        out = [head]
        for side in (self.egress, self.ingress):
            if side is not None:
                out += ["  " + line for line in side.lines()]
        out += [f"  note: {n}" for n in self.notes]
        return out

    def to_json(self) -> dict[str, object]:
        return {
            "src": self.src,
            "dst": self.dst,
            "port": None if self.probe is None else {"port": self.probe.port, "protocol": self.probe.protocol},
            "allowed": self.allowed,
            "connection": self.connection.to_json(),
            "text": self.connection.render(),
            "egress": self.egress.to_json() if self.egress else None,
            "ingress": self.ingress.to_json() if self.ingress else None,
            "notes": list(self.notes),
        }


def _rule_check(
    analysis: Analysis,
    rule: CompiledRule,
    peer: EP,
    dst_class: int | None,
    restrict: ConnectionSet | None,
    dst_name: str,
) -> RuleCheck:
    r = analysis.reachability
    peer_ok = bool(rule.peer_classes[r.pod_class(peer.pod)] if peer.pod is not None else rule.peer_atoms[peer.atom])
    score, reason = rule_peer_reason(analysis, rule.rule, rule.policy.namespace, peer)
    if peer_ok:
        score = 2
    contribution = r.ports.to_set(rule.bits_for(r.universe, r.ports, dst_class))
    restricted = _restrict(contribution, restrict)
    port_ok = not restricted.is_empty
    if port_ok:
        port_reason = ""
    elif contribution.is_empty:
        port_reason = (
            f"ports [{ports_text(rule.rule)}] resolve to no port on {dst_name} (named ports are looked up there)"
        )
    else:
        want = restrict.render() if restrict is not None else "any"
        port_reason = f"port {want} is not in [{contribution.render()}] (rule ports: {ports_text(rule.rule)})"
    total = (3 if peer_ok else score) * 2 + int(port_ok)
    return RuleCheck(rule.label, peer_ok, reason, ports_text(rule.rule), port_ok, port_reason, restricted, total)


def explain_side(
    analysis: Analysis, direction: str, src: EP, dst: EP, restrict: ConnectionSet | None = None
) -> SideExplanation:
    r = analysis.reachability
    sv = side_verdict(r, direction, src.graph_endpoint(), dst.graph_endpoint())
    me = src if direction == "egress" else dst
    other = dst if direction == "egress" else src
    name = me.name(r)
    if not sv.applies:
        return SideExplanation(direction, name, False, False, (), _restrict(ConnectionSet.all(), restrict))
    allowed = _restrict(sv.allowed, restrict)
    admin = tuple(
        (label, action, part) for label, action, cs in sv.admin if not (part := _restrict(cs, restrict)).is_empty
    )
    if not sv.isolated:
        return SideExplanation(direction, name, True, False, (), allowed, admin=admin)
    cls = r.pod_class(me.pod)  # type: ignore[arg-type]
    dst_class = r.pod_class(dst.pod) if dst.pod is not None else None
    checks = []
    for cp in r.policies:
        if not cp.selected[cls]:
            continue
        for rule in cp.ingress if direction == "ingress" else cp.egress:
            checks.append(_rule_check(analysis, rule, other, dst_class, restrict, dst.name(r)))
    allows = tuple(c for c in checks if c.peer_ok and not c.contribution.is_empty)
    misses: tuple[RuleCheck, ...] = ()
    if not allows:
        best = max((c.score for c in checks), default=0)
        misses = tuple(c for c in checks if c.score == best)[:3] if checks else ()
    return SideExplanation(direction, name, True, True, sv.policies, allowed, allows, misses, admin)


def _pending_note(pod: Pod) -> str:
    state = pod.phase or "not running"
    reason = f": {pod.reason}" if pod.reason else ""
    return f"{pod.key} does not run ({state}{reason}), so it takes part in no traffic"


def explain_pair(
    analysis: Analysis, src: EP, dst: EP, probe: Probe | None = None, restrict: ConnectionSet | None = None
) -> Explanation:
    """Why src can (not) reach dst. `restrict`: the destination ports that matter (probe, Service ports)."""
    r = analysis.reachability
    if src.atom is not None and dst.atom is not None:
        raise UsageError("both ends are external addresses: this cluster's policies say nothing about that")
    if restrict is None and probe is not None:
        restrict = probe.as_set()
    notes: list[str] = []
    src_name, dst_name = src.name(r), dst.name(r)
    if src.pod is not None and src.pod == dst.pod:
        cs = _restrict(ConnectionSet.all(), restrict)
        notes.append("a pod reaching itself (loopback) is always allowed; policies do not apply")
        return Explanation(src_name, dst_name, probe, not cs.is_empty, cs, None, None, tuple(notes))
    if src.pod is not None and dst.pod is not None:
        cs = _restrict(r.connection(src.pod, dst.pod), restrict)
        s, d = r.pods[src.pod], r.pods[dst.pod]
        if s.host_network and s.node_name and s.node_name == d.node_name:
            notes.append(
                f"{s.key} is a hostNetwork pod on {d.key}'s node {d.node_name}: traffic from a pod's own node "
                "is always allowed (kubelet probes), whatever the policies say"
            )
        elif s.host_network:
            notes.append(f"{s.key} is a hostNetwork pod: it speaks with node {s.node_name or '?'}'s address")
    elif src.atom is not None:
        cs = _restrict(r.ingress_from_atom(src.atom, dst.pod), restrict)  # type: ignore[arg-type]
    else:
        cs = _restrict(r.egress_to_atom(src.pod, dst.atom), restrict)  # type: ignore[arg-type]
    eg = explain_side(analysis, "egress", src, dst, restrict)
    ig = explain_side(analysis, "ingress", src, dst, restrict)
    if cs.is_empty and eg.ok and ig.ok:
        notes.append(f"egress allows {eg.allowed.render()} and ingress allows {ig.allowed.render()}: no port in common")
    if restrict is not None and restrict.is_empty:
        notes.append("no destination port is asked (the Service has no such port, or its targetPort does not resolve)")
    return Explanation(src_name, dst_name, probe, not cs.is_empty, cs, eg, ig, tuple(notes))


def _eps(t: Target) -> list[EP]:
    return [EP(pod=i) for i in t.pods] + [EP(atom=a) for a in t.atoms]


def explain_targets(analysis: Analysis, src: Target, dst: Target, probe: Probe | None = None) -> list[Explanation]:
    """One explanation per (source, destination) endpoint pair; Pending pods explained as not running."""
    r = analysis.reachability
    none = ConnectionSet.none()
    out = [Explanation(p.key, dst.text, probe, False, none, None, None, (_pending_note(p),)) for p in src.pending]
    out += [Explanation(src.text, p.key, probe, False, none, None, None, (_pending_note(p),)) for p in dst.pending]
    for s in _eps(src):
        for d in _eps(dst):
            restrict = dst.dst_ports(r.pods[d.pod], probe) if d.pod is not None else (probe.as_set() if probe else None)
            out.append(explain_pair(analysis, s, d, probe, restrict))
    return out


# ------------------------------------------------------------------------------------------ who can reach


@dataclass
class ReachEntry:
    src: str
    dst: str
    conn: ConnectionSet
    egress: list[str] = field(default_factory=list)  # rules on the source's side ("not isolated" when none)
    ingress: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {
            "src": self.src,
            "dst": self.dst,
            "conn": self.conn.to_json(),
            "text": self.conn.render(),
            "egress_rules": self.egress,
            "ingress_rules": self.ingress,
        }


@dataclass
class ReachReport:
    question: str  # "who-can-reach" | "can-reach"
    target: str
    probe: Probe | None
    entries: list[ReachEntry]
    notes: list[str]

    def to_json(self) -> dict[str, object]:
        return {
            "question": self.question,
            "target": self.target,
            "port": None if self.probe is None else {"port": self.probe.port, "protocol": self.probe.protocol},
            "connections": [e.to_json() for e in self.entries],
            "notes": self.notes,
        }

    def render(self, fmt: str) -> str:
        match fmt:
            case "json":
                import json

                return json.dumps(self.to_json(), indent=2) + "\n"
            case "md":
                lines = [
                    f"## {self.question} {self.target}" + (f" ({self.probe.render()})" if self.probe else ""),
                    "",
                    "| src | dst | conn | egress (source side) | ingress (destination side) |",
                    "|-----|-----|------|----------------------|----------------------------|",
                ]
                lines += [
                    f"| {e.src} | {e.dst} | {e.conn.render()} | {'<br>'.join(e.egress)} | {'<br>'.join(e.ingress)} |"
                    for e in self.entries
                ]
                if not self.entries:
                    lines.append("| (none) | | | | |")
                if self.notes:
                    lines += ["", *[f"- {n}" for n in self.notes]]
                return "\n".join(lines) + "\n"
            case _:
                out = []
                for e in self.entries:
                    out.append(f"{e.src} => {e.dst} : {e.conn.render()}")
                    out.append(f"    egress:  {'; '.join(e.egress)}")
                    out.append(f"    ingress: {'; '.join(e.ingress)}")
                if not self.entries:
                    out.append(
                        f"(nothing {'reaches' if self.question == 'who-can-reach' else 'is reachable from'} "
                        f"{self.target}{' on ' + self.probe.render() if self.probe else ''})"
                    )
                out += [f"note: {n}" for n in self.notes]
                return "\n".join(out) + "\n"


def _side_rules(r: Reachability, direction: str, src: EP, dst: EP, restrict: ConnectionSet | None) -> list[str]:
    sv = side_verdict(r, direction, src.graph_endpoint(), dst.graph_endpoint())
    if not sv.applies:
        return ["external"]
    admin = [
        f"{label}: {action} ({part.render()})"
        for label, action, cs in sv.admin
        if not (part := _restrict(cs, restrict)).is_empty
    ]
    if not sv.isolated:
        return ["not isolated", *admin]
    out = []
    for label, cs in sv.rules:
        part = _restrict(cs, restrict)
        if not part.is_empty:
            out.append(f"{label} ({part.render()})")
    return out + admin


class _RuleCache:
    def __init__(self, r: Reachability) -> None:
        self.r = r
        self.cache: dict[tuple[object, ...], tuple[list[str], list[str]]] = {}

    def key(self, ep: EP) -> tuple[str, int]:
        if ep.pod is not None:
            p = self.r.pods[ep.pod]
            return ("c", self.r.pod_class(ep.pod)) if not p.host_network else ("p", ep.pod)
        return ("a", ep.atom)  # type: ignore[return-value]

    def get(self, src: EP, dst: EP, restrict: ConnectionSet | None) -> tuple[list[str], list[str]]:
        k = (self.key(src), self.key(dst), restrict)
        hit = self.cache.get(k)
        if hit is None:
            hit = (
                _side_rules(self.r, "egress", src, dst, restrict),
                _side_rules(self.r, "ingress", src, dst, restrict),
            )
            self.cache[k] = hit
        return hit


def _node_note(analysis: Analysis, pod: Pod) -> str:
    if not pod.node_name:
        return f"{pod.key} is not placed on a node here; traffic from its own node would always be allowed"
    node = analysis.cluster.node(pod.node_name)
    ip = f" ({node.internal_ip})" if node is not None and node.internal_ip else ""
    return (
        f"node {pod.node_name}{ip} => {pod.key} : All Connections "
        "(traffic from a pod's own node, e.g. kubelet probes, is always allowed)"
    )


def _group(entries: list[ReachEntry], r: Reachability, by_workload: bool) -> list[ReachEntry]:
    if not by_workload:
        return sorted(entries, key=lambda e: (e.src, e.dst))
    labels = {p.key: workload_label(p) for p in r.pods}
    grouped: dict[tuple[str, str], ReachEntry] = {}
    for e in entries:
        key = (labels.get(e.src, e.src), labels.get(e.dst, e.dst))
        g = grouped.get(key)
        if g is None:
            grouped[key] = ReachEntry(key[0], key[1], e.conn, list(e.egress), list(e.ingress))
        else:
            g.conn = g.conn.union(e.conn)
            g.egress += [x for x in e.egress if x not in g.egress]
            g.ingress += [x for x in e.ingress if x not in g.ingress]
    return sorted(grouped.values(), key=lambda e: (e.src, e.dst))


def _pending_notes(t: Target) -> list[str]:
    return [_pending_note(p) for p in t.pending]


def _pod_pair_rules(
    r: Reachability, rules: _RuleCache, s: int, d: int, want: ConnectionSet | None
) -> tuple[list[str], list[str]]:
    """Both sides' deciding rules for a pod pair; node-local traffic is allowed whatever the policies say."""
    if r.same_node_host(s, d):
        return ["hostNetwork pod on the same node"], ["traffic from the pod's own node is always allowed"]
    return rules.get(EP(pod=s), EP(pod=d), want)


def who_can_reach(
    analysis: Analysis, target: Target, probe: Probe | None = None, *, by_workload: bool = False
) -> ReachReport:
    """Every source (pod or external range) with some allowed connection to the target, with the rules."""
    r = analysis.reachability
    rules = _RuleCache(r)
    entries: list[ReachEntry] = []
    notes = _pending_notes(target)
    if target.is_external:
        want = probe.as_set() if probe else None
        for a in target.atoms:
            for s in range(len(r.pods)):
                cs = _restrict(r.egress_to_atom(s, a), want)
                if not cs.is_empty:
                    eg, ig = rules.get(EP(pod=s), EP(atom=a), want)
                    entries.append(ReachEntry(r.pods[s].key, r.atoms[a].render(), cs, eg, ig))
        return ReachReport("who-can-reach", target.text, probe, _group(entries, r, by_workload), notes)
    for d in target.pods:
        dpod = r.pods[d]
        restrict = target.dst_ports(dpod, probe)
        if restrict is not None and restrict.is_empty and target.service is not None:
            notes.append(f"{target.service.key} forwards no port{' ' + probe.render() if probe else ''} to {dpod.key}")
            continue
        for s in range(len(r.pods)):
            if s == d:
                continue
            cs = _restrict(r.connection(s, d), restrict)
            if cs.is_empty:
                continue
            eg, ig = _pod_pair_rules(r, rules, s, d, restrict)
            entries.append(ReachEntry(r.pods[s].key, dpod.key, cs, eg, ig))
        for a, atom in enumerate(r.atoms):
            cs = _restrict(r.ingress_from_atom(a, d), restrict)
            if not cs.is_empty:
                eg, ig = rules.get(EP(atom=a), EP(pod=d), restrict)
                entries.append(ReachEntry(atom.render(), dpod.key, cs, eg, ig))
        notes.append(_node_note(analysis, dpod))
    return ReachReport("who-can-reach", target.text, probe, _group(entries, r, by_workload), notes)


def can_reach(
    analysis: Analysis, source: Target, probe: Probe | None = None, *, by_workload: bool = False
) -> ReachReport:
    """Every destination (pod or external range) the source can open a connection to, with the rules."""
    r = analysis.reachability
    rules = _RuleCache(r)
    entries: list[ReachEntry] = []
    notes = _pending_notes(source)
    want = probe.as_set() if probe else None
    if source.is_external:
        for a in source.atoms:
            for d in range(len(r.pods)):
                cs = _restrict(r.ingress_from_atom(a, d), want)
                if not cs.is_empty:
                    eg, ig = rules.get(EP(atom=a), EP(pod=d), want)
                    entries.append(ReachEntry(r.atoms[a].render(), r.pods[d].key, cs, eg, ig))
        return ReachReport("can-reach", source.text, probe, _group(entries, r, by_workload), notes)
    for s in source.pods:
        spod = r.pods[s]
        for d in range(len(r.pods)):
            if s == d:
                continue
            cs = _restrict(r.connection(s, d), want)
            if cs.is_empty:
                continue
            eg, ig = _pod_pair_rules(r, rules, s, d, want)
            entries.append(ReachEntry(spod.key, r.pods[d].key, cs, eg, ig))
        for a, atom in enumerate(r.atoms):
            cs = _restrict(r.egress_to_atom(s, a), want)
            if not cs.is_empty:
                eg, ig = rules.get(EP(pod=s), EP(atom=a), want)
                entries.append(ReachEntry(spod.key, atom.render(), cs, eg, ig))
    return ReachReport("can-reach", source.text, probe, _group(entries, r, by_workload), notes)
