"""NP030 asked about a subset of the policies (what the redundancy check asks for each candidate) equals NP030
of a fresh analysis of the cluster without the others: the what-if answer comes from the same engine.

With kube-dns pods in the input the engine's egress side towards them decides; without them, the stand-in
(`k8s-app=kube-dns` in kube-system) is matched rule by rule. Both are checked, policy by policy, on the real
applications that have NP030 findings.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from netpol.audit.dns import DnsCheck, dns_findings
from netpol.cluster_dns import with_cluster_dns
from netpol.manifests import load_paths, load_text
from netpol.model.cluster import Cluster
from netpol.pipeline import analyze
from tests.helpers import namespace, pod, policy

APPS = ("npg-acs-security-demos", "npg-onlineboutique", "netpol-recipes", "npg-anp-demo", "split-deny-and-dns")

DNS_PEER = {
    "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}},
    "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}},
}
# Isolation and the DNS allowance in different policies, as most namespaces write them: without the allowance
# the pods lack DNS; without the deny they are not isolated; without the TCP-only rule they lack TCP 53.
SPLIT = [
    namespace("shop"),
    pod("shop", "web", {"app": "web"}),
    pod("shop", "db", {"app": "db"}),
    policy("shop", "deny-egress", {"podSelector": {}, "policyTypes": ["Egress"]}),
    policy(
        "shop",
        "allow-dns-udp",
        {
            "podSelector": {},
            "policyTypes": ["Egress"],
            "egress": [{"to": [DNS_PEER], "ports": [{"protocol": "UDP", "port": 53}]}],
        },
    ),
    policy(
        "shop",
        "web-dns-tcp",
        {
            "podSelector": {"matchLabels": {"app": "web"}},
            "policyTypes": ["Egress"],
            "egress": [{"to": [DNS_PEER], "ports": [{"protocol": "TCP", "port": 53}]}],
        },
    ),
]


def _cluster(real_apps: Path, app: str) -> Cluster:
    if app == "split-deny-and-dns":
        return load_text(yaml.safe_dump_all(SPLIT))
    return load_paths([str(real_apps / app)])


def _gaps(findings: list) -> set[tuple[str, str, str]]:  # noqa: ANN001
    return {(f.namespace, f.detail, o) for f in findings for o in f.objects}


@pytest.mark.parametrize("with_dns", [False, True], ids=["stand-in", "kube-dns-pods"])
@pytest.mark.parametrize("app", APPS)
def test_np030_without_a_policy_equals_np030_of_the_cluster_without_it(
    real_apps: Path, app: str, with_dns: bool
) -> None:
    cluster = _cluster(real_apps, app)
    if with_dns:
        cluster = with_cluster_dns(cluster)
    analysis = analyze(cluster)
    r = analysis.reachability
    namespaces = sorted({p.namespace for p in r.pods})
    check = DnsCheck(analysis)
    assert _gaps(check.findings(namespaces)) == _gaps(dns_findings(analysis, namespaces))
    assert check.findings(namespaces), f"{app}: expected some NP030 to compare"
    for k, gone in enumerate(r.policies):
        rest = [cp for cp in r.policies if cp is not gone]
        fresh = analyze(
            replace(
                cluster,
                policies=tuple(p for p in cluster.policies if p is not gone.source),
                admin_policies=tuple(p for p in cluster.admin_policies if p is not gone.source),
            )
        )
        assert _gaps(check.findings(namespaces, policies=rest)) == _gaps(dns_findings(fresh, namespaces)), (
            f"{app}: NP030 without {gone.key} (policy #{k})"
        )
