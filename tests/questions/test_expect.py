"""netpol check: expectations YAML, pass/fail table, JUnit XML, exit codes."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from netpol.errors import InputError
from netpol.expect import check, parse_expectations
from tests.helpers import run_cli
from tests.questions.conftest import EXPECT, SEED

FAILING = """
expectations:
  - name: web2 reaches web1
    from: web/web2
    to: web/web1
    ports: [80]
    expect: allow
  - from: {namespace: web}
    to: {pod: web/web1}
    expect: deny
  - from: web/test
    to: web/ghost
    expect: deny
  - from: {cidr: 0.0.0.0/0}
    to: {workload: deploy/web/nothing}
    expect: deny
  - from: web/test
    to: {selector: run=web1, namespace: web}
    ports: [{port: 80, protocol: TCP}]
    expect: allow
"""


def test_seed_lab_expectations_pass(seed) -> None:
    results = check(seed, parse_expectations((EXPECT / "seed-lab.yaml").read_text()))
    assert results and all(r.passed for r in results), [r.detail for r in results if not r.passed]


def test_failures_say_which_pairs(seed) -> None:
    r1, r2, r3, r4, r5 = check(seed, parse_expectations(FAILING))
    assert not r1.passed and r1.offending == [
        "web/web2 => web/web1 does not allow TCP 80 (allows All Connections)".replace(" (allows All Connections)", "")
    ]
    assert not r2.passed and r2.offending == ["web/test => web/web1 allows TCP 80"]
    assert not r3.passed and r3.error and "not found" in r3.detail
    assert not r4.passed and r4.error
    assert r5.passed


@pytest.mark.parametrize(
    "text",
    [
        "expectations: []",
        "expectations: [{from: a, to: b}]",
        "expectations: [{from: a, to: b, expect: maybe}]",
        "expectations: [{from: a, to: b, expect: allow, ports: [99999]}]",
        "expectations: [{from: {pod: a, cidr: 1.2.3.4/32}, to: b, expect: deny}]",
        "expectations: [{from: a, to: b, expect: deny, extra: 1}]",
        "expectations: [",
    ],
)
def test_malformed_files_are_input_errors(text: str) -> None:
    with pytest.raises(InputError):
        parse_expectations(text)


def test_cli_check_passes_and_writes_junit(tmp_path) -> None:
    junit = tmp_path / "report.xml"
    out = run_cli("check", str(SEED), "--expect", str(EXPECT / "seed-lab.yaml"), "--junit", str(junit))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "0 failed" in out.stdout
    root = ET.parse(junit).getroot()
    suite = root.find("testsuite")
    assert root.tag == "testsuites" and suite is not None
    assert int(suite.get("tests")) == len(suite.findall("testcase")) > 0
    assert suite.get("failures") == "0" and suite.get("errors") == "0"


def test_cli_check_fails_with_exit_1_and_junit_failures(tmp_path) -> None:
    exp = tmp_path / "exp.yaml"
    exp.write_text(FAILING)
    junit = tmp_path / "report.xml"
    out = run_cli("check", "--expect", str(exp), "--junit", str(junit))
    assert out.returncode == 1
    assert "FAIL" in out.stdout and "1 passed, 4 failed" in out.stdout
    suite = ET.parse(junit).getroot().find("testsuite")
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases][0] == "web2 reaches web1"
    assert suite.get("failures") == "2" and suite.get("errors") == "2"
    assert cases[0].find("failure") is not None and cases[2].find("error") is not None
    assert cases[4].find("failure") is None and cases[4].find("error") is None


def test_cli_check_usage_errors_exit_2(tmp_path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("expectations: [{from: a}]")
    for args in (("check", "--expect", str(bad)), ("check", "--expect", str(tmp_path / "missing.yaml")), ("check",)):
        out = run_cli(*args)
        assert out.returncode == 2 and "Traceback" not in out.stderr
