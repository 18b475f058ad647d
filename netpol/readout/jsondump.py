"""`json.dumps(value, indent=2)`, byte for byte, at C speed where that is sure to be the same text.

The standard library's encoder runs in Python as soon as `indent` is given (about 8 ms for the 1,000 pods of
a `netpol matrix -o json` head); orjson's OPT_INDENT_2 lays out the same text, and differs only in strings
holding characters outside printable ASCII (json escapes them: `ensure_ascii`, and U+007F too) and in floats
(shortest round-trip digits either way, but not always the same spelling). So orjson's answer is taken when
it is printable ASCII and the value holds only str, int, bool, None, dicts, lists and tuples; anything else
goes through `json.dumps` itself.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

try:
    import orjson
except ImportError:  # pragma: no cover - orjson is a dependency; json writes the same text
    orjson = None  # type: ignore[assignment]

# The types both write identically (subclasses such as StrEnum are left to json.dumps, to be sure).
_PLAIN = frozenset({str, int, bool, type(None), dict, list, tuple})
_CONTAINERS = frozenset({dict, list, tuple})


def dumps_indent2(value: Any) -> str:
    """The text of `json.dumps(value, indent=2)` (ensure_ascii, key order kept)."""
    if orjson is not None and _plain(value):
        try:
            data = orjson.dumps(value, option=orjson.OPT_INDENT_2)
        except (orjson.JSONEncodeError, TypeError):  # integers past 64 bits, keys that are not str, deep nesting
            pass
        else:
            if data.isascii() and b"\x7f" not in data:
                return data.decode("ascii")
    return json.dumps(value, indent=2)


def _plain(value: Any) -> bool:
    """Whether the value holds only str, int, bool, None, dicts, lists and tuples (one set of types per
    container, walked without recursion)."""
    stack: list[Iterable[Any]] = [(value,)]
    while stack:
        items = stack.pop()
        kinds = set(map(type, items))
        if not kinds <= _PLAIN:
            return False
        if not kinds.isdisjoint(_CONTAINERS):
            stack.extend(v.values() if type(v) is dict else v for v in items if type(v) in _CONTAINERS)
    return True
