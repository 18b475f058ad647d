"""CiliumNetworkPolicy / CiliumClusterwideNetworkPolicy → the tiered form (netpol/engine/tiers.py).

Semantics, from docs.cilium.io (security/policy: "Policy Enforcement Modes", "Rule Basics", "Layer 3
Policies", "Layer 4 Policies", "Deny Policies", "Using Kubernetes Constructs in Policy") and the code they
describe (pkg/policy/api, pkg/k8s/apis/cilium.io/utils/utils.go):

- Allow rules join the NetworkPolicy tier (DEFAULT_TIER): Cilium enforces Kubernetes NetworkPolicies as its own
  rules, and every allow adds to the others (a union). A spec isolates the endpoints it selects in a direction
  when it has ingress/ingressDeny (egress/egressDeny) rules, unless `enableDefaultDeny` says otherwise.
- Deny rules (`ingressDeny`/`egressDeny`) take precedence over every allow of any kind, NetworkPolicies
  included: they live in a tier of their own just before the default tier (CILIUM_DENY_TIER).
- Identity: a pod's labels (less those Cilium's default label filter leaves out: pod-template-hash,
  statefulset.kubernetes.io/pod-name, …) plus `io.kubernetes.pod.namespace`, `io.cilium.k8s.namespace.labels.<key>`,
  `io.cilium.k8s.policy.serviceaccount`, `io.cilium.k8s.policy.cluster` (source `k8s`). A selector key without
  a source (or `any:`/`k8s:`) matches them; `reserved:` and other sources match no pod.
- A CiliumNetworkPolicy's endpointSelector selects in its own namespace; a peer selector (fromEndpoints,
  toEndpoints) that does not name `io.kubernetes.pod.namespace` stays in the policy's namespace (a
  clusterwide policy's: any namespace, pods only); a selector with a `reserved:` key is left as written.
- A rule with no layer-3 member and no toPorts admits nothing (`ingress: [{}]` only switches default deny
  on); toPorts alone admits any peer on those ports; fromCIDR/toCIDR match addresses outside the cluster
  only ("CIDR-based selectors do not match in-cluster entities (pods or nodes)").
- Ports: a number (0: all ports), a name resolved on the destination, endPort; protocol ANY (or absent) is
  TCP, UDP and SCTP. Layer-7 `rules` allow the connection through a filter: `CompiledRule.l7`.
- policyEnforcementMode (`EngineOptions.cilium_enforcement`): `always` isolates every endpoint both ways;
  `never` enforces nothing at all (NetworkPolicies included: Cilium is what enforces them).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import assert_never

import numpy as np

from netpol.engine.compile.universe import LabelColumns, Universe, selector_keys
from netpol.engine.tiers import (
    DEFAULT_TIER,
    Action,
    CompileContext,
    CompiledPeer,
    CompiledPolicy,
    CompiledRule,
    PeerPart,
    Tier,
)
from netpol.model.cilium import (
    CLUSTER_LABEL,
    DEFAULT_CLUSTER_NAME,
    LABEL_SOURCE_ANY,
    LABEL_SOURCE_K8S,
    LABEL_SOURCE_RESERVED,
    NAMESPACE_LABELS_PREFIX,
    POD_NAMESPACE_LABEL,
    SERVICE_ACCOUNT_LABEL,
    CIDRGroupPeer,
    CIDRPeer,
    CiliumPeer,
    CiliumPolicy,
    CiliumRule,
    CiliumSpec,
    EndpointsPeer,
    Entity,
    EntityPeer,
    FQDNPeer,
    GroupsPeer,
    NodesPeer,
    PortProtocol,
    PortRule,
    ServicePeer,
    identity_relevant,
    label_source,
    service_matches,
)
from netpol.model.labels import Labels, LabelSelector, LabelSelectorRequirement
from netpol.model.objects import IPBlock, Node, Service
from netpol.model.vocab import DIRECTIONS, Direction
from netpol.ports import PortAtoms

CILIUM_DENY_TIER = Tier("cilium-deny", 999_999, "Pass", "Cilium deny rules")
"""ingressDeny/egressDeny: before the NetworkPolicy tier, so a deny wins over every allow (Deny Policies docs)."""
CILIUM_NEVER_TIER = Tier("cilium-never", 0, "Pass", "Cilium policyEnforcementMode never")
"""`never`: one tier before every other whose rules allow everything (Cilium enforces nothing)."""

_ALL_PROTOCOLS = ("TCP", "UDP", "SCTP")  # what ANY covers (pkg/policy portProtocols)

# What each entity is in a static input, and what cannot be placed (docs.cilium.io, Layer 3, "Entities based").
_ENTITY_NOTES: dict[Entity, str] = {
    "host": "host is the endpoint's own node: traffic between a pod and its own node is always allowed here "
    "(node-local); node addresses are not placed per endpoint",
    "remote-node": "remote-node: every node's addresses and hostNetwork pods (a pod's own node included, "
    "whose traffic is node-local anyway)",
    "kube-apiserver": "kube-apiserver: its addresses come from the default/kubernetes Endpoints at run time; "
    "not placeable statically",
    "health": "health: Cilium's health endpoints are not in the input; not placeable statically",
    "init": "init: endpoints whose identity is not resolved yet; not placeable statically",
    "ingress": "ingress: Cilium's Envoy ingress endpoint is not in the input; not placeable statically",
    "unmanaged": "unmanaged: endpoints Cilium does not manage; every pod of the input is taken as managed",
}


def identity_key(key: str) -> str:
    """The identity label a selector key reads: its key for the `any`/`k8s` sources, else a key no pod has
    (`reserved:host`, `container:x`)."""
    source, rest = label_source(key)
    return rest if source in (LABEL_SOURCE_ANY, LABEL_SOURCE_K8S) else f"{source}:{rest}"


def identity_selector(sel: LabelSelector) -> LabelSelector:
    """A Cilium selector over identity labels: every requirement as an expression (matchLabels as In), so
    `app` and `k8s:app` both stay (both must hold)."""
    exprs = [LabelSelectorRequirement(identity_key(k), "In", (v,)) for k, v in sel.match_labels.items()]
    exprs += [LabelSelectorRequirement(identity_key(r.key), r.operator, r.values) for r in sel.match_expressions]
    return LabelSelector(Labels(), tuple(exprs))


def names_namespace(sel: LabelSelector) -> bool:
    """Whether a peer selector names the namespace itself (`io.kubernetes.pod.namespace`, source k8s or any)."""
    return any(
        label_source(k)[0] in (LABEL_SOURCE_ANY, LABEL_SOURCE_K8S) and label_source(k)[1] == POD_NAMESPACE_LABEL
        for k in selector_keys(sel)
    )


def without_namespace_match(sel: LabelSelector) -> LabelSelector:
    """A namespaced policy's endpointSelector as Cilium stores it: its `k8s:io.kubernetes.pod.namespace` match
    label replaced by the policy's namespace (done by the caller), so dropped here."""
    kept = {k: v for k, v in sel.match_labels.items() if label_source(k) != (LABEL_SOURCE_K8S, POD_NAMESPACE_LABEL)}
    if len(kept) == len(sel.match_labels):
        return sel
    return LabelSelector(Labels(kept), sel.match_expressions)


