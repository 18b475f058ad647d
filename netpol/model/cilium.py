"""CiliumNetworkPolicy and CiliumClusterwideNetworkPolicy (cilium.io/v2) as frozen values.

Names follow Cilium's API (pkg/policy/api: Rule, IngressRule/EgressRule and their Deny twins, PortRule,
PortProtocol, CIDRRule, Entity, Service, FQDNSelector, L7Rules). One object holds one or more `Rule`s
(`spec` and/or `specs`); each `CiliumSpec` selects on its own, so each compiles on its own.

Selectors keep their keys as written: a key may carry a label source (`k8s:app`, `any:app`,
`reserved:host`; no source means `any`), which `label_source` splits off. How a selector is widened or
narrowed by namespace (pkg/k8s/apis/cilium.io/utils/utils.go) is the compiler's business, not the model's.

A rule's peer is one of a closed set of dataclasses (`CiliumPeer`), matched exhaustively wherever peers are
read: a kind added here fails mypy at every place that has to handle it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, get_args

from netpol.errors import SourceRef
from netpol.model.labels import LabelSelector
from netpol.model.services import Service
from netpol.model.vocab import Direction

CiliumKind = Literal["CiliumNetworkPolicy", "CiliumClusterwideNetworkPolicy"]
CILIUM_KINDS: tuple[CiliumKind, ...] = get_args(CiliumKind)

Entity = Literal[
    "all", "world", "cluster", "host", "init", "ingress", "unmanaged", "remote-node", "health", "none", "kube-apiserver"
]
"""`fromEntities`/`toEntities` values, as the CRD's enum lists them (docs.cilium.io, Layer 3, "Entities based")."""
ENTITIES: tuple[Entity, ...] = get_args(Entity)

CiliumProtocol = Literal["TCP", "UDP", "SCTP", "ANY"]
"""`toPorts.ports.protocol`; absent is ANY, which covers TCP, UDP and SCTP (Layer 4 docs; pkg/policy portProtocols)."""
CILIUM_PROTOCOLS: tuple[CiliumProtocol, ...] = get_args(CiliumProtocol)

L7Kind = Literal["http", "kafka", "dns", "l7proto"]
"""The one layer-7 rule type a PortRule's `rules` may hold (the CRD's oneOf)."""

PeerField = Literal[
    "fromEndpoints",
    "toEndpoints",
    "fromCIDR",
    "toCIDR",
    "fromCIDRSet",
    "toCIDRSet",
    "fromEntities",
    "toEntities",
    "toServices",
    "toFQDNs",
    "fromNodes",
    "toNodes",
    "fromGroups",
    "toGroups",
]
"""The layer-3 members of an ingress/egress rule, in the API's words."""

LABEL_SOURCE_ANY = "any"
LABEL_SOURCE_K8S = "k8s"
LABEL_SOURCE_RESERVED = "reserved"

# Identity labels Cilium gives every pod besides its own (pkg/k8s/apis/cilium.io/const.go; docs.cilium.io,
# "Using Kubernetes Constructs in Policy"). All carry the `k8s` source.
POD_NAMESPACE_LABEL = "io.kubernetes.pod.namespace"
NAMESPACE_LABELS_PREFIX = "io.cilium.k8s.namespace.labels."
SERVICE_ACCOUNT_LABEL = "io.cilium.k8s.policy.serviceaccount"
CLUSTER_LABEL = "io.cilium.k8s.policy.cluster"
DEFAULT_CLUSTER_NAME = "default"  # Cilium's `cluster-name` default

# Pod label keys Cilium leaves out of identities by default (docs.cilium.io, "Limiting Identity-Relevant
# Labels": patterns anchored at the start of the key), and the `io.cilium.k8s` keys it owns (a pod cannot
# set them): a selector on them never sees the pod's value.
IDENTITY_IRRELEVANT_PREFIXES = (
    "io.kubernetes",
    "kubernetes.io",
    "statefulset.kubernetes.io/pod-name",
    "apps.kubernetes.io/pod-index",
    "batch.kubernetes.io/job-completion-index",
    "batch.kubernetes.io/controller-uid",
    "beta.kubernetes.io",
    "k8s.io",
    "pod-template-generation",
    "pod-template-hash",
    "controller-revision-hash",
    "annotation",
    "controller-uid",
    "etcd_node",
    "io.cilium.k8s",
)


