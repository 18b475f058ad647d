"""A policy object netpol does not evaluate → UnevaluatedPolicy: its scope and, when it has one, its subject's
standard label selector (best effort: a selector netpol cannot read leaves the object's whole scope)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from netpol.errors import InputError, SourceRef
from netpol.loading.fields import annotations_field, read_label_selector
from netpol.loading.kinds import CLUSTER_SCOPED_POLICY_KINDS, MESH_WIDE_NAMESPACES, SUBJECT_SELECTOR_FIELDS
from netpol.model.unevaluated import UnevaluatedPolicy


def read_unevaluated(obj: Mapping[str, Any], src: SourceRef, api: str, engine: str) -> UnevaluatedPolicy:
    """Never raises: the object is not evaluated, so nothing in it can be an input error here."""
    kind = src.kind
    meta = obj.get("metadata")
    meta = meta if isinstance(meta, Mapping) else {}
    name = meta.get("name") if isinstance(meta.get("name"), str) else ""
    namespace = ""
    if kind not in CLUSTER_SCOPED_POLICY_KINDS:
        ns = meta.get("namespace")
        namespace = ns if isinstance(ns, str) and ns else "default"  # kubectl apply's namespace when none is set
    selector, where = None, ""
    spec = obj.get("spec")
    if isinstance(spec, Mapping):
        for fld in SUBJECT_SELECTOR_FIELDS:
            if fld in spec:
                try:
                    selector = read_label_selector(spec[fld], src, f"spec.{fld}")
                    where = f"spec.{fld}"
                except InputError:  # another selector language (Calico's string) or prefixed keys (Cilium's)
                    selector = None
                break
    wide = bool(namespace) and MESH_WIDE_NAMESPACES.get(kind) == namespace
    try:
        annotations = annotations_field(meta.get("annotations"), src)
    except InputError:
        annotations = annotations_field(None, src)
    return UnevaluatedPolicy(kind, api, engine, namespace, str(name), src, selector, where, wide, annotations)
