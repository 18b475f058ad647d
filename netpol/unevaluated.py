"""Which pods a policy netpol does not evaluate may apply to: the pods whose answers may be wrong.

Best effort, from what the object says about its subject: a namespaced policy with a standard label selector
(spec.podSelector / spec.selector / spec.endpointSelector) selects the pods of its namespace that match it; a
namespaced one without a selector netpol can read may apply to every pod of its namespace; a cluster-scoped
one (or Istio's root-namespace policies) possibly to every pod. Every artifact uses this one reading.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, assert_never

from netpol.english import plural, with_article
from netpol.model.objects import Pod
from netpol.model.unevaluated import UnevaluatedPolicy

Scope = Literal["selector", "namespace", "cluster"]


@dataclass(frozen=True, slots=True)
class Coverage:
    """One skipped policy and the pods (keys, sorted) it may apply to, with how that was decided."""

    policy: UnevaluatedPolicy
    scope: Scope
    pods: tuple[str, ...]

    def what(self) -> str:
        """`CiliumNetworkPolicy default/rule1 (cilium.io/v2) is a Cilium policy, which netpol does not evaluate`"""
        p = self.policy
        name = f"{p.namespace}/{p.name}" if p.namespace else p.name
        return (
            f"{p.kind} {name} ({p.api_version or 'no apiVersion'}) is {with_article(p.engine)} policy, "
            "which netpol does not evaluate"
        )

    def selects(self) -> str:
        """What it selects, in words: the pods by its selector, every pod of its namespace, or possibly all."""
        p = self.policy
        match self.scope:
            case "selector":
                assert p.selector is not None
                how = f"by {p.selector_field} {p.selector.render() or '{}'}"
                if not self.pods:
                    return f"it selects no running pod of namespace {p.namespace} {how}"
                return f"it selects {plural(len(self.pods), 'pod')} of namespace {p.namespace} {how}"
            case "namespace":
                return f"it may apply to every pod of namespace {p.namespace} ({len(self.pods)} running)"
            case "cluster":
                where = "cluster-scoped" if not p.namespace else f"in the mesh's root namespace {p.namespace}"
                return f"{where}, it may apply to possibly every pod ({len(self.pods)} running)"
            case _:
                assert_never(self.scope)


def coverage(policy: UnevaluatedPolicy, pods: Sequence[Pod]) -> Coverage:
    if not policy.namespace or policy.wide:
        return Coverage(policy, "cluster", tuple(sorted(p.key for p in pods)))
    mine = [p for p in pods if p.namespace == policy.namespace]
    if policy.selector is None:
        return Coverage(policy, "namespace", tuple(sorted(p.key for p in mine)))
    sel = policy.selector
    return Coverage(policy, "selector", tuple(sorted(p.key for p in mine if sel.matches(p.labels))))


def coverages(policies: Iterable[UnevaluatedPolicy], pods: Sequence[Pod]) -> tuple[Coverage, ...]:
    return tuple(coverage(p, pods) for p in policies)


def pods_maybe_wrong(covered: Iterable[Coverage]) -> dict[str, tuple[str, ...]]:
    """pod key → the skipped policies (Kind/ns/name) that may apply to it: the pods whose answers may be wrong."""
    out: dict[str, list[str]] = {}
    for c in covered:
        for key in c.pods:
            out.setdefault(key, []).append(c.policy.key)
    return {k: tuple(v) for k, v in sorted(out.items())}
