"""`who-can-reach TARGET` and `can-reach SOURCE`: one directional query over one line of the matrix.

`reach(analysis, anchor, "in")` lists everything that can open a connection to the anchor (one column
of the matrix per anchor pod), `reach(analysis, anchor, "out")` everything the anchor can open towards
(one row); each entry carries the deciding rules of both sides from the engine's one "why"
(`netpol.engine.provenance.side_verdict`), computed once per distinct (class, class) pair.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from netpol.engine import CompiledRule, Endpoint, Exception_, Reachability, common_families, side_verdict
from netpol.explain.pair import pending_note
from netpol.explain.reasons import restrict_to
from netpol.model.objects import Pod
from netpol.model.vocab import Direction, QueryDirection
from netpol.pipeline import Analysis
from netpol.ports import ConnectionSet
from netpol.readout.l7 import L7Mark, endpoint_mark
from netpol.readout.l7 import render as l7_render
from netpol.readout.textsafe import md_safe, text_safe
from netpol.targets import Probe, Target, workload_label

QUESTION: dict[str, str] = {"in": "who-can-reach", "out": "can-reach"}


@dataclass
class ReachEntry:
    src: str
    dst: str
    conn: ConnectionSet
    egress: list[str] = field(default_factory=list)  # rules on the source's side ("not isolated" when none)
    ingress: list[str] = field(default_factory=list)
    families: list[str] = field(default_factory=list)  # dual-stack: the address families the connection works over
    l7: L7Mark | None = None  # the ports allowed only through layer-7 filters (Cilium), and the filters

    def to_json(self) -> dict[str, object]:
        doc: dict[str, object] = {
            "src": self.src,
            "dst": self.dst,
            "conn": self.conn.to_json(),
            "text": self.conn.render(),
            "egress_rules": self.egress,
            "ingress_rules": self.ingress,
            "families": self.families,
        }
        if self.l7 is not None:
            doc["l7"] = self.l7.to_json()
        return doc

    @property
    def line(self) -> str:
        """`src => dst : TCP 80`, with the layer-7 mark when some of it goes through a filter."""
        return f"{self.src} => {self.dst} : {l7_render(self.conn, self.l7)}"


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
            "port": None if self.probe is None else _probe_json(self.probe),
            "connections": [e.to_json() for e in self.entries],
            "notes": self.notes,
        }

    def render(self, fmt: str) -> str:
        return render_reach(self, fmt)


def _probe_json(probe: Probe) -> dict[str, object]:
    """The port asked about: a number, a range (`end`) or a name (resolved per destination pod)."""
    doc: dict[str, object] = {"port": probe.name if probe.name is not None else probe.port, "protocol": probe.protocol}
    if probe.end is not None:
        doc["end"] = probe.end
    return doc


def _side_rules(
    r: Reachability,
    direction: Direction,
    src: Endpoint,
    dst: Endpoint,
    restrict: ConnectionSet | None,
    *,
    say_isolation: bool = False,
) -> list[str]:
    owner = src if direction == "egress" else dst
    if owner.pod is None:
        return ["external"]
    if not r.layered:  # the common case, read off the isolation flags without building the side's why
        cls = r.pod_class(owner.pod)
        if not (r.isolated_egress if direction == "egress" else r.isolated_ingress)[cls]:
            return ["not isolated"]
    sv = side_verdict(r, direction, src, dst)
    if not sv.applies:
        return ["external"]
    tiered = [  # the rules of tiers other than NetworkPolicy's that decided ports here
        f"{h.label}: {h.action} ({part.render()})"
        for h in sv.deciding
        if h.policy.kind != "NetworkPolicy"
        and h.action != "Allow"
        and not (part := restrict_to(r.ports.to_set(h.decided), restrict)).is_empty
    ]
    if not sv.isolated:
        return ["not isolated", *tiered]
    out = []
    filtered: np.ndarray | None = None
    for h in sv.allowing:
        part = restrict_to(r.ports.to_set(h.decided & sv.bits), restrict)
        if part.is_empty:
            continue
        words = f"{h.label} ({part.render()})"
        if h.rule.l7:  # a layer-7 rule (Cilium's HTTP/Kafka/DNS) allows its ports only through its filter
            if filtered is None:  # this side's ports allowed only through filters (a plain allow of a port wins)
                filtered = r.filtered_block([r.eid(src)], [r.eid(dst)], (direction,))[0, 0]
            if (h.decided & filtered).any():
                words += f" through the L7 filter {h.rule.l7}"
            else:  # docs.cilium.io security/policy/layer7: the L7 part of a rule beside a plain L4 rule has no effect
                words += f" (its L7 filter {h.rule.l7} has no effect: a rule allows the same port without one)"
        out.append(words)
    if say_isolation and not out and not tiered:  # nothing lets anything through: a pair who-can-reach never lists
        return [f"isolated by {', '.join(sv.policies)}; no rule allows it"]
    return out + tiered


def side_words(r: Reachability, direction: Direction, src: Endpoint, dst: Endpoint) -> tuple[str, ...]:
    """One side's reasons for any pair, allowed or not, in who-can-reach's words: the rules that allow (with the
    ports they allow), the rules of other tiers that decided ports, "not isolated", "external". A side whose
    isolation leaves nothing through and where no rule decided anything is said by its isolating policies
    (who-can-reach never lists such a pair). The pairs no policy decides (loopback, node-local) are not a side's:
    their words are EXCEPTION_WORDS."""
    return tuple(_side_rules(r, direction, src, dst, None, say_isolation=True))


# Both sides' words for the pairs the policies never decide (netpol/engine/endpoints.py applies them), by the
# engine's name for the exception; who-can-reach lists node-local pairs with these words, and never a pod with
# itself.
EXCEPTION_WORDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    Exception_.LOOPBACK: (
        ("loopback: a pod reaching itself",),
        ("a pod reaching itself is always allowed; policies do not apply",),
    ),
    Exception_.NODE_LOCAL: (
        ("node-local: a pod and its own node",),
        ("traffic to and from a pod's own node is always allowed",),
    ),
}


class _RuleCache:
    """Each side's rule words, cached per what decides them: the owner's class and which of its policies'
    rules hold the peer (plus the class where named ports resolve). Many source classes share one entry."""

    def __init__(self, r: Reachability) -> None:
        self.r = r
        self.cache: dict[tuple[object, ...], list[str]] = {}
        self.rules: dict[tuple[str, int], list[CompiledRule]] = {}

    def _key(self, direction: Direction, src: Endpoint, dst: Endpoint) -> tuple[object, ...]:
        r = self.r
        owner, peer = (src, dst) if direction == "egress" else (dst, src)
        if owner.pod is None:
            return ("external",)
        oc = r.pod_class(owner.pod)
        if r.layered or peer.pod is None:  # several tiers trace whole class pairs; atoms are few
            return (oc, peer.atom if peer.pod is None else -1 - r.pod_class(peer.pod))
        cands = self.rules.get((direction, oc))
        if cands is None:
            cands = self.rules[(direction, oc)] = [
                rule
                for cp in r.policies_selecting(oc)
                for rule in (cp.ingress if direction == "ingress" else cp.egress)
            ]
        pc = r.pod_class(peer.pod)
        named = direction == "egress" and any(rule.per_destination for rule in cands)  # names resolve on the peer
        return (oc, tuple(any(p.classes[pc] for p in rule.peers) for rule in cands), pc if named else None)

    def side(self, direction: Direction, src: Endpoint, dst: Endpoint, restrict: ConnectionSet | None) -> list[str]:
        k = (direction, self._key(direction, src, dst), restrict)
        hit = self.cache.get(k)
        if hit is None:
            hit = self.cache[k] = _side_rules(self.r, direction, src, dst, restrict)
        return hit

    def get(self, src: Endpoint, dst: Endpoint, restrict: ConnectionSet | None) -> tuple[list[str], list[str]]:
        r = self.r
        exception = r.exception(src, dst)
        if exception is not Exception_.NONE:
            egress, ingress = EXCEPTION_WORDS[exception]
            return list(egress), list(ingress)
        return self.side("egress", src, dst, restrict), self.side("ingress", src, dst, restrict)


class _Sets:
    """ConnectionSets of many bit rows: each distinct pattern converted (and restricted) once."""

    def __init__(self, r: Reachability) -> None:
        self.r = r
        self.cache: dict[tuple[bytes, ConnectionSet | None], ConnectionSet] = {}

    def of(self, bits: np.ndarray, restrict: ConnectionSet | None) -> ConnectionSet:
        k = (bits.tobytes(), restrict)
        cs = self.cache.get(k)
        if cs is None:
            cs = self.cache[k] = restrict_to(self.r.ports.to_set(bits), restrict)
        return cs


def _families(r: Reachability, src: Endpoint, dst: Endpoint, restrict: ConnectionSet | None) -> list[str]:
    """In a cluster of several address families, those the connection is allowed over (a connection uses
    one family at both ends); [] in single-family clusters, where it goes without saying."""
    if not r.pod_classes.multi_family:
        return []
    if r.exception(src, dst) is not Exception_.NONE:
        return []
    s, d = [r.eid(src)], [r.eid(dst)]
    sides: tuple[Direction, ...] = ("ingress", "egress")
    if dst.atom is not None:
        sides = ("egress",)
    elif src.atom is not None:
        sides = ("ingress",)
    out = []
    for k in common_families(r, src, dst):
        bits = np.bitwise_and.reduce([r.side_block(side, s, d, family=k)[0, 0] for side in sides])
        if not restrict_to(r.ports.to_set(bits), restrict).is_empty:
            out.append("IPv6" if r.pod_classes.families[k] == 6 else "IPv4")
    return out


def _node_note(analysis: Analysis, pod: Pod) -> str:
    if not pod.node_name:
        return f"{pod.key} is not placed on a node here; traffic from its own node would always be allowed"
    node = analysis.cluster.node(pod.node_name)
    ip = f" ({', '.join(node.internal_ips)})" if node is not None and node.internal_ips else ""
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
            grouped[key] = ReachEntry(key[0], key[1], e.conn, list(e.egress), list(e.ingress), list(e.families), e.l7)
        else:
            g.conn = g.conn.union(e.conn)
            g.l7 = e.l7.union(g.l7) if e.l7 is not None else g.l7
            g.egress += [x for x in e.egress if x not in g.egress]
            g.ingress += [x for x in e.ingress if x not in g.ingress]
            g.families = sorted({*g.families, *e.families})
    return sorted(grouped.values(), key=lambda e: (e.src, e.dst))


def reach(
    analysis: Analysis,
    anchor: Target,
    direction: QueryDirection,
    probe: Probe | None = None,
    *,
    by_workload: bool = False,
) -> ReachReport:
    """Every endpoint with some allowed connection into ("in") or out of ("out") the anchor, with rules.

    Service anchors restrict each destination pod to the ports the Service forwards to it."""
    r = analysis.reachability
    rules, sets = _RuleCache(r), _Sets(r)
    entries: list[ReachEntry] = []
    notes = [pending_note(p) for p in anchor.pending]
    # A named port means a number only on a destination pod (NetworkPolicy resolves it there): with can-reach
    # the destinations vary, so it is resolved per destination; external destinations have no port names.
    named = probe is not None and probe.name is not None
    want = probe.as_set() if probe and not named else None
    unnamed: set[str] = set()
    l7 = r.has_l7

    def mark(src: Endpoint, dst: Endpoint, cs: ConnectionSet) -> L7Mark | None:
        """The pair's layer-7 mark, cut to the ports shown (none without layer-7 rules)."""
        if not l7:
            return None
        got = endpoint_mark(r, src, dst)
        return got.restrict(cs) if got is not None else None

    def to(p: int) -> ConnectionSet | None:
        """The ports asked about on destination pod `p` (direction "out")."""
        if not named:
            return want
        assert probe is not None
        cs = probe.on(r.pods[p])
        if cs.is_empty:
            unnamed.add(r.pods[p].key)
        return cs

    def add(me: Endpoint, other: Endpoint, bits: np.ndarray, restrict: ConnectionSet | None) -> None:
        cs = sets.of(bits, restrict)
        if cs.is_empty:
            return
        src, dst = (other, me) if direction == "in" else (me, other)
        eg, ig = rules.get(src, dst, restrict)
        fams = _families(r, src, dst, restrict)
        entries.append(ReachEntry(src.name(r), dst.name(r), cs, eg, ig, fams, mark(src, dst, cs)))

    for a in anchor.atoms:
        me = Endpoint(atom=a)
        line = r.atom_line(a, direction)
        for p in np.flatnonzero(line.any(axis=1)).tolist():
            add(me, Endpoint(pod=p), line[p], to(p) if direction == "out" else want)
    for i in anchor.pods:
        me = Endpoint(pod=i)
        restrict = want
        if direction == "in":
            restrict = anchor.dst_ports(r.pods[i], probe)
            if restrict is not None and restrict.is_empty and anchor.service is not None:
                notes.append(
                    f"{anchor.service.key} forwards no port{' ' + probe.render() if probe else ''} to {r.pods[i].key}"
                )
                continue
        pod_bits, atom_bits = r.pod_line(i, direction)
        if named and direction == "out":  # the ports differ per destination pod: no per-class sharing
            for p in np.flatnonzero(pod_bits.any(axis=1)).tolist():
                if p != i:
                    add(me, Endpoint(pod=p), pod_bits[p], to(p))
            continue  # an external address has no port names
        _add_pods(r, me, direction, pod_bits, restrict, sets, rules, entries, mark)
        for a in np.flatnonzero(atom_bits.any(axis=1)).tolist():
            add(me, Endpoint(atom=a), atom_bits[a], restrict)
        if direction == "in":
            notes.append(_node_note(analysis, r.pods[i]))
    if named and direction == "out":
        assert probe is not None
        if unnamed:
            notes.append(
                f"{len(unnamed)} destination pod{'s' if len(unnamed) != 1 else ''} define{'s' if len(unnamed) == 1 else ''}"
                f" no {probe.protocol} port named {probe.name}; not listed"
            )
        if anchor.pods:
            notes.append(f"external addresses have no port named {probe.name}; not listed")
    return ReachReport(QUESTION[direction], anchor.text, probe, _group(entries, r, by_workload), notes)


