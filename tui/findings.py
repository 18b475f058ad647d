"""Audit findings as the UI lists them: the audit's findings with objects the UI can open (`pod:ns/name`),
ordered by severity (pure; no Textual)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

from netpol.audit import Finding as AuditFinding
from netpol.audit import audit, redundancy_findings
from netpol.pipeline import Analysis

SEVERITIES = ("critical", "high", "medium", "low", "info")


@dataclass(frozen=True, slots=True)
class Finding:
    id: str
    severity: str
    namespace: str
    message: str
    objects: tuple[str, ...]  # "pod:ns/name", "policy:ns/name", "namespace:ns", "node:name"
    fix: str = ""

    def render(self) -> str:
        objs = ", ".join(self.objects)
        return f"[{self.severity}] {self.id} {self.message} ({objs}) fix: {self.fix}"


OBJECT_KINDS = {"Pod": "pod", "NetworkPolicy": "policy", "Namespace": "namespace", "Node": "node"}


def adapt_finding(f: AuditFinding) -> Finding:
    """The audit's finding, its objects (`Kind/ns/name`) as the UI opens them (`pod:ns/name`)."""
    objects = []
    for o in f.objects:
        kind, _, rest = o.partition("/")
        objects.append(f"{OBJECT_KINDS.get(kind, kind.lower())}:{rest}")
    return Finding(
        id=f.rule,
        severity=f.severity.lower(),
        namespace=f.namespace or "",
        message=f.message,
        objects=tuple(objects),
        fix=f.fix or "",
    )


def sort_findings(findings: Iterable[Finding]) -> list[Finding]:
    rank = {s: i for i, s in enumerate(SEVERITIES)}
    return sorted(findings, key=lambda f: (rank.get(f.severity, len(rank)), f.namespace, f.id, f.objects))


class AuditFindings:
    """The findings of a view model's analysis (mixed into `tui.model.ViewModel`).

    The audit comes in two parts: every check but one is a few hundred ms at 10,000 pods and is computed with
    the model (in the loader's worker); the redundant-policy check (NP060) recomputes reachability per
    policy, seconds near its limits, so it runs in its own worker and joins the list when done."""

    analysis: Analysis

    @cached_property
    def base_findings(self) -> list[Finding]:
        return sort_findings(adapt_finding(f) for f in audit(self.analysis, redundancy=False).findings)

    @cached_property
    def redundancy(self) -> tuple[list[Finding], list[str]]:
        """(NP060 findings, notes such as "skipped: too large")."""
        found, notes = redundancy_findings(self.analysis)
        return [adapt_finding(f) for f in found], notes

    @property
    def redundancy_ready(self) -> bool:
        return "redundancy" in self.__dict__

    @property
    def findings(self) -> list[Finding]:
        """Every finding computed so far, by severity."""
        if not self.redundancy_ready:
            return self.base_findings
        return self._all_findings

    @cached_property
    def _all_findings(self) -> list[Finding]:
        return sort_findings(self.base_findings + self.redundancy[0])
