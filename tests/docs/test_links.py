"""Every page the README, the docs and `--help` point to exists, and every relative link resolves (issue 25:
README is the front door, the reference lives in docs/, linked from README and from each command's --help)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from urllib.parse import unquote

import pytest

from tests.conftest import ROOT
from tests.docs.pages import DOCS, anchors, blocks, links, pages, rel
from tests.helpers import run_cli

PAGES = pages()


def help_commands() -> list[str]:
    """The commands `netpol --help` lists, as a user reads them."""
    done = run_cli("--help")
    assert done.returncode == 0, done.stderr
    listing = done.stdout[done.stdout.index("COMMAND\n") : done.stdout.index("\noptions:")]
    return re.findall(r"^    ([a-z][a-z-]*)", listing, flags=re.M)


def epilog_pages(command: str) -> list[str]:
    """The pages `netpol COMMAND --help` ends with (the lines after its "documentation" line)."""
    done = run_cli(command, "--help")
    assert done.returncode == 0, done.stderr
    tail = done.stdout[done.stdout.index("documentation, in the kube-reach source tree:") :]
    return re.findall(r"^  (\S+\.md)$", tail, flags=re.M)


def test_every_command_of_help_names_its_page_and_the_page_exists() -> None:
    commands = help_commands()
    documented = "matrix schedule who-can-reach can-reach explain audit check diff report tui".split()
    assert set(documented) <= set(commands)
    for command in commands:
        named = epilog_pages(command)
        assert named and named[0].startswith("docs/commands/"), f"netpol {command} --help names no command page"
        for page in named:
            assert (ROOT / page).is_file(), f"netpol {command} --help names {page}, which does not exist"


def test_readme_links_every_command_page_that_help_names() -> None:
    readme = {str((ROOT / t).resolve()) for t in links((ROOT / "README.md").read_text(encoding="utf-8"))}
    for command in help_commands():
        page = epilog_pages(command)[0]
        assert str((ROOT / page).resolve()) in readme, f"README does not link {page} (netpol {command})"


def _target(page: Path, link: str) -> tuple[Path, str]:
    path, _, fragment = link.partition("#")
    return ((page.parent / unquote(path)).resolve() if path else page), fragment


@pytest.mark.parametrize("page", PAGES, ids=rel)
def test_every_relative_link_resolves(page: Path) -> None:
    """Files and folders must exist; `#fragment` must be a heading of the target page (GitHub's anchors)."""
    broken = []
    for link in links(page.read_text(encoding="utf-8")):
        if re.match(r"^[a-z][a-z+.-]*:", link):  # https:, mailto: — not checked here (no network)
            continue
        target, fragment = _target(page, link)
        if not target.exists():
            broken.append(f"{link} (no {target})")
        elif fragment and target.suffix == ".md" and fragment not in anchors(target.read_text(encoding="utf-8")):
            broken.append(f"{link} (no heading #{fragment} in {rel(target)})")
    assert not broken, f"{rel(page)}: " + "; ".join(broken)


def test_every_docs_page_is_listed_in_the_docs_index() -> None:
    index = DOCS / "README.md"
    linked = {_target(index, link)[0] for link in links(index.read_text(encoding="utf-8"))}
    orphans = [rel(p) for p in sorted(DOCS.rglob("*.md")) if p != index and p.resolve() not in linked]
    assert not orphans, f"docs/README.md does not list {orphans}"


REPO_PATH = re.compile(r"`((?:samples|tests|netpol|scheduling|tui|benchmarks|docs|\.ci)/[\w./-]*)`")


def generated(path: str) -> bool:
    """A path the tests or the tools write (ignored by git, e.g. tests/report/artifacts/)."""
    return subprocess.run(["git", "check-ignore", "-q", path], cwd=ROOT, capture_output=True).returncode == 0


@pytest.mark.parametrize("page", PAGES, ids=rel)
def test_every_repository_path_a_page_names_exists(page: Path) -> None:
    """A moved paragraph keeps naming real files: `samples/…`, `tests/…`, `netpol/…` in code spans exist."""
    named = {p.rstrip(".,;:") for p in REPO_PATH.findall(page.read_text(encoding="utf-8"))}
    missing = sorted(p for p in named if not (ROOT / p).exists() and not generated(p))
    assert not missing, f"{rel(page)} names {missing}"


def test_readme_test_command_is_what_ci_runs() -> None:
    """.ci/run says it runs "exactly the README's test command": the block after "Run the tests" in README."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    after = readme[readme.index("Run the tests") :]
    [command] = [b.text.strip() for b in blocks(after)[:1]]
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    assert command.splitlines() and all(line in ci for line in command.splitlines()), command
