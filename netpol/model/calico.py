"""Calico's policy objects as read: NetworkPolicy, GlobalNetworkPolicy, Tier, NetworkSet, GlobalNetworkSet.

Names follow Calico's own API (projectcalico.org/v3, api/pkg/apis/projectcalico/v3: `policy_common.go`,
`networkpolicy.go`, `globalnetworkpolicy.go`, `tier.go`, `networkset.go`); the same kinds read from the
CRDs (crd.projectcalico.org/v1) have the same spec. ServiceAccounts are kept here too: only Calico's
`serviceAccounts.selector` reads their labels.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from netpol.errors import SourceRef
from netpol.model.calico_objects import CalicoObjects as CalicoObjects  # re-exported: its home is light
from netpol.model.calico_selector import Selector
from netpol.model.labels import EMPTY_LABELS, Labels
from netpol.model.vocab import Direction

CalicoAction = Literal["Allow", "Deny", "Pass", "Log"]
CALICO_ACTIONS: tuple[CalicoAction, ...] = ("Allow", "Deny", "Pass", "Log")

TierAction = Literal["Deny", "Pass"]
"""A Tier's `defaultAction`: what an endpoint a policy of the tier selects gets when no rule matched."""

CalicoPolicyKind = Literal["NetworkPolicy", "GlobalNetworkPolicy"]

# IANA numbers of the protocols Calico names (numorstring.Protocol): names are matched case-insensitively.
PROTOCOL_NUMBERS = {"tcp": 6, "udp": 17, "icmp": 1, "icmpv6": 58, "sctp": 132, "udplite": 136}
PORT_PROTOCOLS = {6: "TCP", 17: "UDP", 132: "SCTP"}  # the ones netpol's port-aware answer covers

KUBE_ADMIN = "kube-admin"
DEFAULT = "default"
KUBE_BASELINE = "kube-baseline"

# Implicit labels Calico puts on every workload endpoint and namespace (docs.tigera.io, "Selectors":
# projectcalico.org/namespace, /orchestrator, /serviceaccount; namespaces carry projectcalico.org/name).
# Namespace labels reach endpoints prefixed `pcns.`, service-account labels prefixed `pcsa.`
# (libcalico-go backend/k8s/conversion: NamespaceLabelPrefix, ServiceAccountLabelPrefix).
LABEL_NAMESPACE = "projectcalico.org/namespace"
LABEL_ORCHESTRATOR = "projectcalico.org/orchestrator"
LABEL_SERVICE_ACCOUNT = "projectcalico.org/serviceaccount"
LABEL_NAME = "projectcalico.org/name"
NAMESPACE_PREFIX = "pcns."
SERVICE_ACCOUNT_PREFIX = "pcsa."
IMPLICIT_KEYS = frozenset({LABEL_NAMESPACE, LABEL_ORCHESTRATOR, LABEL_SERVICE_ACCOUNT})


@dataclass(frozen=True, slots=True)
class Protocol:
    """numorstring.Protocol: a name or a number 1–255, kept as the number with the text the policy wrote."""

    number: int
    text: str

    @property
    def port_protocol(self) -> str | None:
        """TCP/UDP/SCTP when the protocol is one of netpol's port-aware ones, else None."""
        return PORT_PROTOCOLS.get(self.number)


@dataclass(frozen=True, slots=True)
class CalicoPort:
    """numorstring.Port: a number, a "first:last" range, or a named port (resolved on the endpoint)."""

    first: int = 0
    last: int = 0
    name: str = ""

    def render(self) -> str:
        if self.name:
            return self.name
        return str(self.first) if self.first == self.last else f"{self.first}:{self.last}"


@dataclass(frozen=True, slots=True)
class ServiceAccountMatch:
    names: tuple[str, ...] = ()
    selector: Selector | None = None  # over the ServiceAccount objects' labels


@dataclass(frozen=True, slots=True)
class ServiceMatch:
    name: str
    namespace: str  # "" in the policy: the policy's own namespace (resolved by the reader)