def reserved_keys(sel: LabelSelector) -> list[str]:
    return [label_source(k)[1] for k in selector_keys(sel) if label_source(k)[0] == LABEL_SOURCE_RESERVED]


def _pod_label_keys(sel: LabelSelector) -> set[str]:
    """Pod label keys a Cilium selector reads (identity labels of Cilium's own are not pod labels)."""
    out = set()
    for k in selector_keys(sel):
        source, key = label_source(k)
        if source in (LABEL_SOURCE_ANY, LABEL_SOURCE_K8S) and not _is_cilium_identity(key) and identity_relevant(key):
            out.add(key)
    return out


def _is_cilium_identity(key: str) -> bool:
    return key in (POD_NAMESPACE_LABEL, SERVICE_ACCOUNT_LABEL, CLUSTER_LABEL) or key.startswith(NAMESPACE_LABELS_PREFIX)


def _selectors(policy: CiliumPolicy) -> Iterable[LabelSelector]:
    """Every endpoint selector of a policy (subjects and peers)."""
    for spec in policy.specs:
        if spec.endpoint_selector is not None:
            yield spec.endpoint_selector
        for rule in (*spec.ingress, *spec.ingress_deny, *spec.egress, *spec.egress_deny):
            for peer in rule.peers:
                if isinstance(peer, EndpointsPeer):
                    yield peer.selector


