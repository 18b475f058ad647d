"""ClusterNetworkPolicy (policy.networking.k8s.io/v1alpha2) read as strictly as the API server reads it.

Every refusal mirrors the CRD kubernetes-sigs/network-policy-api ships:
config/crd/experimental/policy.networking.k8s.io_clusternetworkpolicies.yaml (its schema: required fields, enums,
minimum/maximum, minItems/maxItems, maxLength, minProperties/maxProperties, `x-kubernetes-list-type: set`, the
DomainName pattern; its validation rules: `self.start < self.end`, `isCIDR(self)`, no named port with
networks/nodes/domainNames peers) and the field documentation of apis/v1alpha2/clusternetworkpolicy_types.go
("DomainNames is only supported for Accept rules"). The same for v1alpha1 `domainNames`
(apis/v1alpha1/adminnetworkpolicy_types.go, in the API since v0.1.x: AdminNetworkPolicy egress only).
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from netpol.errors import InputError
from netpol.manifests import load_text
from netpol.model.admin import AdminDomainNames, AdminNamespaces, AdminNetworks, AdminNodes, AdminPods
from netpol.model.cnp import NamedPortMatch, PortMatch
from tests.helpers import run_cli

CNP_API = "policy.networking.k8s.io/v1alpha2"
ANP_API = "policy.networking.k8s.io/v1alpha1"


def cnp(spec: dict | None = None, name: str = "p", **top: object) -> dict:
    base = {"tier": "Admin", "priority": 10, "subject": {"namespaces": {}}}
    return {
        "apiVersion": CNP_API,
        "kind": "ClusterNetworkPolicy",
        "metadata": {"name": name},
        "spec": {**base, **(spec or {})},
        **top,
    }


def egress(*rules: dict) -> dict:
    return {"egress": list(rules)}


def rule(action: str = "Accept", to: list | None = None, **more: object) -> dict:
    return {"action": action, "to": to if to is not None else [{"namespaces": {}}], **more}


def tcp(port: object) -> dict:
    return {"tcp": {"destinationPort": port}}


def read(*objs: dict):  # noqa: ANN201 - the Cluster
    return load_text(yaml.safe_dump_all(list(objs)), "in.yaml")


def error_of(*objs: dict) -> str:
    with pytest.raises(InputError) as info:
        read(*objs)
    return str(info.value)


WHO = "in.yaml, document 1, ClusterNetworkPolicy p: "

REFUSED = [
    ("no-spec", {**cnp(), "spec": None}, "spec: Required value"),
    ("unknown-spec-field", cnp({"priorty": 3}), 'unknown field "spec.priorty"'),
    ("tier-missing", cnp({"tier": None}), 'spec.tier: Required value: supported values: "Admin", "Baseline"'),
    ("tier-lowercase", cnp({"tier": "admin"}), 'spec.tier: Unsupported value: "admin": supported values: "Admin"'),
    ("priority-missing", cnp({"priority": None}), "spec.priority: Required value"),
    ("priority-above-1000", cnp({"priority": 1001}), "spec.priority: Invalid value: 1001: must be between 0 and 1000"),
    ("priority-negative", cnp({"priority": -1}), "spec.priority: Invalid value: -1: must be between 0 and 1000"),
    ("subject-missing", cnp({"subject": None}), "spec.subject: Required value"),
    (
        "subject-empty",
        cnp({"subject": {}}),
        "spec.subject: Invalid value: subject needs exactly one of namespaces or pods",
    ),
    (
        "subject-both",
        cnp({"subject": {"namespaces": {}, "pods": {"podSelector": {}}}}),
        "spec.subject: Invalid value: subject needs exactly one of namespaces or pods",
    ),
    (
        "subject-pods-without-pod-selector",
        cnp({"subject": {"pods": {"namespaceSelector": {}}}}),
        "spec.subject.pods.podSelector: Required value",
    ),
    (
        "too-many-ingress-rules",
        cnp({"ingress": [{"action": "Deny", "from": [{"namespaces": {}}]}] * 26}),
        "spec.ingress: Too many: 26",
    ),
    ("too-many-egress-rules", cnp(egress(*[rule()] * 26)), "spec.egress: Too many: 26"),
    ("rule-name-101", cnp(egress(rule(name="x" * 101))), "spec.egress[0].name: Too long: may not be more than 100"),
    (
        "action-allow",
        cnp(egress(rule("Allow"))),
        'spec.egress[0].action: Unsupported value: "Allow": supported values: "Accept"',
    ),
    ("action-missing", cnp(egress({"to": [{"namespaces": {}}]})), "spec.egress[0].action: Required value"),
    ("to-missing", cnp(egress({"action": "Deny"})), "spec.egress[0].to: Required value"),
    ("to-empty", cnp(egress(rule(to=[]))), "spec.egress[0].to: Required value"),
    ("to-26-peers", cnp(egress(rule(to=[{"namespaces": {}}] * 26))), "spec.egress[0].to: Too many: 26"),
    (
        "from-in-egress",
        cnp(egress({"action": "Deny", "from": [{"namespaces": {}}]})),
        'unknown field "spec.egress[0].from"',
    ),
    (
        "ingress-nodes-peer",
        cnp({"ingress": [{"action": "Deny", "from": [{"nodes": {}}]}]}),
        'unknown field "spec.ingress[0].from[0].nodes"',
    ),
    (
        "ingress-networks-peer",
        cnp({"ingress": [{"action": "Deny", "from": [{"networks": ["10.0.0.0/8"]}]}]}),
        'unknown field "spec.ingress[0].from[0].networks"',
    ),
    ("peer-empty", cnp(egress(rule(to=[{}]))), "spec.egress[0].to[0]: Invalid value: a peer needs exactly one of"),
    (
        "peer-two-fields",
        cnp(egress(rule(to=[{"namespaces": {}, "networks": ["10.0.0.0/8"]}]))),
        "spec.egress[0].to[0]: Invalid value: a peer needs exactly one of",
    ),
    (
        "peer-pods-without-pod-selector",
        cnp(egress(rule(to=[{"pods": {"namespaceSelector": {}}}]))),
        "spec.egress[0].to[0].pods.podSelector: Required value",
    ),
    ("networks-empty", cnp(egress(rule(to=[{"networks": []}]))), "spec.egress[0].to[0].networks: Required value"),
    (
        "networks-not-cidr",
        cnp(egress(rule(to=[{"networks": ["10.0.0.300/8"]}]))),
        'spec.egress[0].to[0].networks[0]: Invalid value: "10.0.0.300/8": must be a valid CIDR',
    ),
    (
        "networks-duplicate",
        cnp(egress(rule(to=[{"networks": ["10.0.0.0/8", "10.0.0.0/8"]}]))),
        'spec.egress[0].to[0].networks[1]: Duplicate value: "10.0.0.0/8"',
    ),
    (
        "networks-26",
        cnp(egress(rule(to=[{"networks": [f"10.{i}.0.0/16" for i in range(26)]}]))),
        "spec.egress[0].to[0].networks: Too many: 26",
    ),
    (
        "networks-longer-than-43",
        cnp(egress(rule(to=[{"networks": ["0000:0000:0000:0000:0000:ffff:192.168.100.228/128"]}]))),
        'spec.egress[0].to[0].networks[0]: Invalid value: "0000:0000:0000:0000:0000:ffff:192.168.100.228/128": may '
        "not be more than 43 bytes",
    ),
    (
        "domain-name-pattern",
        cnp(egress(rule(to=[{"domainNames": ["*kubernetes.io"]}]))),
        'spec.egress[0].to[0].domainNames[0]: Invalid value: "*kubernetes.io": must be a domain name',
    ),
    (
        "domain-name-single-label",
        cnp(egress(rule(to=[{"domainNames": ["localhost"]}]))),
        'spec.egress[0].to[0].domainNames[0]: Invalid value: "localhost"',
    ),
    (
        "domain-names-in-deny",
        cnp(egress(rule("Deny", to=[{"domainNames": ["kubernetes.io"]}]))),
        'spec.egress[0].action: Invalid value: "Deny": domainNames peers are only supported in Accept rules',
    ),
    (
        "domain-names-in-pass",
        cnp(egress(rule("Pass", to=[{"domainNames": ["kubernetes.io"]}]))),
        'spec.egress[0].action: Invalid value: "Pass": domainNames peers are only supported in Accept rules',
    ),
    ("protocols-empty", cnp(egress(rule(protocols=[]))), "spec.egress[0].protocols: Required value"),
    ("protocols-26", cnp(egress(rule(protocols=[tcp({"number": 80})] * 26))), "spec.egress[0].protocols: Too many: 26"),
    (
        "protocol-empty-entry",
        cnp(egress(rule(protocols=[{}]))),
        "spec.egress[0].protocols[0]: Invalid value: a protocols entry needs exactly one of tcp, udp, sctp",
    ),
    (
        "protocol-two-keys",
        cnp(egress(rule(protocols=[{**tcp({"number": 80}), "udp": {"destinationPort": {"number": 53}}}]))),
        "spec.egress[0].protocols[0]: Invalid value: a protocols entry needs exactly one of",
    ),
    (
        "protocol-tcp-empty",
        cnp(egress(rule(protocols=[{"tcp": {}}]))),
        "spec.egress[0].protocols[0].tcp.destinationPort: Required value",
    ),
    (
        "protocol-uppercase-key",
        cnp(egress(rule(protocols=[{"TCP": {"destinationPort": {"number": 80}}}]))),
        'unknown field "spec.egress[0].protocols[0].TCP"',
    ),
    (
        "destination-port-empty",
        cnp(egress(rule(protocols=[tcp({})]))),
        "spec.egress[0].protocols[0].tcp.destinationPort: Invalid value: a destinationPort needs exactly one of number or range",
    ),
    (
        "destination-port-both",
        cnp(egress(rule(protocols=[tcp({"number": 80, "range": {"start": 1, "end": 2}})]))),
        "a destinationPort needs exactly one of number or range",
    ),
    (
        "port-zero",
        cnp(egress(rule(protocols=[tcp({"number": 0})]))),
        "spec.egress[0].protocols[0].tcp.destinationPort.number: Invalid value: 0: must be between 1 and 65535",
    ),
    (
        "port-65536",
        cnp(egress(rule(protocols=[{"udp": {"destinationPort": {"number": 65536}}}]))),
        "spec.egress[0].protocols[0].udp.destinationPort.number: Invalid value: 65536: must be between 1 and 65535",
    ),
    (
        "port-string",
        cnp(egress(rule(protocols=[tcp({"number": "http"})]))),
        'tcp.destinationPort.number: Invalid value: "http": must be an integer',
    ),
    (
        "range-start-equals-end",
        cnp(egress(rule(protocols=[tcp({"range": {"start": 80, "end": 80}})]))),
        "spec.egress[0].protocols[0].tcp.destinationPort.range: Invalid value: 80: Start port must be less than End port",
    ),
    (
        "range-reversed",
        cnp(egress(rule(protocols=[{"sctp": {"destinationPort": {"range": {"start": 90, "end": 80}}}}]))),
        "Start port must be less than End port",
    ),
    (
        "range-no-end",
        cnp(egress(rule(protocols=[tcp({"range": {"start": 80}})]))),
        "tcp.destinationPort.range.end: Required value",
    ),
    (
        "range-protocol-field",
        cnp(egress(rule(protocols=[tcp({"range": {"start": 80, "end": 90, "protocol": "TCP"}})]))),
        'unknown field "spec.egress[0].protocols[0].tcp.destinationPort.range.protocol"',
    ),
    (
        "named-port-empty",
        cnp(egress(rule(protocols=[{"destinationNamedPort": ""}]))),
        "destinationNamedPort: Required value",
    ),
    (
        "named-port-with-networks",
        cnp(egress(rule(to=[{"networks": ["10.0.0.0/8"]}], protocols=[{"destinationNamedPort": "http"}]))),
        "spec.egress[0]: Invalid value: networks/nodes/domainNames peer cannot be set with named ports",
    ),
    (
        "named-port-with-nodes",
        cnp(egress(rule(to=[{"namespaces": {}}, {"nodes": {}}], protocols=[{"destinationNamedPort": "http"}]))),
        "spec.egress[0]: Invalid value: networks/nodes/domainNames peer cannot be set with named ports",
    ),
    (
        "named-port-with-domain-names",
        cnp(egress(rule(to=[{"domainNames": ["kubernetes.io"]}], protocols=[{"destinationNamedPort": "http"}]))),
        "spec.egress[0]: Invalid value: networks/nodes/domainNames peer cannot be set with named ports",
    ),
    (
        "selector-unknown-field",
        cnp({"subject": {"namespaces": {"matchLabel": {"a": "b"}}}}),
        'unknown field "spec.subject.namespaces.matchLabel"',
    ),
]


@pytest.mark.parametrize(("obj", "message"), [pytest.param(o, m, id=i) for i, o, m in REFUSED])
def test_what_the_crd_refuses_is_an_error_naming_file_object_and_field(obj: dict, message: str) -> None:
    """Each case is refused by the v1alpha2 CRD's schema or validation rules (module docstring)."""
    got = error_of(obj)
    assert got.startswith(WHO), got
    assert message in got, got


