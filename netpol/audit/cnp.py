"""Findings of the ordered cluster tiers: ClusterNetworkPolicy (policy.networking.k8s.io/v1alpha2) and the v1alpha1
AdminNetworkPolicy / BaselineAdminNetworkPolicy, read from their compiled form (netpol/engine/tiers.py).

- CNP010 rule-shadowed: a rule that never decides, because one earlier rule of its tier and direction (a
  higher-priority policy's, or an earlier one of its own policy) matches every connection it matches: its subject
  holds every pod the rule's subject holds, its peers every pod and address the rule's peers hold (per address
  family), its ports every port (named ports by name). "Rules … first match decides" (clusternetworkpolicy_types.go,
  Ingress/Egress and Priority). One earlier rule, not a union of several: a rule covered only by several together
  is not reported.
- CNP020 priority-tie: two policies of one tier with the same priority that can decide one connection differently
  (netpol/ambiguity.py): "the implementation can apply any of the matching policies".
- CNP030 pass-without-networkpolicy: an Admin-tier Pass for pods no NetworkPolicy selects in that direction: the
  traffic is not handed to a NetworkPolicy but to the Baseline tier, or to the default allow.

`cluster_default_denies` gives, per policy, the pods an Admin/Baseline rule denies from every namespace on every
port (a cluster-wide default deny): the namespace checks count them as isolated.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from netpol.ambiguity import ORDERED_KINDS, ambiguous_ties, tie_message
from netpol.audit._pods import fmt_pods
from netpol.audit.rules import Finding, finding
from netpol.engine import CompiledPolicy, CompiledRule
from netpol.model.vocab import DIRECTIONS, Direction
from netpol.pipeline import Analysis


@dataclass(frozen=True, slots=True)
class Placed:
    """A rule in its evaluation order, with what it can hold (over classes per family, atoms, ports)."""

    policy: CompiledPolicy
    rule: CompiledRule
    classes: tuple[np.ndarray, ...]  # per Universe.families: the classes its peers hold over that family
    atoms: np.ndarray

    @property
    def label(self) -> str:
        return rule_label(self.policy, self.rule)

    @property
    def empty(self) -> bool:
        return (
            not self.policy.selected.any()
            or not (any(c.any() for c in self.classes) or self.atoms.any())
            or not (self.rule.static_bits.any() or self.rule.named)
        )

    def covers(self, other: Placed) -> bool:
        """Does this rule match every connection `other` matches?"""
        if (other.policy.selected & ~self.policy.selected).any():
            return False
        if (other.atoms & ~self.atoms).any():
            return False
        if any((o & ~s).any() for o, s in zip(other.classes, self.classes, strict=True)):
            return False
        mine, theirs = self.rule, other.rule
        if (theirs.static_bits & ~mine.static_bits).any():
            return False
        if theirs.named and not set(theirs.named) <= set(mine.named):
            return not (~mine.static_bits).any()  # every port covers any name
        return True


def rule_label(cp: CompiledPolicy, rule: CompiledRule) -> str:
    """`CNP a (priority 10) ingress rule #1 'x' (Accept)`: the action in the policy's own words (its model rule's)."""
    action = getattr(rule.source, "action", rule.action)
    name = f" {rule.name!r}" if rule.name else ""
    where = f"{cp.key} ({cp.precedence_text})" if cp.precedence_text else cp.key
    return f"{where} {rule.direction} rule #{rule.index + 1}{name} ({action})"


def _object(cp: CompiledPolicy) -> str:
    return f"{cp.kind}/{cp.ref.name}"


def _placed(analysis: Analysis, cp: CompiledPolicy, rule: CompiledRule) -> Placed:
    u = analysis.reachability.pod_classes
    families = range(len(u.families))
    none = np.zeros(u.class_count, dtype=bool)
    classes = tuple(np.logical_or.reduce([none, *(p.classes_in(k) for p in rule.peers)]) for k in families)
    atoms = np.logical_or.reduce([np.zeros(analysis.reachability.A, dtype=bool), *(p.atoms for p in rule.peers)])
    return Placed(cp, rule, classes, atoms)


def ordered_policies(analysis: Analysis) -> list[CompiledPolicy]:
    """The Admin/Baseline-tier policies, in the engine's evaluation order."""
    return [cp for cp in analysis.reachability.policies if cp.kind in ORDERED_KINDS]


