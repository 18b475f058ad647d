"""The CI recipe of docs/ci.md, run as written on every folder of the real apps (issue 10's "done when").

The GitHub Actions and GitLab CI jobs and the pre-commit configuration are read from docs/ci.md; their
`netpol check` / `netpol audit` commands run, as a CI runner would, in a folder laid out as the recipe says
(`manifests/`, `netpol-expectations.yaml`, `netpol-baseline.json`). The manifests are the real app with the
acceptance annotations of tests/data/ci-apps laid over it; the expectations are hand-derived facts
(tests/data/ci-expectations, each file says which policy states them). The recipe must pass on every
folder, and fail once the test adds an accidental `ingress: [{}]` to another policy.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import REAL_APPS, ROOT

DATA = ROOT / "tests" / "data"
APPS = sorted(p.name for p in REAL_APPS.iterdir() if p.is_dir())


def _ci_section() -> str:
    return (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")


def _yaml_block(marker: str) -> dict:
    for block in re.findall(r"```yaml\n(.*?)```", _ci_section(), flags=re.S):
        if block.startswith(f"# {marker}"):
            return yaml.safe_load(block)
    raise AssertionError(f"docs/ci.md has no yaml block for {marker}")


def _gating(commands: list[str]) -> list[str]:
    return [c for c in commands if c.startswith(("netpol check", "netpol audit"))]


def github_commands() -> list[str]:
    job = _yaml_block(".github/workflows/netpol.yml")["jobs"]["connectivity"]
    return _gating([s["run"].strip() for s in job["steps"] if "run" in s])


def gitlab_commands() -> list[str]:
    return _gating(_yaml_block(".gitlab-ci.yml")["netpol"]["script"])


def run_recipe_command(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """One `netpol …` line as a shell runs it: arguments split like sh, `> FILE` redirects stdout."""
    words = shlex.split(command)
    out_file = None
    if ">" in words:
        k = words.index(">")
        words, out_file = words[:k], words[k + 1]
    assert words[0] == "netpol"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "netpol.cli", *words[1:]], capture_output=True, text=True, cwd=cwd, env=env, timeout=300
    )
    if out_file:
        (cwd / out_file).write_text(done.stdout, encoding="utf-8")
    return done


def lay_out(app: str, tmp: Path) -> Path:
    """The repository a user of the recipe would have: manifests (with acceptances), expectations, baseline."""
    work = tmp / app
    shutil.copytree(REAL_APPS / app, work / "manifests")
    overlay = DATA / "ci-apps" / app
    if overlay.is_dir():
        shutil.copytree(overlay, work / "manifests", dirs_exist_ok=True)
    shutil.copy(DATA / "ci-expectations" / f"{app}.yaml", work / "netpol-expectations.yaml")
    baseline = run_recipe_command("netpol audit manifests/ --write-baseline netpol-baseline.json", work)
    assert baseline.returncode == 0, baseline.stderr
    return work


def _policy_names(manifests: Path) -> list[tuple[str, str]]:
    out = []
    for f in sorted(manifests.rglob("*.y*ml")):
        for d in yaml.safe_load_all(f.read_text(encoding="utf-8")):
            if isinstance(d, dict) and d.get("kind") == "NetworkPolicy":
                out.append((d["metadata"].get("namespace", "default"), d["metadata"]["name"]))
    return out


def add_accidental_allow_all(manifests: Path) -> str:
    """`ingress: [{}]` added to a policy nobody accepted a finding on (and defined once, so that no later
    definition of the same name replaces it), or, where every policy is accepted, a new allow-all policy
    beside them; returns the policy's name."""
    names = _policy_names(manifests)
    for f in sorted(manifests.rglob("*.y*ml")):
        docs = list(yaml.safe_load_all(f.read_text(encoding="utf-8")))
        for d in docs:
            if not isinstance(d, dict) or d.get("kind") != "NetworkPolicy":
                continue
            meta = d["metadata"]
            if any(k.startswith("kube-reach.io/accept.") for k in (meta.get("annotations") or {})):
                continue
            if names.count((meta.get("namespace", "default"), meta["name"])) > 1:
                continue
            spec = d["spec"]
            spec["ingress"] = [*(spec.get("ingress") or []), {}]
            spec["policyTypes"] = sorted({*(spec.get("policyTypes") or ["Ingress"]), "Ingress"})
            f.write_text(yaml.safe_dump_all(docs), encoding="utf-8")
            return meta["name"]
    # Every policy is accepted (one-policy apps), or none is a NetworkPolicy (Cilium's demo): the accident is a
    # new policy beside them.
    namespace = names[0][0] if names else "default"
    accident = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": "accidental-allow-all", "namespace": namespace},
        "spec": {"podSelector": {}, "ingress": [{}]},
    }
    (manifests / "accidental.yaml").write_text(yaml.safe_dump(accident), encoding="utf-8")
    return "accidental-allow-all"