def test_a_refused_policy_exits_2_with_the_message_and_no_traceback(tmp_path: Path) -> None:
    path = tmp_path / "cnp.yaml"
    path.write_text(yaml.safe_dump(cnp(egress(rule(protocols=[{"tcp": {}}])))))
    result = run_cli("matrix", str(path))
    assert result.returncode == 2
    assert "spec.egress[0].protocols[0].tcp.destinationPort: Required value" in result.stderr
    assert "Traceback" not in result.stderr


def test_every_field_reads_into_the_model_in_the_apis_words() -> None:
    pol = cnp(
        {
            "tier": "Baseline",
            "priority": 0,
            "subject": {"pods": {"podSelector": {"matchLabels": {"app": "db"}}}},
            "ingress": [{"name": "in", "action": "Pass", "from": [{"pods": {"podSelector": {}}}]}],
        }
        | egress(
            rule(
                "Accept",
                to=[{"nodes": {"matchLabels": {"role": "infra"}}}, {"networks": ["10.0.0.0/8", "fd00::/8"]}],
                protocols=[tcp({"number": 80}), {"udp": {"destinationPort": {"range": {"start": 1, "end": 65535}}}}],
            ),
            rule("Accept", to=[{"domainNames": ["kubernetes.io", "*.kubernetes.io"]}]),
            rule("Deny", to=[{"namespaces": {}}], protocols=[{"destinationNamedPort": "web-alt"}]),
        )
    )
    (p,) = read(pol).cluster_network_policies
    assert (p.name, p.tier, p.priority, p.key, p.kind) == ("p", "Baseline", 0, "CNP p", "ClusterNetworkPolicy")
    assert (
        p.subject_namespaces.is_empty
        and p.subject_pods is not None
        and dict(p.subject_pods.match_labels) == {"app": "db"}
    )
    (i,) = p.ingress
    assert (i.name, i.action) == ("in", "Pass") and isinstance(i.peers[0], AdminPods) and i.protocols == ()
    e0, e1, e2 = p.egress
    assert isinstance(e0.peers[0], AdminNodes) and e0.peers[1] == AdminNetworks(("10.0.0.0/8", "fd00::/8"))
    assert e0.protocols == (PortMatch("TCP", 80, 80), PortMatch("UDP", 1, 65535))
    assert e1.peers == (AdminDomainNames(("kubernetes.io", "*.kubernetes.io")),)
    assert isinstance(e2.peers[0], AdminNamespaces) and e2.protocols == (NamedPortMatch("web-alt"),)


