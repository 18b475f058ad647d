"""Typed field access, as strict as the API server's decoder: every field read through one of these.

Each accessor knows the type the Kubernetes API gives a field (object, array, string, int32/int64 with
its range, int-or-string, boolean, map of strings) and raises the project's InputError naming the file,
document, object and full field path, worded like apimachinery's field errors
(`spec.replicas: Invalid value: "three": must be an integer`). `null` is unset everywhere, as in the API.
YAML's own conversions are refused where the API wants a string or a boolean: `hostNetwork: "false"` is
a string (kubectl: cannot unmarshal string into bool), a label value `true` or `1.10` is a number or a
boolean (kubectl: cannot unmarshal bool into string).

Unknown fields are reported as kubectl's strict field validation reports them (`unknown field
"spec.podSelector.matchLabel"`): an error in the fields that decide reachability (policies, selectors,
peers, ports), where guessing gives a wrong answer; a warning elsewhere (an error under --strict).
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterable, Mapping
from typing import Any

from netpol.errors import InputError, SourceRef
from netpol.model.names import label_key, label_value

INT32 = (-(2**31), 2**31 - 1)
INT64 = (-(2**63), 2**63 - 1)


def show(value: Any) -> str:
    """A bounded rendering of an input value for messages (never str() of an unbounded structure)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        text = str(value) if value.bit_length() < 200 else f"{str(value)[:20]}…"
        return text
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value if len(value) <= 60 else value[:60] + "…", ensure_ascii=True)
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, list):
        return "an array"
    return type(value).__name__


def type_name(value: Any) -> str:
    """JSON's name for a value's type, as the API's decoder says it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, list):
        return "array"
    return type(value).__name__  # a YAML timestamp, bytes, a set


def invalid(value: Any, detail: str, src: SourceRef, path: str) -> InputError:
    """apimachinery's field.Invalid: `<path>: Invalid value: <value>: <detail>`."""
    return InputError(f"Invalid value: {show(value)}: {detail}", src, path)


def required(src: SourceRef, path: str, detail: str = "") -> InputError:
    return InputError(f"Required value{': ' + detail if detail else ''}", src, path)


def unsupported(value: Any, allowed: tuple[str, ...], src: SourceRef, path: str) -> InputError:
    """field.NotSupported, or field.Required when the value is absent."""
    choices = ", ".join(json.dumps(a) for a in allowed)
    if value is None or value == "":
        return required(src, path, f"supported values: {choices}")
    return InputError(f"Unsupported value: {show(value)}: supported values: {choices}", src, path)


def check_set_values(op: str, values: tuple[str, ...] | list[str], src: SourceRef, path: str) -> None:
    """The values rule label and node selector requirements share: In/NotIn need values, Exists/DoesNotExist
    forbid them (ValidateLabelSelectorRequirement, ValidateNodeSelectorRequirement). `path`: the values field."""
    if op in ("In", "NotIn") and not values:
        raise required(src, path, f"must be specified when `operator` is '{op}'")
    if op in ("Exists", "DoesNotExist") and values:
        raise InputError(f"Forbidden: may not be specified when `operator` is '{op}'", src, path)


def wrong_type(value: Any, expected: str, src: SourceRef, path: str) -> InputError:
    return invalid(value, f"must be {expected}, got {type_name(value)}", src, path)


def obj(value: Any, src: SourceRef, path: str) -> Mapping[str, Any]:
    """An object (a mapping); null or absent is the empty object."""
    if type(value) is dict:  # the reader's own type: no ABC check (this runs for every object read)
        return value
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise wrong_type(value, "an object", src, path)
    return value


def opt_obj(value: Any, src: SourceRef, path: str) -> Mapping[str, Any] | None:
    """An object, or None when null/absent (for fields whose absence means something)."""
    if value is None:
        return None
    return obj(value, src, path)


