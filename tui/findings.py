"""Audit findings as the UI lists them: the audit's findings with objects the UI can open (`pod:ns/name`),
ordered by severity (pure; no Textual)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from netpol.audit import Finding as AuditFinding

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
