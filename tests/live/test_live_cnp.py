"""`--live` lists ClusterNetworkPolicies (policy.networking.k8s.io/v1alpha2) when the cluster serves them, through
the real kubectl against the stand-in API server; one quiet note when it does not (issue 21, scope 4). v1alpha1
and v1alpha2 are separate group/versions of one group: each is listed when served, whatever the other does.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.helpers import run_cli
from tests.live.conftest import needs_kubectl
from tests.live.standin import StandIn

pytestmark = needs_kubectl

CNP_PATH = "/apis/policy.networking.k8s.io/v1alpha2/clusternetworkpolicies"
ANP_PATH = "/apis/policy.networking.k8s.io/v1alpha1/adminnetworkpolicies"
CNP_NOTE = (
    "note: the cluster serves no ClusterNetworkPolicy API (policy.networking.k8s.io/v1alpha2): AdminNetworkPolicies"
    " (v1alpha1) and NetworkPolicies only\n"
)

DENY_CYH_INTO_WEB = {
    "apiVersion": "policy.networking.k8s.io/v1alpha2",
    "kind": "ClusterNetworkPolicy",
    "metadata": {"name": "web-guard", "uid": "4c1c0e49-0000-4000-8000-000000000001", "resourceVersion": "7"},
    "spec": {
        "tier": "Admin",
        "priority": 10,
        "subject": {"namespaces": {"matchLabels": {"kubernetes.io/metadata.name": "web"}}},
        "ingress": [
            {
                "name": "no-cyh",
                "action": "Deny",
                "from": [{"namespaces": {"matchLabels": {"kubernetes.io/metadata.name": "cyh"}}}],
            }
        ],
    },
    "status": {"conditions": []},
}


def live(kubeconfig: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, "--live", "--kubeconfig", str(kubeconfig))


def test_served_cluster_network_policies_are_listed_and_applied(seed_standin: StandIn, kubeconfig: Path) -> None:
    """The seed lab lets cyh/test reach web/test and web/web2 (samples/seed-lab); the Admin Deny from cyh into web
    read from the cluster takes both away."""
    seed_standin.load([DENY_CYH_INTO_WEB])
    out = live(kubeconfig, "matrix", "--no-external", "--strict")
    assert out.returncode == 0, out.stderr
    assert CNP_PATH in seed_standin.paths()
    assert "cyh/test => web/" not in out.stdout
    assert "web/test => cyh/test : All Connections\n" in out.stdout
    assert "ClusterNetworkPolicy" not in out.stderr


def test_only_v1alpha1_served_is_one_quiet_note(seed_standin: StandIn, kubeconfig: Path) -> None:
    seed_standin.drop_version.add("policy.networking.k8s.io/v1alpha2")
    out = live(kubeconfig, "matrix")
    assert out.returncode == 0, out.stderr
    assert out.stderr.count("ClusterNetworkPolicy") == 1
    assert out.stderr.startswith(CNP_NOTE)
    assert CNP_PATH not in seed_standin.paths()  # not even asked
    assert ANP_PATH in seed_standin.paths()
    assert live(kubeconfig, "matrix", "--strict").returncode == 0  # a note, not a warning


def test_only_v1alpha2_served_lists_it_without_asking_for_v1alpha1(seed_standin: StandIn, kubeconfig: Path) -> None:
    """A cluster that moved to ClusterNetworkPolicy serves no v1alpha1: nothing to say about it."""
    seed_standin.drop_version.add("policy.networking.k8s.io/v1alpha1")
    out = live(kubeconfig, "matrix")
    assert out.returncode == 0, out.stderr
    assert "NetworkPolicy API" not in out.stderr
    assert CNP_PATH in seed_standin.paths()
    assert ANP_PATH not in seed_standin.paths()


def test_cluster_network_policies_forbidden_is_a_warning_naming_them(seed_standin: StandIn, kubeconfig: Path) -> None:
    seed_standin.forbid.add(("clusternetworkpolicies", None))
    out = live(kubeconfig, "matrix")
    assert out.returncode == 0, out.stderr
    assert (
        "warning: <kubectl get clusternetworkpolicies>, document 1: cannot list clusternetworkpolicies: forbidden;"
        " none are applied, so answers may be wrong where one would decide\n"
    ) in out.stderr
