"""A live cluster, read through kubectl (the user's kubeconfig, contexts and credentials, unchanged).

Only what runs is read: Pods (bound, with their IPs), not the workloads that made them, so nothing is
expanded twice. AdminNetworkPolicies are read when the cluster serves that API and skipped (with a
warning) when it does not.
"""

from __future__ import annotations

import subprocess

from netpol.errors import InputError, SourceRef, UsageError
from netpol.loading.cluster import build_cluster
from netpol.loading.documents import read_documents
from netpol.model.cluster import Cluster, Warning_

CORE_KINDS = "namespaces,nodes,pods,networkpolicies.networking.k8s.io,services,poddisruptionbudgets.policy"
ADMIN_KINDS = "adminnetworkpolicies.policy.networking.k8s.io,baselineadminnetworkpolicies.policy.networking.k8s.io"


def _kubectl(args: list[str], kubectl: str, timeout: float) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run([kubectl, *args], capture_output=True, text=True, timeout=timeout, check=False)
    except FileNotFoundError:
        raise UsageError(f"--live needs {kubectl!r} on PATH (or --kubectl PATH)") from None
    except subprocess.TimeoutExpired:
        raise UsageError(f"kubectl did not answer within {timeout:.0f} s") from None


def read_live(
    context: str | None = None, kubeconfig: str | None = None, kubectl: str = "kubectl", timeout: float = 120
) -> Cluster:
    flags = ["-o", "json", "--all-namespaces"]
    if context:
        flags += ["--context", context]
    if kubeconfig:
        flags += ["--kubeconfig", kubeconfig]
    core = _kubectl(["get", CORE_KINDS, *flags], kubectl, timeout)
    if core.returncode != 0:
        raise InputError(f"kubectl get failed: {core.stderr.strip() or core.returncode}", SourceRef("<kubectl>"))
    docs = list(read_documents("<kubectl>", core.stdout))
    warnings = []
    admin = _kubectl(["get", ADMIN_KINDS, *flags], kubectl, timeout)
    if admin.returncode == 0:
        docs += list(read_documents("<kubectl admin>", admin.stdout))
    else:
        warnings.append(
            Warning_(
                "skipped-kind", "the cluster serves no AdminNetworkPolicy API; none were read", SourceRef("<kubectl>")
            )
        )
    cluster = build_cluster(docs)
    return cluster.with_pods(cluster.pods, *warnings)