def test_every_real_app_folder_has_expectations() -> None:
    assert sorted(p.stem for p in (DATA / "ci-expectations").glob("*.yaml")) == APPS


def test_readme_jobs_run_the_same_gating_commands() -> None:
    assert github_commands() == gitlab_commands()
    [check, audit] = github_commands()
    assert check.startswith("netpol check") and "--junit" in check
    assert "--baseline" in audit and "--fail-on" in audit and "-o sarif" in audit


@pytest.mark.parametrize("app", APPS)
def test_readme_recipe_passes_on_the_real_app_and_fails_on_an_accidental_allow_all(tmp_path: Path, app: str) -> None:
    work = lay_out(app, tmp_path)
    for command in github_commands():
        done = run_recipe_command(command, work)
        assert done.returncode == 0, f"{command}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    assert (work / "netpol.sarif").stat().st_size and (work / "netpol-junit.xml").stat().st_size
    name = add_accidental_allow_all(work / "manifests")
    audit = next(c for c in github_commands() if c.startswith("netpol audit"))
    done = run_recipe_command(audit, work)
    assert done.returncode == 1, f"{app}: ingress: [{{}}] on {name} went unnoticed"
    assert f"/{name}" in (work / "netpol.sarif").read_text(encoding="utf-8")


def test_without_the_acceptances_the_recipe_fails_where_a_finding_is_deliberate(tmp_path: Path) -> None:
    work = lay_out("online-boutique", tmp_path)
    shutil.rmtree(work / "manifests")
    shutil.copytree(REAL_APPS / "online-boutique", work / "manifests")  # no annotation: NP020 on the frontend
    audit = next(c for c in github_commands() if c.startswith("netpol audit"))
    assert run_recipe_command(audit, work).returncode == 1


# ------------------------------------------------------------------------------------------------ pre-commit


def _hooks() -> dict[str, dict]:
    return {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))}


def _configured_hooks() -> list[dict]:
    [repo] = _yaml_block(".pre-commit-config.yaml")["repos"]
    return repo["hooks"]


def run_hook(hook: dict, args: list[str], files: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """As pre-commit runs a hook: shlex-split `entry`, then `args`, then the staged files matching `files`
    unless `pass_filenames: false`; the hook is skipped when no staged file matches `files`."""
    matching = [f for f in files if re.search(hook.get("files", ""), f)]
    assert matching, "pre-commit would skip the hook"
    command = shlex.join([*shlex.split(hook["entry"]), *args, *(matching if hook.get("pass_filenames", True) else [])])
    return run_recipe_command(command, cwd)


def test_pre_commit_hooks_are_python_hooks_of_the_netpol_command() -> None:
    hooks = _hooks()
    assert set(hooks) == {"netpol-check", "netpol-audit"}
    for h in hooks.values():
        assert h["language"] == "python" and shlex.split(h["entry"])[0] == "netpol" and h["name"]
    assert {h["id"] for h in _configured_hooks()} == set(hooks)


def test_pre_commit_hooks_pass_then_catch_an_accidental_allow_all(tmp_path: Path) -> None:
    work = lay_out("bookinfo", tmp_path)
    staged = [str(p.relative_to(work)) for p in sorted((work / "manifests").rglob("*")) if p.is_file()]
    hooks = _hooks()
    for configured in _configured_hooks():
        done = run_hook(hooks[configured["id"]], configured["args"], staged, work)
        assert done.returncode == 0, done.stdout + done.stderr
    add_accidental_allow_all(work / "manifests")
    audit = next(c for c in _configured_hooks() if c["id"] == "netpol-audit")
    assert run_hook(hooks["netpol-audit"], audit["args"], staged, work).returncode == 1