def shadowed_findings(analysis: Analysis, policies: Sequence[CompiledPolicy]) -> list[Finding]:
    out: list[Finding] = []
    for direction in DIRECTIONS:
        by_tier: dict[str, list[Placed]] = {}
        for cp in policies:
            for rule in cp.rules(direction):
                by_tier.setdefault(cp.tier.name, []).append(_placed(analysis, cp, rule))
        for placed in by_tier.values():
            for j, later in enumerate(placed):
                if later.empty:
                    continue
                first = next((e for e in placed[:j] if not e.empty and e.covers(later)), None)
                if first is None:
                    continue
                same = "" if first.rule.action != later.rule.action else " (with the same action: it is redundant)"
                out.append(
                    finding(
                        "CNP010",
                        later.policy.namespace,
                        f"{later.label} never decides: {first.label}, earlier in the {later.policy.tier.label}, "
                        f"matches every connection it matches{same}",
                        (_object(later.policy), *((_object(first.policy),) if first.policy is not later.policy else ())),
                        later.policy.ref,
                        fix=f"remove the rule, or move it before {first.label} (a lower priority value, or earlier "
                        "in its policy)",
                        direction=direction,
                        detail=f"{direction} rule #{later.rule.index + 1}",
                    )
                )
    return out


def tie_findings(analysis: Analysis, policies: Sequence[CompiledPolicy]) -> list[Finding]:
    r = analysis.reachability
    return [
        finding(
            "CNP020",
            b.namespace,
            tie_message(a, b),
            (_object(b), _object(a)),
            b.ref,
            detail=_object(a),
        )
        for a, b in ambiguous_ties(r, tuple(policies))
    ]


def pass_findings(analysis: Analysis, policies: Sequence[CompiledPolicy]) -> list[Finding]:
    r = analysis.reachability
    out: list[Finding] = []
    for cp in policies:
        if cp.tier.name != "kube-admin":
            continue
        for direction in DIRECTIONS:
            behind = r.isolated(direction)  # a tier ending in Deny (NetworkPolicies) selects the class
            for rule in cp.rules(direction):
                if rule.action != "Pass" or _placed(analysis, cp, rule).empty:
                    continue
                bare = cp.selected & ~behind
                if not bare.any():
                    continue
                pods = np.flatnonzero(bare[r.pod_classes.pod_class]).tolist()
                out.append(
                    finding(
                        "CNP030",
                        cp.namespace,
                        f"{rule_label(cp, rule)} passes the {direction} of {len(pods)} pod(s) "
                        f"no NetworkPolicy selects for {direction}: the Baseline tier or the default allow decides it, "
                        f"not a NetworkPolicy ({fmt_pods(r, pods)})",
                        (_object(cp),),
                        cp.ref,
                        direction=direction,
                        detail=f"{direction} rule #{rule.index + 1}",
                    )
                )
    return out


def in_scope(analysis: Analysis, cp: CompiledPolicy, chosen: Sequence[str]) -> bool:
    """A cluster-wide policy concerns the audited namespaces when it selects a pod of one of them."""
    u = analysis.reachability.pod_classes
    mask = np.zeros(u.class_count, dtype=bool)
    for ns in chosen:
        mask |= u.in_namespace(ns)
    return bool((cp.selected & mask).any())


def tier_findings(analysis: Analysis, chosen: Sequence[str]) -> list[Finding]:
    """CNP010, CNP020, CNP030 for the ordered-tier policies that select a pod of the chosen namespaces."""
    policies = ordered_policies(analysis)
    if not policies:
        return []
    keep = {cp.key for cp in policies if in_scope(analysis, cp, chosen)}
    found = shadowed_findings(analysis, policies) + tie_findings(analysis, policies) + pass_findings(analysis, policies)
    keys = {_object(cp): cp.key for cp in policies}
    return [f for f in found if keys.get(f.objects[0]) in keep]


def cluster_default_denies(analysis: Analysis, direction: Direction) -> list[tuple[str, np.ndarray]]:
    """Per Admin/Baseline policy, the classes one of its `direction` rules denies from (to) every namespace's pods on
    every port: a cluster-wide default deny, which counts as isolation (a pod then accepts only what some rule, of
    any tier, lets through)."""
    r = analysis.reachability
    u = r.pod_classes
    every_pod = u.selectable
    out = []
    for cp in ordered_policies(analysis):
        for rule in cp.rules(direction):
            if rule.action != "Deny" or (~rule.static_bits & r.ports.all_bits).any():
                continue
            held = np.logical_or.reduce([np.zeros(u.class_count, dtype=bool), *(p.classes for p in rule.peers)])
            if not (every_pod & ~held).any() and cp.selected.any():
                out.append((f"{cp.kind}/{cp.ref.name}", cp.selected))
                break
    return out