def identity_relevant(key: str) -> bool:
    """Whether a pod label is part of the pod's Cilium identity (Cilium's default label filter)."""
    return not key.startswith(IDENTITY_IRRELEVANT_PREFIXES)


def label_source(key: str) -> tuple[str, str]:
    """(source, key) of a selector key as Cilium parses it (pkg/labels ParseSource): the text before the first
    `:` is the source; `$host` is `reserved:host`; no source is `any`."""
    if key.startswith("$"):
        return LABEL_SOURCE_RESERVED, key[1:]
    src, sep, rest = key.partition(":")
    if not sep:
        return LABEL_SOURCE_ANY, key
    return src, rest


@dataclass(frozen=True, slots=True)
class EndpointsPeer:
    """`fromEndpoints`/`toEndpoints` item: an EndpointSelector."""

    selector: LabelSelector


@dataclass(frozen=True, slots=True)
class CIDRPeer:
    """`fromCIDR`/`toCIDR` (no `except`) or a `fromCIDRSet`/`toCIDRSet` CIDRRule with its `except` list."""

    cidr: str
    except_: tuple[str, ...] = ()
    set_rule: bool = False  # written in a CIDRSet

    def render(self) -> str:
        return f"{self.cidr} except {', '.join(self.except_)}" if self.except_ else self.cidr


@dataclass(frozen=True, slots=True)
class CIDRGroupPeer:
    """A CIDRRule naming a CiliumCIDRGroup (`cidrGroupRef`) or selecting them (`cidrGroupSelector`): the groups'
    CIDRs live in objects netpol does not read."""

    ref: str = ""
    selector: LabelSelector | None = None


@dataclass(frozen=True, slots=True)
class EntityPeer:
    entity: Entity


@dataclass(frozen=True, slots=True)
class ServicePeer:
    """A `toServices` item: `k8sService` (name, namespace) or `k8sServiceSelector` (Service labels, namespace);
    an empty namespace matches every namespace (pkg/policy/k8s/service.go serviceRefMatches)."""

    name: str = ""  # k8sService.serviceName; "" with a selector
    namespace: str = ""
    selector: LabelSelector | None = None  # k8sServiceSelector.selector (over the Services' own labels)


@dataclass(frozen=True, slots=True)
class FQDNPeer:
    """A `toFQDNs` item: `matchName` or `matchPattern`."""

    match_name: str = ""
    match_pattern: str = ""

    def render(self) -> str:
        return f"matchName {self.match_name}" if self.match_name else f"matchPattern {self.match_pattern}"


@dataclass(frozen=True, slots=True)
class NodesPeer:
    """`fromNodes`/`toNodes` item: a selector over Node labels."""

    selector: LabelSelector


@dataclass(frozen=True, slots=True)
class GroupsPeer:
    """`fromGroups`/`toGroups` item (a cloud provider's security groups): resolved by Cilium's operator."""

    provider: str


CiliumPeer = EndpointsPeer | CIDRPeer | CIDRGroupPeer | EntityPeer | ServicePeer | FQDNPeer | NodesPeer | GroupsPeer
"""One layer-3 peer of a Cilium rule."""


@dataclass(frozen=True, slots=True)
class PortProtocol:
    """`toPorts[].ports[]`: a number (0: every port) or a name resolved on the destination, an optional endPort."""

    port: int | str
    protocol: CiliumProtocol = "ANY"
    end_port: int | None = None

    def render(self) -> str:
        if self.port == 0:
            where = "all ports"
        elif self.end_port is not None:
            where = f"{self.port}-{self.end_port}"
        else:
            where = str(self.port)
        return f"{self.protocol} {where}"


@dataclass(frozen=True, slots=True)
class L7Rules:
    """A PortRule's `rules` (or its `serverNames`/`listener`): the layer-7 filter the connection goes through."""

    kind: L7Kind | Literal["tls", "listener"]
    items: tuple[str, ...]  # each rule in words: "POST /v1/request-landing", "matchPattern *.example.com"

    def render(self) -> str:
        title = {"http": "HTTP", "kafka": "Kafka", "dns": "DNS", "l7proto": "L7", "tls": "TLS SNI"}.get(
            self.kind, "Envoy listener"
        )
        return f"{title} {'; '.join(self.items)}" if self.items else f"{title} (any request)"


