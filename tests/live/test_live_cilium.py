"""`--live` on a cluster running Cilium: both of Cilium's policy resources are listed through the real kubectl
(only when the API server serves cilium.io/v2) and read like files; a cluster without them is read as before."""

from __future__ import annotations

from pathlib import Path

from netpol.loading.live import LiveOptions, read_live_detailed
from tests.live.conftest import needs_kubectl
from tests.live.standin import StandIn
from tests.netpol.cilium_cases import ccnp, cnp

pytestmark = needs_kubectl

CNP = cnp(
    "web", "only-test", {"endpointSelector": {"matchLabels": {"app": "web1"}}, "ingress": [{"fromEndpoints": [{}]}]}
)
CCNP = ccnp("deny-world", {"endpointSelector": {}, "ingressDeny": [{"fromEntities": ["world"]}]})


def test_both_cilium_resources_are_listed_and_read(seed_standin: StandIn, kubeconfig: Path) -> None:
    seed_standin.load([CNP, CCNP])
    read = read_live_detailed(LiveOptions(kubeconfig=str(kubeconfig), timeout=300))
    assert [p.key for p in read.cluster.cilium_policies] == ["cnp web/only-test", "ccnp deny-world"]
    paths = set(seed_standin.paths())
    assert {"/apis/cilium.io/v2/ciliumnetworkpolicies", "/apis/cilium.io/v2/ciliumclusterwidenetworkpolicies"} <= paths
    assert seed_standin.methods() == {"GET"}


def test_a_cluster_without_cilium_is_not_asked_for_it(seed_standin: StandIn, kubeconfig: Path) -> None:
    seed_standin.drop_group.add("cilium.io")
    read = read_live_detailed(LiveOptions(kubeconfig=str(kubeconfig), timeout=300))
    assert read.cluster.cilium_policies == ()
    assert not [p for p in seed_standin.paths() if "cilium.io" in p]
    assert not [n for n in read.notes if "cilium" in n.lower()]


def test_a_forbidden_cilium_list_is_a_warning(seed_standin: StandIn, kubeconfig: Path) -> None:
    seed_standin.forbid.add(("ciliumclusterwidenetworkpolicies", None))
    read = read_live_detailed(LiveOptions(kubeconfig=str(kubeconfig), timeout=300))
    text = [w.render() for w in read.cluster.warnings]
    assert any(
        "cannot list ciliumclusterwidenetworkpolicies: forbidden; none are applied, so answers may be wrong" in t
        for t in text
    ), text
