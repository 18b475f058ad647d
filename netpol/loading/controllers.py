"""Workload controllers (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob) → a pod template and a count.

The template is read as a Pod (netpol.loading.pods); the count follows each controller: replicas (int32,
default 1), a Job's parallelism capped by completions, a DaemonSet's nodes (counted when expanded).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from netpol.errors import InputError, SourceRef
from netpol.loading import typed as t
from netpol.loading.fields import labels_field, namespace_of, read_label_selector
from netpol.loading.pods import controller_owner, read_pod
from netpol.model.objects import Workload


def read_workload(obj: Mapping[str, Any], src: SourceRef, order: int) -> Workload:
    """The workload; `order` is its template's creation order (pods made from it are placed in that order)."""
    kind = src.kind
    meta = obj["metadata"]
    ns = namespace_of(meta, src)
    spec = t.obj(obj.get("spec"), src, "spec")
    prefix = "spec"
    if kind == "CronJob":
        job = t.obj(spec.get("jobTemplate"), src, "spec.jobTemplate")
        spec = t.obj(job.get("spec"), src, "spec.jobTemplate.spec")
        prefix = "spec.jobTemplate.spec"
    template = t.opt_obj(spec.get("template"), src, prefix + ".template")
    if template is None:
        raise t.required(src, prefix + ".template", "a pod template is required")
    tmeta = t.obj(template.get("metadata"), src, prefix + ".template.metadata")
    if kind in ("Job", "CronJob"):
        replicas = t.integer(spec.get("parallelism"), src, prefix + ".parallelism", 0, default=1)
        comp = t.opt_integer(spec.get("completions"), src, prefix + ".completions", 0)
        if comp is not None:
            replicas = min(replicas, comp)
    elif kind == "DaemonSet":
        replicas = 0
    else:
        replicas = t.integer(spec.get("replicas"), src, "spec.replicas", 0, default=1)
    sel = spec.get("selector")
    selector = read_label_selector(sel, src, prefix + ".selector") if sel is not None else None
    tpl = read_pod(
        tmeta,
        t.obj(template.get("spec"), src, prefix + ".template.spec"),
        {},
        src,
        prefix + ".template.spec",
        namespace=ns,
        name="",
        labels_path=prefix + ".template.metadata.labels",
        order=order,
    )
    if selector is not None and kind not in ("Job", "CronJob") and not selector.matches(tpl.labels):
        raise InputError("Invalid value: `selector` does not match template `labels`", src, prefix + ".selector")
    pmp = t.string(spec.get("podManagementPolicy"), src, "spec.podManagementPolicy") or "OrderedReady"
    if kind == "StatefulSet" and pmp not in ("OrderedReady", "Parallel"):
        raise t.unsupported(pmp, ("OrderedReady", "Parallel"), src, "spec.podManagementPolicy")
    return Workload(
        kind,
        ns,
        meta["name"],
        tpl,
        replicas,
        selector,
        pmp,
        labels_field(meta.get("labels"), src, "metadata.labels"),
        src,
        controller_owner(meta, src),
    )
