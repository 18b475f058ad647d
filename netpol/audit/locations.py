"""Line numbers of objects in their files, for SARIF regions: the audit's one reader of files.

A `SourceLines` caches what it read for its own lifetime (one rendering), never globally, so a file that
changes between two audits in one process (the UI's --watch) is read afresh.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from netpol.errors import SourceRef


class SourceLines:
    def __init__(self) -> None:
        self._spans: dict[str, list[tuple[int, int]]] = {}
        self._lines: dict[str, list[str]] = {}

    def _text_lines(self, file: str) -> list[str]:
        hit = self._lines.get(file)
        if hit is None:
            try:
                hit = Path(file).read_text(encoding="utf-8").splitlines()
            except (OSError, UnicodeDecodeError):
                hit = []
            self._lines[file] = hit
        return hit

    def _document_spans(self, file: str) -> list[tuple[int, int]]:
        """(first line, last line), 1-based, of every YAML document of a file (indexes as the loader counts)."""
        hit = self._spans.get(file)
        if hit is not None:
            return hit
        spans: list[tuple[int, int]] = []
        try:
            text = "\n".join(self._text_lines(file))
            for node in yaml.compose_all(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
                spans.append((1, 1) if node is None else (node.start_mark.line + 1, node.end_mark.line + 1))
        except yaml.YAMLError:
            spans = []
        self._spans[file] = spans
        return spans

    def region(self, src: SourceRef) -> dict[str, int]:
        """SARIF region of the object: the line of its `name:` within its document, else the document's first."""
        spans = self._document_spans(src.file)
        if src.document >= len(spans):
            return {"startLine": 1}
        first, last = spans[src.document]
        if src.name:
            pattern = re.compile(rf"(^|[\s{{,])name:\s*['\"]?{re.escape(src.name)}['\"]?\s*([,}}]|$)")
            lines = self._text_lines(src.file)
            for n in range(first - 1, min(last, len(lines))):
                if pattern.search(lines[n]):
                    return {"startLine": n + 1}
        return {"startLine": first}