def test_a_pods_peer_without_namespace_selector_selects_every_namespace() -> None:
    """NamespacedPod.NamespaceSelector is optional in v1alpha2: "if empty, it selects all Namespaces"."""
    (p,) = read(
        cnp(egress(rule(to=[{"pods": {"podSelector": {"matchLabels": {"app": "x"}}}}])))
    ).cluster_network_policies
    peer = p.egress[0].peers[0]
    assert isinstance(peer, AdminPods) and peer.namespace_selector.is_empty


def test_policies_are_ordered_admin_then_baseline_by_priority_then_name() -> None:
    objs = [
        cnp({"tier": "Baseline", "priority": 1}, name="b1"),
        cnp({"priority": 20}, name="a20"),
        cnp({"priority": 5}, name="z5"),
        cnp({"priority": 5}, name="a5"),
        cnp({"tier": "Baseline", "priority": 0}, name="b0"),
    ]
    assert [p.name for p in read(*objs).cluster_network_policies] == ["a5", "z5", "a20", "b0", "b1"]


def test_cluster_network_policy_lists_read_like_kubectl_get_output() -> None:
    """`ClusterNetworkPolicyList` (the CRD's listKind) and kubectl's generic `List` both unpack."""
    typed = {"apiVersion": CNP_API, "kind": "ClusterNetworkPolicyList", "items": [cnp(name="a"), cnp(name="b")]}
    one = copy.deepcopy(cnp(name="c"))
    generic = {"apiVersion": "v1", "kind": "List", "items": [one]}
    assert [p.name for p in read(typed, generic).cluster_network_policies] == ["a", "b", "c"]
    bare = copy.deepcopy(cnp(name="d"))
    del bare["kind"]  # items of a typed List may leave their kind out: the list's kind says it
    assert [
        p.name
        for p in read(
            {"apiVersion": CNP_API, "kind": "ClusterNetworkPolicyList", "items": [bare]}
        ).cluster_network_policies
    ] == ["d"]


