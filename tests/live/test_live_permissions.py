"""What the user may not read decides what can be answered (issue 12, item 3): exact messages, pinned.

The stand-in answers 403 with the API server's Status text (k8s.io/apiserver pkg/endpoints/handlers/
responsewriters/errors.go forbiddenMessage: `User "jane" cannot list resource "pods" in API group "" at the
cluster scope`), which kubectl prints as `Error from server (Forbidden): …`.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.helpers import run_cli
from tests.live.conftest import needs_kubectl
from tests.live.standin import StandIn

pytestmark = needs_kubectl

ANP_NOTE = "note: the cluster serves no AdminNetworkPolicy API (policy.networking.k8s.io): NetworkPolicies only\n"
NODES_WARNING = (
    "warning: <kubectl get nodes>, document 1: cannot list nodes: forbidden; reachability without scheduling"
    " (pods run where the cluster put them; node addresses and Pending reasons per node are unknown)\n"
)


def live(kubeconfig: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, "--live", "--kubeconfig", str(kubeconfig))


def test_policies_forbidden_is_an_error_the_answer_would_be_wrong(seed_standin: StandIn, kubeconfig: Path) -> None:
    seed_standin.forbid.add(("networkpolicies", None))
    out = live(kubeconfig, "who-can-reach", "web1")
    assert out.returncode == 2
    assert out.stderr == (
        "error: cannot list networkpolicies in all namespaces: forbidden; the answer would be wrong"
        " (give -n NAMESPACE to read only namespaces you may list)\n"
    )


def test_policies_forbidden_in_a_namespace_names_it(seed_standin: StandIn, kubeconfig: Path) -> None:
    seed_standin.allowed_namespaces = {"web", "cyh"}
    seed_standin.forbid.add(("networkpolicies", "cyh"))
    out = live(kubeconfig, "matrix", "-n", "web", "-n", "cyh")
    assert out.returncode == 2
    assert out.stderr.endswith(
        "error: cannot list networkpolicies in namespace cyh: forbidden; the answer would be wrong\n"
    )


def test_nodes_forbidden_warns_and_answers_without_scheduling(seed_standin: StandIn, kubeconfig: Path) -> None:
    seed_standin.forbid.add(("nodes", None))
    out = live(kubeconfig, "who-can-reach", "web1")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("web/test => web/web1 : TCP 80\n")
    assert NODES_WARNING in out.stderr


def test_no_admin_network_policy_api_is_one_quiet_note(seed_standin: StandIn, kubeconfig: Path) -> None:
    seed_standin.drop_group.add("policy.networking.k8s.io")
    out = live(kubeconfig, "matrix")
    assert out.returncode == 0, out.stderr
    assert out.stderr.count("AdminNetworkPolicy") == 1
    assert out.stderr.startswith(ANP_NOTE)
    assert not any("adminnetworkpolicies" in p for p in seed_standin.paths())  # not even asked
    strict = live(kubeconfig, "matrix", "--strict")  # a note, not a warning: --strict does not fail on it
    assert strict.returncode == 0, strict.stderr


def test_a_namespace_scoped_user_reads_only_its_namespaces(seed_standin: StandIn, kubeconfig: Path) -> None:
    seed_standin.allowed_namespaces = {"web"}
    out = live(kubeconfig, "matrix", "-n", "web", "--no-external")
    assert out.returncode == 0, out.stderr
    assert out.stdout == (
        "web/test => web/web1 : TCP 80\n"
        "web/test => web/web2 : All Connections\n"
        "web/web1 => web/test : All Connections\n"
        "web/web1 => web/web2 : All Connections\n"
        "web/web2 => web/test : All Connections\n"
    )
    assert (
        "note: you may not list pods in all namespaces; read only namespace web: pods elsewhere are unknown,"
        " so answers across namespaces are limited\n"
    ) in out.stderr
    assert (
        "warning: <kubectl get namespaces>, document 1: cannot list namespaces: forbidden; namespace labels other"
        " than kubernetes.io/metadata.name are unknown, so namespaceSelectors on them match nothing\n"
    ) in out.stderr
    assert (
        "warning: <kubectl get adminnetworkpolicies>, document 1: cannot list adminnetworkpolicies: forbidden;"
        " none are applied, so answers may be wrong where one would decide\n"
    ) in out.stderr
    listed = {p for p in seed_standin.paths() if "/namespaces/" in p}
    assert listed == {
        "/api/v1/namespaces/web/pods",
        "/api/v1/namespaces/web/services",
        "/apis/networking.k8s.io/v1/namespaces/web/networkpolicies",
        "/apis/policy/v1/namespaces/web/poddisruptionbudgets",
        "/apis/cilium.io/v2/namespaces/web/ciliumnetworkpolicies",  # the stand-in serves Cilium's CRDs
        # the doors into the cluster (netpol exposure), each in the first version the stand-in serves
        "/apis/networking.k8s.io/v1/namespaces/web/ingresses",
        "/apis/route.openshift.io/v1/namespaces/web/routes",
        "/apis/gateway.networking.k8s.io/v1/namespaces/web/gateways",
        "/apis/gateway.networking.k8s.io/v1/namespaces/web/httproutes",
        "/apis/gateway.networking.k8s.io/v1/namespaces/web/grpcroutes",
        "/apis/gateway.networking.k8s.io/v1alpha2/namespaces/web/tlsroutes",
        "/apis/gateway.networking.k8s.io/v1alpha2/namespaces/web/tcproutes",
        "/apis/gateway.networking.k8s.io/v1alpha2/namespaces/web/udproutes",
        "/apis/gateway.networking.k8s.io/v1beta1/namespaces/web/referencegrants",
    }


def test_a_namespace_scoped_user_without_n_is_told_to_give_it(seed_standin: StandIn, kubeconfig: Path) -> None:
    seed_standin.allowed_namespaces = {"web"}
    out = live(kubeconfig, "audit")
    assert out.returncode == 2
    assert out.stderr == (
        "error: cannot list pods in all namespaces: forbidden; the answer would be wrong"
        " (give -n NAMESPACE to read only namespaces you may list)\n"
    )


def test_services_forbidden_warns_that_service_names_cannot_be_resolved(
    seed_standin: StandIn, kubeconfig: Path
) -> None:
    seed_standin.forbid.add(("services", None))
    out = live(kubeconfig, "matrix")
    assert out.returncode == 0, out.stderr
    assert (
        "warning: <kubectl get services>, document 1: cannot list services in all namespaces: forbidden;"
        " svc/… names cannot be resolved\n"
    ) in out.stderr
