"""Equal priorities that make an answer ambiguous: the network-policy-api's own words, read from the compiled form.

ClusterNetworkPolicy's `priority` (apis/v1alpha2/clusternetworkpolicy_types.go; AdminNetworkPolicy's alike in
v1alpha1): "If two (or more) policies in the same tier with the same priority could match a connection, then the
implementation can apply any of the matching policies to the connection, and there is no way for the user to
reliably determine which one it will choose." netpol applies them in a fixed order (the compilers' precedence
tie-break: kind, then name); this module finds the pairs where that choice can change an answer, so the pipeline
can warn and the audit report them (CNP020). Pure: it reads the engine through its door.
"""

from __future__ import annotations

import numpy as np

from netpol.engine import CompiledPolicy, CompiledRule, Reachability
from netpol.model.vocab import DIRECTIONS

ORDERED_KINDS = frozenset({"AdminNetworkPolicy", "BaselineAdminNetworkPolicy", "ClusterNetworkPolicy"})
"""The kinds whose equal priorities the network-policy-api calls ambiguous (Calico documents its own tie-break)."""


def possible_bits(r: Reachability, rule: CompiledRule) -> np.ndarray:
    """The ports a rule can hold towards some destination: its numeric ports, and its named ports as any class
    resolves them."""
    if not rule.per_destination:
        return rule.static_bits
    bits = rule.static_bits.copy()
    for cls in r.pod_classes.classes:
        bits |= rule.bits_for(r.ports, cls.named_ports)
    return bits


def rules_meet(r: Reachability, a: CompiledRule, b: CompiledRule) -> bool:
    """Can two rules of one direction hold the same (other end, port)? A peer of each shares a pod class or an
    address, and their ports meet."""
    if not a.peers or not b.peers:
        return False
    classes_a = np.logical_or.reduce([p.classes for p in a.peers])
    classes_b = np.logical_or.reduce([p.classes for p in b.peers])
    atoms_a = np.logical_or.reduce([p.atoms for p in a.peers])
    atoms_b = np.logical_or.reduce([p.atoms for p in b.peers])
    if not ((classes_a & classes_b).any() or (atoms_a & atoms_b).any()):
        return False
    return bool((possible_bits(r, a) & possible_bits(r, b)).any())


def ambiguous_ties(
    r: Reachability, policies: tuple[CompiledPolicy, ...] | None = None
) -> list[tuple[CompiledPolicy, CompiledPolicy]]:
    """Pairs (first evaluated, second) of Admin/Baseline policies that share a tier and a priority and can decide
    one connection differently: their subjects overlap, and a rule of each, of one direction and with different
    actions, meet. `policies`: a subset of `r.policies` (default: all)."""
    by_key: dict[tuple[str, float], list[CompiledPolicy]] = {}
    for cp in r.policies if policies is None else policies:
        if cp.kind in ORDERED_KINDS:
            by_key.setdefault((cp.tier.name, cp.precedence[0]), []).append(cp)
    out = []
    for group in by_key.values():
        group.sort(key=lambda cp: cp.precedence)
        for i, a in enumerate(group):
            for b in group[i + 1 :]:
                if not (a.selected & b.selected).any():
                    continue
                if any(
                    ra.action != rb.action and rules_meet(r, ra, rb)
                    for d in DIRECTIONS
                    for ra in a.rules(d)
                    for rb in b.rules(d)
                ):
                    out.append((a, b))
    return out


def tie_message(a: CompiledPolicy, b: CompiledPolicy) -> str:
    """The warning for one ambiguous pair (`a` evaluated first): names both and the reading taken."""
    if a.kind == b.kind:
        both = f"{a.kind.removesuffix('y')}ies {a.ref.name} and {b.ref.name}"
        first = a.ref.name
    else:
        both = f"{a.kind} {a.ref.name} and {b.kind} {b.ref.name}"
        first = f"{a.kind} {a.ref.name}"
    priority = f"priority {a.precedence[0]:g}" if a.precedence_text else "no priority"
    order = "name order" if a.kind == b.kind else "kind then name order (v1alpha1 first)"
    return (
        f"{both} share {priority} in the {a.tier.label} and can both match a connection: implementations may "
        f"apply either; evaluated here in {order}: {first} first"
    )
