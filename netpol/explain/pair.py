"""`explain SRC DST`: the verdict of one pair with both sides' reasons.

The verdict and the rules come from the engine's one "why" (`netpol.engine.provenance.verdict`); this module
scores the rules of the isolating policies against the peer to name the nearest miss when nothing
allows, and words the result (rendering lives in `render`).
"""

from __future__ import annotations

from dataclasses import dataclass

from netpol.engine import Candidate, Endpoint, Exception_, Reachability, SideVerdict, common_families, verdict
from netpol.errors import UsageError
from netpol.explain.reasons import peer_words, restrict_to
from netpol.model.families import family, family_name
from netpol.model.objects import Pod
from netpol.model.vocab import Direction
from netpol.pipeline import Analysis
from netpol.ports import ConnectionSet
from netpol.readout.l7 import L7Mark, endpoint_mark
from netpol.targets import Probe, Target

EP = Endpoint  # the name explain's callers know


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


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a side's tier walk, as explain shows it: a rule that matched (and what it decided), or a
    tier's end."""

    tier: str  # the tier's label: "Admin tier", "NetworkPolicy tier", …
    text: str  # "ANP a ingress rule #1 'x' (Deny) via namespaces {…}" or "end: isolated by …"
    action: str  # Allow | Deny | Pass | Log | end
    ports: ConnectionSet  # the ports this step decided (within the asked ports)


@dataclass(frozen=True)
class SideExplanation:
    direction: Direction  # egress (the source's side) | ingress (the destination's side)
    endpoint: str
    applies: bool
    isolated: bool
    policies: tuple[str, ...]
    allowed: ConnectionSet  # what this side lets through towards the peer (within the asked ports)
    allows: tuple[RuleCheck, ...] = ()
    misses: tuple[RuleCheck, ...] = ()
    # The tier walk, in evaluation order, when some policy of another tier than NetworkPolicy's holds the pair:
    # each rule that decided ports here (or matched and found them decided) and each tier end.
    steps: tuple[Step, ...] = ()
    # The words for "nothing selects this side": "NetworkPolicy" while NetworkPolicies are the only kind evaluated
    # (as the API's own wording), "policy" once another kind (Cilium's, Calico's, …) could have.
    selector_word: str = "NetworkPolicy"

    @property
    def ok(self) -> bool:
        return not self.allowed.is_empty

    def lines(self) -> list[str]:
        return side_lines(self)

    def to_json(self) -> dict[str, object]:
        return side_json(self)


@dataclass(frozen=True)
class FamilyExplanation:
    """One address family of a pair in a cluster of several families: a connection uses one at both ends."""

    family: str  # "IPv4" | "IPv6"
    src_address: str
    dst_address: str
    allowed: bool
    connection: ConnectionSet
    egress: SideExplanation | None
    ingress: SideExplanation | None


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
    # Dual-stack: per address family both ends have, its own verdict and sides (the sides above are then
    # those of the first family that allows, else of the first family)
    via: tuple[FamilyExplanation, ...] = ()
    l7: L7Mark | None = None  # the connection's ports allowed only through layer-7 filters (Cilium), and those

    def lines(self) -> list[str]:
        return explanation_lines(self)

    def to_json(self) -> dict[str, object]:
        return explanation_json(self)


def _rule_check(
    analysis: Analysis,
    cand: Candidate,
    peer: Endpoint,
    restrict: ConnectionSet | None,
    dst_name: str,
    family: int | None = None,
    l7_effect: bool = True,
) -> RuleCheck:
    r = analysis.reachability
    version = None if family is None else r.pod_classes.families[family]
    best = cand.best
    peer_ok = cand.holds
    if best is None:
        reason, score = "the rule has no peer: it holds nothing", 0
    else:
        held = next((m for m in cand.peers if m.holds), best)
        reason, score = peer_words(analysis, held, peer, version), held.score
    rule = cand.rule
    contribution = r.ports.to_set(cand.bits)
    restricted = restrict_to(contribution, restrict)
    port_ok = not restricted.is_empty
    if port_ok:
        port_reason = ""
    elif contribution.is_empty:
        port_reason = f"ports [{rule.ports_text}] resolve to no port on {dst_name} (named ports are looked up there)"
    else:
        want = restrict.render() if restrict is not None else "any"
        port_reason = f"port {want} is not in [{contribution.render()}] (rule ports: {rule.ports_text})"
    if rule.l7 and l7_effect:  # Cilium's layer-7 rules: the connection is allowed, requests go through the filter
        reason += f"; only through the layer-7 filter {rule.l7}"
    elif rule.l7:  # docs.cilium.io security/policy/layer7: beside a plain layer-4 rule the L7 part has no effect
        reason += f"; its layer-7 filter {rule.l7} has no effect here: another rule allows the same port without one"
    if rule.note:
        reason += f" ({rule.note})"
    total = (100 if peer_ok else score) * 2 + int(port_ok)
    return RuleCheck(cand.label, peer_ok, reason, rule.ports_text, port_ok, port_reason, restricted, total)