def _add_pods(
    r: Reachability,
    me: Endpoint,
    direction: QueryDirection,
    bits: np.ndarray,
    restrict: ConnectionSet | None,
    sets: _Sets,
    rules: _RuleCache,
    entries: list[ReachEntry],
    mark: Callable[[Endpoint, Endpoint, ConnectionSet], L7Mark | None],
) -> None:
    """Entries for every other pod of the anchor's line. The connection, both sides' rules and the layer-7 mark
    depend only on the other pod's class (node-local pairs aside), so they are worked out once per class."""
    assert me.pod is not None
    pods, pc = r.pods, r.pod_classes.pod_class
    me_name = pods[me.pod].key
    special = r.pod_overrides(me.pod)[0]
    per_class: dict[int, tuple[ConnectionSet, list[str], list[str], list[str], L7Mark | None]] = {}
    for p in np.flatnonzero(bits.any(axis=1)).tolist():
        if p == me.pod:
            continue
        c = -1 - p if special[p] else int(pc[p])
        hit = per_class.get(c)
        if hit is None:
            other = Endpoint(pod=p)
            cs = sets.of(bits[p], restrict)
            src, dst = (other, me) if direction == "in" else (me, other)
            eg, ig = rules.get(src, dst, restrict) if not cs.is_empty else ([], [])
            fams = _families(r, src, dst, restrict) if not cs.is_empty else []
            hit = per_class[c] = (cs, eg, ig, fams, mark(src, dst, cs) if not cs.is_empty else None)
        cs, eg, ig, fams, l7 = hit
        if not cs.is_empty:
            name = pods[p].key
            src_name, dst_name = (name, me_name) if direction == "in" else (me_name, name)
            entries.append(ReachEntry(src_name, dst_name, cs, eg, ig, list(fams), l7))


