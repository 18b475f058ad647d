"""Reading Calico's objects: both API groups, Lists, what is refused (as Calico refuses it), what is only named.

Validation cited from projectcalico/calico: api/pkg/apis/projectcalico/v3 (policy_common.go kubebuilder CEL
rules, networkpolicy.go, tier.go) and libcalico-go lib/validator/v3/validator.go (validateRule,
validateEntityRule); selectors from libcalico-go lib/selector (tokenizer, parser).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from netpol.errors import InputError
from netpol.manifests import load_text
from netpol.model.calico_selector import SelectorError, parse_selector
from tests.helpers import run_cli
from tests.netpol.calico_cases import V3, base, cnp, gnp, knp, pod, tier


def load(*objs: dict):
    return load_text(yaml.safe_dump_all(list(objs)), "c.yaml")


def refused(obj: dict) -> str:
    with pytest.raises(InputError) as exc:
        load(obj)
    return str(exc.value)


# ---- selectors ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "column", "words"),
    [
        ("app = 'x'", 5, "expected =="),
        ("app == x", 8, "expected a quoted string after =="),
        ("has(app", 8, "expected ) to close has("),
        ("(app == 'x'", 12, "expected ) to close the ( at column 1"),
        ("app == 'x' tier == 'y'", 12, "unexpected text after the selector"),
        ("app in {'a' 'b'}", 13, "expected a quoted string or } in the set"),
        ("app == 'x", 8, "unterminated string"),
        ("app like 'x'", 5, "expected an operator after label 'app'"),
        ("app == 'x' &&", 14, "expected a label key"),
        ("app == 'x' & tier == 'y'", 12, "expected &&"),
    ],
)
def test_malformed_selector_names_its_column(text: str, column: int, words: str) -> None:
    """libcalico-go lib/selector/tokenizer + parser refuse these; the column counts from 1 in the text."""
    with pytest.raises(SelectorError) as exc:
        parse_selector(text)
    assert exc.value.column == column and words in exc.value.message


def test_selector_error_names_file_object_field_and_column() -> None:
    message = refused(gnp("p", {"selector": "app == 'x' ||"}))
    assert message.startswith("c.yaml, document 1, GlobalNetworkPolicy p: spec.selector: Invalid value:")
    assert "invalid selector: column 14" in message


def test_global_only_in_an_entity_namespace_selector() -> None:
    """policy_common.go: "global() can only be used in an EntityRule namespaceSelector"; validateEntityRule: and
    alone there."""
    assert "global() can only be used" in refused(gnp("p", {"selector": "global()"}))
    bad = {"ingress": [{"action": "Allow", "source": {"namespaceSelector": "global() && has(x)"}}]}
    assert "global() must be the whole namespaceSelector" in refused(gnp("p", bad))
    ok = {"ingress": [{"action": "Allow", "source": {"namespaceSelector": "global()"}}]}
    assert load(gnp("p", ok)).calico.policies[0].ingress[0].source.namespace_selector is not None


# ---- rules ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "field", "words"),
    [
        ({"action": "Reject"}, "spec.ingress[0].action", 'supported values: "Allow", "Deny", "Pass", "Log"'),
        (
            {"action": "Allow", "destination": {"ports": [80]}},
            "spec.ingress[0].destination.ports[0]",
            "needs the rule's protocol",
        ),
        (
            {"action": "Allow", "protocol": "ICMP", "destination": {"ports": [80]}},
            "spec.ingress[0].destination.ports[0]",
            "protocol ICMP does not support ports",
        ),
        (
            {"action": "Allow", "protocol": "TCP", "destination": {"ports": ["90:80"]}},
            "spec.ingress[0].destination.ports[0]",
            "first:last",
        ),
        (
            {"action": "Allow", "protocol": "TCP", "icmp": {"type": 8}},
            "spec.ingress[0].icmp",
            "ICMP fields require protocol to be ICMP or ICMPv6",
        ),
        ({"action": "Allow", "protocol": "GRE"}, "spec.ingress[0].protocol", "supported values"),
        (
            {"action": "Allow", "source": {"notNets": ["0.0.0.0/0"]}},
            "spec.ingress[0].source.notNets[0]",
            "catch-all CIDR in negation",
        ),
        (
            {"action": "Allow", "source": {"nets": ["10.0.0.0/8", "fd00::/8"]}},
            "spec.ingress[0].source.nets",
            "both IPv4 and IPv6",
        ),
        (
            {"action": "Allow", "ipVersion": 6, "source": {"nets": ["10.0.0.0/8"]}},
            "spec.ingress[0].source.nets",
            "rule IP version doesn't match CIDR version",
        ),
        (
            {"action": "Allow", "source": {"services": {"name": "web"}, "selector": "a == 'b'"}},
            "spec.ingress[0].source.services",
            "cannot specify selector and services",
        ),
        (
            {"action": "Allow", "destination": {"services": {"name": "web"}}},
            "spec.ingress[0].destination.services",
            "not allowed in ingress rule destination",
        ),
        ({"action": "Deny", "http": {"methods": ["GET"]}}, "spec.ingress[0].http", "only valid on Allow rules"),
        (
            {"action": "Allow", "source": {"selectr": "a == 'b'"}},
            "spec.ingress[0].source.selectr",
            "unknown field \"spec.ingress[0].source.selectr\" (did you mean 'selector'?)",
        ),
    ],
)
def test_rules_refused_as_calico_refuses_them(rule: dict, field: str, words: str) -> None:
    """validator.go validateRule / validateEntityRule and the v3 CRD's CEL rules."""
    message = refused(cnp("a", "p", {"ingress": [rule]}))
    assert f"NetworkPolicy a/p: {field}" in message or f'unknown field "{field}"' in message, message
    assert words in message, message