def test_status_conditions_of_a_live_object_are_read_without_complaint() -> None:
    status = {
        "conditions": [
            {
                "type": "Ready",
                "status": "True",
                "reason": "R",
                "message": "",
                "lastTransitionTime": "2025-10-01T00:00:00Z",
            }
        ]
    }
    cluster = read(cnp(status=status))
    assert len(cluster.cluster_network_policies) == 1
    assert not [w for w in cluster.warnings if w.code == "unknown-field"]


def test_antreas_cluster_network_policy_keeps_its_own_warning_with_the_right_article() -> None:
    """Antrea's ClusterNetworkPolicy (crd.antrea.io) is another engine's policy of the same kind name."""
    antrea = {
        "apiVersion": "crd.antrea.io/v1beta1",
        "kind": "ClusterNetworkPolicy",
        "metadata": {"name": "acnp"},
        "spec": {"priority": 5, "tier": "securityops", "appliedTo": [{"podSelector": {}}], "ingress": []},
    }
    cluster = read(antrea, cnp(name="ours"))
    assert [p.name for p in cluster.cluster_network_policies] == ["ours"]
    (w,) = [w for w in cluster.warnings if w.code == "unevaluated-policy"]
    assert (
        "ClusterNetworkPolicy (crd.antrea.io/v1beta1) is an Antrea policy, which netpol does not evaluate" in w.message
    )


