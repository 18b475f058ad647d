"""Audit findings as the UI lists them: the audit's findings with objects the UI can open (`pod:ns/name`),
ordered by severity (pure; no Textual)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

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
    """The findings of a view model's analysis (mixed into `tui.model.ViewModel`), in two parts computed by the
    app's audit worker, never on the UI thread (`ReachApp.start_audit`):

    - every check but one (`run_base_audit`): ~1 s at 10,000 pods, seconds at 100,000, so the UI opens without
      waiting for it and the Audit view says "auditing…" until it is done;
    - the redundant-policy check (NP060, `run_redundancy`), which recomputes reachability per policy.

    Each part is stored by one assignment when done, so the UI thread reads a finished list or none (never a
    lock: `functools.cached_property` holds one per class on Python 3.11, which would freeze the UI while any
    model's audit runs)."""

    analysis: Analysis
    _base: list[Finding] | None = None
    _redundancy: tuple[list[Finding], list[str]] | None = None
    _all: list[Finding] | None = None
    audit_error: str | None = None  # a check raised: what it said (shown instead of a pending audit)

    def run_base_audit(self) -> None:
        """Every check but NP060 (in a worker thread; again is a no-op)."""
        if self._base is None:
            from tui.exposure import exposure_of  # one exposure analysis per model: NP090-NP092 and the views

            found = audit(self.analysis, redundancy=False, exposure_result=exposure_of(self))
            self._base = sort_findings(adapt_finding(f) for f in found.findings)

    def run_redundancy(self) -> None:
        """NP060 (in a worker thread; again is a no-op)."""
        if self._redundancy is None:
            found, notes = redundancy_findings(self.analysis)
            self._redundancy = [adapt_finding(f) for f in found], notes

    @property
    def base_ready(self) -> bool:
        return self._base is not None

    @property
    def redundancy_ready(self) -> bool:
        return self._redundancy is not None

    @property
    def audit_done(self) -> bool:
        return self.base_ready and self.redundancy_ready

    @property
    def audit_finished(self) -> bool:
        """Done, or stopped by an error: nothing more will come."""
        return self.audit_done or self.audit_error is not None

    @property
    def redundancy_notes(self) -> list[str]:
        """Notes of the NP060 check (such as "skipped: too large"); none until it is done."""
        return self._redundancy[1] if self._redundancy is not None else []

    @property
    def findings(self) -> list[Finding]:
        """Every finding computed so far, by severity: none while `base_ready` is False (pending, not clean)."""
        base, redundancy = self._base, self._redundancy
        if redundancy is None:
            return base or []
        if base is None:
            return redundancy[0]
        if self._all is None:
            self._all = sort_findings(base + redundancy[0])
        return self._all
