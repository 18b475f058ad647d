"""Address families in the engine: a connection uses one family at both ends (dual-stack).

kubernetes.io/docs/concepts/services-networking/dual-stack: a dual-stack pod has an IPv4 and an IPv6
address, a single-stack pod one; an external address has one family. A connection is opened over one
family, so src → dst is allowed on a port when, for some family both ends have, the source's egress and
the destination's ingress both admit it over that family. Selectors admit whatever the family; an ipBlock
matches the address of its own family only (compile/: `family_classes`, boxes with a `family`).

Per family k the engine keeps a bool row over eids, "has an address of family k" (`eid_family`; a pod
without any address is not ruled out by any family). A cell is the OR over families of
`ingress_k & egress_k`, each side computed from the boxes of family k (and those of every family), and
masked where an end lacks the family. When no box depends on the family — every single-stack cluster, and
dual-stack clusters whose ipBlocks see both addresses of each pod alike — both sides are computed once and
masked with "some family in common": single-stack clusters compute exactly what they did before, with
masks that are all true between pods (skipped), and an external range of a family no pod has reaches
nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from netpol.engine.boxes import Eids
from netpol.engine.state import EngineState
from netpol.model.vocab import Direction


def as_array(eids: Eids) -> np.ndarray:
    if isinstance(eids, range):
        return np.arange(eids.start, eids.stop, eids.step, dtype=np.int64)
    return np.asarray(eids, dtype=np.int64).ravel()


class Families(EngineState):
    """Per-family masks over eids and the cell read-out that ORs the families."""

    eid_family: np.ndarray  # (families, eids) bool: the endpoint has an address of that family
    family_split: bool  # some box holds over one family only

    def init_families(self) -> None:
        u = self.universe
        has = np.zeros((len(u.families), self.C + self.A), dtype=bool)
        has[:, : self.C] = u.class_has_family
        versions = np.array([a.version for a in self.atoms], dtype=np.int64)
        for k, version in enumerate(u.families):
            has[k, self.C :] = versions == version
        self.eid_family = has
        self.family_split = any(
            b.family is not None for trs in self._tier_rules.values() for tr in trs for b in tr.boxes
        )

    @property
    def family_indexes(self) -> tuple[int | None, ...]:
        """The families a side must be computed for one by one ((None,): every box holds in every family)."""
        return tuple(range(len(self.universe.families))) if self.family_split else (None,)

    def family_name(self, k: int) -> str:
        return "IPv6" if self.universe.families[k] == 6 else "IPv4"

    def family_mask(self, k: int | None, src: Eids, dst: Eids) -> np.ndarray | None:
        """(S, D) bool: both ends have an address of family k (None: of some family in common); None when
        that holds for every pair (the usual case between pods of a single-stack cluster)."""
        s, d = as_array(src), as_array(dst)
        has = self.eid_family
        if k is None and has.shape[0] == 1:
            k = 0
        if k is not None:
            hs, hd = has[k, s], has[k, d]
            if hs.all() and hd.all():
                return None
            return np.asarray(hs[:, None] & hd[None, :])
        hs, hd = has[:, s], has[:, d]
        if hs.all() and hd.all():
            return None
        return np.asarray((hs[:, :, None] & hd[:, None, :]).any(axis=0))

    def family_sides(
        self,
        direction: Direction,
        src: Eids,
        dst: Eids,
        *,
        without: int | None = None,
        only: np.ndarray | None = None,
    ) -> list[np.ndarray]:
        """One side per family to compute (`family_indexes`), each zero where the ends share no family:
        what-if questions compare these (two clusters of policies differ iff some family's side does)."""
        out = []
        for k in self.family_indexes:
            block = self.side_block(direction, src, dst, without=without, only=only, family=k)
            if k is None:
                mask = self.family_mask(None, src, dst)
                if mask is not None:
                    block[~mask] = 0
            out.append(block)
        return out

    def pair_block(
        self,
        src: Eids,
        dst: Eids,
        *,
        probe: tuple[str, int] | None = None,
        sides: Sequence[Direction] = ("ingress", "egress"),
    ) -> np.ndarray:
        """What src may open towards dst: the OR over address families of the AND of `sides` over that
        family (an external end: only the pod's side filters, so `sides` is that one)."""
        # side_block returns a new array each time: AND-ed and OR-ed into in place, so a streamed block holds
        # two blocks' memory at once, not three (at 100k pods a --port block is 64 MiB)
        out: np.ndarray | None = None
        for k in self.family_indexes:
            cell: np.ndarray | None = None
            for direction in sides:
                block = self.side_block(direction, src, dst, probe=probe, family=k)
                if cell is None:
                    cell = block
                else:
                    cell &= block
                del block
            assert cell is not None
            if k is None:  # the sides hold in every family: keep the pairs with a family in common
                mask = self.family_mask(None, src, dst)
                if mask is not None:
                    cell[~mask] = 0
            if out is None:
                out = cell
            else:
                out |= cell
        assert out is not None
        return out