def _steps(analysis: Analysis, sv: SideVerdict, restrict: ConnectionSet | None) -> tuple[Step, ...]:
    """The tier walk in words, when it is more than NetworkPolicy's union (some other tier holds the pair), and
    the rules of the owner's policies whose peers a static input cannot place (a note, e.g. domainNames)."""
    r = analysis.reachability
    hit_rules = {id(h.rule) for h in sv.hits}
    noted = [c for c in sv.candidates if id(c.rule) not in hit_rules and any(p.note for p in c.rule.peers)]
    if (
        not noted
        and all(h.tier.name == "default" and h.policy.kind == "NetworkPolicy" for h in sv.hits)
        and all(e.tier.name == "default" for e in sv.ends)
    ):
        return ()
    Key = tuple[float, str, tuple[float, str], int]
    out: list[tuple[Key, Step]] = []

    def label(precedence_text: str, rule_label: str) -> str:
        return f"{rule_label}, {precedence_text}," if precedence_text else rule_label

    for h in sv.hits:
        if restrict is not None and restrict_to(r.ports.to_set(h.bits), restrict).is_empty:
            continue  # the rule holds the pair, not the port asked about
        decided = restrict_to(r.ports.to_set(h.decided), restrict)
        via = "; ".join(h.peer_texts())
        rule_label = label(h.policy.precedence_text, h.label)
        text = f"{rule_label} via {via}" if via else rule_label
        if h.rule.l7:
            text += f", through the layer-7 filter {h.rule.l7}"
        if h.rule.note:
            text += f" ({h.rule.note})"
        if decided.is_empty and h.action != "Log":
            text += " — matched, but an earlier rule had decided these ports"
        key = (h.tier.order, h.tier.name, h.policy.precedence, h.rule.index)
        out.append((key, Step(h.tier.label, text, h.action, decided)))
    for c in noted:
        why = "; ".join(f"{p.text}: {p.note}" for p in c.rule.peers if p.note)
        text = f"{label(c.policy.precedence_text, c.label)} holds nothing here ({why})"
        key = (c.policy.tier.order, c.policy.tier.name, c.policy.precedence, c.rule.index)
        out.append((key, Step(c.policy.tier.label, text, c.rule.action, ConnectionSet.none())))
    for e in sv.ends:
        denied = restrict_to(r.ports.to_set(e.denied), restrict)
        if denied.is_empty:
            continue
        text = f"end of tier: isolated by {', '.join(e.policies)}; what no rule allowed is denied"
        last = (float("inf"), "\uffff")  # after every rule of the tier
        out.append(((e.tier.order, e.tier.name, last, 1 << 30), Step(e.tier.label, text, "end", denied)))
    return tuple(step for _, step in sorted(out, key=lambda x: x[0]))


