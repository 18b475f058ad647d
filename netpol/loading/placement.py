"""A pod's scheduling constraints: node and pod (anti-)affinity, tolerations, topology spreading.

Validated as apis/core/validation does (ValidateAffinity, ValidateTolerations, validateTopologySpreadConstraints);
these fields decide where a pod lands and so which IP it gets: an unknown key here is an error.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from netpol.errors import SourceRef
from netpol.loading import typed as t
from netpol.loading.fields import TAINT_EFFECTS, read_label_selector
from netpol.loading.schema import fields
from netpol.model.labels import NODE_SELECTOR_OPERATORS, NodeSelectorRequirement, NodeSelectorTerm
from netpol.model.objects import (
    Affinity,
    NodeAffinity,
    PodAffinity,
    PodAffinityTerm,
    PodAntiAffinity,
    PreferredSchedulingTerm,
    Toleration,
    TopologySpreadConstraint,
    WeightedPodAffinityTerm,
)

TOLERATION = fields("Toleration")
NODE_REQUIREMENT = fields("NodeSelectorRequirement")
NODE_TERM = fields("NodeSelectorTerm")
NODE_SELECTOR = fields("NodeSelector")
AFFINITY = fields("Affinity")
NODE_AFFINITY = fields("NodeAffinity")
POD_AFFINITY = fields("PodAffinity")
POD_AFFINITY_TERM = fields("PodAffinityTerm")
WEIGHTED_POD_AFFINITY_TERM = fields("WeightedPodAffinityTerm")
PREFERRED_SCHEDULING_TERM = fields("PreferredSchedulingTerm")
SPREAD = fields("TopologySpreadConstraint")


def _node_requirements(items: Any, src: SourceRef, fld: str, *, fields: bool) -> tuple[NodeSelectorRequirement, ...]:
    out = []
    for e, efld in t.objs(items, src, fld):
        t.check_fields(e, NODE_REQUIREMENT, src, efld)
        key = t.string(e.get("key"), src, efld + ".key")
        if not key:
            raise t.required(src, efld + ".key")
        op = e.get("operator")
        if op not in NODE_SELECTOR_OPERATORS:
            raise t.unsupported(op, NODE_SELECTOR_OPERATORS, src, efld + ".operator")
        values = t.strings(e.get("values"), src, efld + ".values")
        t.check_set_values(op, values, src, efld + ".values")
        if op in ("Gt", "Lt"):
            if len(values) != 1:
                raise t.required(src, efld + ".values", f"must be specified single value when `operator` is '{op}'")
            v = values[0]
            if not (v.lstrip("-").isdigit() and v.isascii() and len(v) <= 20 and t.INT64[0] <= int(v) <= t.INT64[1]):
                raise t.invalid(v, "must be an integer", src, efld + ".values[0]")
        if fields and key != "metadata.name":
            raise t.invalid(key, "not a valid field selector key (only metadata.name)", src, efld + ".key")
        if fields and op not in ("In", "NotIn"):
            raise t.unsupported(op, ("In", "NotIn"), src, efld + ".operator")
        out.append(NodeSelectorRequirement(key, op, values))
    return tuple(out)


def _node_term(value: Any, src: SourceRef, fld: str) -> NodeSelectorTerm:
    m = t.obj(value, src, fld)
    t.check_fields(m, NODE_TERM, src, fld)
    return NodeSelectorTerm(
        _node_requirements(m.get("matchExpressions"), src, fld + ".matchExpressions", fields=False),
        _node_requirements(m.get("matchFields"), src, fld + ".matchFields", fields=True),
    )


def _pod_affinity_term(value: Any, src: SourceRef, fld: str) -> PodAffinityTerm:
    m = t.obj(value, src, fld)
    t.check_fields(m, POD_AFFINITY_TERM, src, fld)
    key = t.string(m.get("topologyKey"), src, fld + ".topologyKey")
    if not key:
        raise t.required(src, fld + ".topologyKey", "can not be empty")
    ls = m.get("labelSelector")
    nss = m.get("namespaceSelector")
    return PodAffinityTerm(
        topology_key=key,
        label_selector=read_label_selector(ls, src, fld + ".labelSelector") if ls is not None else None,
        namespaces=t.strings(m.get("namespaces"), src, fld + ".namespaces"),
        namespace_selector=read_label_selector(nss, src, fld + ".namespaceSelector") if nss is not None else None,
        match_label_keys=t.strings(m.get("matchLabelKeys"), src, fld + ".matchLabelKeys"),
        mismatch_label_keys=t.strings(m.get("mismatchLabelKeys"), src, fld + ".mismatchLabelKeys"),
    )


def _weight(m: Mapping[str, Any], src: SourceRef, fld: str) -> int:
    return t.integer(m.get("weight"), src, fld + ".weight", 1, 100)


def _weighted_terms(items: Any, src: SourceRef, fld: str) -> tuple[WeightedPodAffinityTerm, ...]:
    out = []
    for w, wfld in t.objs(items, src, fld):
        t.check_fields(w, WEIGHTED_POD_AFFINITY_TERM, src, wfld)
        out.append(
            WeightedPodAffinityTerm(
                _weight(w, src, wfld), _pod_affinity_term(w.get("podAffinityTerm"), src, wfld + ".podAffinityTerm")
            )
        )
    return tuple(out)


def affinity(value: Any, src: SourceRef, fld: str) -> Affinity | None:
    m = t.obj(value, src, fld)
    if not m:
        return None
    t.check_fields(m, AFFINITY, src, fld)
    na = t.obj(m.get("nodeAffinity"), src, fld + ".nodeAffinity")
    node_affinity = None
    if na:
        t.check_fields(na, NODE_AFFINITY, src, fld + ".nodeAffinity")
        rfld = fld + ".nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
        req = t.opt_obj(na.get("requiredDuringSchedulingIgnoredDuringExecution"), src, rfld)
        required = None
        if req is not None:
            t.check_fields(req, NODE_SELECTOR, src, rfld)
            required = tuple(
                _node_term(term, src, f"{rfld}.nodeSelectorTerms[{i}]")
                for i, term in enumerate(t.arr(req.get("nodeSelectorTerms"), src, rfld + ".nodeSelectorTerms"))
            )
        preferred = []
        pbase = fld + ".nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution"
        for p, pfld in t.objs(na.get("preferredDuringSchedulingIgnoredDuringExecution"), src, pbase):
            t.check_fields(p, PREFERRED_SCHEDULING_TERM, src, pfld)
            preferred.append(
                PreferredSchedulingTerm(
                    _weight(p, src, pfld), _node_term(p.get("preference"), src, pfld + ".preference")
                )
            )
        node_affinity = NodeAffinity(required, tuple(preferred))

    def pod_terms(key: str) -> tuple[tuple[PodAffinityTerm, ...], tuple[WeightedPodAffinityTerm, ...]] | None:
        pa = t.obj(m.get(key), src, f"{fld}.{key}")
        if not pa:
            return None
        t.check_fields(pa, POD_AFFINITY, src, f"{fld}.{key}")
        rbase = f"{fld}.{key}.requiredDuringSchedulingIgnoredDuringExecution"
        req = tuple(
            _pod_affinity_term(term, src, f"{rbase}[{i}]")
            for i, term in enumerate(t.arr(pa.get("requiredDuringSchedulingIgnoredDuringExecution"), src, rbase))
        )
        pref = _weighted_terms(
            pa.get("preferredDuringSchedulingIgnoredDuringExecution"),
            src,
            f"{fld}.{key}.preferredDuringSchedulingIgnoredDuringExecution",
        )
        return req, pref

    pa = pod_terms("podAffinity")
    paa = pod_terms("podAntiAffinity")
    return Affinity(
        node_affinity,
        PodAffinity(*pa) if pa else None,
        PodAntiAffinity(*paa) if paa else None,
    )


def tolerations(items: Any, src: SourceRef, fld: str) -> tuple[Toleration, ...]:
    out = []
    for m, tfld in t.objs(items, src, fld):
        t.check_fields(m, TOLERATION, src, tfld)
        op = t.string(m.get("operator"), src, tfld + ".operator") or "Equal"
        if op not in ("Equal", "Exists"):
            raise t.unsupported(op, ("Equal", "Exists"), src, tfld + ".operator")
        effect = t.string(m.get("effect"), src, tfld + ".effect")
        if effect and effect not in TAINT_EFFECTS:
            raise t.unsupported(effect, TAINT_EFFECTS, src, tfld + ".effect")
        key = t.string(m.get("key"), src, tfld + ".key")
        value = t.string(m.get("value"), src, tfld + ".value")
        if op == "Exists" and value:
            raise t.invalid(value, "value must be empty when `operator` is 'Exists'", src, tfld + ".value")
        if not key and op != "Exists":
            if m.get("operator") is None:  # nothing to point at but the missing key
                raise t.required(src, tfld + ".key", "an empty key needs operator Exists (match every taint)")
            raise t.invalid(op, "operator must be Exists when `key` is empty", src, tfld + ".operator")
        out.append(
            Toleration(
                key,
                op,
                value,
                effect,
                t.opt_integer(m.get("tolerationSeconds"), src, tfld + ".tolerationSeconds", *t.INT64),
            )
        )
    return tuple(out)


def spread(items: Any, src: SourceRef, fld: str) -> tuple[TopologySpreadConstraint, ...]:
    out = []
    for c, cfld in t.objs(items, src, fld):
        t.check_fields(c, SPREAD, src, cfld)
        wu = c.get("whenUnsatisfiable")
        if wu not in ("DoNotSchedule", "ScheduleAnyway"):
            raise t.unsupported(wu, ("DoNotSchedule", "ScheduleAnyway"), src, cfld + ".whenUnsatisfiable")
        key = t.string(c.get("topologyKey"), src, cfld + ".topologyKey")
        if not key:
            raise t.required(src, cfld + ".topologyKey", "can not be empty")
        ls = c.get("labelSelector")
        md = c.get("minDomains")
        nap = t.string(c.get("nodeAffinityPolicy"), src, cfld + ".nodeAffinityPolicy") or "Honor"
        ntp = t.string(c.get("nodeTaintsPolicy"), src, cfld + ".nodeTaintsPolicy") or "Ignore"
        for value, name in ((nap, "nodeAffinityPolicy"), (ntp, "nodeTaintsPolicy")):
            if value not in ("Honor", "Ignore"):
                raise t.unsupported(value, ("Honor", "Ignore"), src, f"{cfld}.{name}")
        out.append(
            TopologySpreadConstraint(
                max_skew=t.integer(c.get("maxSkew"), src, cfld + ".maxSkew", 1),
                topology_key=key,
                when_unsatisfiable=wu,
                label_selector=read_label_selector(ls, src, cfld + ".labelSelector") if ls is not None else None,
                min_domains=None if md is None else t.integer(md, src, cfld + ".minDomains", 1),
                node_affinity_policy=nap,
                node_taints_policy=ntp,
                match_label_keys=t.strings(c.get("matchLabelKeys"), src, cfld + ".matchLabelKeys"),
            )
        )
    return tuple(out)
