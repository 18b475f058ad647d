"""audit(analysis) → AuditReport: runs every check over the chosen namespaces, in the catalogue's order."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from netpol.audit.acceptance import apply_acceptance
from netpol.audit.baseline import BaselineEntry, compare
from netpol.audit.calico import calico_findings
from netpol.audit.cilium import cilium_findings, not_evaluated_findings
from netpol.audit.cnp import tier_findings
from netpol.audit.dns import dns_findings
from netpol.audit.exposure import exposure_findings
from netpol.audit.namespaces import NamespaceReport, namespace_checks
from netpol.audit.policies import cluster_addresses, policy_checks
from netpol.audit.redundancy import REDUNDANCY_MAX_PODS, REDUNDANCY_MAX_POLICIES, redundancy_findings
from netpol.audit.rules import RULES, Finding
from netpol.audit.unevaluated import skipped_coverage, unevaluated_findings
from netpol.cluster_dns import is_assumed
from netpol.exposure import Exposure, ExposureOptions, analyze_exposure
from netpol.ipam import DEFAULT_CLUSTER_CIDR
from netpol.model.vocab import SEVERITIES, Severity
from netpol.pipeline import Analysis


@dataclass
class AuditReport:
    namespaces: list[NamespaceReport]
    findings: list[Finding]
    notes: list[str] = field(default_factory=list)
    resolved: list[BaselineEntry] | None = None  # with a baseline: its entries no longer found

    def fails(self, threshold: Severity | None) -> bool:
        if threshold is None:
            return False
        t = SEVERITIES.index(threshold)
        return any(SEVERITIES.index(f.severity) >= t for f in self.findings if f.active)

    def against(self, baseline: list[BaselineEntry]) -> AuditReport:
        """This report with each finding marked new or unchanged, and the baseline's vanished entries."""
        findings, resolved = compare(self.findings, baseline)
        return replace(self, findings=findings, resolved=resolved)


def sort_findings(findings: list[Finding]) -> list[Finding]:
    order = {rid: k for k, rid in enumerate(RULES)}
    return sorted(
        findings, key=lambda f: (-SEVERITIES.index(f.severity), order[f.rule], f.namespace, f.objects, f.message)
    )


def audit(
    analysis: Analysis,
    namespaces: Sequence[str] = (),
    *,
    redundancy: bool = True,
    max_pods: int = REDUNDANCY_MAX_PODS,
    max_policies: int = REDUNDANCY_MAX_POLICIES,
    pod_cidr: str = DEFAULT_CLUSTER_CIDR,
    exposure: bool = True,
    exposure_options: ExposureOptions | None = None,
    exposure_result: Exposure | None = None,
) -> AuditReport:
    """Every finding for the given namespaces (all when empty). `pod_cidr`: the cluster's pod range
    (`--cluster-cidr`), where a stand-in kube-dns lives when the input has none. `exposure`: NP090–NP092,
    what reaches the pods from outside (netpol/exposure; a second engine with stand-ins), `exposure_result` when
    the caller has it already (the UI)."""
    r = analysis.reachability
    chosen = list(namespaces) or sorted(ns.name for ns in analysis.cluster.namespaces if not is_assumed(ns.source))
    in_scope = set(chosen)
    reports, findings = namespace_checks(analysis, chosen)
    not_evaluated = skipped_coverage(analysis.cluster, in_scope)
    findings += unevaluated_findings(not_evaluated)
    for nr in reports:
        for c in not_evaluated:
            mine = [k for k in c.pods if k.split("/", 1)[0] == nr.name]
            if mine or c.policy.namespace == nr.name:
                nr.not_evaluated[c.policy.key] = mine
    addresses = cluster_addresses(analysis)
    for cp in r.policies:
        if cp.kind == "NetworkPolicy" and cp.namespace in in_scope:
            findings += policy_checks(analysis, cp, addresses)
    findings += dns_findings(analysis, chosen, pod_cidr)
    findings += cilium_findings(analysis, chosen) + not_evaluated_findings(analysis.cluster, chosen)
    findings += calico_findings(analysis.cluster, in_scope)
    findings += tier_findings(analysis, chosen)
    if exposure:
        found = exposure_result if exposure_result is not None else analyze_exposure(analysis, exposure_options)
        findings += exposure_findings(found, chosen)
    notes: list[str] = []
    if redundancy:
        extra, skipped = redundancy_findings(
            analysis, chosen, max_pods=max_pods, max_policies=max_policies, pod_cidr=pod_cidr
        )
        findings += extra
        notes += skipped
    findings, acceptance_notes = apply_acceptance(findings, analysis.cluster)
    return AuditReport(reports, sort_findings(findings), notes + acceptance_notes)
