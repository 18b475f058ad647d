"""`netpol audit`: a namespace isolation report and a list of findings, each with an id, a severity, the
objects involved and a one-line fix. `audit(analysis)` returns an AuditReport; the CLI renders it (txt,
json, md, SARIF 2.1.0) and picks the exit code.

Modules: rules (catalogue, Finding, the factory), namespaces, policies, dns, redundancy (the checks),
report (audit()), render and sarif (output), locations (line numbers for SARIF: the only file reader).
"""

from netpol.audit.namespaces import NamespaceReport
from netpol.audit.redundancy import redundancy_findings
from netpol.audit.render import FORMATS, render
from netpol.audit.report import AuditReport, audit
from netpol.audit.rules import FAIL_ON, RULES, Finding, Rule
from netpol.audit.sarif import sarif
from netpol.model.vocab import SEVERITIES

__all__ = [
    "FAIL_ON",
    "FORMATS",
    "RULES",
    "SEVERITIES",
    "AuditReport",
    "Finding",
    "NamespaceReport",
    "Rule",
    "audit",
    "redundancy_findings",
    "render",
    "sarif",
]
