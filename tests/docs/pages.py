"""Reading the documentation as its tests need it: the pages, their fenced blocks, links and examples."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import ROOT

DOCS = ROOT / "docs"


def pages() -> list[Path]:
    """README.md and every page under docs/."""
    return [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]


def rel(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


FENCE = re.compile(r"^(`{3,})([^\n`]*)\n(.*?)^\1[ \t]*$", re.M | re.S)


@dataclass(frozen=True, slots=True)
class Block:
    lang: str
    text: str


def blocks(text: str) -> list[Block]:
    return [Block(m.group(2).strip(), m.group(3)) for m in FENCE.finditer(text)]


def prose(text: str) -> str:
    """The page without its fenced blocks (a link inside a code block is an example, not a link)."""
    return FENCE.sub("", text)


LINK = re.compile(r"(?<!!)\[[^\]\n]*\]\(([^)\s]+)\)")


def links(text: str) -> list[str]:
    """Markdown inline link targets outside fenced blocks and inline code spans."""
    return LINK.findall(re.sub(r"`[^`\n]*`", "", prose(text)))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, markup and punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip()).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(text: str) -> set[str]:
    return {slug(m.group(1)) for m in re.finditer(r"^#{1,6}\s+(.*)$", prose(text), flags=re.M)}


@dataclass(frozen=True, slots=True)
class Example:
    """One `$ command` line of a fenced block and the output lines the page shows under it."""

    page: str
    command: str
    shown: tuple[str, ...]


def examples(page: Path) -> Iterator[Example]:
    for block in blocks(page.read_text(encoding="utf-8")):
        command: str | None = None
        shown: list[str] = []
        for line in block.text.splitlines():
            if line.startswith("$ "):
                if command is not None:
                    yield Example(rel(page), command, tuple(shown))
                command, shown = line[2:], []
            elif command is not None:
                shown.append(line)
        if command is not None:
            yield Example(rel(page), command, tuple(shown))


def shown_pattern(shown: tuple[str, ...]) -> re.Pattern[str]:
    """The output a page shows, as a pattern over the whole output: `…` alone on a line stands for any lines
    (none included), `…` ending a line for the rest of that line; every other line is exact."""
    parts = []
    for line in shown:
        if line.strip() == "…":
            parts.append(r"(?:[^\n]*\n)*?")
        elif line.endswith("…"):
            parts.append(re.escape(line[:-1]) + r"[^\n]*\n")
        else:
            parts.append(re.escape(line.rstrip()) + r"\n")
    return re.compile("".join(parts))
