"""Baselines: today's findings recorded by fingerprint, so CI fails only on findings that are new.

A fingerprint is the rule, the namespace, the object and what tells apart two findings of one rule on one
object, as read from the manifests (never a line number), so reordering files or reformatting YAML keeps it.
The file is JSON, sorted, one entry per finding, with the message for the reviewer who reads the diff.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from netpol.audit.rules import Finding
from netpol.errors import InputError, SourceRef

BASELINE_VERSION = 1


@dataclass(frozen=True, slots=True)
class BaselineEntry:
    fingerprint: str
    rule: str
    namespace: str
    object: str
    message: str

    def to_json(self) -> dict[str, str]:
        return {
            "fingerprint": self.fingerprint,
            "id": self.rule,
            "namespace": self.namespace,
            "object": self.object,
            "message": self.message,
        }


def baseline_text(findings: Iterable[Finding]) -> str:
    """The baseline file for these findings (accepted ones are excused on their objects, not here)."""
    entries = {
        f.fingerprint: BaselineEntry(f.fingerprint, f.rule, f.namespace, f.about, f.message)
        for f in findings
        if f.accepted is None
    }
    ordered = sorted(entries.values(), key=lambda e: (e.rule, e.namespace, e.object, e.fingerprint))
    doc = {"tool": "netpol audit", "version": BASELINE_VERSION, "findings": [e.to_json() for e in ordered]}
    return json.dumps(doc, indent=2) + "\n"


def parse_baseline(text: str, file: str) -> list[BaselineEntry]:
    src = SourceRef(file, 0, "Baseline")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"not JSON ({exc.msg} at line {exc.lineno}); write one with --write-baseline", src) from None
    if not isinstance(doc, Mapping) or doc.get("version") != BASELINE_VERSION:
        raise InputError(f"not a netpol audit baseline of version {BASELINE_VERSION}", src, "version")
    items = doc.get("findings")
    if not isinstance(items, list):
        raise InputError("must be a list", src, "findings")
    out = []
    for i, e in enumerate(items):
        if not isinstance(e, Mapping) or not all(isinstance(e.get(k), str) for k in ("fingerprint", "id")):
            raise InputError("each entry needs string fingerprint and id", src, f"findings[{i}]")
        out.append(
            BaselineEntry(
                e["fingerprint"],
                e["id"],
                str(e.get("namespace", "")),
                str(e.get("object", "")),
                str(e.get("message", "")),
            )
        )
    return out


def compare(
    findings: Iterable[Finding], baseline: Iterable[BaselineEntry]
) -> tuple[list[Finding], list[BaselineEntry]]:
    """(findings marked new / unchanged, baseline entries no longer found)."""
    known = {e.fingerprint: e for e in baseline}
    out = [replace(f, baseline="unchanged" if f.fingerprint in known else "new") for f in findings]
    seen = {f.fingerprint for f in out}
    return out, [e for e in known.values() if e.fingerprint not in seen]
