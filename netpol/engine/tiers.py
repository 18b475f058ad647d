"""The one compiled form of every policy kind: policies in tiers, rules with per-peer masks, port bits.

Every policy kind netpol evaluates (Kubernetes NetworkPolicy, v1alpha1 Admin/BaselineAdminNetworkPolicy,
v1alpha2 ClusterNetworkPolicy, Cilium's and Calico's policies) is read into the model by its reader and
compiled by its compiler (netpol/engine/compile/<kind>.py) into `CompiledPolicy` values placed in a `Tier`.
The evaluation (netpol/engine/evaluate.py) knows nothing of kinds; adding a kind is a reader and a compiler.

The evaluation, per side (ingress decided at the destination, egress at the source), per port, per pair:

1. Tiers are walked by ascending `Tier.order`.
2. Inside a tier, rules are walked in `(policy.precedence, rule index)` order; the first rule whose subject
   holds the owner, one of whose peers holds the other end, and whose port bits hold the port, decides:
   `Allow` and `Deny` end the evaluation; `Pass` leaves this tier (the next tier decides); `Log` matches and
   goes on (Calico). A tier whose rules are all `Allow` is a union of allow-lists (NetworkPolicy): the order
   inside it does not matter and it is computed by OR-ing, the fast path.
3. When no rule of a tier decided, an owner that a policy of the tier *isolates* in this direction
   (`CompiledPolicy.isolates`, over `selected`) gets the tier's `end`: `Deny` (NetworkPolicy's implicit
   isolation, Calico's end-of-tier deny) or `Pass` (to the next tier). Other owners go on to the next tier.
4. When no tier decided: allowed (Kubernetes' default: a pod no policy selects accepts everything).

A connection needs both sides; external endpoints (IP atoms) have no side of their own (nothing of ours
filters there); loopback and node-local traffic are pod-level exceptions applied once, in the read-out.

Well-known tiers use Calico's orders (docs.tigera.io, "Tiered network policy": kube-admin 1,000, default
1,000,000, kube-baseline 10,000,000), so that Calico's own tiers fall between them where Calico puts them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol

import numpy as np

from netpol.errors import SourceRef
from netpol.model.vocab import Direction

if TYPE_CHECKING:
    from netpol.engine.compile.universe import Universe
    from netpol.engine.options import EngineOptions
    from netpol.model.objects import IPBlock, Node, Service
    from netpol.ports import PortAtoms

Action = Literal["Allow", "Deny", "Pass", "Log"]
"""What a matching rule does: Allow/Deny decide, Pass leaves the tier, Log matches and goes on (Calico)."""

TierEnd = Literal["Deny", "Pass"]
"""What an isolated owner's undecided traffic gets at the end of a tier."""


class PolicyObject(Protocol):
    """What every policy object of the model has (NetworkPolicy, AdminNetworkPolicy, …): a key, where it was
    read, and the object as written."""

    @property
    def key(self) -> str: ...

    @property
    def source(self) -> SourceRef: ...

    @property
    def raw(self) -> Mapping[str, object]: ...


@dataclass(frozen=True, slots=True)
class Tier:
    """A tier: an ordered stage of the evaluation (see the module docstring)."""

    name: str  # unique: "kube-admin", "default", "kube-baseline", a Calico Tier's name, …
    order: float  # tiers are walked by ascending order, then by name
    end: TierEnd  # for owners a policy of this tier isolates, when no rule decided
    title: str = ""  # how outputs name the tier ("Admin tier", "NetworkPolicy tier", …); default: the name

    @property
    def label(self) -> str:
        return self.title or f"tier {self.name}"


# network-policy-api: the Admin tier is walked before NetworkPolicies, the Baseline tier after; nothing in them
# isolates (an unmatched connection goes on). Calico documents the same tiers at these orders.
ADMIN_TIER = Tier("kube-admin", 1_000, "Pass", "Admin tier")
DEFAULT_TIER = Tier("default", 1_000_000, "Deny", "NetworkPolicy tier")
BASELINE_TIER = Tier("kube-baseline", 10_000_000, "Pass", "Baseline tier")


