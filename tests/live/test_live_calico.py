"""`--live` on a cluster running Calico: its policies are listed from Calico's API server group
(projectcalico.org/v3) when served, else straight from its CRDs (crd.projectcalico.org/v1), through the real
kubectl against the stand-in API server; a cluster without Calico is not asked for them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import run_cli
from tests.live.conftest import needs_kubectl
from tests.live.standin import StandIn
from tests.netpol.calico_cases import cnp, gnp, netset, service_account, tier

pytestmark = needs_kubectl


def _calico_objects(api: str) -> list[dict]:
    objs = [
        gnp("ghost", {"selector": "app == 'nothing'", "ingress": [{"action": "Deny"}]}),
        cnp("web", "open", {"selector": "all()", "ingress": [{"action": "Allow"}]}),
        tier("security", 100),
        netset("partners", ["203.0.113.0/24"], {"role": "partner"}),
    ]
    for o in objs:
        o["apiVersion"] = api
    return [*objs, service_account("web", "api", {"role": "api"})]


@pytest.mark.parametrize("group", ["projectcalico.org", "crd.projectcalico.org"])
def test_calico_policies_are_read_live_from_either_group(
    seed_standin: StandIn, kubeconfig: Path, group: str
) -> None:
    api = "projectcalico.org/v3" if group == "projectcalico.org" else "crd.projectcalico.org/v1"
    seed_standin.calico = group
    seed_standin.load(_calico_objects(api))
    r = run_cli("audit", "-o", "json", "--live", "--kubeconfig", str(kubeconfig))
    assert r.returncode in (0, 1), r.stderr
    found = sorted((f["id"], f["objects"][0]) for f in json.loads(r.stdout)["findings"] if f["id"].startswith("CAL"))
    # the GNP selects no pod of the seed lab; the namespaced policy allows everything (audit/calico.py)
    assert ("CAL001", "GlobalNetworkPolicy.projectcalico.org/ghost") in found
    assert ("CAL003", "NetworkPolicy.projectcalico.org/web/open") in found
    version = api.split("/")[1]
    paths = set(seed_standin.paths())
    for plural in ("networkpolicies", "globalnetworkpolicies", "tiers", "networksets", "globalnetworksets"):
        assert f"/apis/{group}/{version}/{plural}" in paths
    assert "/api/v1/serviceaccounts" in paths
    assert seed_standin.methods() == {"GET"}
    assert "unevaluated" not in r.stderr


def test_a_cluster_without_calico_is_not_asked_for_it(seed_standin: StandIn, kubeconfig: Path) -> None:
    r = run_cli("matrix", "--live", "--kubeconfig", str(kubeconfig))
    assert r.returncode == 0, r.stderr
    assert not any("projectcalico" in p or "serviceaccounts" in p for p in seed_standin.paths())
