"""The Kubernetes API's field names for every object netpol reads, and the walk that checks them.

The facts come from the upstream Go types (k8s.io/api core/v1, apps/v1, batch/v1, networking/v1, policy/v1,
scheduling/v1 types.go and apimachinery meta/v1 types.go, read at kubernetes/api 10b39a3 and
kubernetes/apimachinery eed236c, July 2026): each line of TABLE is one Go struct, `Name group/version:`
followed by its JSON field names (inlined structs flattened, as encoding/json does). A field's type code:
none = string, `i` integer, `b` boolean, `t` timestamp (metav1.Time), `q` quantity, `n` int-or-string,
`r` resource list (map of quantities), `m` map of strings, `S` array of strings, `I` array of integers,
`*` anything (RawExtension, FieldsV1, alpha types), `X` object of type X, `[]X` array of X, `{}X` map of X.

`check` walks an object against its type as kubectl's strict field validation does (KEP-2885): every
unknown field and every value of the wrong JSON type is a finding naming the full field path. The readers
raise errors for the parts that decide reachability (selectors, policies, ports); everything else, which
only this walk sees, is a warning (an error under --strict).
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from netpol.errors import SourceRef
from netpol.loading import typed as t
from netpol.loading.apitypes import TABLE
from netpol.loading.apitypes_doors import DOOR_TABLE


@dataclass(frozen=True, slots=True)
class ApiType:
    name: str
    upstream: str  # the Go package it is declared in, e.g. core/v1
    fields: Mapping[str, str]  # JSON field name -> type code


def _parse(text: str) -> dict[str, ApiType]:
    out: dict[str, ApiType] = {}
    name = upstream = ""
    fields: dict[str, str] = {}
    for line in text.strip().splitlines():
        if not line.startswith(" "):
            if name:
                out[name] = ApiType(name, upstream, fields)
            head, _, line = line.partition(":")
            name, upstream = head.split()
            fields = {}
        for item in line.split():
            key, _, code = item.partition("=")
            fields[key] = code
    out[name] = ApiType(name, upstream, fields)
    return out


TYPES: dict[str, ApiType] = _parse(TABLE) | _parse(DOOR_TABLE)

# The kinds netpol models, by their root type.
ROOTS = (
    "Pod",
    "Node",
    "Service",
    "Namespace",
    "Deployment",
    "ReplicaSet",
    "StatefulSet",
    "DaemonSet",
    "Job",
    "CronJob",
    "PodDisruptionBudget",
    "PriorityClass",
    "NetworkPolicy",
    "ServiceAccount",
    # the doors into the cluster (netpol/loading/apitypes_doors.py)
    "Ingress",
    "IngressClass",
    "Gateway",
    "GatewayClass",
    "HTTPRoute",
    "GRPCRoute",
    "TLSRoute",
    "TCPRoute",
    "UDPRoute",
    "ReferenceGrant",
    "Route",
)


def fields(type_name: str) -> frozenset[str]:
    """The JSON field names of an upstream type (what the readers check their own parts against)."""
    return frozenset(TYPES[type_name].fields)


_SCALARS = {
    "": ("a string", lambda v: isinstance(v, str)),
    "i": ("an integer", lambda v: (isinstance(v, int) and not isinstance(v, bool)) or _integral(v)),
    "b": ("a boolean", lambda v: isinstance(v, bool)),
    "t": ("a timestamp", lambda v: isinstance(v, str | datetime.date)),
    "q": ("a quantity", lambda v: isinstance(v, str | int | float) and not isinstance(v, bool)),
    "n": ("an integer or a string", lambda v: isinstance(v, str) or (isinstance(v, int) and not isinstance(v, bool))),
}


def _integral(v: Any) -> bool:
    return isinstance(v, float) and v.is_integer()


# Per value type, the codes every value of that exact type satisfies: the walk's common case, decided by two
# lookups (a string in a string field, an int in an integer one) before any predicate runs. `*` takes anything.
_ALWAYS_OK: dict[type, frozenset[str]] = {
    str: frozenset({"", "t", "q", "n", "*"}),
    int: frozenset({"i", "q", "n", "*"}),
    bool: frozenset({"b", "*"}),
    float: frozenset({"q", "*"}),
    dict: frozenset({"*"}),
    list: frozenset({"*"}),
}
_NOTHING: frozenset[str] = frozenset()
_ONLY_STR = frozenset({str})


def check(value: Any, type_name: str, src: SourceRef, path: str, findings: t.Findings) -> None:
    """Report (as findings) unknown fields and wrongly typed values in `value`, an object of `type_name`."""
    if value is None:
        return
    if type(value) is not dict and not isinstance(value, Mapping):
        findings.add("invalid-field", _message(value, "an object", path), src)
        return
    known = TYPES[type_name].fields
    ok_codes = _ALWAYS_OK
    for key, v in value.items():
        code = known.get(key) if type(key) is str or isinstance(key, str) else None
        if code is None:
            t.check_fields({key: v}, frozenset(known), src, path, findings)
        elif code in ok_codes.get(type(v), _NOTHING) or v is None or code == "*":
            continue
        elif code in _SCALARS:
            expected, ok = _SCALARS[code]
            if not ok(v):
                findings.add("invalid-field", _message(v, expected, f"{path}.{key}" if path else key), src)
        else:
            _check_value(v, code, src, f"{path}.{key}" if path else key, findings)


_ELEMENTS = {"S": "", "I": "i", "m": "", "r": "q"}


def _check_value(v: Any, code: str, src: SourceRef, path: str, findings: t.Findings) -> None:
    if code in _SCALARS:
        expected, ok = _SCALARS[code]
        if not ok(v):
            findings.add("invalid-field", _message(v, expected, path), src)
        return
    inner = _ELEMENTS[code] if code in _ELEMENTS else code[2:]
    if code[:2] == "[]" or code in ("S", "I"):
        if type(v) is not list and not isinstance(v, list):
            findings.add("invalid-field", _message(v, "an array", path), src)
            return
        values: Iterable[Any] = v
        items: Iterable[tuple[Any, Any]] = enumerate(v)
    elif code[:2] == "{}" or code in ("m", "r"):
        if type(v) is not dict and not isinstance(v, Mapping):
            findings.add("invalid-field", _message(v, "an object", path), src)
            return
        values = v.values()
        items = v.items()
    else:
        check(v, code, src, path, findings)
        return
    scalar = _SCALARS.get(inner)
    if scalar is not None:
        if inner == "" and _ONLY_STR.issuperset(map(type, values)):
            return  # every item a string (labels, annotations, args): checked in C
        for k, item in items:
            if item is not None and not scalar[1](item):
                findings.add("invalid-field", _message(item, scalar[0], f"{path}[{k}]"), src)
        return
    for k, item in items:
        if item is not None:
            check(item, inner, src, f"{path}[{k}]", findings)


def _message(v: Any, expected: str, path: str) -> str:
    return f"{path}: Invalid value: {t.show(v)}: must be {expected}, got {t.type_name(v)}"