def _rules(spec: CiliumSpec) -> Iterable[CiliumRule]:
    return (*spec.ingress, *spec.ingress_deny, *spec.egress, *spec.egress_deny)


class CiliumCompiler:
    """The PolicyCompiler of Cilium's two policy kinds (see the module docstring)."""

    def __init__(self, policies: Sequence[CiliumPolicy], services: Sequence[Service] = ()) -> None:
        self.policies = tuple(policies)
        self.services = tuple(services)
        self._service_peers = [
            peer
            for pol in self.policies
            for spec in pol.specs
            for rule in _rules(spec)
            for peer in rule.peers
            if isinstance(peer, ServicePeer)
        ]

    # ------------------------------------------------------------------------------------ what it reads

    def label_keys(self) -> Iterable[str]:
        keys: set[str] = set()
        for pol in self.policies:
            for sel in _selectors(pol):
                keys |= _pod_label_keys(sel)
        for svc in self._selected_services():
            if svc.selector is not None:
                keys |= set(svc.selector)
        return sorted(keys)

    def mask_count(self) -> int:
        """Per spec an allow and a deny policy, and per rule one compiled rule per toPorts filter (at most)."""
        return sum(
            2 + sum(1 + len(rule.to_ports or ()) for rule in _rules(spec))
            for pol in self.policies
            for spec in pol.specs
        )

    def splits_by_service_account(self) -> bool:
        return any(
            label_source(k)[1] == SERVICE_ACCOUNT_LABEL and label_source(k)[0] in (LABEL_SOURCE_ANY, LABEL_SOURCE_K8S)
            for pol in self.policies
            for sel in _selectors(pol)
            for k in selector_keys(sel)
        )

    def ip_blocks(self, nodes: Sequence[Node]) -> Iterable[IPBlock]:
        blocks: list[IPBlock] = []
        nodes_matter = False
        for pol in self.policies:
            for spec in pol.specs:
                for rule in _rules(spec):
                    for peer in rule.peers:
                        if isinstance(peer, CIDRPeer):
                            blocks.append(IPBlock(peer.cidr, peer.except_))
                        nodes_matter |= isinstance(peer, CIDRPeer | EntityPeer | NodesPeer)
        if nodes_matter:  # node addresses are neither world nor CIDR peers: cut them out
            for n in nodes:
                blocks.extend(IPBlock(f"{ip}/{128 if ':' in ip else 32}") for ip in n.internal_ips)
        return blocks

    def port_cuts(self, universe: Universe) -> Iterable[tuple[str, int, int]]:
        cuts: list[tuple[str, int, int]] = []
        names: set[tuple[str, str]] = set()
        for pol in self.policies:
            for spec in pol.specs:
                for rule in _rules(spec):
                    for pr in rule.to_ports or ():
                        for p in pr.ports:
                            protos = _ALL_PROTOCOLS if p.protocol == "ANY" else (p.protocol,)
                            if isinstance(p.port, str):
                                names.add((p.port, "" if p.protocol == "ANY" else p.protocol))
                            elif p.port:
                                cuts.extend((proto, p.port, p.end_port or p.port) for proto in protos)
        if names:
            for cls in universe.classes:
                for name, proto, num in cls.named_ports:
                    if (name, proto) in names or (name, "") in names:
                        cuts.append((proto, num, num))
        return cuts

    def _selected_services(self) -> list[Service]:
        return [svc for svc in self.services if any(service_matches(p, svc) for p in self._service_peers)]

    # ------------------------------------------------------------------------------------ compile

    def compile(self, ctx: CompileContext) -> Iterable[CompiledPolicy]:
        mode = ctx.options.cilium_enforcement
        if mode == "never":
            yield _never(ctx)
            return
        if self.policies:  # no per-class work for a cluster without Cilium's policies
            env = _Env(ctx, self)
            for pol in self.policies:
                for spec in pol.specs:
                    if spec.host_policy:
                        continue  # host policies (nodeSelector): named by the reader, not evaluated
                    yield from env.spec(pol, spec)
        if mode == "always":
            yield CompiledPolicy(
                kind="Cilium",
                key="cilium policyEnforcementMode always",
                tier=DEFAULT_TIER,
                precedence=(float("inf"), "cilium policyEnforcementMode always"),
                selected=ctx.universe.selectable.copy(),
                isolates=frozenset(DIRECTIONS),
                precedence_text="",
            )


