"""NP060 as advice a reviewer can follow (issue 10's "done when"): on every real app, deleting the flagged
policies from the manifests, alone or together as each finding says, changes no connection (`netpol diff
--exit-code`) and raises no finding the audit did not already report."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from netpol.audit import audit
from netpol.audit.redundancy import is_safety_net
from tests.conftest import REAL_APPS, ROOT
from tests.questions.conftest import AUDIT, analyze_path

RECIPES = REAL_APPS / "netpol-recipes"
FOLDERS = [
    *sorted(p.name for p in REAL_APPS.iterdir() if p.is_dir()),
    *sorted(f"netpol-recipes/{p.name}" for p in RECIPES.iterdir() if p.is_dir()),
]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "netpol.cli", *args], capture_output=True, text=True, cwd=ROOT, env=env, timeout=300
    )


def findings(path: Path) -> list[dict]:
    done = cli("audit", str(path), "-o", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["findings"]


def without_policies(src: Path, dst: Path, objects: set[str]) -> Path:
    """A copy of the manifests with the NetworkPolicies `objects` (NetworkPolicy/ns/name) deleted, as a
    reviewer following the advice would (documents and List items alike)."""
    shutil.copytree(src, dst)

    def keep(o: object) -> bool:
        if not isinstance(o, dict) or o.get("kind") != "NetworkPolicy":
            return True
        meta = o.get("metadata") or {}
        return f"NetworkPolicy/{meta.get('namespace') or 'default'}/{meta.get('name')}" not in objects

    for f in sorted(dst.rglob("*")):
        if f.suffix not in (".yaml", ".yml", ".json"):
            continue
        docs = list(yaml.safe_load_all(f.read_text(encoding="utf-8")))
        kept = []
        for d in docs:
            if isinstance(d, dict) and isinstance(d.get("items"), list):
                d = {**d, "items": [o for o in d["items"] if keep(o)]}
            if keep(d):
                kept.append(d)
        if kept != docs:
            f.write_text(yaml.safe_dump_all(kept), encoding="utf-8")
    return dst


def follow(src: Path, tmp: Path, removed: set[str], before: list[dict], tag: str) -> None:
    after_dir = without_policies(src, tmp / tag, removed)
    diff = cli("diff", str(src), str(after_dir), "--exit-code")
    assert diff.returncode == 0, f"removing {sorted(removed)} changes connections:\n{diff.stdout[:2000]}"
    known = {f["fingerprint"] for f in before}
    new = [f for f in findings(after_dir) if f["fingerprint"] not in known]
    assert not new, f"removing {sorted(removed)} raises {[(f['id'], f['message']) for f in new]}"


@pytest.mark.parametrize("folder", [*FOLDERS, "<samples/expectations/audit>"])
def test_following_every_np060_finding_changes_nothing(tmp_path: Path, folder: str) -> None:
    src = AUDIT if folder.startswith("<") else REAL_APPS / folder
    before = findings(src)
    np060 = [f for f in before if f["id"] == "NP060"]
    together = {f["objects"][0] for f in np060 if "[together:" in f["message"]}
    alone = [f["objects"][0] for f in np060 if "[together:" not in f["message"]]
    if together:
        follow(src, tmp_path, together, before, "together")
    for k, obj in enumerate(alone):
        follow(src, tmp_path, {obj}, before, f"alone-{k}")


def test_the_advice_is_exercised_on_several_policies_together() -> None:
    np060 = [f for f in findings(REAL_APPS / "netpol-recipes") if f["id"] == "NP060"]
    assert sum("[together:" in f["message"] for f in np060) >= 2
    assert any("[alone:" in f["message"] for f in np060)


def test_default_deny_and_dns_policies_of_bookinfo_are_not_proposed() -> None:
    """Issue 10: removing bookinfo's allow-dns-egress raises NP030, removing default-deny-all raises NP001."""
    flagged = {f["objects"][0] for f in findings(REAL_APPS / "bookinfo") if f["id"] == "NP060"}
    assert "NetworkPolicy/default/allow-dns-egress" not in flagged
    assert "NetworkPolicy/default/default-deny-all" not in flagged


def test_no_default_deny_is_ever_proposed() -> None:
    for folder in FOLDERS:
        analysis = analyze_path(REAL_APPS / folder)
        by_key = {f"NetworkPolicy/{p.key}": p for p in analysis.cluster.policies}
        for f in audit(analysis).findings:
            if f.rule == "NP060":
                assert not is_safety_net(by_key[f.objects[0]]), f"{folder}: {f.message}"
                assert f.severity == "info"


def test_twins_are_each_redundant_only_on_their_own_and_name_each_other() -> None:
    """np060-redundant-policy.yaml: two copies of one policy; either can go, not both."""
    report = audit(analyze_path(AUDIT / "np060-redundant-policy.yaml"))
    messages = {f.objects[0]: f.message for f in report.findings if f.rule == "NP060"}
    assert set(messages) == {"NetworkPolicy/t/a-from-b", "NetworkPolicy/t/a-from-b-again"}
    assert "also allowed by t/a-from-b-again" in messages["NetworkPolicy/t/a-from-b"]
    assert "also allowed by t/a-from-b," in messages["NetworkPolicy/t/a-from-b-again"]
    assert all("[alone:" in m for m in messages.values())


IPBLOCK_COVER = AUDIT / "np060-redundant-by-ipblock.yaml"


def test_np060_says_when_only_an_ipblock_over_pod_addresses_covers_the_removal(tmp_path: Path) -> None:
    """Issue 25 item 11. By hand: t/a-from-b allows t/b → t/a TCP 80; t/a-from-pod-range allows 10.244.0.0/16 →
    t/a TCP 80, which holds t/b's address 10.244.1.11. With ipBlock matching pod IPs (the upstream e2e
    expectation, `--ipblock-pods match`) deleting a-from-b changes nothing; where the CNI does not match
    (`--ipblock-pods ignore`) it loses t/b → t/a:80. The finding says so, as NP050 does of the ipBlock."""
    (np060,) = [f for f in findings(IPBLOCK_COVER) if f["id"] == "NP060"]
    assert np060["objects"] == ["NetworkPolicy/t/a-from-b"]
    assert (
        "(with ipBlock matching pod addresses, --ipblock-pods match); with --ipblock-pods ignore removing it "
        in (np060["message"])
    )
    assert "depends on the network plugin (CNI)" in np060["message"]
    assert np060["fix"].startswith("keep it unless your CNI matches ipBlock against pod addresses")
    ignore = cli("audit", str(IPBLOCK_COVER), "-o", "json", "--ipblock-pods", "ignore")
    assert [f for f in json.loads(ignore.stdout)["findings"] if f["id"] == "NP060"] == []
    # the claim itself, checked the way a reviewer would: delete it and diff under each setting
    kept = [d for d in yaml.safe_load_all(IPBLOCK_COVER.read_text()) if d["metadata"]["name"] != "a-from-b"]
    out = tmp_path / "without.yaml"
    out.write_text(yaml.safe_dump_all(kept))
    assert cli("diff", str(IPBLOCK_COVER), str(out), "--exit-code").returncode == 0
    lost = cli("diff", str(IPBLOCK_COVER), str(out), "--exit-code", "--ipblock-pods", "ignore")
    assert lost.returncode == 1 and "t/b" in lost.stdout


def test_np060_without_an_ipblock_says_nothing_of_the_network_plugin() -> None:
    np060 = [f for f in findings(AUDIT / "np060-redundant-policy.yaml") if f["id"] == "NP060"]
    assert np060 and all("network plugin" not in f["message"] and "ipblock" not in f["message"].lower() for f in np060)
