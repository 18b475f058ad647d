"""NP080: every policy object of a kind netpol does not evaluate, with the pods it may apply to (netpol.unevaluated),
so that no artifact is silent about what was not evaluated (issue 25 item 4)."""

from __future__ import annotations

from collections.abc import Collection

from netpol.audit.rules import Finding, finding
from netpol.model.cluster import Cluster
from netpol.unevaluated import Coverage, coverages

MESSAGE_PODS = 6  # pods named in the message; the finding's objects list them all


def skipped_coverage(cluster: Cluster, namespaces: Collection[str]) -> tuple[Coverage, ...]:
    """The skipped policies that bear on the chosen namespaces (cluster-scoped ones always), over running pods."""
    chosen = [p for p in cluster.unevaluated if not p.namespace or p.wide or p.namespace in namespaces]
    return coverages(chosen, cluster.running_pods)


def _names(keys: tuple[str, ...]) -> str:
    shown = ", ".join(keys[:MESSAGE_PODS])
    return shown + (f" and {len(keys) - MESSAGE_PODS} more" if len(keys) > MESSAGE_PODS else "")


def unevaluated_findings(covered: tuple[Coverage, ...]) -> list[Finding]:
    out = []
    for c in covered:
        pods = f" ({_names(c.pods)})" if c.pods else ""
        message = f"{c.what()}; {c.selects()}{pods}: their answers here may be wrong"
        out.append(
            finding(
                "NP080",
                c.policy.namespace,
                message,
                (c.policy.key, *(f"Pod/{k}" for k in c.pods)),
                c.policy.source,
                detail=c.policy.api_version,
            )
        )
    return out
