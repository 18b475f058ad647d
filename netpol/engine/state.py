"""What every part of the engine may read of the compiled cluster: declarations only.

`Reachability` (netpol/engine/reachability.py) is assembled from parts with one job each (read-out, reasons,
what-if, families); this base declares for the type checker the attributes and block primitives those parts use,
so each part stays a small module and no part imports the engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from netpol.engine.boxes import Box, Eids
from netpol.engine.compile.ipspace import IPAtom, IPSpace
from netpol.engine.compile.universe import Universe
from netpol.engine.evaluate import TierRules
from netpol.engine.options import EngineOptions
from netpol.engine.tiers import CompileContext, CompiledPolicy, Tier
from netpol.model.objects import Pod
from netpol.model.vocab import Direction
from netpol.ports import PortAtoms


class EngineState:
    """The compiled cluster as the engine's parts see it (set by `Reachability.__init__`)."""

    C: int  # pod equivalence classes: eids 0..C-1
    A: int  # external IP atoms: eids C..C+A-1
    K: int  # cells, classes no rule tells apart (engine/cells.py): cell eids 0..K-1, then atoms K..K+A-1
    cell_of: np.ndarray  # cell of each class
    pod_cell: np.ndarray  # cell of each pod
    pods: tuple[Pod, ...]
    universe: Universe
    ipspace: IPSpace
    ports: PortAtoms
    options: EngineOptions
    context: CompileContext
    policies: tuple[CompiledPolicy, ...]  # in evaluation order: tiers by order, then precedence
    tiers: tuple[Tier, ...]  # the tiers some policy is in, in evaluation order
    host_pods: np.ndarray  # bool over pods
    pod_node: np.ndarray  # node code per pod, -1: unscheduled
    _tier_rules: dict[Direction, tuple[TierRules, ...]]
    cell_rep: np.ndarray  # a class of each cell
    _cell_eid: np.ndarray  # class eid → cell eid
    _iso_count: dict[tuple[Direction, int], np.ndarray]  # (direction, tier index) → policies isolating each class

    if TYPE_CHECKING:

        def init_families(self) -> None: ...

        def isolation_counts(self, policies: Sequence[CompiledPolicy]) -> dict[tuple[Direction, int], np.ndarray]: ...

        def tier_rules(self, boxes: Sequence[Box], direction: Direction) -> tuple[TierRules, ...]: ...

        @property
        def layered(self) -> bool: ...

        @property
        def isolated_ingress(self) -> np.ndarray: ...

        @property
        def isolated_egress(self) -> np.ndarray: ...

        @property
        def eid_count(self) -> int: ...

        @property
        def atoms(self) -> list[IPAtom]: ...

        def side_block(
            self,
            direction: Direction,
            src: Eids,
            dst: Eids,
            *,
            without: int | None = None,
            only: np.ndarray | None = None,
            probe: tuple[str, int] | None = None,
            family: int | None = None,
        ) -> np.ndarray: ...

        def pair_block(
            self,
            src: Eids,
            dst: Eids,
            *,
            probe: tuple[str, int] | None = None,
            sides: Sequence[Direction] = ("ingress", "egress"),
        ) -> np.ndarray: ...

        def family_mask(self, k: int | None, src: Eids, dst: Eids) -> np.ndarray | None: ...

        def family_sides(
            self,
            direction: Direction,
            src: Eids,
            dst: Eids,
            *,
            without: int | None = None,
            only: np.ndarray | None = None,
        ) -> list[np.ndarray]: ...

        @property
        def family_indexes(self) -> tuple[int | None, ...]: ...

        def cell_block(
            self, src: Eids, dst: Eids | None = None, probe: tuple[str, int] | None = None
        ) -> np.ndarray: ...

        def cell_classes(self, cells: Eids | None = None) -> np.ndarray: ...

        def class_block(
            self, src: Eids, dst: Eids | None = None, probe: tuple[str, int] | None = None
        ) -> np.ndarray: ...

        def block_rows(self, width: int | None = None) -> int: ...

        def filtered_block(self, src: Eids, dst: Eids, sides: Sequence[Direction] = ...) -> np.ndarray: ...

        def pod_class(self, pod: int) -> int: ...
