"""`--live` on a cluster running Cilium: both of Cilium's policy resources are listed through the real kubectl
(only when the API server serves cilium.io/v2) and read like files; a cluster without them is read as before."""

from __future__ import annotations

from pathlib import Path

from netpol.loading.live import LiveOptions, read_live_detailed
from tests.helpers import run_cli
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


def test_live_answers_apply_the_clusters_cilium_policies(seed_standin: StandIn, kubeconfig: Path) -> None:
    """`netpol who-can-reach --live` through the real kubectl: a CiliumClusterwideNetworkPolicy denying every
    ingress to web/web1 (`ingressDeny` from entity `all`) wins over the seed lab's NetworkPolicy allowing
    web/test on TCP 80 (Deny Policies docs): no one reaches web1 any more."""
    before = run_cli("who-can-reach", "web/web1", "--live", "--kubeconfig", str(kubeconfig))
    assert before.returncode == 0 and "web/test => web/web1 : TCP 80" in before.stdout, before.stderr
    deny = ccnp(
        "no-web1",
        {
            "endpointSelector": {"matchLabels": {"io.kubernetes.pod.namespace": "web", "run": "web1"}},
            "ingressDeny": [{"fromEntities": ["all"]}],
        },
    )
    seed_standin.load([deny])
    after = run_cli("who-can-reach", "web/web1", "--live", "--kubeconfig", str(kubeconfig))
    assert after.returncode in (0, 1), after.stderr
    assert "web/test => web/web1" not in after.stdout
