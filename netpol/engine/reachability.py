"""The reachability engine: compiled rules as boxes over endpoints, read out a block at a time.

Endpoints of the engine ("eids") are the pod equivalence classes `0..C-1` followed by the external IP
atoms `C..C+A-1`. Every policy kind is compiled into one tiered form (netpol/engine/tiers.py) and every
compiled rule is kept as what it *is*: one or more boxes `sources × destinations → port bits`
(netpol/engine/boxes.py), ingress boxes on the destination's side, egress boxes on the source's side. A side
of a block is the tiers' evaluation of the boxes that cut it (netpol/engine/evaluate.py); a connection needs
both sides, so a block of the matrix is `ingress_block & egress_block`.

No class × class array is ever held: rows, columns or blocks of rows are computed when asked; exports
stream the matrix block by block. This module builds the engine and computes blocks; the parts with
other jobs are mixed in: the read-out of concrete endpoints and its pod-level exceptions
(engine/endpoints.py), the rules behind a verdict (engine/reasons.py), what-if masks over policies
(engine/whatif.py); the memory check is engine/capacity.py.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence
from functools import cached_property
from itertools import chain

import netaddr
import numpy as np

from netpol.engine.boxes import Box, Eids, Selection, box_bounds, canonical, or_box, policy_boxes
from netpol.engine.capacity import (
    BLOCK_BYTES,
    available_memory,
    check_capacity,
)
from netpol.engine.cells import box_memberships, cell_box, cell_partition, eid_table
from netpol.engine.compile.ipspace import IPAtom, IPSpace
from netpol.engine.compile.universe import Universe
from netpol.engine.endpoints import ReadOut
from netpol.engine.evaluate import Hit, TierRules, box_hits, order_policies, walk
from netpol.engine.families import Families
from netpol.engine.options import EngineOptions
from netpol.engine.podclasses import PodClasses
from netpol.engine.reasons import Reasons
from netpol.engine.tiers import CompileContext, CompiledPolicy, PolicyCompiler, Tier
from netpol.engine.whatif import WhatIf
from netpol.gcpause import gc_paused
from netpol.model.objects import Namespace, Node, Pod, Service
from netpol.model.vocab import DIRECTIONS, Direction
from netpol.ports import PortAtoms


class Reachability(ReadOut, Reasons, WhatIf, Families):
    """The compiled cluster. Endpoints: pods (by index into `pods`) and external IP atoms."""

    # Compiling allocates hundreds of thousands of tuples and small arrays beside a heap of millions of loaded
    # objects: with the cyclic collector on, its full passes over that heap were half the CPU of analysing
    # 100k pods (3.8 s against 1.9 s). Nothing here makes reference cycles (netpol/gcpause.py).
    @gc_paused()
    def __init__(
        self,
        pods: Sequence[Pod],
        namespaces: Sequence[Namespace],
        compilers: Iterable[PolicyCompiler],
        options: EngineOptions | None = None,
        nodes: Sequence[Node] = (),
        services: Sequence[Service] = (),
        exclude: Collection[str] = (),
    ) -> None:
        """`exclude`: keys of compiled policies left out after compiling (a what-if reference for kinds whose compiled
        policies are parts of one object, e.g. Cilium's allow and deny parts)."""
        self.options = options = options or EngineOptions()
        compilers = list(compilers)
        nodes = tuple(nodes)
        blocks = [b for c in compilers for b in c.ip_blocks(nodes)]
        self.ipspace = IPSpace(blocks, (ip for p in pods for ip in p.pod_ips))
        keys = frozenset(k for c in compilers for k in c.label_keys())
        accounts = any(c.splits_by_service_account() for c in compilers)
        self.universe = u = Universe(pods, namespaces, self.ipspace, keys, accounts)
        self.pods = u.pods
        check_capacity(len(self.pods), u.class_count, sum(c.mask_count() for c in compilers), available_memory())
        self.pod_index = {p.key: i for i, p in enumerate(self.pods)}
        self.ports = PortAtoms([cut for c in compilers for cut in c.port_cuts(u)])
        self.context = ctx = CompileContext(u, self.ports, options, nodes, tuple(services))
        self.policies: tuple[CompiledPolicy, ...] = order_policies(
            p for c in compilers for p in c.compile(ctx) if p.key not in exclude
        )
        self.tiers: tuple[Tier, ...] = tuple(
            sorted({p.tier for p in self.policies}, key=lambda t: (t.order, t.name))
        )
        self.C = u.class_count
        self.A = len(self.ipspace.atoms)
        self._iso_count = self.isolation_counts(self.policies)
        boxes = {d: policy_boxes(u, self.ports, self.policies, d) for d in DIRECTIONS}
        if options.collapse_classes:
            self.cell_of, self.cell_rep = cell_partition(
                self.C,
                chain(
                    box_memberships([*boxes["ingress"], *boxes["egress"]], self.C),
                    (np.flatnonzero(cp.selected) for cp in self.policies),
                    (np.flatnonzero(has) for has in u.class_has_family),
                ),
            )
        else:
            self.cell_of, self.cell_rep = np.arange(self.C, dtype=np.int64), np.arange(self.C, dtype=np.int64)
        self.K = len(self.cell_rep)  # cell_rep: the first class of each cell
        self._cell_eid = eid_table(self.cell_of, self.K, self.A)
        self.pod_cell = self.cell_of[u.pod_class]
        # From here on boxes are over cell eids: cells 0..K-1, then the IP atoms K..K+A-1.
        self._tier_rules = {d: self.tier_rules([cell_box(b, self._cell_eid) for b in bs], d) for d, bs in boxes.items()}
        self.init_families()
        host = [i for i, p in enumerate(self.pods) if p.host_network and p.node_name]
        self.host_pods = np.zeros(len(self.pods), dtype=bool)
        self.host_pods[host] = True
        node_names = sorted({p.node_name for p in self.pods if p.node_name})
        code = {name: k for k, name in enumerate(node_names)}
        self.pod_node = np.asarray([code.get(p.node_name, -1) for p in self.pods], dtype=np.int64)

    def isolation_counts(self, policies: Sequence[CompiledPolicy]) -> dict[tuple[Direction, int], np.ndarray]:
        """Per (direction, tier index) of a tier ending in Deny, how many policies isolate each class (a count,
        so one policy can be taken out)."""
        index = {t: i for i, t in enumerate(self.tiers)}
        out: dict[tuple[Direction, int], np.ndarray] = {}
        for cp in policies:
            if cp.tier.end != "Deny":
                continue
            for d in cp.isolates:
                key = (d, index[cp.tier])
                got = out.get(key)
                if got is None:
                    got = out[key] = np.zeros(self.C, dtype=np.int32)
                got += cp.selected
        return out

    def tier_rules(self, boxes: Sequence[Box], direction: Direction) -> tuple[TierRules, ...]:
        """Boxes of one direction (in evaluation order) grouped by tier, every tier present (one with no box may
        still isolate)."""
        by_tier: list[list[Box]] = [[] for _ in self.tiers]
        index = {t: i for i, t in enumerate(self.tiers)}
        for b in boxes:
            by_tier[index[self.policies[b.policy].tier]].append(b)
        out = []
        for i, tier in enumerate(self.tiers):
            union = all(r.action == "Allow" for p in self.policies if p.tier == tier for r in p.rules(direction))
            out.append(TierRules(tier, i, tuple(by_tier[i]), box_bounds(by_tier[i]), union))
        return tuple(out)

    @property
    def isolated_ingress(self) -> np.ndarray:
        """Bool over classes: some tier ending in Deny isolates the class's ingress (all policies kept)."""
        return self.isolated("ingress")

    @property
    def isolated_egress(self) -> np.ndarray:
        return self.isolated("egress")

    def isolated(self, direction: Direction) -> np.ndarray:
        """Bool over classes (shared: read, never write): `isolation` with every policy kept, which is computed
        once per direction (who-can-reach asks it once per peer class)."""
        return self.isolation(direction)

    @property
    def layered(self) -> bool:
        """More than one union tier of allow-lists: blocks are computed by the general tier walk."""
        return any(not self._single_union(d) for d in DIRECTIONS)

    def _single_union(self, direction: Direction) -> bool:
        trs = self._tier_rules[direction]
        return len(trs) == 0 or (len(trs) == 1 and trs[0].union and trs[0].tier.end == "Deny")

    @property
    def atoms(self) -> list[IPAtom]:
        return self.ipspace.atoms

    @property
    def pod_classes(self) -> PodClasses:
        """The pods' equivalence classes, read-only: the one view of the universe outside the engine reads."""
        return self.universe

    def atom_index(self, ip: netaddr.IPAddress | str) -> int:
        """The external IP atom holding `ip` (KeyError: no pod or policy uses its family)."""
        return self.ipspace.atom_index(ip)

    def pod_class(self, pod: int) -> int:
        return int(self.universe.pod_class[pod])

    def probe_bit(self, protocol: str, port: int) -> tuple[int, np.uint64]:
        """(word, bit) of the port atom holding this one port."""
        k = self.ports.atom_of(protocol, port)
        return k >> 6, np.uint64(1) << np.uint64(k & 63)

    # ------------------------------------------------------------------------------------------ blocks

    @property
    def eid_count(self) -> int:
        return self.C + self.A

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
    ) -> np.ndarray:
        """(len(src), len(dst), W) port bits one side lets through between these eids (sorted).

        `family` (index into Universe.families): over that address family only — the boxes of that family
        and of every family, zero where an end has no address of it; None: every box, unmasked (exact for
        clusters whose boxes all hold in every family, `family_split` False).

        With `probe` (protocol, port): (len(src), len(dst)) bool, that port only — an eighth of the memory
        traffic, for `--port` questions over the whole matrix.

        Ingress is decided at the destination (an external destination: nothing of ours filters, all
        bits); egress at the source. `without`: leave out policy number k; `only`: bool over policies,
        consider only those (both for what-if questions on the same classes and atoms). Unsorted or
        repeated eids are computed once each and gathered back; classes once per cell (engine/cells.py)."""
        asked_src, asked_dst = src, dst
        src, s_back = canonical(self.cell_eids(src))
        dst, d_back = canonical(self.cell_eids(dst))
        bit = self.probe_bit(*probe) if probe is not None else None
        out = self._side_block(direction, src, dst, without, only, bit, family)
        if s_back is not None:
            out = out[s_back]
        if d_back is not None:
            out = out[:, d_back]
        if family is not None:
            mask = self.family_mask(family, asked_src, asked_dst)
            if mask is not None:
                out[~mask] = 0
        return out

    @cached_property
    def has_l7(self) -> bool:
        """Some rule allows only through a layer-7 filter (Cilium's L7 rules). Cached: `filtered_block` asks it on
        every call, and a scan of every rule is a millisecond at 2,000 policies (per policy list: `edited` drops
        it)."""
        return any(r.l7 for cp in self.policies for r in (*cp.ingress, *cp.egress))

    def filtered_block(self, src: Eids, dst: Eids, sides: Sequence[Direction] = DIRECTIONS) -> np.ndarray:
        """(len(src), len(dst), W): of the ports src may open towards dst (the matrix's), those some side lets
        through only with a layer-7 filter (an allow from an L7 rule, no plain allow of the same port)."""
        allowed = self.pair_block(src, dst, sides=sides)
        if not self.has_l7:
            return np.zeros_like(allowed)
        either = np.zeros_like(allowed)
        for direction in sides:
            s, s_back = canonical(self.cell_eids(src))
            d, d_back = canonical(self.cell_eids(dst))
            got = np.zeros((len(s), len(d), self.ports.words), dtype=np.uint64)
            self._side_block(direction, s, d, None, None, filtered=got)
            if s_back is not None:
                got = got[s_back]
            if d_back is not None:
                got = got[:, d_back]
            either |= got
        return allowed & either

    def cell_eids(self, eids: Eids) -> np.ndarray:
        """Class eids (classes, then atoms) → cell eids (cells, then atoms), in the same order."""
        if isinstance(eids, range):
            return self._cell_eid[eids.start : eids.stop : eids.step]
        return self._cell_eid[np.asarray(eids, dtype=np.int64)]

    def _side_block(
        self,
        direction: Direction,
        src: np.ndarray | range,
        dst: np.ndarray | range,
        without: int | None,
        only: np.ndarray | None,
        bit: tuple[int, np.uint64] | None = None,
        family: int | None = None,
        filtered: np.ndarray | None = None,
    ) -> np.ndarray:
        s, d = Selection(src), Selection(dst)  # cell eids
        K = self.K  # owner eids below K are cells; the rest are IP atoms, which no policy of ours owns
        owner = d if direction == "ingress" else s
        owner_cls = owner.eids < K
        full: np.ndarray | bool = self.ports.all_bits if bit is None else True
        trs = self._tier_rules[direction]

        def isolated(tr: TierRules) -> np.ndarray | None:
            iso = self.isolation(direction, without, only, tier=tr.index)
            if iso is None:
                return None
            out = np.zeros(len(owner.eids), dtype=bool)
            out[owner_cls] = iso[self.cell_rep][owner.eids[owner_cls]]
            return out

        def keep(box: Box) -> bool:
            if box.policy == without or (only is not None and not only[box.policy]):
                return False
            return family is None or box.family in (None, family)

        def hits(tr: TierRules) -> Iterable[Hit]:
            if not tr.boxes or not len(s.eids) or not len(d.eids):
                return ()
            b = tr.bounds
            meet = (b[0] <= s.hi) & (b[1] >= s.lo) & (b[2] <= d.hi) & (b[3] >= d.lo)
            return box_hits(tr, s.find, d.find, meet, keep, bit)

        S, D = len(s.eids), len(d.eids)
        if filtered is not None or not self._single_union(direction):
            return walk(direction, trs, hits, isolated, (S, D), full, filtered=filtered)
        # The fast path (NetworkPolicies alone, or no policy): owners no policy isolates get every port, the
        # others the OR of the boxes — `walk` over one union tier ending in Deny, without its bookkeeping.
        iso = isolated(trs[0]) if trs else None
        open_ = ~iso if iso is not None else np.ones(len(owner.eids), dtype=bool)
        out: np.ndarray
        if direction == "ingress":
            if bit is None:  # one row built, then broadcast: a contiguous copy, not a masked scatter
                row = np.zeros((D, self.ports.words), dtype=np.uint64)
                row[open_] = full
                out = np.broadcast_to(row, (S, D, self.ports.words)).copy()
            else:
                out = np.broadcast_to(open_, (S, D)).copy()
        else:
            out = np.zeros((S, D, self.ports.words), dtype=np.uint64) if bit is None else np.zeros((S, D), dtype=bool)
            out[open_] = full
        if trs:
            for h in hits(trs[0]):
                or_box(out, h.rows, h.cols, h.bits)
        return out

    def class_block(
        self,
        src: Eids,
        dst: Eids | None = None,
        probe: tuple[str, int] | None = None,
    ) -> np.ndarray:
        """Class-to-class port bits for these source classes (rows) and destination classes (default all);
        with `probe`, bool: that one port allowed. Both sides over one address family, for some family both
        classes have (netpol/engine/families.py)."""
        dst = range(self.C) if dst is None else dst
        return self.pair_block(src, dst, probe=probe)

    def block_rows(self, width: int | None = None) -> int:
        """How many source rows of `width` eids fit in one streamed block. The tier walk holds four arrays of a
        block's size (allowed, decided, a tier's own, first-match bookkeeping) where the NetworkPolicy-only path
        holds one: its blocks are a quarter as tall, so a side stays within BLOCK_BYTES."""
        width = self.eid_count if width is None else width
        arrays = 4 if self.layered else 1
        return max(1, BLOCK_BYTES // max(1, width * self.ports.words * 8 * arrays))

    def ext_ingress_block(self, atoms: Sequence[int] | np.ndarray, dst_classes: Eids | None = None) -> np.ndarray:
        """(atoms, classes): what external atoms may open towards classes (only the ingress side filters)."""
        dst = range(self.C) if dst_classes is None else dst_classes
        return self.pair_block(np.asarray(atoms, dtype=np.int64) + self.C, dst, sides=("ingress",))

    def ext_egress_block(self, src_classes: Eids, atoms: Sequence[int] | np.ndarray | None = None) -> np.ndarray:
        """(classes, atoms): what classes may open towards external atoms (only the egress side filters)."""
        a = range(self.C, self.C + self.A) if atoms is None else np.asarray(atoms, dtype=np.int64) + self.C
        return self.pair_block(src_classes, a, sides=("egress",))

    def stream_class_blocks(self, probe: tuple[str, int] | None = None) -> Iterator[tuple[int, np.ndarray]]:
        """(first class, block) over every class row, each block `block_rows()` rows of the class matrix
        (with `probe`: bool blocks of that port, eight times as many rows per block)."""
        step = self.block_rows(self.C) * (8 if probe is not None else 1)
        for lo in range(0, self.C, step):
            yield lo, self.class_block(range(lo, min(self.C, lo + step)), probe=probe)

    def cell_block(self, src: Eids, dst: Eids | None = None, probe: tuple[str, int] | None = None) -> np.ndarray:
        """`class_block` over cells (`0..K-1`): the block of the cells' first classes (every class of a cell
        has the same row and column), each computed once."""
        return self.class_block(self.cell_classes(src), self.cell_classes(dst), probe)

    def cell_classes(self, cells: Eids | None = None) -> np.ndarray:
        """The first class of each of these cells (default: every cell), to ask class questions per cell."""
        rep = self.cell_rep
        if cells is None:
            return rep
        return rep[cells.start : cells.stop : cells.step] if isinstance(cells, range) else rep[np.asarray(cells)]

    def stream_cell_blocks(self, probe: tuple[str, int] | None = None) -> Iterator[tuple[int, np.ndarray]]:
        """`stream_class_blocks` over cells: (first cell, block of cell rows × every cell)."""
        step = self.block_rows(self.K) * (8 if probe is not None else 1)
        for lo in range(0, self.K, step):
            yield lo, self.cell_block(range(lo, min(self.K, lo + step)), probe=probe)