def test_another_version_of_the_group_is_named_and_not_evaluated() -> None:
    future = cnp(name="later")
    future["apiVersion"] = "policy.networking.k8s.io/v1beta1"
    cluster = read(future)
    assert cluster.cluster_network_policies == ()
    (w,) = [w for w in cluster.warnings if w.code == "unevaluated-policy"]
    assert "policy.networking.k8s.io/v1beta1 is not policy.networking.k8s.io/v1alpha2" in w.message


def test_the_apis_user_stories_read_as_written() -> None:
    """The four v1alpha2 user-story objects of site-src/user-story-examples read without a warning."""
    here = Path(__file__).resolve().parents[2] / "samples" / "cluster-network-policy"
    texts = [p.read_text() for p in sorted(here.glob("user-story-*/policies.yaml"))]
    assert len(texts) == 4
    for text in texts:
        cluster = load_text((here / "cluster.yaml").read_text() + "\n---\n" + text, "policies.yaml")
        assert cluster.cluster_network_policies and not cluster.warnings


# ------------------------------------------------------------------------------- v1alpha1 domainNames


def anp(egress_rules: list[dict], kind: str = "AdminNetworkPolicy") -> dict:
    spec: dict = {"subject": {"namespaces": {}}, "egress": egress_rules}
    if kind == "AdminNetworkPolicy":
        spec["priority"] = 1
    return {"apiVersion": ANP_API, "kind": kind, "metadata": {"name": "default"}, "spec": spec}


def test_v1alpha1_domain_names_are_read_in_allow_rules() -> None:
    """AdminNetworkPolicyEgressPeer.DomainNames (v1alpha1, experimental since v0.1.x)."""
    cluster = read(anp([{"action": "Allow", "to": [{"domainNames": ["*.example.com"]}]}]))
    (p,) = cluster.admin_policies
    assert p.egress[0].peers == (AdminDomainNames(("*.example.com",)),)


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        pytest.param(
            anp([{"action": "Deny", "to": [{"domainNames": ["example.com"]}]}]),
            'spec.egress[0].action: Invalid value: "Deny": domainNames peers are only supported in Allow rules',
            id="anp-deny",
        ),
        pytest.param(
            anp([{"action": "Allow", "to": [{"domainNames": ["example.com"]}]}], "BaselineAdminNetworkPolicy"),
            'unknown field "spec.egress[0].to[0].domainNames"',
            id="banp-has-no-domain-names",
        ),
        pytest.param(
            anp([{"action": "Allow", "to": [{"networks": ["10.0.0.0/8"]}], "ports": [{"namedPort": "http"}]}]),
            "spec.egress[0]: Invalid value: networks/nodes/domainNames peer cannot be set with named ports",
            id="anp-named-port-with-networks",
        ),
    ],
)
def test_v1alpha1_refuses_what_its_crd_refuses(obj: dict, message: str) -> None:
    """apis/v1alpha1: DomainNames only on AdminNetworkPolicy egress peers ("only supported for ALLOW rules"); the
    egress rules' validation rule forbids named ports with networks/nodes(/domainNames) peers."""
    assert message in error_of(obj)