def explain_side(
    analysis: Analysis,
    sv: SideVerdict,
    src: Endpoint,
    dst: Endpoint,
    restrict: ConnectionSet | None = None,
    family: int | None = None,
) -> SideExplanation:
    """One side's words from the engine's side verdict (over one address family, or all): the tier walk, the
    allowing rules, or the nearest misses."""
    r = analysis.reachability
    direction = sv.direction
    me, other = (src, dst) if direction == "egress" else (dst, src)
    name = me.name(r)
    if not sv.applies:
        return SideExplanation(direction, name, False, False, (), restrict_to(ConnectionSet.all(), restrict))
    allowed = restrict_to(sv.allowed(r), restrict)
    steps = _steps(analysis, sv, restrict)
    if not sv.isolated:
        word = "NetworkPolicy" if all(cp.kind == "NetworkPolicy" for cp in r.policies) else "policy"
        return SideExplanation(direction, name, True, False, (), allowed, steps=steps, selector_word=word)
    effect = _l7_effect(analysis, sv, src, dst)
    checks = [
        _rule_check(analysis, c, other, restrict, dst.name(r), family, effect.get(id(c.rule), True))
        for c in sv.candidates
    ]
    allowing = {id(h.rule) for h in sv.allowing}
    allows = tuple(c for c, cand in zip(checks, sv.candidates, strict=True) if id(cand.rule) in allowing and c.port_ok)
    misses: tuple[RuleCheck, ...] = ()
    if not allows:
        # A nearest miss is an allow-list rule of a policy that isolates this side (a rule of an ordered tier
        # that matched, e.g. an Admin Pass, is in the tier walk, not a miss).
        near = [
            c
            for c, cand in zip(checks, sv.candidates, strict=True)
            if cand.rule.action == "Allow" and direction in cand.policy.isolates
        ]
        best = max((c.score for c in near), default=0)
        misses = tuple(c for c in near if c.score == best)[:3]
    return SideExplanation(direction, name, True, True, sv.policies, allowed, allows, misses, steps)


def _l7_effect(analysis: Analysis, sv: SideVerdict, src: Endpoint, dst: Endpoint) -> dict[int, bool]:
    """Per layer-7 rule holding the pair (by id): whether its filter applies to some port it allowed here (a plain
    allow of the same port on this side wins). Empty when no rule of the side has a filter."""
    r = analysis.reachability
    l7 = [h for h in sv.hits if h.rule.l7]
    if not l7:
        return {}
    filtered = r.filtered_block([r.eid(src)], [r.eid(dst)], (sv.direction,))[0, 0]
    return {id(h.rule): bool((h.decided & filtered).any()) for h in l7}


def pending_note(pod: Pod) -> str:
    state = pod.phase or "not running"
    reason = f": {pod.reason}" if pod.reason else ""
    return f"{pod.key} does not run ({state}{reason}), so it takes part in no traffic"


def explain_pair(
    analysis: Analysis,
    src: Endpoint,
    dst: Endpoint,
    probe: Probe | None = None,
    restrict: ConnectionSet | None = None,
) -> Explanation:
    """Why src can (not) reach dst. `restrict`: the destination ports that matter (probe, Service ports)."""
    r = analysis.reachability
    if src.atom is not None and dst.atom is not None:
        raise UsageError("both ends are external addresses: this cluster's policies say nothing about that")
    if restrict is None and probe is not None:
        restrict = probe.as_set()
    notes: list[str] = []
    src_name, dst_name = src.name(r), dst.name(r)
    v = verdict(r, src, dst)
    cs = restrict_to(v.connection(r), restrict)
    if v.exception is Exception_.LOOPBACK:
        notes.append("a pod reaching itself (loopback) is always allowed; policies do not apply")
        return Explanation(src_name, dst_name, probe, not cs.is_empty, cs, None, None, tuple(notes))
    if src.pod is not None and dst.pod is not None:
        s, d = r.pods[src.pod], r.pods[dst.pod]
        if v.exception is Exception_.NODE_LOCAL:
            host, other = (s, d) if s.host_network else (d, s)
            notes.append(
                f"{host.key} is a hostNetwork pod on {other.key}'s node {host.node_name}: traffic to and from a pod's "
                "own node is always allowed (kubelet probes), whatever the policies say"
            )
        elif s.host_network:
            notes.append(f"{s.key} is a hostNetwork pod: it speaks with node {s.node_name or '?'}'s address")
    if restrict is not None and restrict.is_empty:
        notes.append("no destination port is asked (the Service has no such port, or its targetPort does not resolve)")
    families = common_families(r, src, dst)
    if v.exception is Exception_.NONE and not families:
        notes.insert(0, no_common_family_note(analysis, src, dst))
        return Explanation(src_name, dst_name, probe, False, ConnectionSet.none(), None, None, tuple(notes))
    if r.pod_classes.multi_family and v.exception is Exception_.NONE:
        via = tuple(_explain_family(analysis, src, dst, k, restrict) for k in families)
        for k, version in enumerate(r.pod_classes.families):
            lacking = [ep.name(r) for ep in (src, dst) if not r.eid_family[k, r.eid(ep)]]
            if k not in families and len(lacking) == 1:
                notes.append(
                    f"{lacking[0]} has no {family_name(version)} address, so the pair cannot use {family_name(version)}"
                )
        chosen = next((f for f in via if f.allowed), via[0])
        return Explanation(
            src_name,
            dst_name,
            probe,
            not cs.is_empty,
            cs,
            chosen.egress,
            chosen.ingress,
            tuple(notes),
            via,
            _mark(r, src, dst, cs),
        )
    eg = explain_side(analysis, v.egress, src, dst, restrict)
    ig = explain_side(analysis, v.ingress, src, dst, restrict)
    if cs.is_empty and eg.ok and ig.ok:
        notes.append(f"egress allows {eg.allowed.render()} and ingress allows {ig.allowed.render()}: no port in common")
    return Explanation(src_name, dst_name, probe, not cs.is_empty, cs, eg, ig, tuple(notes), l7=_mark(r, src, dst, cs))