def _never(ctx: CompileContext) -> CompiledPolicy:
    u = ctx.universe
    everyone = CompiledPeer(
        np.ones(u.class_count, dtype=bool), np.ones(len(u.ipspace.atoms), dtype=bool), "every endpoint"
    )
    note = "Cilium's policyEnforcementMode is never: no policy is enforced, NetworkPolicies included"
    rules = {d: (CompiledRule(d, 0, "Allow", (everyone,), ctx.ports.all_bits, note=note),) for d in DIRECTIONS}
    return CompiledPolicy(
        kind="Cilium",
        key="cilium policyEnforcementMode never",
        tier=CILIUM_NEVER_TIER,
        precedence=(0.0, "cilium policyEnforcementMode never"),
        selected=np.ones(u.class_count, dtype=bool),
        isolates=frozenset(),
        ingress=rules["ingress"],
        egress=rules["egress"],
        precedence_text="",
    )


@dataclass(frozen=True, slots=True)
class _PeerMasks:
    classes: np.ndarray
    atoms: np.ndarray
    note: str = ""
    parts: tuple[PeerPart, ...] = ()  # the conditions it ANDs; () = one condition, the peer itself


class _Env:
    """One compile: the identity columns of the classes, node and external masks, cached selector matches."""

    def __init__(self, ctx: CompileContext, compiler: CiliumCompiler) -> None:
        self.ctx = ctx
        u = self.u = ctx.universe
        self.services = ctx.services or compiler.services
        ns_labels = {ns.name: ns.labels for ns in u.namespaces}
        identities = []
        for c in u.classes:
            ident = {k: v for k, v in c.labels.items() if identity_relevant(k)}
            ident[POD_NAMESPACE_LABEL] = c.namespace
            for k, v in ns_labels.get(c.namespace, {}).items():
                ident[NAMESPACE_LABELS_PREFIX + k] = v
            if c.service_account:
                ident[SERVICE_ACCOUNT_LABEL] = c.service_account
            ident[CLUSTER_LABEL] = DEFAULT_CLUSTER_NAME
            identities.append(ident)
        self.columns = LabelColumns(identities)
        self.n_atoms = len(u.ipspace.atoms)
        self.no_classes = np.zeros(u.class_count, dtype=bool)
        self.no_atoms = np.zeros(self.n_atoms, dtype=bool)
        self.host_classes = ~u.selectable  # hostNetwork pods: they carry their node's identity
        self.node_atoms = self.no_atoms.copy()
        for n in ctx.nodes:
            for ip in n.internal_ips:
                try:
                    self.node_atoms[u.ipspace.atom_index(ip)] = True
                except KeyError:  # an IPv6 node address in a space without IPv6
                    pass
        self.pod_atoms = self.no_atoms.copy()
        for fam in u.class_family_atoms:
            self.pod_atoms[fam[fam >= 0]] = True

    def match(self, sel: LabelSelector) -> np.ndarray:
        """Classes whose identity labels a Cilium selector matches (pods only: hostNetwork pods are not endpoints)."""
        return self.columns.match(identity_selector(sel)) & self.u.selectable

    # ---------------------------------------------------------------------------------------- specs

    def spec(self, pol: CiliumPolicy, spec: CiliumSpec) -> Iterable[CompiledPolicy]:
        u = self.u
        assert spec.endpoint_selector is not None
        subject = spec.endpoint_selector
        if not pol.clusterwide:
            # utils.go ParseToCiliumRule: the policy's own namespace, always, written over any
            # `k8s:io.kubernetes.pod.namespace` match label (a key of another source stays, ANDed).
            subject = without_namespace_match(subject)
        selected = self.match(subject)
        if not pol.clusterwide:
            selected = selected & u.in_namespace(pol.namespace)
        key = pol.spec_key(spec)
        isolates = frozenset(d for d in DIRECTIONS if spec.default_deny(d))
        allow = {d: self.rules(pol, spec, d, deny=False) for d in DIRECTIONS}
        if isolates or any(allow.values()):
            yield CompiledPolicy(
                kind=pol.kind,
                key=key,
                tier=DEFAULT_TIER,
                precedence=(float("inf"), key),
                selected=selected,
                isolates=isolates,
                ingress=allow["ingress"],
                egress=allow["egress"],
                source=pol,
                precedence_text="",
                namespace=pol.namespace,
            )
        deny = {d: self.rules(pol, spec, d, deny=True) for d in DIRECTIONS}
        if any(deny.values()):
            yield CompiledPolicy(
                kind=pol.kind,
                key=f"{key} deny",
                tier=CILIUM_DENY_TIER,
                precedence=(float("inf"), key),
                selected=selected,
                isolates=frozenset(),
                ingress=deny["ingress"],
                egress=deny["egress"],
                source=pol,
                precedence_text="",
                namespace=pol.namespace,
            )

    def rules(
        self, pol: CiliumPolicy, spec: CiliumSpec, direction: Direction, *, deny: bool
    ) -> tuple[CompiledRule, ...]:
        out: list[CompiledRule] = []
        for rule in spec.rules(direction, deny=deny):
            out.extend(self.rule(pol, rule))
        return tuple(out)

    def rule(self, pol: CiliumPolicy, rule: CiliumRule) -> list[CompiledRule]:
        ports = self.ctx.ports
        action: Action = "Deny" if rule.deny else "Allow"
        notes = []
        if rule.icmps:
            notes.append(f"icmps ({', '.join(rule.icmps)}): ICMP is not modelled; this rule admits no TCP/UDP/SCTP")
        if rule.authentication == "required":
            notes.append("authentication.mode required: Cilium admits it only between mutually authenticated endpoints")
        elif rule.authentication == "test-always-fail":
            notes.append("authentication.mode test-always-fail: Cilium drops it (a test mode)")
        if not rule.peers:
            if rule.to_ports is None and not rule.icmps:
                # `ingress: [{}]`: no peer selected, nothing admitted (pkg/policy rule.go: an L3-only rule
                # without selectors allows nothing); the rule only puts the endpoints in default deny.
                note = "no peer and no toPorts: admits nothing (it only enables default deny)"
                return [
                    CompiledRule(
                        rule.direction,
                        rule.index,
                        action,
                        (),
                        ports.no_bits.copy(),
                        ports_text="no ports",
                        note="; ".join([note, *notes]),
                        source=rule,
                    )
                ]
            u = self.u
            peers: tuple[CompiledPeer, ...] = (
                CompiledPeer(
                    np.ones(u.class_count, dtype=bool),
                    np.ones(self.n_atoms, dtype=bool),
                    "any peer (toPorts without a peer field)",
                ),
            )
        else:
            peers = tuple(self.peer(pol, rule, p) for p in rule.peers)
        if rule.to_ports is None:
            bits = ports.no_bits.copy() if rule.icmps else ports.all_bits.copy()
            return [
                CompiledRule(
                    rule.direction,
                    rule.index,
                    action,
                    peers,
                    bits,
                    ports_text="ICMP only" if rule.icmps else "all ports",
                    note="; ".join(notes),
                    source=rule,
                )
            ]
        plain = [pr for pr in rule.to_ports if pr.l7 is None]
        filtered = [pr for pr in rule.to_ports if pr.l7 is not None]
        out = []
        if plain or not filtered:
            out.append(self._ports_rule(rule, action, peers, plain, notes, l7=""))
        for pr in filtered:
            assert pr.l7 is not None
            out.append(self._ports_rule(rule, action, peers, [pr], notes, l7=pr.l7.render()))
        return out

    def _ports_rule(
        self,
        rule: CiliumRule,
        action: Action,
        peers: tuple[CompiledPeer, ...],
        port_rules: Sequence[PortRule],
        notes: list[str],
        l7: str,
    ) -> CompiledRule:
        static, named = port_bits(self.ctx.ports, [p for pr in port_rules for p in pr.ports])
        text = ", ".join(p.render() for pr in port_rules for p in pr.ports) or "no ports"
        note = list(notes)
        if text == "no ports":
            note.append("toPorts lists no ports: admits nothing")
        return CompiledRule(
            rule.direction,
            rule.index,
            action,
            peers,
            static,
            named,
            ports_text=text,
            l7=l7,
            note="; ".join(note),
            source=rule,
        )

    # ---------------------------------------------------------------------------------------- peers

    def peer(self, pol: CiliumPolicy, rule: CiliumRule, peer: CiliumPeer) -> CompiledPeer:
        side = "from" if rule.direction == "ingress" else "to"
        masks, text = self._peer(pol, side, peer)
        parts = masks.parts
        if not parts:  # one condition: the peer as written (never empty: an empty `parts` means "everyone")
            match peer:
                case CIDRPeer():
                    parts = (PeerPart("address", text, masks.classes, masks.atoms, 6 if ":" in peer.cidr else 4),)
                case NodesPeer():
                    parts = (PeerPart("node", text, masks.classes, masks.atoms),)
                case ServicePeer():
                    parts = (PeerPart("pod", text, masks.classes),)
                case _:
                    parts = (PeerPart("other", text, masks.classes, masks.atoms),)
        return CompiledPeer(masks.classes, masks.atoms, text, parts, note=masks.note)

    def _peer(self, pol: CiliumPolicy, side: str, peer: CiliumPeer) -> tuple[_PeerMasks, str]:
        u = self.u
        match peer:
            case EndpointsPeer(selector=sel):
                pods = self.match(sel)
                classes = pods
                reserved = reserved_keys(sel)
                where = ""
                parts = [PeerPart("pod", f"{side}Endpoints {sel.render()}", pods)]
                if reserved:
                    where = ""  # utils.go getEndpointSelector: reserved selectors are left as written
                elif not names_namespace(sel):
                    if pol.clusterwide:
                        where = " (any namespace)"
                    else:
                        own = u.in_namespace(pol.namespace)
                        classes = pods & own
                        where = f" (namespace {pol.namespace}, the policy's own)"
                        parts.insert(0, PeerPart("namespace", f"the policy's namespace {pol.namespace}", own))
                text = f"{side}Endpoints {sel.render()}{where}"
                if reserved:
                    entity = reserved[0] if len(reserved) == 1 and not sel.match_expressions else ""
                    if entity in _RESERVED_ENTITIES:
                        m = self.entity(entity)  # type: ignore[arg-type]
                        return _PeerMasks(m.classes | classes, m.atoms, m.note), text
                    return _PeerMasks(classes, self.no_atoms, "reserved: labels are matched against pods only"), text
                return _PeerMasks(classes, self.no_atoms, parts=tuple(parts)), text
            case CIDRPeer():
                atoms = u.ipspace.block_atoms(IPBlock(peer.cidr, peer.except_))
                covered = []
                if (atoms & self.pod_atoms).any():
                    covered.append("pod")
                if (atoms & self.node_atoms).any():
                    covered.append("node")
                note = ""
                if covered:
                    note = (
                        f"covers {' and '.join(covered)} addresses, which Cilium's CIDR rules do not match "
                        "(they match addresses outside the cluster only)"
                    )
                field = f"{side}CIDRSet" if peer.set_rule else f"{side}CIDR"
                return _PeerMasks(self.no_classes, atoms & ~self.node_atoms, note), f"{field} {peer.render()}"
            case CIDRGroupPeer():
                what = (
                    f"cidrGroupRef {peer.ref}"
                    if peer.ref
                    else f"cidrGroupSelector {peer.selector.render() if peer.selector else ''}"
                )
                note = "its CIDRs live in CiliumCIDRGroup objects, which netpol does not read"
                return _PeerMasks(self.no_classes, self.no_atoms, note), f"{side}CIDRSet {what}"
            case EntityPeer(entity=entity):
                return self.entity(entity), f"{side}Entities {entity}"
            case ServicePeer():
                return self.service(peer), f"toServices {_service_text(peer)}"
            case FQDNPeer():
                note = "DNS names are resolved at run time; netpol cannot place the addresses (no pod matches)"
                return _PeerMasks(self.no_classes, self.no_atoms, note), f"toFQDNs {peer.render()}"
            case NodesPeer(selector=sel):
                chosen = {n.name for n in self.ctx.nodes if sel.matches(n.labels)}
                classes = np.array([c.host_network and c.host_node in chosen for c in u.classes], dtype=bool)
                atoms = self.no_atoms.copy()
                for n in self.ctx.nodes:
                    if n.name in chosen:
                        for ip in n.internal_ips:
                            try:
                                atoms[u.ipspace.atom_index(ip)] = True
                            except KeyError:
                                pass
                note = "takes effect with Cilium's enable-node-selector-labels (nodes are remote-node otherwise)"
                return _PeerMasks(classes, atoms, note), f"{side}Nodes {sel.render()}"
            case GroupsPeer(provider=provider):
                note = f"{provider} groups are resolved by Cilium's operator from the cloud; not placeable statically"
                return _PeerMasks(self.no_classes, self.no_atoms, note), f"{side}Groups {provider}"
            case _:
                assert_never(peer)

    def entity(self, entity: Entity) -> _PeerMasks:
        every = np.ones(self.u.class_count, dtype=bool)
        note = _ENTITY_NOTES.get(entity, "")
        match entity:
            case "all":
                return _PeerMasks(every, np.ones(self.n_atoms, dtype=bool))
            case "world":
                return _PeerMasks(self.no_classes, ~self.node_atoms)
            case "cluster":
                return _PeerMasks(every, self.node_atoms.copy())
            case "remote-node":
                return _PeerMasks(self.host_classes.copy(), self.node_atoms.copy(), note)
            case "host" | "kube-apiserver" | "health" | "init" | "ingress" | "unmanaged":
                # `host` is relative to the owner (its own node): its pods' traffic with their own node is already
                # node-local, always allowed (Reachability.always_allowed); the node's address as a peer per owner
                # is not placed (a peer holds the same endpoints for every owner). The note says so in explain.
                return _PeerMasks(self.no_classes, self.no_atoms, note)
            case "none":
                return _PeerMasks(self.no_classes, self.no_atoms)
            case _:
                assert_never(entity)

    def service(self, peer: ServicePeer) -> _PeerMasks:
        u = self.u
        classes = self.no_classes.copy()
        unplaced = []
        found = 0
        for svc in self.services:
            if not service_matches(peer, svc):
                continue
            found += 1
            if svc.selector is None:
                unplaced.append(svc.key)
                continue
            pods = self.columns.match(LabelSelector(svc.selector)) & u.selectable
            classes |= pods & u.in_namespace(svc.namespace)
        notes = []
        if not found:
            notes.append("matches no Service of the input")
        if unplaced:
            notes.append(
                f"{', '.join(unplaced)}: no selector; its addresses come from EndpointSlices, which are not read"
            )
        return _PeerMasks(classes, self.no_atoms, "; ".join(notes))