@dataclass(frozen=True, slots=True)
class EntityRule:
    """A rule's `source` or `destination`: every field given must match (AND)."""

    nets: tuple[str, ...] = ()
    not_nets: tuple[str, ...] = ()
    selector: Selector | None = None
    not_selector: Selector | None = None
    namespace_selector: Selector | None = None
    ports: tuple[CalicoPort, ...] = ()
    not_ports: tuple[CalicoPort, ...] = ()
    service_accounts: ServiceAccountMatch | None = None
    services: ServiceMatch | None = None

    @property
    def is_empty(self) -> bool:
        return self == EntityRule()

    @property
    def selects(self) -> bool:
        """Does any selector field restrict the endpoints (then a namespaced policy limits it to its namespace)?"""
        return (
            self.selector is not None
            or self.not_selector is not None
            or self.namespace_selector is not None
            or self.service_accounts is not None
        )


@dataclass(frozen=True, slots=True)
class CalicoRule:
    action: CalicoAction
    protocol: Protocol | None = None
    not_protocol: Protocol | None = None
    ip_version: int | None = None  # 4 | 6
    source: EntityRule = EntityRule()
    destination: EntityRule = EntityRule()
    icmp: str = ""  # the icmp/notICMP match as written ("" when none): kept out of the port-aware answer
    http: str = ""  # the HTTP match as written ("" when none): layer 7, needs Calico's application layer
    name: str = ""  # metadata.annotations of the rule do not name it; kept for outputs that show one


@dataclass(frozen=True, slots=True)
class CalicoPolicy:
    kind: CalicoPolicyKind
    namespace: str  # "" for a GlobalNetworkPolicy
    name: str
    tier: str
    order: float | None  # None: after every ordered policy of the tier
    selector: Selector
    types: tuple[Direction, ...]
    ingress: tuple[CalicoRule, ...] = ()
    egress: tuple[CalicoRule, ...] = ()
    namespace_selector: Selector | None = None  # GlobalNetworkPolicy only
    service_account_selector: Selector | None = None
    do_not_track: bool = False
    pre_dnat: bool = False
    apply_on_forward: bool = False
    api_version: str = ""
    source: SourceRef = SourceRef()
    raw: Mapping[str, object] = field(default_factory=dict, repr=False, compare=False, hash=False)

    @property
    def key(self) -> str:
        """How outputs name it: `ns/name` (kind NetworkPolicy) or `name` (GlobalNetworkPolicy)."""
        return f"{self.namespace}/{self.name}" if self.namespace else self.name

    @property
    def sort_name(self) -> str:
        """What breaks order ties: the policy's name alone ("Policies with identical order will be applied in
        alphanumerical order based on the Policy Name", v3 networkpolicy.go; Felix calc/policy_sorter.go
        PolKVLess compares PolicyKey.Name, which holds no namespace), then, only to be repeatable where Calico
        leaves it open, the namespace after a NUL (below every character a name may hold; the engine's
        NetworkPolicy compiler writes `knp.default.<name>` NUL namespace the same way)."""
        return f"{self.name}\0{self.namespace}"


@dataclass(frozen=True, slots=True)
class CalicoTier:
    name: str
    order: float | None  # None: after every ordered tier
    default_action: TierAction = "Deny"
    source: SourceRef | None = None  # None: a tier Calico creates itself (default, kube-admin, kube-baseline)


@dataclass(frozen=True, slots=True)
class NetworkSet:
    """A NetworkSet (namespaced) or GlobalNetworkSet (namespace ""): labelled CIDRs that rule selectors select."""

    namespace: str
    name: str
    labels: Labels = EMPTY_LABELS
    nets: tuple[str, ...] = ()
    source: SourceRef = SourceRef()

    @property
    def kind(self) -> str:
        return "NetworkSet" if self.namespace else "GlobalNetworkSet"

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}" if self.namespace else self.name


@dataclass(frozen=True, slots=True)
class ServiceAccount:
    namespace: str
    name: str
    labels: Labels = EMPTY_LABELS
    source: SourceRef = SourceRef()


# Tiers Calico creates itself (docs.tigera.io "Tiered network policy"; api v3 tier.go DefaultTierOrder,
# AdminNetworkPolicyTierOrder; kube-baseline at 10,000,000): their default actions are Deny for default, Pass
# for the two tiers of Kubernetes' admin policies.
BUILTIN_TIERS = (
    CalicoTier(KUBE_ADMIN, 1_000.0, "Pass"),
    CalicoTier(DEFAULT, 1_000_000.0, "Deny"),
    CalicoTier(KUBE_BASELINE, 10_000_000.0, "Pass"),
)
