"""CiliumNetworkPolicy and CiliumClusterwideNetworkPolicy (cilium.io/v2) → model.

Validation is what the API server applies with Cilium's CRD schema (pkg/k8s/apis/cilium.io/client/crds/v2:
types, enums, patterns, oneOf/anyOf) plus what Cilium's agent refuses when it imports a rule
(pkg/policy/api/rule_validation.go `Sanitize`: a rule Cilium refuses is not enforced, so guessing an answer
for it would be wrong). Every field inside `spec`/`specs` decides reachability, so an unknown key there is an
error; a stray field beside them (the upstream star-wars demo has a top-level `description`) is one the
CRD's structural schema prunes: a warning (netpol/loading/fields.py check_meta).

What Cilium accepts but a static input cannot know (FQDNs, CIDR groups, cloud groups, some entities) is read
and modelled; the compiler names it in a note. `fromRequires`/`toRequires` (deprecated in Cilium 1.17, gone in
1.19) are read as written; see the compiler for their meaning.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from netpol.errors import InputError, SourceRef
from netpol.loading import typed as t
from netpol.loading.fields import cidr_field, namespace_of
from netpol.loading.policies import port_name_problem
from netpol.model import names
from netpol.model.cilium import (
    CILIUM_PROTOCOLS,
    ENTITIES,
    POD_NAMESPACE_LABEL,
    CIDRGroupPeer,
    CIDRPeer,
    CiliumKind,
    CiliumPeer,
    CiliumPolicy,
    CiliumProtocol,
    CiliumRule,
    CiliumSpec,
    EndpointsPeer,
    EntityPeer,
    FQDNPeer,
    GroupsPeer,
    L7Rules,
    NodesPeer,
    PeerField,
    PortProtocol,
    PortRule,
    ServicePeer,
    label_source,
)
from netpol.model.cluster import Warning_
from netpol.model.labels import SELECTOR_OPERATORS, Labels, LabelSelector, LabelSelectorRequirement
from netpol.model.vocab import Direction

SPEC = frozenset(
    {
        "description",
        "egress",
        "egressDeny",
        "enableDefaultDeny",
        "endpointSelector",
        "ingress",
        "ingressDeny",
        "labels",
        "log",
        "nodeSelector",
    }
)
_INGRESS_L3: tuple[PeerField, ...] = (
    "fromEndpoints",
    "fromCIDR",
    "fromCIDRSet",
    "fromEntities",
    "fromNodes",
    "fromGroups",
)
_EGRESS_L3: tuple[PeerField, ...] = (
    "toEndpoints",
    "toCIDR",
    "toCIDRSet",
    "toEntities",
    "toServices",
    "toFQDNs",
    "toNodes",
    "toGroups",
)
# CRD field lists of IngressRule / IngressDenyRule / EgressRule / EgressDenyRule.
RULE_FIELDS: dict[tuple[Direction, bool], frozenset[str]] = {
    ("ingress", False): frozenset({*_INGRESS_L3, "fromRequires", "icmps", "toPorts", "authentication"}),
    ("ingress", True): frozenset({*_INGRESS_L3, "fromRequires", "icmps", "toPorts"}),
    ("egress", False): frozenset({*_EGRESS_L3, "toRequires", "icmps", "toPorts", "authentication"}),
    ("egress", True): frozenset({*(f for f in _EGRESS_L3 if f != "toFQDNs"), "toRequires", "icmps", "toPorts"}),
}
# Layer-3 members of which a rule may hold only one (the CRD's IngressRule/EgressRule descriptions;
# rule_validation.go: "Combining %s and %s is not supported yet").
EXCLUSIVE: dict[Direction, tuple[PeerField, ...]] = {
    "ingress": ("fromEndpoints", "fromCIDR", "fromCIDRSet", "fromEntities"),
    "egress": ("toEndpoints", "toCIDR", "toCIDRSet", "toEntities", "toServices", "toFQDNs", "toGroups"),
}
PORT_RULE = frozenset({"ports", "rules", "listener", "originatingTLS", "terminatingTLS", "serverNames"})
PORT_DENY_RULE = frozenset({"ports"})
PORT_PROTOCOL = frozenset({"port", "endPort", "protocol"})
SELECTOR = frozenset({"matchLabels", "matchExpressions"})
REQUIREMENT = frozenset({"key", "operator", "values"})
CIDR_RULE = frozenset({"cidr", "cidrGroupRef", "cidrGroupSelector", "except"})
L7_RULES = frozenset({"http", "kafka", "dns", "l7proto", "l7"})
HTTP_RULE = frozenset({"headerMatches", "headers", "host", "method", "path"})
HEADER_MATCH = frozenset({"mismatch", "name", "secret", "value"})
KAFKA_RULE = frozenset({"apiKey", "apiVersion", "clientID", "role", "topic"})
FQDN = frozenset({"matchName", "matchPattern"})
SERVICE = frozenset({"k8sService", "k8sServiceSelector"})
TLS = frozenset({"certificate", "privateKey", "secret", "trustedCA"})
MAX_PORTS = 40  # the CRD's maxItems, rule_validation.go maxPorts

# The CRD's patterns.
_PORT_NUMBER = re.compile(r"^(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4})$")
_FQDN_NAME = re.compile(r"^([-a-zA-Z0-9_]+[.]?)+$")
_FQDN_PATTERN = re.compile(r"^([-a-zA-Z0-9_*]+[.]?)+$")
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_SERVER_NAME = re.compile(r"^(\*?\*\.)?([-a-zA-Z0-9_]+\.?)+$")


def read_cilium_policy(obj: Mapping[str, Any], src: SourceRef) -> tuple[CiliumPolicy, list[Warning_]]:
    """The policy, and warnings for what Cilium accepts but ignores or cannot apply."""
    kind: CiliumKind = (
        "CiliumClusterwideNetworkPolicy" if src.kind == "CiliumClusterwideNetworkPolicy" else "CiliumNetworkPolicy"
    )
    warnings: list[Warning_] = []
    meta = t.obj(obj.get("metadata"), src, "metadata")
    name = t.string(meta.get("name"), src, "metadata.name")
    if kind == "CiliumNetworkPolicy":
        namespace = namespace_of(meta, src)
    else:
        namespace = ""
        if meta.get("namespace"):
            warnings.append(
                Warning_(
                    "ignored-field",
                    "metadata.namespace: a CiliumClusterwideNetworkPolicy is cluster-scoped; the namespace is ignored",
                    src,
                )
            )
    reader = _Reader(src, kind, warnings)
    specs: list[CiliumSpec] = []
    if obj.get("spec") is not None:
        specs.append(reader.spec(obj["spec"], None))
    for i, s in enumerate(t.arr(obj.get("specs"), src, "specs")):
        specs.append(reader.spec(s, i))
    if not specs:
        # pkg/k8s/apis/cilium.io/v2 CiliumNetworkPolicy.Parse: "empty policy"
        raise t.required(src, "spec", "a Cilium policy needs `spec` or `specs`")
    return CiliumPolicy(kind, name, namespace, tuple(specs), src, raw=obj), warnings


class _Reader:
    """One object's read: its source, kind and the warnings it collects."""

    def __init__(self, src: SourceRef, kind: CiliumKind, warnings: list[Warning_]) -> None:
        self.src = src
        self.kind = kind
        self.warnings = warnings

    def warn(self, code: str, message: str) -> None:
        self.warnings.append(Warning_(code, message, self.src))

    # ------------------------------------------------------------------------------------------ rules

    def spec(self, value: Any, index: int | None) -> CiliumSpec:
        src = self.src
        path = "spec" if index is None else f"specs[{index}]"
        m = t.obj(value, src, path)
        t.check_fields(m, SPEC, src, path)
        has_es, has_ns = m.get("endpointSelector") is not None, m.get("nodeSelector") is not None
        if has_es == has_ns:  # the CRD's oneOf; Sanitize: "rule must have one of EndpointSelector or NodeSelector"
            raise InputError("Invalid value: exactly one of endpointSelector and nodeSelector must be set", src, path)
        if not any(m.get(k) is not None for k in ("ingress", "ingressDeny", "egress", "egressDeny")):
            # the CRD's anyOf: a rule without any of the four sections is refused by the API server
            raise t.required(src, path, "at least one of ingress, ingressDeny, egress, egressDeny")
        endpoint_selector = node_selector = None
        if has_es:
            endpoint_selector = self.selector(m["endpointSelector"], f"{path}.endpointSelector")
            if self.kind == "CiliumNetworkPolicy" and any(
                label_source(k)[1] == POD_NAMESPACE_LABEL for k in _selector_keys(endpoint_selector)
            ):
                # utils.go ParseToCiliumRule: "CiliumNetworkPolicy contains illegal namespace match in
                # EndpointSelector. EndpointSelector always applies in namespace of the policy resource"
                self.warn(
                    "cilium-namespace-in-selector",
                    f"{path}.endpointSelector names io.kubernetes.pod.namespace: a CiliumNetworkPolicy always "
                    "selects in its own namespace",
                )
        else:
            if self.kind == "CiliumNetworkPolicy":
                # docs.cilium.io, "Rule Basics": Node Selectors can only be used in CiliumClusterwideNetworkPolicies
                raise InputError(
                    "Forbidden: nodeSelector (a host policy) can only be used in a CiliumClusterwideNetworkPolicy",
                    src,
                    f"{path}.nodeSelector",
                )
            node_selector = self.selector(m["nodeSelector"], f"{path}.nodeSelector")
            self.warn(
                "cilium-host-policy",
                f"{path}: a host policy (nodeSelector) governs the nodes' own traffic, which netpol does not model; "
                "not evaluated",
            )
        sections: dict[tuple[Direction, bool], tuple[CiliumRule, ...]] = {}
        for direction in ("ingress", "egress"):
            for deny in (False, True):
                key = f"{direction}{'Deny' if deny else ''}"
                sections[(direction, deny)] = tuple(
                    self.rule(r, rfld, direction, deny, i, node_selector)
                    for i, (r, rfld) in enumerate(t.objs(m.get(key), src, f"{path}.{key}"))
                )
        edd = t.obj(m.get("enableDefaultDeny"), src, f"{path}.enableDefaultDeny")
        t.check_fields(edd, frozenset({"ingress", "egress"}), src, f"{path}.enableDefaultDeny")
        for lbl, lfld in t.objs(m.get("labels"), src, f"{path}.labels"):
            t.check_fields(lbl, frozenset({"key", "source", "value"}), src, lfld)
            if not t.string(lbl.get("key"), src, lfld + ".key"):
                raise t.required(src, lfld + ".key")
            t.string(lbl.get("source"), src, lfld + ".source")
            t.string(lbl.get("value"), src, lfld + ".value")
        log = t.obj(m.get("log"), src, f"{path}.log")
        t.check_fields(log, frozenset({"value"}), src, f"{path}.log")
        t.string(log.get("value"), src, f"{path}.log.value")
        return CiliumSpec(
            index,
            endpoint_selector,
            node_selector,
            ingress=sections[("ingress", False)],
            ingress_deny=sections[("ingress", True)],
            egress=sections[("egress", False)],
            egress_deny=sections[("egress", True)],
            enable_default_deny_ingress=_opt_bool(edd.get("ingress"), src, f"{path}.enableDefaultDeny.ingress"),
            enable_default_deny_egress=_opt_bool(edd.get("egress"), src, f"{path}.enableDefaultDeny.egress"),
            description=t.string(m.get("description"), src, f"{path}.description"),
        )

    def rule(
        self,
        m: Mapping[str, Any],
        fld: str,
        direction: Direction,
        deny: bool,
        index: int,
        node_selector: LabelSelector | None,
    ) -> CiliumRule:
        src = self.src
        t.check_fields(m, RULE_FIELDS[(direction, deny)], src, fld)
        given = [
            f for f in (_INGRESS_L3 if direction == "ingress" else _EGRESS_L3) if t.arr(m.get(f), src, f"{fld}.{f}")
        ]
        exclusive = [f for f in given if f in EXCLUSIVE[direction]]
        if len(exclusive) > 1:
            raise InputError(
                f"Invalid value: combining {exclusive[0]} and {exclusive[1]} in one rule is not supported by Cilium "
                "(write them as two rules)",
                src,
                fld,
            )
        peers: list[CiliumPeer] = []
        for f in given:
            peers.extend(self.peers(f, m[f], f"{fld}.{f}"))
        requires_key = "fromRequires" if direction == "ingress" else "toRequires"
        if t.arr(m.get(requires_key), src, f"{fld}.{requires_key}"):
            # Layer 3 docs: deprecated in Cilium 1.17, removed in 1.19; its requirements apply to every rule of
            # every policy selecting the same endpoints. Refused rather than guessed.
            peer = "fromEndpoints" if direction == "ingress" else "toEndpoints"
            raise InputError(
                f"{requires_key} is deprecated (Cilium 1.17) and removed in Cilium 1.19; netpol does not evaluate "
                f"it: write the requirement into each {peer} selector instead",
                src,
                f"{fld}.{requires_key}",
            )
        icmps = self.icmps(m.get("icmps"), f"{fld}.icmps")
        to_ports: tuple[PortRule, ...] | None = None
        if m.get("toPorts") is not None:
            to_ports = tuple(
                self.port_rule(p, pfld, direction, deny) for p, pfld in t.objs(m.get("toPorts"), src, f"{fld}.toPorts")
            )
            if icmps and to_ports:
                raise InputError(
                    "Invalid value: the icmps block may only be present without toPorts (define a separate rule)",
                    src,
                    f"{fld}.icmps",
                )
            for i, pr in enumerate(to_ports):
                if not pr.ports and pr.l7 is None:
                    self.warn(
                        "cilium-empty-ports",
                        f"{fld}.toPorts[{i}] lists no ports: Cilium allows nothing through it",
                    )
        if node_selector is not None and to_ports and any(pr.l7 is not None for pr in to_ports):
            raise InputError("Invalid value: host policies do not support L7 rules", src, f"{fld}.toPorts")
        auth = ""
        if m.get("authentication") is not None:
            a = t.obj(m["authentication"], src, f"{fld}.authentication")
            t.check_fields(a, frozenset({"mode"}), src, f"{fld}.authentication")
            mode = a.get("mode")
            modes = ("disabled", "required", "test-always-fail")
            if mode not in modes:
                raise t.unsupported(mode, modes, src, f"{fld}.authentication.mode")
            auth = str(mode)
        return CiliumRule(
            direction,
            deny,
            index,
            tuple(peers),
            tuple(given),
            to_ports,
            icmps,
            auth,
        )

    def peers(self, f: PeerField, value: Any, fld: str) -> list[CiliumPeer]:
        src = self.src
        items = t.arr(value, src, fld)
        out: list[CiliumPeer] = []
        for i, item in enumerate(items):
            ifld = f"{fld}[{i}]"
            match f:
                case "fromEndpoints" | "toEndpoints":
                    out.append(EndpointsPeer(self.selector(item, ifld)))
                case "fromNodes" | "toNodes":
                    out.append(NodesPeer(self.selector(item, ifld)))
                case "fromCIDR" | "toCIDR":
                    cidr_field(item, src, ifld)  # the CRD's format: cidr
                    out.append(CIDRPeer(str(item)))
                case "fromCIDRSet" | "toCIDRSet":
                    out.append(self.cidr_rule(item, ifld))
                case "fromEntities" | "toEntities":
                    if item not in ENTITIES:
                        raise t.unsupported(item, ENTITIES, src, ifld)
                    out.append(EntityPeer(item))
                case "toServices":
                    out.append(self.service(item, ifld))
                case "toFQDNs":
                    out.append(self.fqdn(item, ifld))
                case "fromGroups" | "toGroups":
                    g = t.obj(item, src, ifld)
                    t.check_fields(g, frozenset({"aws"}), src, ifld)
                    aws = t.obj(g.get("aws"), src, ifld + ".aws")
                    t.check_fields(
                        aws,
                        frozenset({"labels", "region", "securityGroupsIds", "securityGroupsNames"}),
                        src,
                        ifld + ".aws",
                    )
                    out.append(GroupsPeer("aws"))
        return out

    def cidr_rule(self, item: Any, fld: str) -> CIDRPeer | CIDRGroupPeer:
        src = self.src
        m = t.obj(item, src, fld)
        t.check_fields(m, CIDR_RULE, src, fld)
        present = [k for k in ("cidr", "cidrGroupRef", "cidrGroupSelector") if m.get(k) is not None]
        if len(present) != 1:
            raise InputError(
                "Invalid value: a CIDRRule needs exactly one of cidr, cidrGroupRef, cidrGroupSelector", src, fld
            )
        excepts = t.strings(m.get("except"), src, fld + ".except")
        if present[0] == "cidrGroupRef":
            ref = t.string(m["cidrGroupRef"], src, fld + ".cidrGroupRef")
            if len(ref) > 253 or not _DNS_SUBDOMAIN.match(ref):
                raise t.invalid(ref, "must be a DNS subdomain (a CiliumCIDRGroup name)", src, fld + ".cidrGroupRef")
            return CIDRGroupPeer(ref=ref)
        if present[0] == "cidrGroupSelector":
            return CIDRGroupPeer(selector=self.selector(m["cidrGroupSelector"], fld + ".cidrGroupSelector", plain=True))
        net = cidr_field(m["cidr"], src, fld + ".cidr")
        for i, e in enumerate(excepts):
            efld = f"{fld}.except[{i}]"
            ex = cidr_field(e, src, efld)
            # rule_validation.go CIDRRule.sanitize: each exception lies inside the cidr, same family
            if ex.version != net.version or ex.ip not in net:
                raise t.invalid(e, f"must lie inside `cidr` ({m['cidr']})", src, efld)
        return CIDRPeer(str(m["cidr"]), excepts, set_rule=True)

    def service(self, item: Any, fld: str) -> ServicePeer:
        src = self.src
        m = t.obj(item, src, fld)
        t.check_fields(m, SERVICE, src, fld)
        if m.get("k8sServiceSelector") is not None:
            sel = t.obj(m["k8sServiceSelector"], src, fld + ".k8sServiceSelector")
            t.check_fields(sel, frozenset({"selector", "namespace"}), src, fld + ".k8sServiceSelector")
            if sel.get("selector") is None:
                raise t.required(src, fld + ".k8sServiceSelector.selector")
            return ServicePeer(
                namespace=t.string(sel.get("namespace"), src, fld + ".k8sServiceSelector.namespace"),
                selector=self.selector(sel["selector"], fld + ".k8sServiceSelector.selector", plain=True),
            )
        if m.get("k8sService") is not None:
            ref = t.obj(m["k8sService"], src, fld + ".k8sService")
            t.check_fields(ref, frozenset({"serviceName", "namespace"}), src, fld + ".k8sService")
            return ServicePeer(
                name=t.string(ref.get("serviceName"), src, fld + ".k8sService.serviceName"),
                namespace=t.string(ref.get("namespace"), src, fld + ".k8sService.namespace"),
            )
        # pkg/policy/k8s/service.go: an item with neither selects no Service
        self.warn("cilium-empty-service", f"{fld} names no k8sService and no k8sServiceSelector: it selects nothing")
        return ServicePeer()

    def fqdn(self, item: Any, fld: str) -> FQDNPeer:
        src = self.src
        m = t.obj(item, src, fld)
        t.check_fields(m, FQDN, src, fld)
        name, pattern = m.get("matchName"), m.get("matchPattern")
        if (name is None) == (pattern is None):
            raise InputError("Invalid value: exactly one of matchName and matchPattern must be set", src, fld)
        if name is not None:
            return FQDNPeer(match_name=_pattern_string(name, _FQDN_NAME, src, fld + ".matchName"))
        return FQDNPeer(match_pattern=_pattern_string(pattern, _FQDN_PATTERN, src, fld + ".matchPattern"))

    def icmps(self, value: Any, fld: str) -> tuple[str, ...]:
        src = self.src
        out: list[str] = []
        for rule, rfld in t.objs(value, src, fld):
            t.check_fields(rule, frozenset({"fields"}), src, rfld)
            fields_ = t.objs(rule.get("fields"), src, rfld + ".fields")
            if len(fields_) > 40:
                raise t.invalid(len(fields_), "must have at most 40 items", src, rfld + ".fields")
            for f, ffld in fields_:
                t.check_fields(f, frozenset({"family", "type"}), src, ffld)
                family = t.string(f.get("family"), src, ffld + ".family") or "IPv4"
                if family not in ("IPv4", "IPv6"):
                    raise t.unsupported(family, ("IPv4", "IPv6"), src, ffld + ".family")
                ty = t.int_or_string(f.get("type"), src, ffld + ".type")
                if ty is None:
                    raise t.required(src, ffld + ".type")
                if isinstance(ty, int) and not 0 <= ty <= 255:
                    raise t.invalid(ty, "must be an ICMP type between 0 and 255", src, ffld + ".type")
                out.append(f"{family} {ty}")
        return tuple(out)

    # ------------------------------------------------------------------------------------------ ports

    def port_rule(self, m: Mapping[str, Any], fld: str, direction: Direction, deny: bool) -> PortRule:
        src = self.src
        t.check_fields(m, PORT_DENY_RULE if deny else PORT_RULE, src, fld)
        items = t.objs(m.get("ports"), src, fld + ".ports")
        if len(items) > MAX_PORTS:
            raise t.invalid(len(items), f"must have at most {MAX_PORTS} items", src, fld + ".ports")
        ports = tuple(self.port(p, pfld) for p, pfld in items)
        l7: L7Rules | None = None
        if m.get("rules") is not None:
            l7 = self.l7_rules(m["rules"], fld + ".rules", direction, ports)
        for key in ("originatingTLS", "terminatingTLS"):
            if m.get(key) is not None:
                tls = t.obj(m[key], src, f"{fld}.{key}")
                t.check_fields(tls, TLS, src, f"{fld}.{key}")
                secret = t.obj(tls.get("secret"), src, f"{fld}.{key}.secret")
                t.check_fields(secret, frozenset({"name", "namespace"}), src, f"{fld}.{key}.secret")
                if tls.get("secret") is None:
                    raise t.required(src, f"{fld}.{key}.secret")
        names_ = t.strings(m.get("serverNames"), src, fld + ".serverNames")
        if m.get("serverNames") is not None and not names_:
            raise t.invalid(names_, "must have at least 1 item", src, fld + ".serverNames")
        for i, sn in enumerate(names_):
            _pattern_string(sn, _SERVER_NAME, src, f"{fld}.serverNames[{i}]")
        if names_:
            if l7 is not None and m.get("terminatingTLS") is None:
                raise InputError(
                    "Invalid value: serverNames are not allowed with L7 rules without TLS termination",
                    src,
                    fld + ".serverNames",
                )
            if l7 is None:
                l7 = L7Rules("tls", names_)
        if m.get("listener") is not None:
            lst = t.obj(m["listener"], src, fld + ".listener")
            t.check_fields(lst, frozenset({"envoyConfig", "name", "priority"}), src, fld + ".listener")
            if direction == "ingress":
                raise InputError("Invalid value: a listener is not allowed on ingress", src, fld + ".listener")
            if l7 is not None:
                raise InputError("Invalid value: a listener is not allowed with L7 rules", src, fld + ".listener")
            name = t.string(lst.get("name"), src, fld + ".listener.name")
            if not name:
                raise t.required(src, fld + ".listener.name")
            cfg = t.obj(lst.get("envoyConfig"), src, fld + ".listener.envoyConfig")
            t.check_fields(cfg, frozenset({"kind", "name"}), src, fld + ".listener.envoyConfig")
            if not t.string(cfg.get("name"), src, fld + ".listener.envoyConfig.name"):
                raise t.required(src, fld + ".listener.envoyConfig.name")
            if cfg.get("kind") is not None and cfg["kind"] not in ("CiliumEnvoyConfig", "CiliumClusterwideEnvoyConfig"):
                raise t.unsupported(
                    cfg["kind"],
                    ("CiliumEnvoyConfig", "CiliumClusterwideEnvoyConfig"),
                    src,
                    fld + ".listener.envoyConfig.kind",
                )
            if lst.get("priority") is not None:
                t.integer(lst["priority"], src, fld + ".listener.priority", 1, 100)
            l7 = L7Rules("listener", (name,))
        return PortRule(ports, l7)

    def port(self, m: Mapping[str, Any], fld: str) -> PortProtocol:
        src = self.src
        t.check_fields(m, PORT_PROTOCOL, src, fld)
        raw = m.get("port")
        if raw is None or raw == "":
            raise t.required(src, fld + ".port", "Port must be specified")
        if not isinstance(raw, str):
            # The CRD types `port` as a string: the API server refuses a YAML number.
            raise t.invalid(raw, f'must be a string (write port: "{t.show(raw).strip(chr(34))}")', src, fld + ".port")
        port: int | str
        if _PORT_NUMBER.match(raw):
            port = int(raw)
        else:
            # rule_validation.go: a name is an IANA service name, compared case-insensitively
            port = raw.lower()
            reason = port_name_problem(port)
            if reason:
                raise t.invalid(raw, f"must be a port number 0-65535 or a port name: {reason}", src, fld + ".port")
        proto_raw = m.get("protocol")
        protocol: CiliumProtocol = "ANY"
        if proto_raw is not None:
            if proto_raw not in CILIUM_PROTOCOLS:
                raise t.unsupported(proto_raw, CILIUM_PROTOCOLS, src, fld + ".protocol")
            protocol = proto_raw
        end_port: int | None = None
        if m.get("endPort") is not None:
            end = t.integer(m["endPort"], src, fld + ".endPort", 0, 65535)
            if isinstance(port, str):
                # Layer 4 docs: "EndPort ... is ignored when Port is a named port"
                self.warn("cilium-ignored-endport", f"{fld}.endPort: ignored, `port` is a name ({port})")
            elif port == 0:
                self.warn("cilium-ignored-endport", f"{fld}.endPort: ignored, port 0 already means every port")
            elif end > port:
                end_port = end
            elif end and end < port:
                self.warn(
                    "cilium-ignored-endport",
                    f"{fld}.endPort: {end} is below port {port}; only port {port} is allowed",
                )
        return PortProtocol(port, protocol, end_port)

    def l7_rules(self, value: Any, fld: str, direction: Direction, ports: tuple[PortProtocol, ...]) -> L7Rules:
        src = self.src
        m = t.obj(value, src, fld)
        t.check_fields(m, L7_RULES, src, fld)
        present = [k for k in ("http", "kafka", "dns", "l7proto") if m.get(k) is not None]
        if len(present) != 1:
            raise InputError(
                "Invalid value: rules need exactly one of http, kafka, dns, l7proto (multiple L7 protocol rule types)",
                src,
                fld,
            )
        kind: Literal["http", "kafka", "dns", "l7proto"] = present[0]  # type: ignore[assignment]
        if m.get("l7") is not None and kind != "l7proto":
            raise InputError("Invalid value: 'l7' may only be specified when a 'l7proto' is also specified", src, fld)
        if kind == "dns":
            if direction == "ingress":
                raise InputError("Invalid value: DNS rules are not allowed on ingress", src, fld + ".dns")
            if not ports:
                raise t.required(src, fld, "Port 53 must be specified for DNS rules")
        else:
            for p in ports:
                if p.protocol != "TCP":
                    raise InputError(
                        f"Invalid value: L7 rules can only apply to TCP (not {p.protocol}) except for DNS rules",
                        src,
                        fld,
                    )
        if any(p.port == 0 for p in ports):
            raise InputError("Invalid value: L7 rules can not be used when a port is 0", src, fld)
        items: list[str] = []
        match kind:
            case "http":
                for r, rfld in t.objs(m["http"], src, fld + ".http"):
                    t.check_fields(r, HTTP_RULE, src, rfld)
                    words = [t.string(r.get(k), src, f"{rfld}.{k}") for k in ("method", "path")]
                    host = t.string(r.get("host"), src, rfld + ".host")
                    if host:
                        words.append(f"host {host}")
                    headers = t.strings(r.get("headers"), src, rfld + ".headers")
                    words.extend(f"header {h}" for h in headers)
                    for h, hfld in t.objs(r.get("headerMatches"), src, rfld + ".headerMatches"):
                        t.check_fields(h, HEADER_MATCH, src, hfld)
                        hname = t.string(h.get("name"), src, hfld + ".name")
                        if not hname:
                            raise t.required(src, hfld + ".name")
                        if h.get("mismatch") is not None and h["mismatch"] not in ("LOG", "ADD", "DELETE", "REPLACE"):
                            raise t.unsupported(
                                h["mismatch"], ("LOG", "ADD", "DELETE", "REPLACE"), src, hfld + ".mismatch"
                            )
                        words.append(f"header {hname}")
                    items.append(" ".join(w for w in words if w) or "any request")
            case "kafka":
                for r, rfld in t.objs(m["kafka"], src, fld + ".kafka"):
                    t.check_fields(r, KAFKA_RULE, src, rfld)
                    role = r.get("role")
                    if role is not None and role not in ("produce", "consume"):
                        raise t.unsupported(role, ("produce", "consume"), src, rfld + ".role")
                    words = [f"{k} {t.string(r.get(k), src, f'{rfld}.{k}')}" for k in sorted(KAFKA_RULE) if r.get(k)]
                    items.append(" ".join(words) or "any request")
            case "dns":
                for r, rfld in t.objs(m["dns"], src, fld + ".dns"):
                    items.append(self.fqdn(r, rfld).render())
            case "l7proto":
                proto = t.string(m["l7proto"], src, fld + ".l7proto")
                t.objs(m.get("l7"), src, fld + ".l7")
                items.append(proto)
        return L7Rules(kind, tuple(items))

    # ------------------------------------------------------------------------------------------ selectors

    def selector(self, value: Any, fld: str, *, plain: bool = False) -> LabelSelector:
        """An EndpointSelector: a LabelSelector whose keys may carry a source (`k8s:`, `any:`, `reserved:`),
        validated as Cilium validates it (the key with its source, `source.key`, must be a label key;
        ValidateLabelSelector). `plain`: a selector over Kubernetes objects' own labels (no sources)."""
        src = self.src
        m = t.obj(value, src, fld)
        t.check_fields(m, SELECTOR, src, fld)
        match_labels = t.string_map(m.get("matchLabels"), src, fld + ".matchLabels")
        for k, v in match_labels.items():
            self.key(k, f"{fld}.matchLabels", plain)
            reason = names.label_value(v)
            if reason:
                raise t.invalid(v, reason, src, f"{fld}.matchLabels[{k}]")
        exprs = []
        for e, efld in t.objs(m.get("matchExpressions"), src, fld + ".matchExpressions"):
            t.check_fields(e, REQUIREMENT, src, efld)
            key = t.string(e.get("key"), src, efld + ".key")
            if not key:
                raise t.required(src, efld + ".key")
            self.key(key, efld + ".key", plain)
            op = e.get("operator")
            if op not in SELECTOR_OPERATORS:
                raise t.unsupported(op, SELECTOR_OPERATORS, src, efld + ".operator")
            values = t.strings(e.get("values"), src, efld + ".values")
            t.check_set_values(op, values, src, efld + ".values")
            for i, v in enumerate(values):
                reason = names.label_value(v)
                if reason:
                    raise t.invalid(v, reason, src, f"{efld}.values[{i}]")
            exprs.append(LabelSelectorRequirement(key, op, values))
        return LabelSelector(Labels(match_labels), tuple(exprs))

    def key(self, key: str, fld: str, plain: bool) -> None:
        if plain:
            reason = names.label_key(key)
        else:
            source, rest = label_source(key)
            # pkg/policy/api EndpointSelector.UnmarshalJSON keys become `source.key`, then ValidateLabelSelector
            reason = names.label_key(f"{source}.{rest}") if rest else "must not be empty"
        if reason:
            raise t.invalid(key, reason, self.src, fld)


def _selector_keys(sel: LabelSelector) -> list[str]:
    return [*sel.match_labels.keys(), *(r.key for r in sel.match_expressions)]


def _opt_bool(value: Any, src: SourceRef, fld: str) -> bool | None:
    return None if value is None else t.boolean(value, src, fld)


def _pattern_string(value: Any, pattern: re.Pattern[str], src: SourceRef, fld: str) -> str:
    text = t.string(value, src, fld)
    if len(text) > 255 or not pattern.match(text):
        raise t.invalid(text, f"must match {pattern.pattern} (at most 255 characters)", src, fld)
    return text