# The reserved identities a `reserved:<name>` selector label names, as the entities of the same name.
_RESERVED_ENTITIES: frozenset[str] = frozenset(
    {"host", "remote-node", "world", "health", "init", "kube-apiserver", "ingress", "unmanaged"}
)


def _service_text(peer: ServicePeer) -> str:
    ns = peer.namespace or "any namespace"
    if peer.selector is not None:
        return f"k8sServiceSelector {peer.selector.render()} in {ns}"
    if peer.name:
        return f"k8sService {peer.namespace + '/' if peer.namespace else ''}{peer.name}"
    return "(empty)"


def port_bits(ports: PortAtoms, items: Sequence[PortProtocol]) -> tuple[np.ndarray, tuple[tuple[str, str], ...]]:
    """(static bits, named (name, protocol; "" = any)) of toPorts ports (Layer 4 docs; ANY = TCP, UDP, SCTP)."""
    static = ports.no_bits.copy()
    named: list[tuple[str, str]] = []
    for p in items:
        protos = _ALL_PROTOCOLS if p.protocol == "ANY" else (p.protocol,)
        if isinstance(p.port, str):
            named.append((p.port, "" if p.protocol == "ANY" else p.protocol))
        elif p.port == 0:
            for proto in protos:
                static |= ports.range_bits(proto)
        else:
            for proto in protos:
                static |= ports.range_bits(proto, p.port, p.end_port or p.port)
    return static, tuple(dict.fromkeys(named))
