"""(Baseline)AdminNetworkPolicy (policy.networking.k8s.io/v1alpha1) as frozen values.

A rule's peer is exactly one of the API's peer kinds, so `AdminPeer` is a union of one small dataclass per
kind, matched exhaustively (`match` + `assert_never`) wherever peers are read: a kind added here fails mypy
at every place that has to handle it. Ingress peers are `namespaces` or `pods`; egress adds `nodes`,
`networks` and (AdminNetworkPolicy only) `domainNames` (the loader enforces which direction allows which).

The peers are the same API objects in v1alpha2: ClusterNetworkPolicy's ingress and egress peers have the same
five fields with the same documented meaning (apis/v1alpha2/clusternetworkpolicy_types.go), so
netpol/model/cnp.py uses these classes too, and one peer compiler serves both versions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import assert_never

from netpol.errors import SourceRef
from netpol.model.labels import LabelSelector
from netpol.model.policies import NetworkPolicyPort
from netpol.model.vocab import AdminAction


@dataclass(frozen=True, slots=True)
class AdminNamespaces:
    """`namespaces`: every pod of the namespaces the selector matches."""

    namespace_selector: LabelSelector


@dataclass(frozen=True, slots=True)
class AdminPods:
    """`pods`: the pods matching podSelector in the namespaces matching namespaceSelector (AND)."""

    namespace_selector: LabelSelector
    pod_selector: LabelSelector


@dataclass(frozen=True, slots=True)
class AdminNodes:
    """`nodes` (egress only): the matching nodes' addresses, and the hostNetwork pods on them."""

    node_selector: LabelSelector


@dataclass(frozen=True, slots=True)
class AdminNetworks:
    """`networks` (egress only): CIDRs, validated by the loader."""

    networks: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class AdminDomainNames:
    """`domainNames` (egress, Allow/Accept rules only): FQDNs the implementation resolves at run time. Nothing in
    a static input says which addresses they name, so this peer matches no pod and no address here."""

    domain_names: tuple[str, ...]


AdminPeer = AdminNamespaces | AdminPods | AdminNodes | AdminNetworks | AdminDomainNames
"""One peer of an admin rule."""


def peer_pod_selectors(peer: AdminPeer) -> tuple[LabelSelector, ...]:
    """The pod selectors a peer applies (the engine keeps only the label keys some selector mentions)."""
    match peer:
        case AdminPods(pod_selector=sel):
            return (sel,)
        case AdminNamespaces() | AdminNodes() | AdminNetworks() | AdminDomainNames():
            return ()
        case _:
            assert_never(peer)


@dataclass(frozen=True, slots=True)
class AdminRule:
    name: str
    action: AdminAction  # Pass: AdminNetworkPolicy only
    peers: tuple[AdminPeer, ...]
    ports: tuple[NetworkPolicyPort, ...] = ()  # empty: every port; protocol "" with a name: namedPort


@dataclass(frozen=True, slots=True)
class AdminNetworkPolicy:
    """An AdminNetworkPolicy (priority set) or the BaselineAdminNetworkPolicy (priority None)."""

    name: str
    priority: int | None
    subject_namespaces: LabelSelector
    subject_pods: LabelSelector | None  # None: every pod of the subject namespaces
    ingress: tuple[AdminRule, ...] = ()
    egress: tuple[AdminRule, ...] = ()
    source: SourceRef = SourceRef()
    raw: Mapping[str, object] = field(default_factory=dict, compare=False, hash=False)

    @property
    def baseline(self) -> bool:
        return self.priority is None

    @property
    def kind(self) -> str:
        return "BaselineAdminNetworkPolicy" if self.baseline else "AdminNetworkPolicy"

    @property
    def key(self) -> str:
        return f"{'BANP' if self.baseline else 'ANP'} {self.name}"
