"""How controllers name the pods they create: deterministic hashes, and the pod a workload template makes.

Shared by the workload expansion (netpol.workloads) and the scheduler's DaemonSet controller (scheduling),
so neither imports the other. Names derive from the workload, never from randomness.
"""

from __future__ import annotations

import hashlib

from netpol.model.evolve import evolve
from netpol.model.labels import Labels
from netpol.model.objects import OwnerRef, Pod, Workload

# apimachinery's rand.SafeEncodeString alphabet: no vowels, no confusable digits.
_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


def safe_hash(text: str, length: int) -> str:
    digest = int.from_bytes(hashlib.sha256(text.encode()).digest()[:16], "big")
    out = []
    for _ in range(length):
        digest, r = divmod(digest, len(_ALPHABET))
        out.append(_ALPHABET[r])
    return "".join(out)


def pod_template_hash(wl: Workload) -> str:
    return safe_hash(f"{wl.kind}/{wl.namespace}/{wl.name}/template", 10)


def pod_labels(wl: Workload, extra_labels: dict[str, str]) -> Labels:
    """The template's labels and the controller's own (a workload's pods share one object where they agree)."""
    return Labels({**wl.template.labels, **extra_labels})


def make_pod(
    wl: Workload, name: str, extra_labels: dict[str, str], owner: OwnerRef, index: int, labels: Labels | None = None
) -> Pod:
    """`labels`: `pod_labels(wl, extra_labels)` computed once for many pods."""
    if labels is None:
        labels = pod_labels(wl, extra_labels)
    return evolve(wl.template, name=name, labels=labels, owner=owner, order=wl.template.order * 100_000 + index)


def daemonset_pod(wl: Workload, node_name: str, index: int) -> Pod:
    """One DaemonSet pod for `node_name` ("" when the cluster has no nodes)."""
    suffix = safe_hash(f"{wl.key}/{node_name}", 5)
    rev = pod_template_hash(wl)
    return make_pod(
        wl,
        f"{wl.name}-{suffix}",
        {"controller-revision-hash": rev, "pod-template-generation": "1"},
        OwnerRef("DaemonSet", wl.name),
        index,
    )
