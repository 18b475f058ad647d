"""Names made safe for the text formats: control characters escaped, `|` escaped in Markdown.

Names are validated when read (DNS-1123), but some text still reaches the output from the input
(AdminNetworkPolicy rule names, file paths, workload labels), and a terminal must never receive a raw
escape sequence from a manifest (`\x1b]52;…` rewrites the clipboard of some terminals). A `|` inside a
Markdown table cell ends the cell: GitHub's table syntax escapes it as `\\|`.
"""

from __future__ import annotations

import re

# C0 and C1 control characters and DEL, plus the Unicode line/paragraph separators and bidi controls that
# reorder what a reader sees (CVE-2021-42574's "Trojan Source").
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _escape(m: re.Match[str]) -> str:
    c = ord(m.group())
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def text_safe(text: str) -> str:
    """`text` with every control character shown as an escape (`a\\x00b`), unchanged when it has none."""
    return _UNSAFE.sub(_escape, text) if _UNSAFE.search(text) else text


def md_safe(text: str) -> str:
    """text_safe, and `|` escaped so the text stays inside one Markdown table cell."""
    text = text_safe(text)
    return text.replace("|", "\\|") if "|" in text else text
