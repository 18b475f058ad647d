"""Issue 24 with `--live`: the real kubectl against the stand-in API server serving samples/exposure as its cluster
would (Ingresses, IngressClasses, the Gateway API kinds in the versions their CRDs serve, OpenShift Routes): the
doors read live give the same paths as the manifests, with GET requests only."""

from __future__ import annotations

import json
from pathlib import Path

from netpol.manifests import load_paths
from netpol.pipeline import prepare
from scheduling import schedule
from tests.helpers import run_cli
from tests.live.conftest import needs_kubectl
from tests.live.fixtures import _as_running, _manifests, running_status
from tests.live.standin import StandIn

pytestmark = needs_kubectl

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "samples" / "exposure"


def sample_objects() -> list[dict]:
    """samples/exposure as `kubectl get -o json` answers: every pod bound where the manifests put it, with the
    address the project's IPAM gives it (what the cluster would have assigned)."""
    placed, _ = prepare(load_paths([str(SAMPLE)]), lambda c: schedule(c))
    ip = {p.key: p.pod_ip for p in placed.pods}
    out = []
    for rv, obj in enumerate(_manifests([SAMPLE]), start=100):
        obj = _as_running(obj, rv)
        if obj["kind"] == "Pod":
            obj["status"] = running_status(ip[f"{obj['metadata']['namespace']}/{obj['metadata']['name']}"])
        out.append(obj)
    return out


def without_files(doc: dict) -> dict:
    for p in doc["paths"]:
        p["door"].pop("file")
    return doc


def test_the_doors_read_live_give_the_paths_of_the_manifests(standin: StandIn, kubeconfig: Path) -> None:
    standin.load(sample_objects())
    live = run_cli("exposure", "--live", "--kubeconfig", str(kubeconfig), "-o", "json")
    assert live.returncode == 0, live.stderr
    files = run_cli("exposure", str(SAMPLE), "-o", "json")
    assert without_files(json.loads(live.stdout)) == without_files(json.loads(files.stdout))
    assert standin.methods() == {"GET"}
    paths = set(standin.paths())
    assert {
        "/apis/networking.k8s.io/v1/ingresses",
        "/apis/networking.k8s.io/v1/ingressclasses",
        "/apis/route.openshift.io/v1/routes",
        "/apis/gateway.networking.k8s.io/v1/gateways",
        "/apis/gateway.networking.k8s.io/v1alpha2/tcproutes",
        "/apis/gateway.networking.k8s.io/v1beta1/referencegrants",
    } <= paths


def test_a_cluster_without_the_gateway_api_is_read_without_it(standin: StandIn, kubeconfig: Path) -> None:
    """The Gateway API is CRDs: a cluster that does not serve the group is not asked for it, and says nothing."""
    standin.drop_group = {"gateway.networking.k8s.io", "route.openshift.io"}
    standin.load([o for o in sample_objects() if o["kind"] in ("Namespace", "Node", "Pod", "Service", "NetworkPolicy")])
    out = run_cli("exposure", "--live", "--kubeconfig", str(kubeconfig), "-o", "json")
    assert out.returncode == 0, out.stderr
    assert not any("gateway" in p or "route.openshift" in p for p in standin.paths())
    kinds = {p["door"]["kind"] for p in json.loads(out.stdout)["paths"]}
    assert kinds == {"LoadBalancer", "NodePort", "ExternalIP"}
