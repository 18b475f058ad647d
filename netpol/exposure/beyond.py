"""Exposure to what the input does not contain: for each pod, the pods and namespaces outside the input its
own policies would admit (ingress) or let it reach (egress), as netpol-analyzer's exposure analysis reports
them (np-guard/netpol-analyzer docs/exposure_analysis.md): "any pod in any namespace (the whole cluster)",
"pods labelled role=monitoring in namespaces labelled team=a", "pods labelled app=x in namespace web (none in
the input)".

Each question is the engine's, asked of the representative stand-ins (netpol/exposure/standins.py): the
pod's side of a connection with each, over every port at once, per equivalence class. An admission that the
"whole cluster" one already covers (its ports within) is not repeated.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from netpol.engine import Reachability
from netpol.exposure.standins import EVERYWHERE, StandIn
from netpol.exposure.verdicts import peer_side_words, peer_sides
from netpol.model.vocab import DIRECTIONS, Direction
from netpol.ports import ConnectionSet


@dataclass(frozen=True, slots=True)
class Admission:
    direction: Direction  # ingress: the pod admits them; egress: the pod may reach them
    peer: str  # what the stand-in stands for
    unknown_namespace: bool  # in a namespace the input does not contain
    conn: ConnectionSet
    isolated: bool  # False: the pod is not isolated for this direction (everything is admitted)
    rules: tuple[str, ...]  # the pod's rules deciding it (the engine's provenance)

    @property
    def whole_cluster(self) -> bool:
        return self.peer == EVERYWHERE


@dataclass(frozen=True, slots=True)
class PodBeyond:
    pod: str
    admissions: tuple[Admission, ...]

    def of(self, direction: Direction) -> tuple[Admission, ...]:
        return tuple(a for a in self.admissions if a.direction == direction)


def beyond_input(r: Reachability, pods: Sequence[int], peers: Sequence[StandIn]) -> list[PodBeyond]:
    """For the pods `pods` (indexes into the second engine), what each admits and reaches beyond the input.
    Computed once per equivalence class: pods of one class admit the same stand-ins on the same ports."""
    if not pods or not peers:
        return []
    peer_idx = [r.pod_index[s.key] for s in peers]
    classes: dict[int, int] = {}
    for p in pods:
        classes.setdefault(r.pod_class(p), p)
    reps = list(classes.values())
    by_class: dict[int, tuple[Admission, ...]] = {}
    blocks = {d: peer_sides(r, d, reps, peer_idx) for d in DIRECTIONS}
    for k, rep in enumerate(reps):
        found: list[Admission] = []
        for direction in DIRECTIONS:
            found += _admissions(r, direction, rep, blocks[direction][k], peers, peer_idx)
        by_class[r.pod_class(rep)] = tuple(found)
    return [PodBeyond(r.pods[p].key, by_class[r.pod_class(p)]) for p in pods if by_class[r.pod_class(p)]]


def _admissions(
    r: Reachability, direction: Direction, pod: int, row: np.ndarray, peers: Sequence[StandIn], peer_idx: Sequence[int]
) -> list[Admission]:
    cls = r.pod_class(pod)
    isolated = bool((r.isolated_ingress if direction == "ingress" else r.isolated_egress)[cls])
    out: list[Admission] = []
    whole: ConnectionSet | None = None
    for j, s in enumerate(peers):
        if not row[j].any():
            continue
        conn = r.ports.to_set(row[j])
        if s.describes == EVERYWHERE:
            whole = conn
        elif whole is not None and conn.intersection(whole) == conn:
            continue  # covered by "the whole cluster"
        if not isolated and not r.admin_rules:
            if s.describes != EVERYWHERE:
                continue  # not isolated: "the whole cluster" says it all
            rules: tuple[str, ...] = ("not isolated",)
        else:
            rules = peer_side_words(r, direction, pod, peer_idx[j], None)
        out.append(Admission(direction, s.describes, s.new_namespace, conn, isolated, rules))
    return out
