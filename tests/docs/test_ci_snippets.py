"""docs/ci.md's install commands and pre-commit configuration, run the way they are written (issue 25 item 12:
`pip install kube-reach` failed, the package is not on the index, and `rev: v0.1.0` named no tag).

The one change to each snippet: the placeholder URL becomes a local clone of this repository (pip and
pre-commit clone `file://` and plain paths as they clone https, with no network). The release tag the page
names is made in that clone when this checkout has none: a release tags its commit `v` + pyproject's
version, and a fresh clone in CI carries no tags. pip and pre-commit then really install: a fresh virtual
environment, the wheel built from the clone, the dependencies from the package index (or pip's cache).
References: pip's VCS support (https://pip.pypa.io/en/stable/topics/vcs-support/: `git+URL@REF`, REF a tag,
branch or commit); pre-commit's `repo`/`rev` (https://pre-commit.com/#pre-commit-configyaml---repos: `rev` is
the tag or commit to clone at) and `language: python` hooks (installed with pip into an environment of
pre-commit's own).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import yaml

from tests.conftest import ROOT
from tests.docs.conftest import RELEASE, VERSION
from tests.docs.pages import blocks
from tests.questions.test_ci_recipe import add_accidental_allow_all, github_commands, lay_out

PAGE = ROOT / "docs" / "ci.md"
PLACEHOLDER = "https://example.invalid/kube-reach"


def page_blocks(lang: str) -> list[str]:
    return [b.text for b in blocks(PAGE.read_text(encoding="utf-8")) if b.lang == lang]


def install_commands() -> list[str]:
    """Every `pip install` line of the page: the install section's and each job's."""
    lines = [
        line.strip().removeprefix("- ").removeprefix("run: ")
        for b in page_blocks("sh") + page_blocks("yaml")
        for line in b.splitlines()
    ]
    return [line for line in lines if " pip install " in line]


def git_install() -> str:
    [command] = sorted({c for c in install_commands() if "git+" in c})
    return command


def pre_commit_config() -> dict:
    [config] = [b for b in page_blocks("yaml") if b.startswith("# .pre-commit-config.yaml")]
    return yaml.safe_load(config)


def run(command: list[str] | str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    shell = isinstance(command, str)
    return subprocess.run(
        ["bash", "-c", command] if shell else command, cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )


def venv(where: Path) -> dict[str, str]:
    """A fresh virtual environment (no system packages) and the environment a job's shell has once it is on
    PATH, as setup-python or the python image give `python`."""
    done = run([sys.executable, "-m", "venv", str(where)], cwd=where.parent)
    assert done.returncode == 0, done.stderr
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    return {**env, "PATH": f"{where / 'bin'}{os.pathsep}{env['PATH']}", "VIRTUAL_ENV": str(where)}


def test_the_page_names_the_current_release_everywhere() -> None:
    """Every install line and the pre-commit `rev` name `v` + pyproject's version (the tag a release makes),
    the jobs install exactly what the install section says, and nothing installs `kube-reach` by name from
    the package index, where it is not."""
    commands = install_commands()
    assert len(commands) >= 4
    assert {c for c in commands if "git+" in c} == {f'python -m pip install "git+{PLACEHOLDER}@{RELEASE}"'}
    assert not [c for c in commands if re.search(r"install\s+kube-reach\b", c)]
    [repo] = pre_commit_config()["repos"]
    assert (repo["repo"], repo["rev"]) == (PLACEHOLDER, RELEASE)
    assert any(
        re.fullmatch(rf"python -m pip install dist/kube_reach-{re.escape(VERSION)}-\*\.whl", c) for c in commands
    )


def test_pip_install_from_the_repository_then_the_jobs_steps_pass(release: Path, tmp_path: Path) -> None:
    """The jobs' install line, then their `netpol check` and `netpol audit` lines, with the `netpol` that pip
    installed (not this checkout's): the wheel carries what the commands need."""
    env = venv(tmp_path / "venv")
    command = git_install().replace(PLACEHOLDER, release.as_uri())
    done = run(command, cwd=tmp_path, env=env)
    assert done.returncode == 0, f"{command}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    netpol = run("command -v netpol", cwd=tmp_path, env=env).stdout.strip()
    assert netpol == str(tmp_path / "venv" / "bin" / "netpol")
    work = lay_out("online-boutique", tmp_path / "repo")
    for step in github_commands():
        done = run(step, cwd=work, env=env)
        assert done.returncode == 0, f"{step}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    assert (work / "netpol-junit.xml").stat().st_size and (work / "netpol.sarif").stat().st_size
    add_accidental_allow_all(work / "manifests")
    audit = next(s for s in github_commands() if s.startswith("netpol audit"))
    assert run(audit, cwd=work, env=env).returncode == 1


def test_the_wheel_built_from_a_checkout_installs_and_runs(release: Path, tmp_path: Path) -> None:
    [build, install] = [
        c
        for b in page_blocks("sh")
        for c in b.splitlines()
        if c.startswith(("python3 -m pip wheel", "python -m pip install dist/"))
    ]
    done = run(build, cwd=release)
    assert done.returncode == 0, done.stderr[-3000:]
    env = venv(tmp_path / "venv")
    done = run(install, cwd=release, env=env)
    assert done.returncode == 0, f"{install}\n{done.stderr[-3000:]}"
    done = run(f"netpol matrix {shlex.quote(str(release / 'samples' / 'seed-lab'))}", cwd=tmp_path, env=env)
    assert done.returncode == 0 and "web/test => web/web1 : TCP 80\n" in done.stdout, done.stderr


def test_pre_commit_runs_the_configured_hooks_then_catches_an_accidental_allow_all(
    release: Path, tmp_path: Path
) -> None:
    """The page's .pre-commit-config.yaml in a repository laid out as the recipe says, `pre-commit run
    --all-files` for real: both hooks pass; after an accidental `ingress: [{}]` the audit hook fails."""
    work = lay_out("bookinfo", tmp_path)
    config = pre_commit_config()
    config["repos"][0]["repo"] = str(release)
    (work / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"PRE_COMMIT_HOME": str(tmp_path / "cache")}
    assert run(["git", "init", "--quiet"], cwd=work).returncode == 0
    pre_commit = [sys.executable, "-m", "pre_commit", "run", "--all-files", "--color", "never"]

    assert run(["git", "add", "-A"], cwd=work).returncode == 0
    done = run(pre_commit, cwd=work, env=env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert re.search(r"^netpol check .*Passed$", done.stdout, flags=re.M), done.stdout
    assert re.search(r"^netpol audit .*Passed$", done.stdout, flags=re.M), done.stdout

    add_accidental_allow_all(work / "manifests")
    assert run(["git", "add", "-A"], cwd=work).returncode == 0
    done = run(pre_commit, cwd=work, env=env)
    assert done.returncode == 1, done.stdout[-3000:]
    assert re.search(r"^netpol audit .*Failed$", done.stdout, flags=re.M), done.stdout
