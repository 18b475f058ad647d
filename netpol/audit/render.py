"""The report as text, JSON, Markdown or SARIF."""

from __future__ import annotations

import json
from typing import Literal, get_args

from netpol.audit.namespaces import NamespaceReport
from netpol.audit.report import AuditReport
from netpol.audit.rules import Finding
from netpol.audit.sarif import sarif
from netpol.english import plural

Format = Literal["txt", "json", "md", "sarif"]
FORMATS: tuple[Format, ...] = get_args(Format)


def render(report: AuditReport, fmt: Format | str) -> str:
    match fmt:
        case "json":
            doc: dict[str, object] = {
                "namespaces": [n.to_json() for n in report.namespaces],
                "findings": [f.to_json() for f in report.findings],
                "notes": report.notes,
            }
            if report.resolved is not None:
                doc["resolved"] = [e.to_json() for e in report.resolved]
            return json.dumps(doc, indent=2) + "\n"
        case "md":
            return _md(report)
        case "sarif":
            return json.dumps(sarif(report), indent=2) + "\n"
        case _:
            return _txt(report)


def _txt(report: AuditReport) -> str:
    out = []
    for n in report.namespaces:
        out.append(f"namespace {n.name}: {plural(n.pods, 'pod')}, {plural(len(n.policies), 'policy')}")
        out.append(f"  default-deny ingress: {', '.join(n.default_deny_ingress) or 'no'}")
        out.append(f"  default-deny egress:  {', '.join(n.default_deny_egress) or 'no'}")
        out.append(f"  not isolated for ingress: {', '.join(n.unprotected_ingress) or '-'}")
        out.append(f"  not isolated for egress:  {', '.join(n.unprotected_egress) or '-'}")
        if n.reach_in:
            out.append("  reachable from:")
            out += [f"    {src} : {cs.render()} (to {_pods(n.reach_in_pods.get(src, []))})" for src, cs in n.reach_in]
        else:
            out.append("  reachable from: no other namespace, no external address")
        out += _not_evaluated_lines(n, "  ")
    out.append("")
    if report.findings:
        out.append(f"{plural(len(report.findings), 'finding')}{_counts(report)}:")
        for f in report.findings:
            out.append(f"[{f.severity.upper()}] {f.rule} {f.name}: {f.message}")
            out.append(f"    fix: {f.fix}")
            out += _status_lines(f, "    ")
    else:
        out.append("no findings")
    out += _resolved_lines(report)
    out += [f"note: {x}" for x in report.notes]
    return "\n".join(out) + "\n"


def _not_evaluated_lines(n: NamespaceReport, indent: str) -> list[str]:
    """Policies netpol skipped that bear on this namespace, and the pods whose answers may be wrong."""
    if not n.not_evaluated:
        return []
    out = [f"{indent}not evaluated: {', '.join(n.not_evaluated)}"]
    wrong = n.maybe_wrong
    out.append(f"{indent}answers may be wrong for: {_pods(wrong) if wrong else 'no running pod'}")
    return out


def _pods(keys: list[str], limit: int = 6) -> str:
    return ", ".join(keys[:limit]) + (f" and {len(keys) - limit} more" if len(keys) > limit else "")


def _counts(report: AuditReport) -> str:
    accepted = sum(f.accepted is not None for f in report.findings)
    known = sum(f.accepted is None and f.baseline == "unchanged" for f in report.findings)
    parts = [f"{accepted} accepted"] if accepted else []
    if report.resolved is not None:
        parts.append(f"{known} in the baseline")
        parts.append(f"{sum(f.active for f in report.findings)} new")
    return f" ({', '.join(parts)})" if parts else ""


def _status_lines(f: Finding, indent: str) -> list[str]:
    if f.accepted is not None:
        return [f"{indent}accepted on {f.accepted.by}: {f.accepted.reason}"]
    if f.baseline == "unchanged":
        return [f"{indent}in the baseline"]
    if f.baseline == "new":
        return [f"{indent}new since the baseline"]
    return []


def _resolved_lines(report: AuditReport) -> list[str]:
    if not report.resolved:
        return []
    out = [
        f"{plural(len(report.resolved), 'finding')} of the baseline no longer found (update it with --write-baseline):"
    ]
    return out + [f"  {e.rule} {e.object}: {e.message}" for e in report.resolved]


def _md(report: AuditReport) -> str:
    out = [
        "## Namespaces",
        "",
        "| namespace | pods | default-deny ingress | default-deny egress | not isolated (ingress) | not isolated (egress) | reachable from | not evaluated (answers may be wrong) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for n in report.namespaces:
        reach = (
            "<br>".join(f"{s}: {cs.render()} (to {_pods(n.reach_in_pods.get(s, []))})" for s, cs in n.reach_in) or "-"
        )
        out.append(
            f"| {n.name} | {n.pods} | {', '.join(n.default_deny_ingress) or 'no'} | {', '.join(n.default_deny_egress) or 'no'} "
            f"| {', '.join(n.unprotected_ingress) or '-'} | {', '.join(n.unprotected_egress) or '-'} | {reach} "
            f"| {'<br>'.join(_not_evaluated_lines(n, '')) or '-'} |"
        )
    out += ["", "## Findings", "", "| severity | id | finding | fix |", "|---|---|---|---|"]
    out += [
        f"| {f.severity} | {f.rule} {f.name} | {f.message}{''.join('<br>' + x for x in _status_lines(f, ''))} | {f.fix} |"
        for f in report.findings
    ]
    if not report.findings:
        out.append("| - | - | no findings | - |")
    out += [f"\n{x}" for x in _resolved_lines(report)]
    out += [f"\n> {x}" for x in report.notes]
    return "\n".join(out) + "\n"
