"""The report as SARIF 2.1.0 (OASIS): one run, the catalogue as rules, findings as results with the file and
line of the object, for code scanning."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from netpol.audit.locations import SourceLines
from netpol.audit.report import AuditReport
from netpol.audit.rules import RULES
from netpol.errors import SourceRef

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {"high": "error", "medium": "warning", "low": "note", "info": "note"}
# GitHub code scanning reads `security-severity` (0.1–3.9 low, 4.0–6.9 medium, 7.0–8.9 high, 9+ critical).
_SECURITY = {"high": "8.0", "medium": "5.0", "low": "2.0", "info": "0.0"}

FINGERPRINT_KEY = "netpolFingerprint/v1"  # rule, namespace, object, detail: see Finding.fingerprint

Locate = Callable[[SourceRef], dict[str, int]]


def _uri(path: str) -> str:
    p = Path(path)
    try:
        p = p.resolve().relative_to(Path.cwd().resolve())
    except (ValueError, OSError):
        pass
    return p.as_posix()


def sarif(report: AuditReport, tool_version: str | None = None, locate: Locate | None = None) -> dict[str, object]:
    """`locate`: the region of an object in its file (default: read the files, once per call)."""
    from netpol import __version__

    region = locate or SourceLines().region
    rules = [
        {
            "id": r.id,
            "name": r.name,
            "shortDescription": {"text": r.description},
            "defaultConfiguration": {"level": _LEVEL[r.severity]},
            "properties": {"security-severity": _SECURITY[r.severity], "tags": ["security", "kubernetes"]},
        }
        for r in RULES.values()
    ]
    index = {r.id: i for i, r in enumerate(RULES.values())}
    results = []
    for f in report.findings:
        loc: dict[str, object] = {
            "logicalLocations": [{"name": o, "kind": "resource"} for o in f.objects[:10]],
        }
        if f.source is not None and f.source.file and not f.source.file.startswith("<"):
            loc["physicalLocation"] = {
                "artifactLocation": {"uri": _uri(f.source.file)},
                "region": region(f.source),
            }
        result: dict[str, object] = {
            "ruleId": f.rule,
            "ruleIndex": index[f.rule],
            "level": _LEVEL[f.severity],
            "message": {"text": f"{f.message}. Fix: {f.fix}"},
            "locations": [loc],
            "partialFingerprints": {FINGERPRINT_KEY: f.fingerprint},
            "properties": {"severity": f.severity, "namespace": f.namespace, "objects": list(f.objects)},
        }
        if f.accepted is not None:  # §3.35: a result suppressed in source, with the justification
            result["suppressions"] = [{"kind": "inSource", "justification": f"{f.accepted.by}: {f.accepted.reason}"}]
        if f.baseline is not None:  # §3.27.24
            result["baselineState"] = f.baseline
        results.append(result)
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "netpol",
                        "fullName": "kube-reach netpol audit",
                        "version": tool_version or __version__,
                        "rules": rules,
                    }
                },
                "results": results,
            }
        ],
    }
