"""`json.dumps(value, indent=2)` and the compact `json.dumps(value, separators=(",", ":"))`, byte for byte, at C
speed where that is sure to be the same text.

The standard library's encoder runs in Python as soon as `indent` is given (about 8 ms for the 1,000 pods of
a `netpol matrix -o json` head); orjson's OPT_INDENT_2 lays out the same text, and differs only in strings
holding characters outside printable ASCII (json escapes them: `ensure_ascii`, and U+007F too) and in floats
(shortest round-trip digits either way, but not always the same spelling). So orjson's answer is taken when
it is printable ASCII and the value holds only str, int, bool, None, dicts, lists and tuples; anything else
goes through `json.dumps` itself.

Without OPT_INDENT_2 orjson writes no whitespace at all: the text of `separators=(",", ":")`, that of `-o json
--compact` (35 MB at 100,000 pods: `json.dump` to a stream took 1.1 s of CPU, orjson takes 0.07 s). There the
value is not walked (see dumps_compact).
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


# orjson hands subclasses of str, int, dict and list, dates and dataclasses to `default`, which refuses them: json.dumps
# writes those (or refuses them) itself. Enums it writes as their value, as json.dumps writes StrEnum and IntEnum.
_PASSTHROUGH = (
    (orjson.OPT_PASSTHROUGH_SUBCLASS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS)
    if orjson is not None
    else 0
)


def _refuse(value: Any) -> Any:
    raise TypeError(type(value).__name__)


def dumps_compact(value: Any) -> str:
    """The text of `json.dumps(value, separators=(",", ":"))` (ensure_ascii, key order kept) for a value that
    holds no float: orjson spells some floats differently (`1e16`, `null` for NaN), and floats are the one type
    neither refuses nor passes on. A `--compact` document holds none (its numbers are indexes, counts and
    ports; tests/netpol/test_compact_json.py checks the CLI's bytes against json's), so it is not walked first:
    the walk `dumps_indent2` makes would cost more than the encoding (0.3 s against 0.07 s at 100,000 pods)."""
    if orjson is not None:
        try:
            data = orjson.dumps(value, default=_refuse, option=_PASSTHROUGH)
        except (orjson.JSONEncodeError, TypeError):  # integers past 64 bits, keys that are not str, subclasses
            pass  # (a plain Enum or a UUID, which json.dumps refuses, orjson writes: never in a document here)
        else:
            if data.isascii() and b"\x7f" not in data:
                return data.decode("ascii")
    return json.dumps(value, separators=(",", ":"))


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