def _mark(r: Reachability, src: Endpoint, dst: Endpoint, cs: ConnectionSet) -> L7Mark | None:
    """The layer-7 mark of the connection shown (cut to the asked ports)."""
    mark = endpoint_mark(r, src, dst) if not cs.is_empty else None
    return mark.restrict(cs) if mark is not None else None


def address_of(analysis: Analysis, ep: Endpoint, version: int) -> str:
    """An endpoint's address of one family: a pod's status.podIPs entry, an external range as is."""
    r = analysis.reachability
    if ep.atom is not None:
        return r.atoms[ep.atom].render()
    return r.pods[ep.pod].ip_of(version) or "no address"  # type: ignore[index]


def _addresses_text(analysis: Analysis, ep: Endpoint) -> str:
    r = analysis.reachability
    if ep.atom is not None:
        atom = r.atoms[ep.atom]
        return f"{family_name(atom.version)} {atom.render()}"
    ips = r.pods[ep.pod].pod_ips  # type: ignore[index]
    return ", ".join(f"{family_name(family(ip))} {ip}" for ip in ips) or "no address"


def no_common_family_note(analysis: Analysis, src: Endpoint, dst: Endpoint) -> str:
    r = analysis.reachability
    return (
        f"no address family in common ({src.name(r)}: {_addresses_text(analysis, src)}; {dst.name(r)}: "
        f"{_addresses_text(analysis, dst)}): a connection uses one address family at both ends"
    )


def _explain_family(
    analysis: Analysis, src: Endpoint, dst: Endpoint, k: int, restrict: ConnectionSet | None
) -> FamilyExplanation:
    r = analysis.reachability
    version = r.pod_classes.families[k]
    v = verdict(r, src, dst, k)
    cs = restrict_to(v.connection(r), restrict)
    eg = explain_side(analysis, v.egress, src, dst, restrict, k)
    ig = explain_side(analysis, v.ingress, src, dst, restrict, k)
    return FamilyExplanation(
        family_name(version),
        address_of(analysis, src, version),
        address_of(analysis, dst, version),
        not cs.is_empty,
        cs,
        eg,
        ig,
    )


def endpoints(t: Target) -> list[Endpoint]:
    return [Endpoint(pod=i) for i in t.pods] + [Endpoint(atom=a) for a in t.atoms]


def explain_targets(analysis: Analysis, src: Target, dst: Target, probe: Probe | None = None) -> list[Explanation]:
    """One explanation per (source, destination) endpoint pair; Pending pods explained as not running."""
    r = analysis.reachability
    none = ConnectionSet.none()
    out = [Explanation(p.key, dst.text, probe, False, none, None, None, (pending_note(p),)) for p in src.pending]
    out += [Explanation(src.text, p.key, probe, False, none, None, None, (pending_note(p),)) for p in dst.pending]
    for s in endpoints(src):
        for d in endpoints(dst):
            restrict = dst.dst_ports(r.pods[d.pod], probe) if d.pod is not None else (probe.as_set() if probe else None)
            out.append(explain_pair(analysis, s, d, probe, restrict))
    return out


# ---------------------------------------------------------------------------- words and JSON


