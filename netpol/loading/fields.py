"""Field readers shared by every object: labels, quantities, addresses, integers, label selectors.

Each raises InputError naming the object and the field, with the rule the API server applies.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import netaddr

from netpol.errors import InputError, SourceRef
from netpol.model.labels import SELECTOR_OPERATORS, FrozenMap, Labels, LabelSelector, LabelSelectorRequirement
from netpol.model.quantity import to_units

TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def namespace_of(meta: Mapping[str, Any]) -> str:
    return str(meta.get("namespace") or "default")


def labels_field(value: Any, src: SourceRef, fld: str) -> Labels:
    if value is None:
        return Labels()
    if not isinstance(value, Mapping):
        raise InputError("must be a mapping of label keys to values", src, fld)
    out = {}
    for k, v in value.items():
        if v is None:
            v = ""
        if not isinstance(v, str | int | float | bool):
            raise InputError(f"label {k!r} must be a string", src, fld)
        out[str(k)] = scalar_str(v)
    return Labels(out)


def annotations_field(value: Any, src: SourceRef) -> FrozenMap[str]:
    """metadata.annotations: a map of strings (values as YAML gives them, like labels)."""
    return FrozenMap(dict(labels_field(value, src, "metadata.annotations")))


def scalar_str(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def resources_field(value: Any, src: SourceRef, fld: str) -> FrozenMap[int]:
    if not value:
        return FrozenMap()
    if not isinstance(value, Mapping):
        raise InputError("must be a mapping of resource names to quantities", src, fld)
    out = {}
    for k, v in value.items():
        try:
            out[str(k)] = to_units(str(k), v)
        except ValueError as exc:
            raise InputError(f"{exc} (e.g. 500m, 2, 1Gi)", src, f"{fld}.{k}") from exc
    return FrozenMap(out)


def cidr_field(value: Any, src: SourceRef, fld: str) -> netaddr.IPNetwork:
    try:
        if not isinstance(value, str) or "/" not in value:
            raise ValueError
        return netaddr.IPNetwork(value)
    except (ValueError, netaddr.AddrFormatError, TypeError):
        raise InputError(f"invalid CIDR {value!r}", src, fld) from None


def ip_field(value: Any, src: SourceRef, fld: str) -> netaddr.IPAddress:
    try:
        return netaddr.IPAddress(str(value))
    except (ValueError, netaddr.AddrFormatError, TypeError):
        raise InputError(f"invalid IP address {value!r}", src, fld) from None


def int_field(value: Any, src: SourceRef, fld: str, *, minimum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"must be an integer, got {value!r}", src, fld)
    if minimum is not None and value < minimum:
        raise InputError(f"must be >= {minimum}, got {value}", src, fld)
    return value


def read_label_selector(value: Any, src: SourceRef, fld: str) -> LabelSelector:
    if value is None:
        return LabelSelector()
    if not isinstance(value, Mapping):
        raise InputError("must be a label selector (matchLabels / matchExpressions)", src, fld)
    exprs = []
    for i, e in enumerate(value.get("matchExpressions") or []):
        efld = f"{fld}.matchExpressions[{i}]"
        if not isinstance(e, Mapping) or not e.get("key"):
            raise InputError("expression needs a key", src, efld + ".key")
        op = e.get("operator")
        if op not in SELECTOR_OPERATORS:
            raise InputError(
                f"unknown operator {op!r} (expected one of {', '.join(SELECTOR_OPERATORS)})", src, efld + ".operator"
            )
        values = tuple(scalar_str(v) for v in e.get("values") or [])
        if op in ("In", "NotIn") and not values:
            raise InputError(f"operator {op} needs at least one value", src, efld + ".values")
        if op in ("Exists", "DoesNotExist") and values:
            raise InputError(f"operator {op} must not have values", src, efld + ".values")
        exprs.append(LabelSelectorRequirement(str(e["key"]), op, values))
    return LabelSelector(labels_field(value.get("matchLabels"), src, fld + ".matchLabels"), tuple(exprs))


def list_field(value: Any, src: SourceRef, fld: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise InputError("must be a list", src, fld)
    return value


def int_or_percent(value: Any, src: SourceRef, fld: str) -> int | str | None:
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 0:
            raise InputError(f"must be >= 0, got {value}", src, fld)
        return value
    if isinstance(value, str):
        if value.endswith("%") and value[:-1].isdigit():
            return value
        if value.isdigit():
            return int(value)
    raise InputError(f"must be an integer or a percentage, got {value!r}", src, fld)