def who_can_reach(
    analysis: Analysis, target: Target, probe: Probe | None = None, *, by_workload: bool = False
) -> ReachReport:
    """`reach(…, "in")`: the `who-can-reach` command's question."""
    return reach(analysis, target, "in", probe, by_workload=by_workload)


def can_reach(
    analysis: Analysis, source: Target, probe: Probe | None = None, *, by_workload: bool = False
) -> ReachReport:
    """`reach(…, "out")`: the `can-reach` command's question."""
    return reach(analysis, source, "out", probe, by_workload=by_workload)


def render_reach(report: ReachReport, fmt: str) -> str:
    match fmt:
        case "json":
            import json

            return json.dumps(report.to_json(), indent=2) + "\n"
        case "md":
            lines = [
                f"## {report.question} {report.target}" + (f" ({report.probe.render()})" if report.probe else ""),
                "",
                "| src | dst | conn | egress (source side) | ingress (destination side) |",
                "|-----|-----|------|----------------------|----------------------------|",
            ]
            lines += [
                f"| {e.src} | {e.dst} | {md_safe(l7_render(e.conn, e.l7))} | {'<br>'.join(e.egress)} | {'<br>'.join(e.ingress)} |"
                for e in report.entries
            ]
            if not report.entries:
                lines.append("| (none) | | | | |")
            if report.notes:
                lines += ["", *[f"- {n}" for n in report.notes]]
            return "\n".join(lines) + "\n"
        case _:
            out = []
            for e in report.entries:
                via = f" (via {' and '.join(e.families)})" if e.families else ""
                out.append(f"{text_safe(e.line)}{via}")
                out.append(f"    egress:  {'; '.join(e.egress)}")
                out.append(f"    ingress: {'; '.join(e.ingress)}")
            if not report.entries:
                out.append(
                    f"(nothing {'reaches' if report.question == 'who-can-reach' else 'is reachable from'} "
                    f"{report.target}{' on ' + report.probe.render() if report.probe else ''})"
                )
            out += [f"note: {n}" for n in report.notes]
            return "\n".join(out) + "\n"