def _step_lines(side: SideExplanation) -> list[str]:
    """The tier walk, when a tier besides NetworkPolicy's holds the pair: tiers in order, first match per port."""
    if not side.steps:
        return []
    out = ["  tiers in order (inside a tier the first matching rule decides each port; Pass hands it on):"]
    for step in side.steps:
        what = step.ports.render() if not step.ports.is_empty else "nothing"
        verb = "denies" if step.action == "end" else f"{step.action} on"
        out.append(f"    [{step.tier}] {step.text}: {verb} {what}")
    out.append(f"    result for this side: {side.allowed.render()}")
    return out


def side_lines(side: SideExplanation) -> list[str]:
    head = f"{side.direction} ({side.endpoint}):"
    if not side.applies:
        return [f"{head} external endpoint, no policy of this cluster filters there"]
    if not side.isolated:
        if side.steps:  # ordered tiers hold the pair: they decide, though no policy isolates the owner
            return [
                f"{head} no policy isolates it for {side.direction}; the tiers below decide → {side.allowed.render()}",
                *_step_lines(side),
            ]
        return [
            f"{head} not isolated (no {side.selector_word} selects it for {side.direction}) → {side.allowed.render()}"
        ]
    out = [f"{head} isolated by {', '.join(side.policies)}"]
    if side.allows:
        out += [f"  allowed by {c.render()}" for c in side.allows]
        if side.allowed.is_empty:
            out.append("  but none of those ports is the one asked for")
    else:
        out.append("  no rule matches" + (": nearest miss" if side.misses else " (the policies have no rules)"))
        out += [f"  - {c.render()}" for c in side.misses]
    return out + _step_lines(side)


def side_json(side: SideExplanation) -> dict[str, object]:
    return {
        "direction": side.direction,
        "endpoint": side.endpoint,
        "applies": side.applies,
        "isolated": side.isolated,
        "policies": list(side.policies),
        "allowed": side.allowed.to_json(),
        "allowed_text": side.allowed.render(),
        "allowed_by": [{"rule": c.label, "peer": c.peer_reason, "ports": c.ports} for c in side.allows],
        "nearest_miss": [c.render() for c in side.misses],
        "tiers": [
            {"tier": st.tier, "step": st.text, "action": st.action, "ports": st.ports.render()} for st in side.steps
        ],
    }


def explanation_lines(e: Explanation) -> list[str]:
    what = e.probe.render() if e.probe else e.connection.render()
    if e.allowed:
        head = f"ALLOWED  {e.src} => {e.dst} : {what}" + (e.l7.suffix(e.connection) if e.l7 is not None else "")
    else:
        head = f"DENIED   {e.src} => {e.dst}" + (f" : {e.probe.render()}" if e.probe else "")
    out = [head]
    if e.via:  # dual-stack: one block per address family both ends have
        for f in e.via:
            verdict = f"ALLOWED {f.connection.render()}" if f.allowed else "DENIED"
            out.append(f"  via {f.family} ({f.src_address} => {f.dst_address}): {verdict}")
            for side in (f.egress, f.ingress):
                if side is not None:
                    out += ["    " + line for line in side_lines(side)]
    else:
        for side in (e.egress, e.ingress):
            if side is not None:
                out += ["  " + line for line in side_lines(side)]
    out += [f"  note: {n}" for n in e.notes]
    return out


def explanation_json(e: Explanation) -> dict[str, object]:
    return {
        "src": e.src,
        "dst": e.dst,
        "port": None if e.probe is None else {"port": e.probe.port, "protocol": e.probe.protocol},
        "allowed": e.allowed,
        "connection": e.connection.to_json(),
        "text": e.connection.render(),
        **({"l7": e.l7.to_json()} if e.l7 is not None else {}),
        "egress": side_json(e.egress) if e.egress else None,
        "ingress": side_json(e.ingress) if e.ingress else None,
        "notes": list(e.notes),
        "via": [
            {
                "family": f.family,
                "src_address": f.src_address,
                "dst_address": f.dst_address,
                "allowed": f.allowed,
                "connection": f.connection.to_json(),
                "text": f.connection.render(),
                "egress": side_json(f.egress) if f.egress else None,
                "ingress": side_json(f.ingress) if f.ingress else None,
            }
            for f in e.via
        ],
    }
