"""Reading CiliumNetworkPolicy / CiliumClusterwideNetworkPolicy as strictly as the API server with Cilium's CRD
schema (pkg/k8s/apis/cilium.io/client/crds/v2) and Cilium's own import check (pkg/policy/api
rule_validation.go `Sanitize`) would: what they refuse is an error naming file, object and field; what the
CRD's structural schema prunes (a stray top-level field) is a warning; Lists read like every kind.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from netpol.errors import InputError
from netpol.manifests import load_text
from tests.helpers import run_cli
from tests.netpol.cilium_cases import ccnp, cnp, cpod

DATA = Path(__file__).resolve().parents[1] / "data" / "real-apps" / "cilium-starwars"


def spec(**rules: object) -> dict:
    return {"endpointSelector": {"matchLabels": {"app": "web"}}, **rules}


def error_of(*objs: dict) -> InputError:
    with pytest.raises(InputError) as info:
        load_text(yaml.safe_dump_all(list(objs)), "in.yaml")
    return info.value


def ingress(**rule: object) -> dict:
    return spec(ingress=[rule])


def test_reads_spec_and_specs_into_rules() -> None:
    """intro.rst "Rule Basics": a policy carries `spec`, `specs` (a list of rules), or both."""
    two = [spec(ingress=[{}]), {"endpointSelector": {}, "egress": [{"toEntities": ["world"]}]}]
    c = load_text(yaml.safe_dump_all([cnp("a", "p", spec(ingress=[{}]), specs=two)]))
    (pol,) = c.cilium_policies
    assert [s.path for s in pol.specs] == ["spec", "specs[0]", "specs[1]"]
    assert pol.key == "cnp a/p" and pol.spec_key(pol.specs[2]) == "cnp a/p specs[1]"


@pytest.mark.parametrize(
    ("obj", "field", "words"),
    [
        pytest.param(cnp("a", "p"), "spec", "needs `spec` or `specs`", id="no-spec"),
        pytest.param(cnp("a", "p", {"endpointSelector": {}}), "spec", "at least one of ingress", id="no-section"),
        pytest.param(
            cnp("a", "p", {"endpointSelector": {}, "nodeSelector": {}, "ingress": [{}]}),
            "spec",
            "exactly one of endpointSelector and nodeSelector",
            id="both-selectors",
        ),
        pytest.param(
            cnp("a", "p", {"nodeSelector": {}, "ingress": [{}]}), "spec.nodeSelector", "Clusterwide", id="cnp-node"
        ),
        pytest.param(
            cnp("a", "p", ingress(fromEndpoint=[{}])), "spec.ingress[0].fromEndpoint", "fromEndpoints", id="typo"
        ),
        pytest.param(cnp("a", "p", {**ingress(), "ingres": [{}]}), "spec.ingres", "ingress", id="spec-typo"),
        pytest.param(
            cnp("a", "p", ingress(toPorts=[{"ports": [{"port": 80}]}])),
            "spec.ingress[0].toPorts[0].ports[0].port",
            'must be a string (write port: "80")',
            id="port-int",
        ),
        pytest.param(
            cnp("a", "p", ingress(toPorts=[{"ports": [{"port": "80", "protocol": "tcp"}]}])),
            "spec.ingress[0].toPorts[0].ports[0].protocol",
            'supported values: "TCP", "UDP", "SCTP", "ANY"',
            id="protocol-case",
        ),
        pytest.param(
            cnp("a", "p", ingress(toPorts=[{"ports": [{"port": "70000"}]}])),
            "spec.ingress[0].toPorts[0].ports[0].port",
            "port number 0-65535 or a port name",
            id="port-range",
        ),
        pytest.param(
            cnp("a", "p", ingress(fromEndpoints=[{}], fromCIDR=["10.0.0.0/8"])),
            "spec.ingress[0]",
            "combining fromEndpoints and fromCIDR",
            id="combined-l3",
        ),
        pytest.param(
            cnp("a", "p", ingress(fromCIDR=["10.0.0.1"])), "spec.ingress[0].fromCIDR[0]", "valid CIDR", id="cidr-format"
        ),
        pytest.param(
            cnp("a", "p", ingress(fromCIDRSet=[{"cidr": "10.0.0.0/16", "except": ["10.1.0.0/24"]}])),
            "spec.ingress[0].fromCIDRSet[0].except[0]",
            "must lie inside `cidr`",
            id="except-outside",
        ),
        pytest.param(
            cnp("a", "p", ingress(fromEntities=["everyone"])),
            "spec.ingress[0].fromEntities[0]",
            "Unsupported value",
            id="entity",
        ),
        pytest.param(
            cnp("a", "p", spec(egress=[{"toFQDNs": [{"matchName": "a b"}]}])),
            "spec.egress[0].toFQDNs[0].matchName",
            "must match",
            id="fqdn",
        ),
        pytest.param(
            cnp("a", "p", ingress(toPorts=[{"ports": [{"port": "53", "protocol": "UDP"}], "rules": {"http": [{}]}}])),
            "spec.ingress[0].toPorts[0].rules",
            "L7 rules can only apply to TCP",
            id="l7-udp",
        ),
        pytest.param(
            cnp("a", "p", ingress(toPorts=[{"ports": [{"port": "53"}], "rules": {"dns": [{"matchPattern": "*"}]}}])),
            "spec.ingress[0].toPorts[0].rules.dns",
            "DNS rules are not allowed on ingress",
            id="dns-ingress",
        ),
        pytest.param(
            cnp(
                "a",
                "p",
                ingress(toPorts=[{"ports": [{"port": "80", "protocol": "TCP"}], "rules": {"http": [], "kafka": []}}]),
            ),
            "spec.ingress[0].toPorts[0].rules",
            "exactly one of http, kafka, dns, l7proto",
            id="two-l7",
        ),
        pytest.param(
            cnp("a", "p", ingress(fromRequires=[{"matchLabels": {"env": "prod"}}])),
            "spec.ingress[0].fromRequires",
            "removed in Cilium 1.19",
            id="from-requires",
        ),
        pytest.param(
            cnp("a", "p", spec(ingressDeny=[{"toPorts": [{"ports": [{"port": "80"}], "rules": {"http": [{}]}}]}])),
            "spec.ingressDeny[0].toPorts[0].rules",
            'unknown field "spec.ingressDeny[0].toPorts[0].rules"',
            id="deny-l7",
        ),
        pytest.param(
            cnp("a", "p", ingress(fromEndpoints=[{"matchLabels": {"app": "a b"}}])),
            "spec.ingress[0].fromEndpoints[0].matchLabels[app]",
            "Invalid value",
            id="label-value",
        ),
    ],
)
def test_what_the_api_server_or_cilium_refuses_is_an_error_naming_the_field(obj: dict, field: str, words: str) -> None:
    err = error_of(obj)
    assert err.field == field
    assert words in str(err)
    assert "in.yaml, document 1, CiliumNetworkPolicy a/p" in str(err)


def test_a_stray_top_level_field_is_a_warning_not_an_error() -> None:
    """The upstream demo's sw_l3_l4_policy.yaml has `description` beside `spec`: the CRD's structural schema
    prunes it, so kubectl applies the policy; netpol warns."""
    obj = {**cnp("default", "rule1", ingress(fromEndpoints=[{}])), "description": "L3-L4 policy"}
    c = load_text(yaml.safe_dump(obj), "in.yaml")
    assert len(c.cilium_policies) == 1
    assert any('unknown field "description"' in w.message for w in c.warnings)


def test_lists_read_like_every_kind() -> None:
    """`kubectl get cnp -o yaml` prints a List; CiliumNetworkPolicyList is the typed one."""
    items = [cnp("a", "p", ingress(fromEndpoints=[{}])), cnp("b", "q", ingress())]
    for kind in ("List", "CiliumNetworkPolicyList"):
        text = yaml.safe_dump({"apiVersion": "v1" if kind == "List" else "cilium.io/v2", "kind": kind, "items": items})
        assert [p.key for p in load_text(text).cilium_policies] == ["cnp a/p", "cnp b/q"]


def test_warnings_for_what_cilium_accepts_but_ignores() -> None:
    objs = [
        {
            **ccnp("cw", ingress(toPorts=[{"ports": [{"port": "http", "endPort": 90}]}])),
            "metadata": {"name": "cw", "namespace": "x"},
        },
        ccnp("host", {"nodeSelector": {}, "ingress": [{"fromEntities": ["cluster"]}]}),
        cnp("a", "p", ingress(toPorts=[{"ports": []}])),
    ]
    text = " | ".join(w.message for w in load_text(yaml.safe_dump_all(objs)).warnings)
    assert "cluster-scoped; the namespace is ignored" in text
    assert "endPort: ignored, `port` is a name (http)" in text
    assert "a host policy (nodeSelector)" in text and "not evaluated" in text
    assert "spec.ingress[0].toPorts[0] lists no ports: Cilium allows nothing through it" in text


def test_another_api_group_is_named_not_evaluated() -> None:
    obj = {**cnp("a", "p", ingress()), "apiVersion": "example.com/v1"}
    c = load_text(yaml.safe_dump(obj))
    assert not c.cilium_policies
    assert any(w.code == "unevaluated-policy" for w in c.warnings)


def test_named_ports_are_compared_case_insensitively() -> None:
    """rule_validation.go PortProtocol.sanitize: a port name is lower-cased (IANA names are case-insensitive)."""
    c = load_text(yaml.safe_dump(cnp("a", "p", ingress(toPorts=[{"ports": [{"port": "HTTP"}]}]))))
    port = c.cilium_policies[0].specs[0].ingress[0].to_ports[0].ports[0]  # type: ignore[index]
    assert port.port == "http" and port.protocol == "ANY"


def test_cli_exits_2_with_the_field_and_no_traceback(tmp_path: Path) -> None:
    bad = cnp("a", "p", ingress(toPorts=[{"ports": [{"port": 80}]}]))
    (tmp_path / "p.yaml").write_text(yaml.safe_dump_all([cpod("a", "web", {"app": "web"}, "10.0.0.1"), bad]))
    out = run_cli("matrix", str(tmp_path))
    assert out.returncode == 2
    assert "spec.ingress[0].toPorts[0].ports[0].port" in out.stderr and "Traceback" not in out.stderr


def test_the_upstream_demo_reads_with_one_warning(tmp_path: Path) -> None:
    shutil.copytree(DATA / "l3-l4", tmp_path / "l3-l4")
    out = run_cli("matrix", str(tmp_path / "l3-l4"))
    assert out.returncode == 0, out.stderr
    assert 'unknown field "description"' in out.stderr
