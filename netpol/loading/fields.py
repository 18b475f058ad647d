"""Field readers shared by every object: labels, quantities, addresses, label selectors, metadata.

Built on netpol.loading.typed; each raises InputError naming the object and the field, with the rule the
API server applies.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import netaddr

from netpol.errors import SourceRef
from netpol.loading import schema
from netpol.loading import typed as t
from netpol.loading.schema import fields
from netpol.model import names
from netpol.model.labels import SELECTOR_OPERATORS, FrozenMap, Labels, LabelSelector, LabelSelectorRequirement
from netpol.model.quantity import to_units

TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")

OBJECT_META = fields("ObjectMeta")
TOP_LEVEL = frozenset({"apiVersion", "kind", "metadata", "spec", "status"})
# Top-level fields some kinds outside the schema table have besides TOP_LEVEL.
EXTRA_TOP_LEVEL = {
    "CiliumNetworkPolicy": frozenset({"specs"}),
    "CiliumClusterwideNetworkPolicy": frozenset({"specs"}),
}
LABEL_SELECTOR = fields("LabelSelector")
REQUIREMENT = fields("LabelSelectorRequirement")


def namespace_of(meta: Mapping[str, Any], src: SourceRef | None = None) -> str:
    ns = meta.get("namespace")
    if ns is None or ns == "":
        return "default"
    src = src or SourceRef()
    ns = t.string(ns, src, "metadata.namespace")
    reason = names.dns1123_label(ns)
    if reason:
        raise t.invalid(ns, reason, src, "metadata.namespace")
    return ns


# Immutable, so one empty map serves every absent field (a pod template has half a dozen: nodeSelector,
# overhead, a container's limits…; 100,000 pods' worth of FrozenMap constructions otherwise).
_NO_LABELS = Labels()
_NO_RESOURCES: FrozenMap[int] = FrozenMap()


def labels_field(value: Any, src: SourceRef, fld: str) -> Labels:
    if value is None:
        return _NO_LABELS
    checked = t.labels(value, src, fld)
    return Labels(checked) if checked else _NO_LABELS


def annotations_field(value: Any, src: SourceRef) -> FrozenMap[str]:
    """metadata.annotations: map[string]string (the audit reads its acceptance annotations here)."""
    return FrozenMap(t.string_map(value, src, "metadata.annotations")) if value is not None else FrozenMap()


def resources_field(value: Any, src: SourceRef, fld: str) -> FrozenMap[int]:
    m = t.obj(value, src, fld)
    if not m:
        return _NO_RESOURCES
    out = {}
    for k, v in m.items():
        if not isinstance(k, str):
            raise t.wrong_type(k, "a resource name", src, fld)
        try:
            out[k] = to_units(k, v)
        except ValueError as exc:
            raise t.invalid(v, str(exc), src, f"{fld}[{k}]") from None
    return FrozenMap(out)


def cidr_field(value: Any, src: SourceRef, fld: str) -> netaddr.IPNetwork:
    text = t.string(value, src, fld)
    try:
        if "/" not in text or len(text) > 64:
            raise ValueError
        return netaddr.IPNetwork(text)
    except (ValueError, netaddr.AddrFormatError, TypeError):
        raise t.invalid(value, "must be a valid CIDR (e.g. 10.0.0.0/16 or 2001:db8::/64)", src, fld) from None


def ip_field(value: Any, src: SourceRef, fld: str) -> netaddr.IPAddress:
    text = t.string(value, src, fld)
    try:
        if len(text) > 64:
            raise ValueError
        return netaddr.IPAddress(text)
    except (ValueError, netaddr.AddrFormatError, TypeError):
        raise t.invalid(value, "must be a valid IP address", src, fld) from None


def read_label_selector(value: Any, src: SourceRef, fld: str) -> LabelSelector:
    """metav1.LabelSelector, validated as ValidateLabelSelector does; unknown keys are errors (they decide)."""
    if value is None:
        return LabelSelector()
    m = t.obj(value, src, fld)
    t.check_fields(m, LABEL_SELECTOR, src, fld)
    exprs = []
    for e, efld in t.objs(m.get("matchExpressions"), src, fld + ".matchExpressions"):
        t.check_fields(e, REQUIREMENT, src, efld)
        key = t.string(e.get("key"), src, efld + ".key")
        if not key:
            raise t.required(src, efld + ".key")
        reason = names.label_key(key)
        if reason:
            raise t.invalid(key, reason, src, efld + ".key")
        op = e.get("operator")
        if op not in SELECTOR_OPERATORS:
            raise t.unsupported(op, SELECTOR_OPERATORS, src, efld + ".operator")
        values = t.strings(e.get("values"), src, efld + ".values")
        t.check_set_values(op, values, src, efld + ".values")
        for i, v in enumerate(values):  # ValidateLabelSelectorRequirement: each value is a label value
            reason = names.label_value(v)
            if reason:
                raise t.invalid(v, reason, src, f"{efld}.values[{i}]")
        exprs.append(LabelSelectorRequirement(key, op, values))
    return LabelSelector(labels_field(m.get("matchLabels"), src, fld + ".matchLabels"), tuple(exprs))


def int_or_percent(value: Any, src: SourceRef, fld: str) -> int | str | None:
    """IntOrString for minAvailable/maxUnavailable: a non-negative int32 or `N%`."""
    v = t.int_or_string(value, src, fld)
    if v is None:
        return None
    if isinstance(v, int):
        if v < 0:
            raise t.invalid(v, "must be greater than or equal to 0", src, fld)
        return v
    if v.endswith("%") and v[:-1].isdigit() and len(v) < 12:
        if int(v[:-1]) > 100:
            raise t.invalid(v, "must not be greater than 100%", src, fld)
        return v
    raise t.invalid(v, "a valid percent string must be a numeric string followed by an ending '%'", src, fld)


def check_meta(obj: Mapping[str, Any], src: SourceRef, findings: t.Findings, kind: str = "") -> Mapping[str, Any]:
    """The whole object checked against its upstream type (warnings), or, for kinds outside the table (ANPs),
    its top level and metadata; metadata returned (annotations must be a map of strings: an error)."""
    if kind in schema.TYPES:
        schema.check(obj, kind, src, "", findings)
    else:
        t.check_fields(obj, TOP_LEVEL | EXTRA_TOP_LEVEL.get(kind, frozenset()), src, "", findings)
        schema.check(obj.get("metadata"), "ObjectMeta", src, "metadata", findings)
    meta = t.obj(obj.get("metadata"), src, "metadata")
    t.string_map(meta.get("annotations"), src, "metadata.annotations")
    return meta
