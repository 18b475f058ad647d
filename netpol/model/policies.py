"""NetworkPolicy (networking.k8s.io/v1) as frozen values: peers, ports, rules, the policy."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import netaddr

from netpol.errors import SourceRef
from netpol.model.labels import EMPTY_LABELS, FrozenMap, LabelSelector


@dataclass(frozen=True, slots=True)
class IPBlock:
    cidr: str
    except_: tuple[str, ...] = ()

    def render(self) -> str:
        return f"{self.cidr} except {', '.join(self.except_)}" if self.except_ else self.cidr

    def addresses(self) -> netaddr.IPSet:
        """The addresses it holds: cidr minus every except."""
        return netaddr.IPSet([self.cidr]) - netaddr.IPSet(self.except_)


@dataclass(frozen=True, slots=True)
class NetworkPolicyPeer:
    """One `from`/`to` item. Selectors in one peer are ANDed; a podSelector alone means the policy's namespace."""

    pod_selector: LabelSelector | None = None
    namespace_selector: LabelSelector | None = None
    ip_block: IPBlock | None = None

    def render(self) -> str:
        if self.ip_block is not None:
            return f"ipBlock {self.ip_block.render()}"
        parts = []
        if self.namespace_selector is not None:
            parts.append(f"namespaceSelector {self.namespace_selector.render()}")
        if self.pod_selector is not None:
            parts.append(f"podSelector {self.pod_selector.render()}")
        return " AND ".join(parts)


@dataclass(frozen=True, slots=True)
class NetworkPolicyPort:
    protocol: str = "TCP"
    port: int | str | None = None  # None: every port of the protocol
    end_port: int | None = None

    def render(self) -> str:
        if self.port is None:
            return f"{self.protocol} all ports"
        if self.end_port is not None:
            return f"{self.protocol} {self.port}-{self.end_port}"
        return f"{self.protocol} {self.port}"


@dataclass(frozen=True, slots=True)
class NetworkPolicyRule:
    """An ingress or egress rule. Empty `peers` = every peer; empty `ports` = every port."""

    peers: tuple[NetworkPolicyPeer, ...] = ()
    ports: tuple[NetworkPolicyPort, ...] = ()


@dataclass(frozen=True, slots=True)
class NetworkPolicy:
    namespace: str
    name: str
    pod_selector: LabelSelector
    policy_types: tuple[str, ...]  # defaulted by the loader
    ingress: tuple[NetworkPolicyRule, ...] = ()
    egress: tuple[NetworkPolicyRule, ...] = ()
    source: SourceRef = SourceRef()
    raw: Mapping[str, object] = field(default_factory=dict, compare=False, hash=False)
    annotations: FrozenMap[str] = EMPTY_LABELS  # read for the audit's per-object acceptance

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def affects_ingress(self) -> bool:
        return "Ingress" in self.policy_types

    @property
    def affects_egress(self) -> bool:
        return "Egress" in self.policy_types