def test_named_ports_need_no_protocol() -> None:
    """validator.go (current): without a protocol only named ports are allowed (numorstring.AllPortsAreNamed)."""
    pol = load(cnp("a", "p", {"ingress": [{"action": "Allow", "destination": {"ports": ["http"]}}]})).calico.policies[0]
    assert pol.ingress[0].destination.ports[0].name == "http"


def test_names_are_labels_but_the_old_tier_prefix_reads() -> None:
    """validator.go validateNetworkPolicy: DNS-1123 label names (plus knp.default.*); Calico before 3.30 wanted
    `<tier>.<name>` for policies of a tier, so manifests written for it still read."""
    assert "name must consist of lower case" in refused(cnp("a", "x.y", {}))
    pol = load(cnp("a", "security.allow", {"tier": "security"}), tier("security", 10)).calico.policies[0]
    assert pol.tier == "security" and pol.name == "security.allow"


@pytest.mark.parametrize(
    ("spec", "types"),
    [
        ({}, ("ingress",)),
        ({"ingress": [{"action": "Allow"}]}, ("ingress",)),
        ({"egress": [{"action": "Allow"}]}, ("egress",)),
        ({"ingress": [{"action": "Allow"}], "egress": [{"action": "Allow"}]}, ("ingress", "egress")),
        ({"types": ["Egress", "Ingress"]}, ("ingress", "egress")),
    ],
)
def test_types_default_as_calico_documents(spec: dict, types: tuple[str, ...]) -> None:
    """networkpolicy.go NetworkPolicySpec.Types: Ingress when no egress rules; Egress alone when only egress
    rules; both when both."""
    assert load(cnp("a", "p", spec)).calico.policies[0].types == types


def test_tier_default_actions_and_orders() -> None:
    """tier.go: order optional (omitted = last); defaultAction Deny, Pass for kube-admin / kube-baseline."""
    objs = load(tier("security", 100), tier("open", None, "Pass"), tier("kube-baseline", 10_000_000))
    tiers = {t.name: (t.order, t.default_action) for t in objs.calico.tiers}
    assert tiers == {"security": (100.0, "Deny"), "open": (None, "Pass"), "kube-baseline": (10_000_000.0, "Pass")}
    assert "supported values" in refused(tier("x", 1, "Allow"))