def arr(value: Any, src: SourceRef, path: str) -> list[Any]:
    """An array; null or absent is the empty array."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise wrong_type(value, "an array", src, path)
    return value


def objs(value: Any, src: SourceRef, path: str) -> list[tuple[Mapping[str, Any], str]]:
    """An array of objects, each with its path (`path[i]`); null items are empty objects."""
    out = []
    for i, v in enumerate(arr(value, src, path)):
        where = f"{path}[{i}]"
        out.append((v if type(v) is dict else obj(v, src, where), where))
    return out


def string(value: Any, src: SourceRef, path: str, default: str = "") -> str:
    if type(value) is str:
        return value
    if value is None:
        return default
    if not isinstance(value, str):
        raise wrong_type(value, "a string", src, path)
    return value


def timestamp(value: Any, src: SourceRef, path: str) -> str:
    """metav1.Time: an RFC 3339 string (YAML reads an unquoted one as a timestamp; kept as RFC 3339 text)."""
    if value is None:
        return ""
    if isinstance(value, datetime.datetime | datetime.date):
        text = value.isoformat()
        return text[:-6] + "Z" if text.endswith("+00:00") else text
    return string(value, src, path)


def strings(value: Any, src: SourceRef, path: str) -> tuple[str, ...]:
    return tuple(string(v, src, f"{path}[{i}]") for i, v in enumerate(arr(value, src, path)))


def boolean(value: Any, src: SourceRef, path: str, default: bool = False) -> bool:
    """true/false only: a quoted "false" is a string, which the API refuses (it is not false)."""
    if value is None:
        return default
    if not isinstance(value, bool):
        raise wrong_type(value, "a boolean", src, path)
    return value


def integer(
    value: Any, src: SourceRef, path: str, lo: int = INT32[0], hi: int = INT32[1], default: int | None = None
) -> int:
    """An integer in [lo, hi] (int32 by default, as most API integers are)."""
    if value is None:
        if default is None:
            raise required(src, path)
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer() and lo <= value <= hi:
            return int(value)  # JSON `3.0` decodes into an int32 field upstream
        raise invalid(value, "must be an integer", src, path)
    if not lo <= value <= hi:
        if lo == INT32[0] and hi == INT32[1]:
            raise invalid(value, "must fit in a 32-bit integer", src, path)
        if hi == INT64[1]:
            raise invalid(value, f"must be greater than or equal to {lo}", src, path)
        raise invalid(value, f"must be between {lo} and {hi}, inclusive", src, path)
    return value


def opt_integer(value: Any, src: SourceRef, path: str, lo: int = INT32[0], hi: int = INT32[1]) -> int | None:
    return None if value is None else integer(value, src, path, lo, hi)


def int_or_string(value: Any, src: SourceRef, path: str) -> int | str | None:
    """intstr.IntOrString: an int32 or a string (a string of digits stays a string, as the API keeps it)."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    return integer(value, src, path)


def string_map(value: Any, src: SourceRef, path: str) -> dict[str, str]:
    """map[string]string (labels, annotations, nodeSelector): keys and values must be strings."""
    m = obj(value, src, path)
    if type(m) is dict and _ONLY_STR.issuperset(map(type, m)) and _ONLY_STR.issuperset(map(type, m.values())):
        return dict(m)  # the usual case, checked in C
    out: dict[str, str] = {}
    for k, v in m.items():
        if not isinstance(k, str):
            raise wrong_type(k, "a string key", src, f"{path}")
        if v is None:
            v = ""  # `key:` with nothing after it: kubectl sends "" for a null map value
        if not isinstance(v, str):
            raise wrong_type(v, "a string", src, f"{path}[{k}]")
        out[k] = v
    return out


class Findings:
    """Non-fatal findings of one read (unknown fields outside the deciding parts, duplicate keys)."""

    __slots__ = ("items",)

    def __init__(self) -> None:
        self.items: list[tuple[str, str, SourceRef]] = []

    def add(self, code: str, message: str, src: SourceRef) -> None:
        self.items.append((code, message, src))


def check_fields(
    m: Mapping[str, Any],
    known: frozenset[str],
    src: SourceRef,
    path: str,
    findings: Findings | None = None,
) -> None:
    """kubectl's strict field validation: an unknown key is an error (findings None) or a warning."""
    if known.issuperset(m):
        return
    for k in m:
        if k not in known:
            full = f"{path}.{k}" if path else str(k)
            message = f'unknown field "{full}"'
            hint = _close(str(k), known)
            if hint:
                message += f" (did you mean {hint!r}?)"
            if findings is None:
                raise InputError(message, src, full, show_field=False)
            findings.add("unknown-field", message, src)


def _close(key: str, known: Iterable[str]) -> str | None:
    import difflib

    found = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.65)
    return found[0] if found else None


def labels(value: Any, src: SourceRef, path: str) -> dict[str, str]:
    """metadata.labels / matchLabels / nodeSelector-like label maps, keys and values validated."""
    out = string_map(value, src, path)
    for k, v in out.items():
        if k not in _GOOD_KEYS:
            reason = label_key(k)
            if reason:
                raise invalid(k, reason, src, path)
            _remember(_GOOD_KEYS, k)
        if v not in _GOOD_VALUES:
            reason = label_value(v)
            if reason:
                raise invalid(v, reason, src, f"{path}[{k}]")
            _remember(_GOOD_VALUES, v)
    return out


# Label keys and values already found valid: 100,000 pods repeat a few hundred of them.
_GOOD_KEYS: set[str] = set()
_GOOD_VALUES: set[str] = set()
_ONLY_STR = frozenset({str})


def _remember(known: set[str], text: str) -> None:
    if len(known) < 200_000:  # bounded: a long-running UI reading many clusters keeps at most this many
        known.add(text)
