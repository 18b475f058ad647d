"""The engine's verdicts for the hops of an exposure path, with the rules that decide them.

The only module of netpol/exposure that reads the engine's "why" (`verdict`, `side_verdict`): a hop is a
connection between two endpoints of an engine (real pods, stand-ins, external atoms, nodes) on one
destination port, and its verdict and rules are exactly what `netpol explain` would say of it. Nothing here
matches a rule itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from netpol.engine import Endpoint, Exception_, Reachability, SideVerdict, side_verdict, verdict
from netpol.model.vocab import Direction
from netpol.ports import ConnectionSet

Port = tuple[str, int]  # (protocol, number) on the destination pod, after DNAT


@dataclass(frozen=True, slots=True)
class Crossing:
    """One connection on one port: allowed or not, and the rules deciding each side."""

    allowed: bool
    egress: tuple[str, ...]
    ingress: tuple[str, ...]


def port_set(port: Port) -> ConnectionSet:
    return ConnectionSet.of([(port[0], port[1], port[1])])


def side_words(r: Reachability, sv: SideVerdict, want: ConnectionSet | None) -> tuple[str, ...]:
    """The rules deciding one side, restricted to the ports asked (the words of who-can-reach): the Allow rules
    that let the ports through, the rules of the other tiers that decided them otherwise (Deny, Pass), and the
    policies isolating the side when nothing admits them."""

    def part(bits: np.ndarray) -> ConnectionSet:
        cs = r.ports.to_set(bits)
        return cs if want is None else cs.intersection(want)

    if not sv.applies:
        return ("outside the cluster: no policy of it filters there",)
    tiered = [
        f"{h.label}: {h.action} ({p.render()})"
        for h in sv.deciding
        if h.policy.kind != "NetworkPolicy" and h.action != "Allow" and not (p := part(h.decided)).is_empty
    ]
    if not sv.isolated:
        return ("not isolated", *tiered)
    rules = [
        f"{label} ({p.render()})"
        for label, cs in sv.rules(r)
        if not (p := (cs if want is None else cs.intersection(want))).is_empty
    ]
    if not rules and not tiered:
        rules = [f"isolated by {', '.join(sv.policies)}: no rule admits it"]
    return (*rules, *tiered)


def crossing(r: Reachability, src: Endpoint, dst: Endpoint, port: Port) -> Crossing:
    """src → dst on `port`, both sides (an external source: the destination's ingress only)."""
    v = verdict(r, src, dst)
    want = port_set(port)
    allowed = not v.connection(r).intersection(want).is_empty
    if v.exception is Exception_.LOOPBACK:
        return Crossing(allowed, ("a pod reaching itself",), ("always allowed",))
    if v.exception is Exception_.NODE_LOCAL:
        words = ("traffic from a pod's own node is always allowed",)
        return Crossing(allowed, words, words)
    return Crossing(allowed, side_words(r, v.egress, want), side_words(r, v.ingress, want))


def atoms_open(r: Reachability, dst: int, port: Port) -> np.ndarray:
    """Bool over external atoms: which may open `port` on pod `dst` (its ingress; one column of the matrix)."""
    _, atom_bits = r.pod_line(dst, "in")
    word, bit = r.probe_bit(*port)
    out: np.ndarray = (atom_bits[:, word] & bit) != 0
    return out


def peer_sides(r: Reachability, direction: Direction, pods: Sequence[int], peers: Sequence[int]) -> np.ndarray:
    """(pods, peers, W) port bits each pod's own side lets through towards each peer pod: its ingress from
    them ("ingress") or its egress to them ("egress"); the peers' policies do not enter."""
    cls = np.asarray([r.pod_class(p) for p in pods], dtype=np.int64)
    peer_cls = np.asarray([r.pod_class(p) for p in peers], dtype=np.int64)
    if direction == "ingress":
        block: np.ndarray = r.side_block("ingress", peer_cls, cls)
        return np.ascontiguousarray(block.transpose(1, 0, 2))
    out: np.ndarray = r.side_block("egress", cls, peer_cls)
    return out


def peer_side_words(
    r: Reachability, direction: Direction, pod: int, peer: int, want: ConnectionSet | None
) -> tuple[str, ...]:
    """The rules of `pod`'s own side deciding what it admits from (ingress) or opens to (egress) `peer`."""
    me, other = Endpoint(pod=pod), Endpoint(pod=peer)
    src, dst = (other, me) if direction == "ingress" else (me, other)
    return side_words(r, side_verdict(r, direction, src, dst), want)