# ---- objects, groups, lists -------------------------------------------------------------------------------


def test_both_api_groups_and_a_kubernetes_policy_of_the_same_name() -> None:
    """Calico's NetworkPolicy shares its kind with Kubernetes'; the API group decides. crd.projectcalico.org/v1
    is what kubectl returns on clusters without Calico's API server."""
    c = load(
        *base(),
        cnp("a", "p", {}),
        cnp("b", "p", {}, api="crd.projectcalico.org/v1"),
        knp("a", "p", {"podSelector": {}}),
    )
    assert [p.key for p in c.calico.policies] == ["a/p", "b/p"]
    assert [p.key for p in c.policies] == ["a/p"]
    assert not any(w.code == "unevaluated-policy" for w in c.warnings)


def test_calico_lists_read_with_their_items() -> None:
    """`kubectl get networkpolicies.projectcalico.org -o yaml` prints a NetworkPolicyList whose items may omit
    kind and apiVersion; `kubectl get ... -o yaml` over several kinds prints a v1 List."""
    typed = {
        "apiVersion": V3,
        "kind": "NetworkPolicyList",
        "items": [{"metadata": {"name": "p", "namespace": "a"}, "spec": {"selector": "all()"}}],
    }
    mixed = {"apiVersion": "v1", "kind": "List", "items": [gnp("g", {}), tier("t", 5)]}
    c = load(typed, mixed)
    assert [p.key for p in c.calico.policies] == ["g", "a/p"]
    assert [t.name for t in c.calico.tiers] == ["t"]
    assert c.policies == ()


def test_staged_host_endpoint_and_host_only_policies_are_named_not_evaluated() -> None:
    """Staged policies do not enforce (StagedNetworkPolicy docs); HostEndpoints and doNotTrack / preDNAT
    policies (host endpoints only) are out of netpol's scope: each is a warning naming it."""
    staged = {
        "apiVersion": V3,
        "kind": "StagedNetworkPolicy",
        "metadata": {"name": "s", "namespace": "a"},
        "spec": {"stagedAction": "Set"},
    }
    hep = {"apiVersion": V3, "kind": "HostEndpoint", "metadata": {"name": "h"}, "spec": {"node": "n"}}
    c = load(staged, hep, gnp("raw", {"doNotTrack": True, "applyOnForward": True}), pod("a", "x", "10.0.0.1"))
    texts = [w.render() for w in c.warnings]
    assert any("StagedNetworkPolicy (projectcalico.org/v3): a staged policy does not enforce" in t for t in texts)
    assert any("HostEndpoint (projectcalico.org/v3): host endpoints are not modelled" in t for t in texts)
    assert any("GlobalNetworkPolicy raw sets doNotTrack" in t for t in texts)
    assert c.calico.policies == ()
    strict = {w.message.split(" (")[0]: w.strict for w in c.warnings if w.code == "calico-not-evaluated"}
    assert strict == {
        "StagedNetworkPolicy": False,
        "HostEndpoint": True,
    }  # only what could change answers fails --strict


def test_policy_in_an_undefined_tier_is_named() -> None:
    c = load(cnp("a", "p", {"tier": "ghost"}))
    assert any(w.code == "calico-unknown-tier" and "tier ghost" in w.message for w in c.warnings)


def test_cli_exits_2_on_a_bad_selector_without_traceback(tmp_path: Path) -> None:
    f = tmp_path / "p.yaml"
    f.write_text(yaml.safe_dump_all([*base(), gnp("p", {"selector": "app == 'x"})]))
    r = run_cli("matrix", str(f))
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr
    assert "GlobalNetworkPolicy p: spec.selector" in r.stderr and "unterminated string" in r.stderr
