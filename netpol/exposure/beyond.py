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


def beyond_input(r: Reachability, pods: Sequence[tuple[str, int]], peers: Sequence[StandIn]) -> list[PodBeyond]:
    """For the pods `pods` ((key, the index in the second engine of a pod of its class)), what each admits and
    reaches beyond the input. Computed once per equivalence class, over every class and peer at once: pods of
    one class admit the same stand-ins on the same ports."""
    if not pods or not peers:
        return []
    peer_idx = [r.pod_index[s.key] for s in peers]
    classes: dict[int, int] = {}
    for _, p in pods:
        classes.setdefault(r.pod_class(p), p)
    reps = list(classes.values())
    rep_cls = np.asarray([r.pod_class(p) for p in reps], dtype=np.int64)
    whole = next((j for j, s in enumerate(peers) if s.describes == EVERYWHERE), None)
    found: dict[int, list[Admission]] = {k: [] for k in range(len(reps))}
    for direction in DIRECTIONS:
        block = peer_sides(r, direction, reps, peer_idx)  # (classes, peers, W)
        isolated = (r.isolated_ingress if direction == "ingress" else r.isolated_egress)[rep_cls]
        keep = block.any(axis=2)
        if whole is not None:
            # an admission the whole cluster's already covers (its ports within) is not repeated
            covered = ~np.any(block & ~block[:, whole : whole + 1, :], axis=2)
            covered[:, whole] = False
            keep &= ~covered
            if not r.layered:  # not isolated: "the whole cluster" says it all
                others = np.ones(len(peers), dtype=bool)
                others[whole] = False
                keep[np.ix_(~isolated, others)] = False
        for k, j in zip(*np.nonzero(keep), strict=True):
            k, j = int(k), int(j)
            if not isolated[k] and not r.layered:
                rules: tuple[str, ...] = ("not isolated",)
            else:
                rules = peer_side_words(r, direction, reps[k], peer_idx[j], None)
            s = peers[j]
            conn = r.ports.to_set(block[k, j])
            found[k].append(Admission(direction, s.describes, s.new_namespace, conn, bool(isolated[k]), rules))
    by_class = {int(rep_cls[k]): tuple(v) for k, v in found.items()}
    return [PodBeyond(key, by_class[r.pod_class(p)]) for key, p in pods if by_class[r.pod_class(p)]]