PartKind = Literal["namespace", "pod", "address", "node", "other"]
"""What a part of a peer tests: the endpoint's namespace, its pod labels, its address, its node, or else."""


@dataclass(frozen=True, slots=True, eq=False)
class PeerPart:
    """One condition of a peer (a peer holds an endpoint when all its parts do, e.g. namespaceSelector AND
    podSelector): kept so a near miss is worded from the compiled masks ("the namespace matches, the pod does
    not"), never by matching the policy's selectors again."""

    kind: PartKind
    text: str  # in the policy's own words: "namespaceSelector {team=a}", "ipBlock 10.0.0.0/8"
    classes: np.ndarray  # bool over classes: the pods this condition holds (shared, read-only)
    atoms: np.ndarray | None = None  # bool over IP atoms, for conditions on addresses (None: holds no address)
    version: int | None = None  # an address condition's IP version (4 or 6): it sees addresses of that family


@dataclass(frozen=True, slots=True, eq=False)
class CompiledPeer:
    """One peer of a rule: the pod classes and IP atoms it holds, and how its policy wrote it.

    Kept per peer, not only per rule, so a verdict can name the peer that matched (or came nearest)."""

    classes: np.ndarray  # bool over classes (Universe.classes), over any address family
    atoms: np.ndarray  # bool over IP atoms (IPSpace.atoms): external addresses
    text: str  # the peer in its policy's own words, e.g. "namespaceSelector {team=a} podSelector {app=db}"
    # The conditions it ANDs (empty: it holds every endpoint, e.g. NetworkPolicy's absent `from`).
    parts: tuple[PeerPart, ...] = ()
    # Per Universe.families, the classes the peer holds over that family, when they differ (an address block
    # sees a dual-stack pod through the address of its own family only); () when the same in every family.
    family_classes: tuple[np.ndarray, ...] = ()
    note: str = ""  # what a static input cannot place (e.g. "domainNames match no pod"), said by explain

    def classes_in(self, family: int | None) -> np.ndarray:
        """The classes this peer holds over one family (index into Universe.families; None: any)."""
        if family is None or not self.family_classes:
            return self.classes
        return self.family_classes[family]


@dataclass(frozen=True, slots=True, eq=False)
class CompiledRule:
    """One rule of one policy, in one direction."""

    direction: Direction
    index: int  # position among its policy's rules of this direction (0-based)
    action: Action
    peers: tuple[CompiledPeer, ...]  # a rule holds a pair when one of its peers holds the other end
    static_bits: np.ndarray  # port atoms (PortAtoms) held whatever the destination
    # (port name, protocol) resolved on the destination pod's container ports; protocol "" = any protocol
    # (v1alpha1/v1alpha2 named ports). A name that resolves nowhere holds nothing.
    named: tuple[tuple[str, str], ...] = ()
    # (port name, protocol) taken out again per destination, after `named` is added (Calico's named `notPorts`)
    not_named: tuple[tuple[str, str], ...] = ()
    name: str = ""  # the rule's own name, when its kind has one
    ports_text: str = "all ports"  # the ports in the policy's own words
    l7: str = ""  # non-empty: allowed only through this layer-7 filter (Cilium's HTTP/Kafka/DNS rules)
    action_text: str = ""  # the action in the policy's own words when they differ (ClusterNetworkPolicy's Accept)
    note: str = ""  # what a static input cannot know about this rule, said by explain
    source: object = field(default=None, repr=False)  # the model rule it came from

    def bits_for(self, ports: PortAtoms, named_ports: Sequence[tuple[str, str, int]] | None) -> np.ndarray:
        """Port bits towards one destination whose container ports are `named_ports` (None: an address, where
        names never resolve)."""
        if not self.per_destination or named_ports is None:
            return self.static_bits
        bits = self.static_bits.copy()
        for name, proto, number in named_ports:
            for want, want_proto in self.named:
                if name == want and (not want_proto or want_proto == proto):
                    bits |= ports.range_bits(proto, number)
        for name, proto, number in named_ports:
            for want, want_proto in self.not_named:
                if name == want and (not want_proto or want_proto == proto):
                    bits &= ~ports.range_bits(proto, number)
        return bits

    @property
    def per_destination(self) -> bool:
        """Whether its ports depend on the destination's container ports (named ports, either way)."""
        return bool(self.named or self.not_named)


