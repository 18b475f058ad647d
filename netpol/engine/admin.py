"""The admin tiers (AdminNetworkPolicy above, BaselineAdminNetworkPolicy below the NetworkPolicies).

Kept apart from the NetworkPolicy block because the semantics differ: NetworkPolicies are additive
allow-lists, admin rules are first-match per port with Allow / Deny / Pass actions
(network-policy-api, "AdminNetworkPolicy" and "BaselineAdminNetworkPolicy" API reference).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import assert_never

import numpy as np

from netpol.engine.boxes import Box, Selection
from netpol.engine.compile.admin import CompiledAdminRule
from netpol.engine.compile.universe import Universe
from netpol.model.vocab import Direction
from netpol.ports import PortAtoms


def admin_tiers(boxes: Sequence[Box]) -> dict[tuple[str, bool], list[Box]]:
    """The admin boxes by (direction, baseline), each list in evaluation order."""
    return {
        (d, baseline): [
            b
            for b in boxes
            if isinstance(b.rule, CompiledAdminRule) and b.rule.direction == d and b.rule.policy.baseline == baseline
        ]
        for d in ("ingress", "egress")
        for baseline in (False, True)
    }


def admin_layer(
    tiers: Mapping[tuple[str, bool], Sequence[Box]],
    direction: Direction,
    np_block: np.ndarray,
    s: Selection,
    d: Selection,
    open_: np.ndarray,
    C: int,
    family: int | None = None,
) -> np.ndarray:
    """ANP tier above and BANP tier below the NetworkPolicy result (first match wins, per port).

    `open_`: bool over the owner side's eids, True where no NetworkPolicy isolates the endpoint.
    `family`: the address family (index into Universe.families) the block is computed for."""
    decisions = {}
    for baseline in (False, True):
        allow = np.zeros_like(np_block)
        deny = np.zeros_like(np_block)
        decided = np.zeros_like(np_block)
        for box in tiers[(direction, baseline)]:
            if family is not None and box.family not in (None, family):
                continue
            rows, cols = s.find(box.src), d.find(box.dst)
            if not rows.size or not cols.size:
                continue
            ix = np.ix_(rows, cols)
            before = decided[ix]
            fresh = box.bits & ~before
            rule = box.rule
            assert isinstance(rule, CompiledAdminRule)  # admin boxes carry admin rules
            match rule.action:
                case "Allow":
                    allow[ix] |= fresh
                case "Deny":
                    deny[ix] |= fresh
                case "Pass":  # decided here: NetworkPolicies, then the BANP, decide these ports
                    pass
                case _:
                    assert_never(rule.action)
            decided[ix] = before | box.bits
        decisions[baseline] = (allow, deny)
    anp_allow, anp_deny = decisions[False]
    _, banp_deny = decisions[True]
    base = np_block.copy()
    # Endpoints no NetworkPolicy isolates fall to the baseline tier: allowed unless the BANP denies.
    if direction == "ingress":
        subj = open_ & (d.eids < C)
        base[:, subj] &= ~banp_deny[:, subj]
    else:
        subj = open_ & (s.eids < C)
        base[subj] &= ~banp_deny[subj]
    return anp_allow | (~(anp_allow | anp_deny) & base)


def admin_trace(
    rules: Sequence[CompiledAdminRule],
    universe: Universe,
    ports: PortAtoms,
    direction: Direction,
    src_class: int | None,
    dst_class: int | None,
    src_atom: int | None = None,
    dst_atom: int | None = None,
    family: int | None = None,
) -> list[tuple[CompiledAdminRule, np.ndarray]]:
    """Admin rules that match this pair in evaluation order, each with the ports it covers (for explain).
    `family`: over that address family only (index into Universe.families; None: any)."""
    out = []
    for rule in rules:
        if rule.direction != direction:
            continue
        peers = rule.peers_in(family)
        if direction == "ingress":
            if dst_class is None or not rule.subject[dst_class]:
                continue
            hit = (src_class is not None and peers[src_class]) or (src_atom is not None and rule.peer_atoms[src_atom])
        else:
            if src_class is None or not rule.subject[src_class]:
                continue
            hit = (dst_class is not None and peers[dst_class]) or (dst_atom is not None and rule.peer_atoms[dst_atom])
        if hit:
            bits = rule.bits_for(universe, ports, dst_class)
            if np.any(bits):
                out.append((rule, bits))
    return out
