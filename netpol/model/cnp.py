"""ClusterNetworkPolicy (policy.networking.k8s.io/v1alpha2) as frozen values.

One resource for both cluster-wide tiers (apis/v1alpha2/clusternetworkpolicy_types.go in
kubernetes-sigs/network-policy-api): `spec.tier` Admin (before NetworkPolicies) or Baseline (after them),
`spec.priority` 0–1000 inside the tier (lower first), rules with `action` Accept/Deny/Pass evaluated in the order
written. A rule's peers are the same objects as v1alpha1's (netpol/model/admin.py: namespaces, pods, nodes,
networks, domainNames); its `protocols` are v1alpha2's own: `tcp`/`udp`/`sctp` with a `destinationPort` number or
range, or a `destinationNamedPort`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, assert_never, get_args

from netpol.errors import SourceRef
from netpol.model.admin import AdminPeer
from netpol.model.labels import LabelSelector
from netpol.model.vocab import Protocol

CNPTier = Literal["Admin", "Baseline"]
"""`spec.tier`: Admin is evaluated before NetworkPolicies, Baseline after them."""
CNP_TIERS: tuple[CNPTier, ...] = get_args(CNPTier)

CNPAction = Literal["Accept", "Deny", "Pass"]
"""A rule's `action`: Accept and Deny decide; Pass skips the rest of the tier (the next tier decides)."""
CNP_ACTIONS: tuple[CNPAction, ...] = get_args(CNPAction)

CNPProtocolKey = Literal["tcp", "udp", "sctp"]
"""The protocol keys of a `protocols` entry besides `destinationNamedPort`."""
CNP_PROTOCOL_KEYS: tuple[CNPProtocolKey, ...] = get_args(CNPProtocolKey)


@dataclass(frozen=True, slots=True)
class PortMatch:
    """`tcp`/`udp`/`sctp` with its `destinationPort`: a `number` (start == end) or an inclusive `range`."""

    protocol: Protocol
    start: int
    end: int

    def render(self) -> str:
        ports = str(self.start) if self.start == self.end else f"{self.start}-{self.end}"
        return f"{self.protocol} {ports}"


@dataclass(frozen=True, slots=True)
class NamedPortMatch:
    """`destinationNamedPort`: the destination pod's container port of that name, whatever its protocol."""

    name: str

    def render(self) -> str:
        return f"destinationNamedPort {self.name}"


CNPProtocol = PortMatch | NamedPortMatch
"""One entry of a rule's `protocols`."""


def render_protocols(protocols: tuple[CNPProtocol, ...]) -> str:
    """A rule's ports in its own words ("all ports" when `protocols` is absent)."""
    if not protocols:
        return "all ports"
    parts = []
    for p in protocols:
        match p:
            case PortMatch() | NamedPortMatch():
                parts.append(p.render())
            case _:
                assert_never(p)
    return ", ".join(parts)


@dataclass(frozen=True, slots=True)
class ClusterNetworkPolicyRule:
    """An ingress rule (`from`: namespaces/pods) or an egress rule (`to`: every peer kind)."""

    name: str
    action: CNPAction
    peers: tuple[AdminPeer, ...]
    protocols: tuple[CNPProtocol, ...] = ()  # empty: every port of every protocol


@dataclass(frozen=True, slots=True)
class ClusterNetworkPolicy:
    name: str
    tier: CNPTier
    priority: int
    subject_namespaces: LabelSelector
    subject_pods: LabelSelector | None  # None: `subject.namespaces`, every pod of those namespaces
    ingress: tuple[ClusterNetworkPolicyRule, ...] = ()
    egress: tuple[ClusterNetworkPolicyRule, ...] = ()
    source: SourceRef = SourceRef()
    raw: Mapping[str, object] = field(default_factory=dict, compare=False, hash=False)

    @property
    def kind(self) -> str:
        return "ClusterNetworkPolicy"

    @property
    def key(self) -> str:
        """How outputs name it: cluster-scoped, so the name alone is unique among ClusterNetworkPolicies."""
        return f"CNP {self.name}"

    def rules(self) -> tuple[ClusterNetworkPolicyRule, ...]:
        return (*self.ingress, *self.egress)