@dataclass(frozen=True, slots=True, eq=False)
class CompiledPolicy:
    """One policy (or one independently selecting part of one, e.g. an entry of Cilium's `specs`)."""

    kind: str  # the object's kind: "NetworkPolicy", "AdminNetworkPolicy", "ClusterNetworkPolicy", …
    key: str  # unique among all compiled policies, as outputs name it ("ns/name", "ANP name", …)
    tier: Tier
    precedence: tuple[float, str]  # order inside the tier: (priority or order, inf when none; tie-break)
    selected: np.ndarray  # bool over classes: the endpoints whose traffic its rules decide
    isolates: frozenset[Direction]  # directions in which selection puts an owner under the tier's `end`
    ingress: tuple[CompiledRule, ...] = ()
    egress: tuple[CompiledRule, ...] = ()
    source: PolicyObject | None = field(default=None, repr=False)  # the model object (SourceRef, raw, edits)
    precedence_text: str = ""  # how explain says the precedence: "priority 10", "order 100", ""
    namespace: str = ""  # a namespaced policy's namespace ("" for cluster-wide ones)

    @property
    def ref(self) -> SourceRef:
        """Where the policy was read (file, document, object)."""
        return self.source.source if self.source is not None else SourceRef()

    def rules(self, direction: Direction) -> tuple[CompiledRule, ...]:
        return self.ingress if direction == "ingress" else self.egress

    def rule_label(self, rule: CompiledRule) -> str:
        """How outputs name one of its rules: `web/deny-all ingress rule #1`, `ANP a ingress rule #2 'x' (Deny)`
        (a NetworkPolicy's rules all allow, so their action goes unsaid)."""
        name = f" {rule.name!r}" if rule.name else ""
        action = "" if self.kind == "NetworkPolicy" else f" ({rule.action_text or rule.action})"
        return f"{self.key} {rule.direction} rule #{rule.index + 1}{name}{action}"


@dataclass(frozen=True, slots=True)
class CompileContext:
    """What a compiler reads besides its own objects: the classes, address and port atoms, nodes, Services."""

    universe: Universe
    ports: PortAtoms
    options: EngineOptions
    nodes: tuple[Node, ...] = ()
    services: tuple[Service, ...] = ()


class PolicyCompiler(Protocol):
    """A policy kind's compiler, built from the model objects of its kind (netpol/engine/compile/__init__.py).

    The engine asks every compiler first what its policies can tell apart (so classes, address atoms and
    port atoms are cut finely enough for all of them), then compiles them all on those atoms."""

    def label_keys(self) -> Iterable[str]:
        """Pod label keys its selectors read (other keys cannot tell pods apart)."""
        ...

    def mask_count(self) -> int:
        """How many policies and rules it compiles (each holds masks over classes: the memory estimate)."""
        ...

    def splits_by_service_account(self) -> bool:
        """Whether its selectors read pods' service accounts (then classes are cut by service account)."""
        ...

    def ip_blocks(self, nodes: Sequence[Node]) -> Iterable[IPBlock]:
        """Address blocks its rules draw (CIDRs, node addresses): the address space is cut at their edges."""
        ...

    def port_cuts(self, universe: Universe) -> Iterable[tuple[str, int, int]]:
        """(protocol, first, last) port ranges its rules draw, named ports resolved on the classes."""
        ...

    def compile(self, ctx: CompileContext) -> Iterable[CompiledPolicy]:
        """Its policies in the compiled form, in any order (the engine sorts by tier and precedence)."""
        ...