@dataclass(frozen=True, slots=True)
class PortRule:
    """`toPorts[]`: ports, and an optional layer-7 filter for them."""

    ports: tuple[PortProtocol, ...] = ()
    l7: L7Rules | None = None

    def render(self) -> str:
        return ", ".join(p.render() for p in self.ports) or "no ports"


@dataclass(frozen=True, slots=True)
class CiliumRule:
    """One item of `ingress`, `ingressDeny`, `egress` or `egressDeny`.

    `peers` empty: no layer-3 member was given (then `toPorts` alone admits any peer, and a rule with neither
    admits nothing). `to_ports` None: no `toPorts` (every port)."""

    direction: Direction
    deny: bool
    index: int
    peers: tuple[CiliumPeer, ...] = ()
    peer_fields: tuple[PeerField, ...] = ()  # the layer-3 members given, in the API's words
    to_ports: tuple[PortRule, ...] | None = None
    icmps: tuple[str, ...] = ()  # ICMP types written (ICMP is not one of the protocols netpol models)
    authentication: str = ""  # authentication.mode

    @property
    def field(self) -> str:
        """`ingress`, `ingressDeny`, `egress` or `egressDeny`."""
        return f"{self.direction}{'Deny' if self.deny else ''}"

    @property
    def label(self) -> str:
        return f"{self.field}[{self.index}]"


@dataclass(frozen=True, slots=True)
class CiliumSpec:
    """One Cilium `Rule`: `spec`, or one entry of `specs`."""

    index: int | None  # None: `spec`; i: `specs[i]`
    endpoint_selector: LabelSelector | None  # None with a nodeSelector (a host policy)
    node_selector: LabelSelector | None = None
    ingress: tuple[CiliumRule, ...] = ()
    ingress_deny: tuple[CiliumRule, ...] = ()
    egress: tuple[CiliumRule, ...] = ()
    egress_deny: tuple[CiliumRule, ...] = ()
    enable_default_deny_ingress: bool | None = None  # enableDefaultDeny.ingress as written (None: absent)
    enable_default_deny_egress: bool | None = None
    description: str = ""

    @property
    def path(self) -> str:
        return "spec" if self.index is None else f"specs[{self.index}]"

    @property
    def host_policy(self) -> bool:
        return self.node_selector is not None

    def default_deny(self, direction: Direction) -> bool:
        """Whether selection puts an endpoint in default deny for `direction`: as written in enableDefaultDeny,
        else when the rule has allow or deny rules for that direction (pkg/policy/api Rule.Sanitize;
        docs.cilium.io, "Policy Enforcement Modes")."""
        if direction == "ingress":
            given, rules = self.enable_default_deny_ingress, self.ingress or self.ingress_deny
        else:
            given, rules = self.enable_default_deny_egress, self.egress or self.egress_deny
        return bool(rules) if given is None else given

    def rules(self, direction: Direction, *, deny: bool) -> tuple[CiliumRule, ...]:
        if direction == "ingress":
            return self.ingress_deny if deny else self.ingress
        return self.egress_deny if deny else self.egress


@dataclass(frozen=True, slots=True)
class CiliumPolicy:
    """A CiliumNetworkPolicy (namespace set) or CiliumClusterwideNetworkPolicy (namespace "")."""

    kind: CiliumKind
    name: str
    namespace: str  # "" for CiliumClusterwideNetworkPolicy
    specs: tuple[CiliumSpec, ...]
    source: SourceRef = SourceRef()
    raw: Mapping[str, object] = field(default_factory=dict, compare=False, hash=False)

    @property
    def clusterwide(self) -> bool:
        return self.kind == "CiliumClusterwideNetworkPolicy"

    @property
    def key(self) -> str:
        return f"ccnp {self.name}" if self.clusterwide else f"cnp {self.namespace}/{self.name}"

    def spec_key(self, spec: CiliumSpec) -> str:
        """The key outputs name one spec by: the policy's key, with `specs[i]` when it has several rules."""
        return self.key if len(self.specs) == 1 else f"{self.key} {spec.path}"


def service_matches(peer: ServicePeer, svc: Service) -> bool:
    """pkg/policy/k8s/service.go: a name and a namespace ("" = any), or a selector over the Service's labels."""
    if peer.namespace and peer.namespace != svc.namespace:
        return False
    if peer.selector is not None:
        return peer.selector.matches(svc.labels)
    return bool(peer.name) and peer.name == svc.name
