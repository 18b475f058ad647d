"""`netpol audit` on Calico policies (CAL rules, netpol/audit/calico.py), through the CLI as users run it.

Rule order and first match: docs.tigera.io/calico/latest/reference/resources/networkpolicy ("Rule": rules are
walked in order; the first Allow / Deny / Pass decides)."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from tests.helpers import run_cli
from tests.netpol.calico_cases import base, cnp, gnp


def _audit(tmp_path: Path, *objs: dict) -> list[dict]:
    f = tmp_path / "c.yaml"
    f.write_text(yaml.safe_dump_all([*base(), *objs]))
    r = run_cli("audit", "-o", "json", str(f))
    assert r.returncode in (0, 1), r.stderr
    return [x for x in json.loads(r.stdout)["findings"] if x["id"].startswith("CAL")]


def test_calico_findings(tmp_path: Path) -> None:
    found = _audit(
        tmp_path,
        # rule 1 matches everything (and allows it); rule 2 is never reached; rule 1 allows every address
        gnp("open", {"selector": "all()", "ingress": [{"action": "Allow"}, {"action": "Deny", "protocol": "ICMP"}]}),
        # selects no pod (no app=nothing); its source-port rule is only partly evaluated
        cnp(
            "a",
            "ghost",
            {
                "selector": "app == 'nothing'",
                "egress": [{"action": "Allow", "protocol": "TCP", "source": {"ports": [1000]}}],
            },
        ),
    )
    got = sorted((x["id"], x["objects"][0]) for x in found)
    assert got == [
        ("CAL001", "NetworkPolicy.projectcalico.org/a/ghost"),
        ("CAL002", "GlobalNetworkPolicy.projectcalico.org/open"),
        ("CAL003", "GlobalNetworkPolicy.projectcalico.org/open"),
        ("CAL004", "NetworkPolicy.projectcalico.org/a/ghost"),
    ]
    severities = {x["id"]: x["severity"] for x in found}
    assert severities == {"CAL001": "low", "CAL002": "low", "CAL003": "high", "CAL004": "info"}


def test_log_rule_does_not_hide_later_rules(tmp_path: Path) -> None:
    """Log matches and goes on (Rule reference): a catch-all Log rule does not make later rules unreachable."""
    found = _audit(tmp_path, cnp("a", "p", {"selector": "all()", "ingress": [{"action": "Log"}, {"action": "Deny"}]}))
    assert [x["id"] for x in found] == []
