"""What CI gates on: per-object acceptance, baselines that survive reformatting, SARIF and JUnit valid by the
schemas CI systems use, DNS that can be checked (--assume-dns, --cluster-cidr), pods named in the reach-in."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import xmlschema
import yaml

from netpol.audit import RULES, audit
from netpol.audit.rules import finding
from tests.conftest import REAL_APPS, ROOT
from tests.questions.conftest import AUDIT, EXPECT, SEED, analyze_path

SCHEMAS = ROOT / "tests" / "data" / "schemas"
APPS = sorted(p.name for p in REAL_APPS.iterdir() if p.is_dir())


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "netpol.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd or ROOT,
        env=env,
        timeout=300,
    )


def policy_doc(name: str, spec: dict, annotations: dict | None = None, ns: str = "default") -> dict:
    meta: dict = {"name": name, "namespace": ns}
    if annotations:
        meta["annotations"] = annotations
    return {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": meta, "spec": spec}


PODS = [
    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}},
    {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "front", "namespace": "default", "labels": {"app": "front"}},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
    },
    {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "db", "namespace": "default", "labels": {"app": "db"}},
        "spec": {"containers": [{"name": "c", "image": "postgres"}]},
    },
]
PUBLIC = {"podSelector": {"matchLabels": {"app": "front"}}, "ingress": [{}]}


def write(tmp: Path, *docs: dict, name: str = "app.yaml") -> Path:
    (tmp / name).write_text(yaml.safe_dump_all(list(docs)), encoding="utf-8")
    return tmp


# ---------------------------------------------------------------------------------------------- acceptance


def test_annotation_accepts_the_finding_on_its_policy_with_the_reason(tmp_path: Path) -> None:
    reason = "public storefront, reviewed 2026-11"
    app = write(tmp_path, *PODS, policy_doc("front", PUBLIC, {"kube-reach.io/accept.NP020": reason}))
    report = audit(analyze_path(app))
    [np020] = [f for f in report.findings if f.rule == "NP020"]
    assert np020.accepted is not None and np020.accepted.reason == reason
    assert np020.accepted.by == "NetworkPolicy/default/front"
    assert not report.fails("high")
    done = cli("audit", str(app), "--fail-on", "high", "-o", "json")
    assert done.returncode == 0
    [j] = [f for f in json.loads(done.stdout)["findings"] if f["id"] == "NP020"]
    assert j["accepted"] == {"by": "NetworkPolicy/default/front", "reason": reason}
    sarif = json.loads(cli("audit", str(app), "-o", "sarif").stdout)
    [res] = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "NP020"]
    assert res["suppressions"] == [{"kind": "inSource", "justification": f"NetworkPolicy/default/front: {reason}"}]
    assert "accepted on NetworkPolicy/default/front: " + reason in cli("audit", str(app)).stdout


def test_acceptance_by_rule_name_and_on_a_namespace(tmp_path: Path) -> None:
    docs = [dict(PODS[0], metadata={"name": "default", "annotations": {"kube-reach.io/accept.NP002": "egress open"}})]
    app = write(
        tmp_path, *docs, *PODS[1:], policy_doc("front", PUBLIC, {"kube-reach.io/accept.rule-allows-all-peers": "ok"})
    )
    report = audit(analyze_path(app))
    by_rule = {f.rule: f for f in report.findings}
    assert by_rule["NP020"].accepted is not None and by_rule["NP002"].accepted is not None
    assert by_rule["NP002"].accepted.by == "Namespace/default"
    assert by_rule["NP001"].accepted is None  # accepting one rule accepts no other


def test_an_accidental_allow_all_on_another_policy_still_fails(tmp_path: Path) -> None:
    db = {"podSelector": {"matchLabels": {"app": "db"}}, "ingress": [{}]}
    app = write(
        tmp_path, *PODS, policy_doc("front", PUBLIC, {"kube-reach.io/accept.NP020": "public"}), policy_doc("db", db)
    )
    done = cli("audit", str(app), "--fail-on", "high")
    assert done.returncode == 1 and "default/db ingress rule #1 has no from" in done.stdout


@pytest.mark.parametrize(
    ("key", "value", "note"),
    [
        ("kube-reach.io/accept.NP999", "why", "names no rule"),
        ("kube-reach.io/accept.NP020", " ", "gives no reason"),
        ("kube-reach.io/accept", "public", "names no rule; write kube-reach.io/accept.<rule id or name>: <reason>"),
    ],
    ids=["unknown-rule", "no-reason", "bare-key"],
)
def test_an_annotation_that_accepts_nothing_says_so(tmp_path: Path, key: str, value: str, note: str) -> None:
    app = write(tmp_path, *PODS, policy_doc("front", PUBLIC, {key: value}))
    report = audit(analyze_path(app))
    assert all(f.accepted is None for f in report.findings) and report.fails("high")
    assert any(note in n and "NetworkPolicy/default/front" in n for n in report.notes)


# ---------------------------------------------------------------------------------------------- baseline


def _reformatted(src: Path, dst: Path) -> Path:
    """The same objects, other files: documents reversed, split one per file, flow style, keys reordered."""
    docs = [d for f in sorted(src.rglob("*.y*ml")) for d in yaml.safe_load_all(f.read_text()) if d]
    dst.mkdir()
    for k, d in enumerate(reversed(docs)):
        (dst / f"{len(docs) - k:03d}-{d['kind'].lower()}.yaml").write_text(
            "# reformatted\n\n" + yaml.safe_dump(d, default_flow_style=True, sort_keys=False, width=60)
        )
    return dst


def test_baseline_survives_reordering_and_reformatting(tmp_path: Path) -> None:
    app = REAL_APPS / "bookinfo"
    baseline = tmp_path / "baseline.json"
    assert cli("audit", str(app), "--write-baseline", str(baseline)).returncode == 0
    entries = json.loads(baseline.read_text())["findings"]
    assert entries and all(set(e) == {"fingerprint", "id", "namespace", "object", "message"} for e in entries)
    moved = _reformatted(app, tmp_path / "moved")
    done = cli("audit", str(moved), "--baseline", str(baseline), "--fail-on", "low", "-o", "json")
    assert done.returncode == 0, done.stdout
    data = json.loads(done.stdout)
    assert {f["baseline"] for f in data["findings"]} == {"unchanged"} and data["resolved"] == []


def test_baseline_fails_only_on_new_findings_and_lists_vanished_ones(tmp_path: Path) -> None:
    (tmp_path / "app").mkdir()
    app = write(tmp_path / "app", *PODS, policy_doc("front", PUBLIC))
    baseline = tmp_path / "baseline.json"
    cli("audit", str(app), "--write-baseline", str(baseline))
    assert cli("audit", str(app), "--baseline", str(baseline), "--fail-on", "low").returncode == 0
    db = {"podSelector": {"matchLabels": {"app": "db"}}, "ingress": [{"from": [{"ipBlock": {"cidr": "0.0.0.0/0"}}]}]}
    write(app, *PODS, policy_doc("db", db))  # front's policy gone, db's new
    done = cli("audit", str(app), "--baseline", str(baseline), "--fail-on", "high", "-o", "json")
    assert done.returncode == 1
    data = json.loads(done.stdout)
    assert [f["id"] for f in data["findings"] if f["baseline"] == "new" and f["severity"] == "high"] == ["NP023"]
    assert any(e["id"] == "NP020" and e["object"] == "NetworkPolicy/default/front" for e in data["resolved"])
    assert "no longer found" in cli("audit", str(app), "--baseline", str(baseline)).stdout


def test_unreadable_baseline_is_an_input_error(tmp_path: Path) -> None:
    bad = tmp_path / "b.json"
    bad.write_text("{not json")
    done = cli("audit", "--baseline", str(bad))
    assert done.returncode == 2 and "b.json" in done.stderr and "Traceback" not in done.stderr
    assert cli("audit", "--baseline", str(tmp_path / "missing.json")).returncode == 2


# ---------------------------------------------------------------------------------------------- formats by schema


@pytest.fixture(scope="module")
def sarif_validator() -> jsonschema.protocols.Validator:
    schema = json.loads((SCHEMAS / "sarif-schema-2.1.0.json").read_text())
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


@pytest.mark.parametrize("app", [*APPS, "samples/expectations/audit", "samples/seed-lab"])
def test_sarif_is_valid_sarif_2_1_0(sarif_validator, app: str, tmp_path: Path) -> None:  # noqa: ANN001
    path = REAL_APPS / app if not app.startswith("samples") else ROOT / app
    baseline = tmp_path / "b.json"
    cli("audit", str(path), "--write-baseline", str(baseline))
    doc = json.loads(cli("audit", str(path), "-o", "sarif", "--baseline", str(baseline)).stdout)
    errors = sorted(sarif_validator.iter_errors(doc), key=str)
    assert not errors, errors[0].message
    assert doc["runs"][0]["results"]  # every one of them has findings: the schema saw results


def test_sarif_with_suppressions_is_valid(sarif_validator, tmp_path: Path) -> None:  # noqa: ANN001
    app = write(tmp_path, *PODS, policy_doc("front", PUBLIC, {"kube-reach.io/accept.NP020": "public"}))
    doc = json.loads(cli("audit", str(app), "-o", "sarif").stdout)
    assert any("suppressions" in r for r in doc["runs"][0]["results"])
    assert not list(sarif_validator.iter_errors(doc))


def test_the_validator_rejects_what_the_schema_forbids(sarif_validator) -> None:  # noqa: ANN001
    doc = json.loads(cli("audit", "-o", "sarif").stdout)
    doc["runs"][0]["results"][0]["level"] = "critical"
    assert list(sarif_validator.iter_errors(doc))


@pytest.fixture(scope="module")
def junit_schema() -> xmlschema.XMLSchema:
    return xmlschema.XMLSchema(str(SCHEMAS / "jenkins-junit.xsd"))


def test_junit_is_valid_by_the_jenkins_schema(junit_schema, tmp_path: Path) -> None:  # noqa: ANN001
    failing = tmp_path / "expect.yaml"
    failing.write_text(
        yaml.safe_dump(
            {
                "expectations": [
                    {"name": "web2 reaches web1 (it does not)", "from": "web/web2", "to": "web/web1", "expect": "allow"}
                ]
            }
        )
    )
    for expect in (EXPECT / "seed-lab.yaml", failing):
        out = tmp_path / f"{expect.stem}.xml"
        cli("check", str(SEED), "--expect", str(expect), "--junit", str(out))
        junit_schema.validate(str(out))
    assert "<failure" in (tmp_path / "expect.xml").read_text()
    with pytest.raises(xmlschema.XMLSchemaValidationError):
        junit_schema.validate("<testsuites><testsuite tests='1'><testcase/></testsuite></testsuites>")


# ---------------------------------------------------------------------------------------------- DNS


def test_assume_dns_makes_dns_rules_match_and_answerable() -> None:
    bookinfo = str(REAL_APPS / "bookinfo")
    plain = cli("audit", bookinfo, "-o", "json")
    assumed = cli("audit", bookinfo, "--assume-dns", "-o", "json")
    assert "kube-system" not in {n["namespace"] for n in json.loads(assumed.stdout)["namespaces"]}
    assert {f["id"] for f in json.loads(assumed.stdout)["findings"]} <= {
        f["id"] for f in json.loads(plain.stdout)["findings"]
    }
    who = cli("who-can-reach", "svc/kube-system/kube-dns", bookinfo, "--assume-dns")
    assert who.returncode == 0, who.stderr
    assert re.search(r"default/details-v1\S* => kube-system/coredns-assumed : TCP 53,UDP 53", who.stdout)
    assert cli("who-can-reach", "svc/kube-system/kube-dns", bookinfo).returncode == 2  # no such Service without it


def test_assume_dns_judges_np030_on_the_engine(tmp_path: Path) -> None:
    udp_only = {
        "podSelector": {},
        "policyTypes": ["Egress"],
        "egress": [
            {
                "to": [{"namespaceSelector": {}, "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}}}],
                "ports": [{"port": 53, "protocol": "UDP"}],
            }
        ],
    }
    app = write(tmp_path, *PODS, policy_doc("dns", udp_only))
    done = cli("audit", str(app), "--assume-dns", "-o", "json")
    [np030] = [f for f in json.loads(done.stdout)["findings"] if f["id"] == "NP030"]
    assert "without TCP 53" in np030["message"]


def test_dns_stand_in_lives_in_the_cluster_cidr(tmp_path: Path) -> None:
    to_ten = {
        "podSelector": {},
        "policyTypes": ["Egress"],
        "egress": [
            {
                "to": [{"ipBlock": {"cidr": "10.0.0.0/8"}}],
                "ports": [{"port": 53, "protocol": "UDP"}, {"port": 53, "protocol": "TCP"}],
            }
        ],
    }
    app = write(tmp_path, *PODS, policy_doc("dns-by-cidr", to_ten))

    def np030(*extra: str) -> list:
        return [
            f for f in json.loads(cli("audit", str(app), "-o", "json", *extra).stdout)["findings"] if f["id"] == "NP030"
        ]

    assert np030() == []  # the default 10.244.0.0/16 lies in 10.0.0.0/8
    assert np030("--cluster-cidr", "192.168.0.0/16")  # kube-dns is then outside the rule's ipBlock


# ---------------------------------------------------------------------------------------------- report


def test_reach_in_names_the_pods_reached() -> None:
    data = json.loads(cli("audit", "-o", "json").stdout)
    web = next(n for n in data["namespaces"] if n["namespace"] == "web")
    outside = {r["from"]: r["to"] for r in web["reachable_from"]}
    assert outside["0.0.0.0-255.255.255.255"] == ["web/test", "web/web2"]  # web1 admits only run=test of web
    assert "(to web/test, web/web2)" in cli("audit").stdout


@pytest.mark.parametrize("app", ["bookinfo", "npg-acs-security-demos", "npg-ipblockstest", "online-boutique"])
def test_findings_come_from_the_catalogue_factory(app: str) -> None:
    for f in (ROOT / "netpol" / "audit").glob("*.py"):
        if f.name != "rules.py":
            assert not re.search(r"\bFinding\(", f.read_text()), f"{f.name} builds a Finding by hand"
    assert finding("NP020", "ns", "m", ("x",), None, direction="egress").severity == RULES["NP020"].egress_severity
    for f in [*audit(analyze_path(AUDIT)).findings, *audit(analyze_path(REAL_APPS / app)).findings]:
        rule = RULES[f.rule]
        assert f.severity in (rule.severity, rule.egress_severity, *rule.grades.values())
