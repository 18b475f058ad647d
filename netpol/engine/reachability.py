"""The reachability engine: compiled rules as boxes over endpoints, read out a block at a time.

Endpoints of the engine ("eids") are the pod equivalence classes `0..C-1` followed by the external IP
atoms `C..C+A-1`. Every compiled rule is kept as what it *is*: one or more boxes `sources × destinations
→ port bits` (netpol/engine/boxes.py), ingress boxes on the destination's side, egress boxes on the
source's side. A connection needs both sides (NetworkPolicy is additive allow-lists on both ends), so a
block of the matrix is `ingress_block & egress_block`, each the OR of the boxes that cut the block (plus
"everything" for endpoints no policy isolates), with the admin tiers layered on top (engine/admin.py).

No class × class array is ever held: rows, columns or blocks of rows are computed when asked; exports
stream the matrix block by block. This module builds the engine and computes blocks; the parts with
other jobs are mixed in: the read-out of concrete endpoints and its pod-level exceptions
(engine/endpoints.py), the rules behind a verdict (engine/reasons.py), what-if masks over policies
(engine/whatif.py); the memory check is engine/capacity.py. `netpol.engine` re-exports their public
names, so callers import from here. See netpol/ENGINE.md for the data, the invariants and the cost of
each question.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import chain

import numpy as np

from netpol.engine.admin import admin_layer, admin_tiers
from netpol.engine.boxes import (
    Box,
    Eids,
    Selection,
    admin_boxes,
    box_bounds,
    canonical,
    or_box,
    policy_boxes,
)
from netpol.engine.capacity import (
    BLOCK_BYTES,
    CapacityError,
    available_memory,
    check_capacity,
    estimated_bytes,
)
from netpol.engine.cells import box_memberships, cell_box, cell_partition, eid_table
from netpol.engine.compile.admin import CompiledAdminRule, admin_blocks, admin_port_cuts, compile_admin
from netpol.engine.compile.ipspace import IPAtom, IPSpace
from netpol.engine.compile.networkpolicy import CompiledPolicy, compile_policy, port_cuts
from netpol.engine.compile.universe import Universe, selector_keys
from netpol.engine.endpoints import Endpoint, ReadOut
from netpol.engine.families import Families
from netpol.engine.options import EngineOptions
from netpol.engine.reasons import Reasons, unresolved_named_ports
from netpol.engine.whatif import WhatIf
from netpol.gcpause import gc_paused
from netpol.model.admin import peer_pod_selectors
from netpol.model.objects import AdminNetworkPolicy, Namespace, NetworkPolicy, Node, Pod
from netpol.model.vocab import Direction
from netpol.ports import PortAtoms

__all__ = [
    "BLOCK_BYTES",
    "Box",
    "CapacityError",
    "Endpoint",
    "EngineOptions",
    "Reachability",
    "available_memory",
    "estimated_bytes",
    "pod_label_keys",
    "unresolved_named_ports",
]


def pod_label_keys(policies: Sequence[NetworkPolicy], admin: Sequence[AdminNetworkPolicy]) -> frozenset[str]:
    """Every pod label key any pod selector mentions: other keys cannot tell pods apart."""
    keys: set[str] = set()
    for pol in policies:
        keys.update(selector_keys(pol.pod_selector))
        for rule in (*pol.ingress, *pol.egress):
            for peer in rule.peers:
                keys.update(selector_keys(peer.pod_selector))
    for anp in admin:
        keys.update(selector_keys(anp.subject_pods))
        for admin_rule in (*anp.ingress, *anp.egress):
            for admin_peer in admin_rule.peers:
                keys.update(k for sel in peer_pod_selectors(admin_peer) for k in selector_keys(sel))
    return frozenset(keys)


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
        policies: Sequence[NetworkPolicy],
        options: EngineOptions | None = None,
        admin_policies: Sequence[AdminNetworkPolicy] = (),
        nodes: Sequence[Node] = (),
    ) -> None:
        self.options = options = options or EngineOptions()
        admin = tuple(admin_policies)
        blocks = [
            p.ip_block
            for pol in policies
            for r in (*pol.ingress, *pol.egress)
            for p in r.peers
            if p.ip_block is not None
        ]
        blocks += admin_blocks(admin, tuple(nodes))
        self.ipspace = IPSpace(blocks, (ip for p in pods for ip in p.pod_ips))
        self.universe = u = Universe(pods, namespaces, self.ipspace, pod_label_keys(policies, admin))
        self.pods = u.pods
        masks = sum(1 + len(p.ingress) + len(p.egress) for p in policies) + sum(
            1 + len(a.ingress) + len(a.egress) for a in admin
        )
        check_capacity(len(self.pods), u.class_count, masks, available_memory())
        self.pod_index = {p.key: i for i, p in enumerate(self.pods)}
        self.ports = PortAtoms(port_cuts(policies, u) + admin_port_cuts(admin, u))
        self.policies: tuple[CompiledPolicy, ...] = tuple(
            compile_policy(p, u, self.ports, ipblock_matches_pods=options.ipblock_matches_pods) for p in policies
        )
        self.admin_rules: tuple[CompiledAdminRule, ...] = compile_admin(
            admin, u, self.ports, tuple(nodes), ipblock_matches_pods=options.ipblock_matches_pods
        )
        self.C = u.class_count
        self.A = len(self.ipspace.atoms)
        C = self.C
        # How many policies isolate each class per direction (a count, so one policy can be taken out).
        self._iso_count = {
            "ingress": np.zeros(C, dtype=np.int32),
            "egress": np.zeros(C, dtype=np.int32),
        }
        for cp in self.policies:
            if cp.policy.affects_ingress:
                self._iso_count["ingress"] += cp.selected
            if cp.policy.affects_egress:
                self._iso_count["egress"] += cp.selected
        self.isolated_ingress = self._iso_count["ingress"] > 0
        self.isolated_egress = self._iso_count["egress"] > 0
        boxes = {d: policy_boxes(u, self.ports, self.policies, d) for d in ("ingress", "egress")}
        admin_all = admin_boxes(u, self.ports, self.admin_rules)
        if options.collapse_classes:
            self.cell_of, self.cell_rep = cell_partition(
                C,
                chain(
                    box_memberships([*boxes["ingress"], *boxes["egress"], *admin_all], C),
                    (np.flatnonzero(cp.selected) for cp in self.policies),
                    (np.flatnonzero(has) for has in u.class_has_family),
                ),
            )
        else:
            self.cell_of, self.cell_rep = np.arange(C, dtype=np.int64), np.arange(C, dtype=np.int64)
        self.K = len(self.cell_rep)  # cell_rep: the first class of each cell
        self._cell_eid = eid_table(self.cell_of, self.K, self.A)
        self.pod_cell = self.cell_of[u.pod_class]
        # From here on boxes are over cell eids: cells 0..K-1, then the IP atoms K..K+A-1.
        self._boxes = {d: [cell_box(b, self._cell_eid) for b in bs] for d, bs in boxes.items()}
        self._admin = admin_tiers([cell_box(b, self._cell_eid) for b in admin_all])
        self._bounds = {d: box_bounds(bs) for d, bs in self._boxes.items()}
        self.init_families()
        host = [i for i, p in enumerate(self.pods) if p.host_network and p.node_name]
        self.host_pods = np.zeros(len(self.pods), dtype=bool)
        self.host_pods[host] = True
        node_names = sorted({p.node_name for p in self.pods if p.node_name})
        code = {name: k for k, name in enumerate(node_names)}
        self.pod_node = np.asarray([code.get(p.node_name, -1) for p in self.pods], dtype=np.int64)

    @property
    def atoms(self) -> list[IPAtom]:
        return self.ipspace.atoms

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

        With `probe` (protocol, port) and no admin tiers: (len(src), len(dst)) bool, that port only — an
        eighth of the memory traffic, for `--port` questions over the whole matrix.

        Ingress is decided at the destination (an external destination: nothing of ours filters, all
        bits); egress at the source. `without`: leave out policy number k; `only`: bool over policies,
        consider only those (both for what-if questions on the same classes and atoms). Unsorted or
        repeated eids are computed once each and gathered back; classes once per cell (engine/cells.py)."""
        asked_src, asked_dst = src, dst
        src, s_back = canonical(self.cell_eids(src))
        dst, d_back = canonical(self.cell_eids(dst))
        if probe is not None and not self.admin_rules:
            out = self._side_block(direction, src, dst, without, only, self.probe_bit(*probe), family)
        else:
            out = self._side_block(direction, src, dst, without, only, family=family)
            if probe is not None:
                w, bit = self.probe_bit(*probe)
                out = (out[..., w] & bit) != 0
        if s_back is not None:
            out = out[s_back]
        if d_back is not None:
            out = out[:, d_back]
        if family is not None:
            mask = self.family_mask(family, asked_src, asked_dst)
            if mask is not None:
                out[~mask] = 0
        return out

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
    ) -> np.ndarray:
        s, d = Selection(src), Selection(dst)  # cell eids
        C, W = self.K, self.ports.words  # owner eids below C are cells
        S, D = len(s.eids), len(d.eids)
        full: np.ndarray | bool = self.ports.all_bits if bit is None else True
        if without is not None or only is not None:
            iso = self.isolation(direction, without, only)[self.cell_rep]
        else:
            iso = self._iso_count[direction][self.cell_rep] > 0
        out: np.ndarray
        if direction == "ingress":
            owner_cls = d.eids < C
            open_ = ~owner_cls
            open_[owner_cls] = ~iso[d.eids[owner_cls]]
            if bit is None:  # one row built, then broadcast: a contiguous copy, not a masked scatter
                row = np.zeros((D, W), dtype=np.uint64)
                row[open_] = full
                out = np.broadcast_to(row, (S, D, W)).copy()
            else:
                out = np.broadcast_to(open_, (S, D)).copy()
        else:
            owner_cls = s.eids < C
            open_ = ~owner_cls
            open_[owner_cls] = ~iso[s.eids[owner_cls]]
            out = np.zeros((S, D, W), dtype=np.uint64) if bit is None else np.zeros((S, D), dtype=bool)
            out[open_] = full
        boxes = self._boxes[direction]
        bounds = self._bounds[direction]
        if boxes and len(s.eids) and len(d.eids):
            hit = (bounds[0] <= s.hi) & (bounds[1] >= s.lo) & (bounds[2] <= d.hi) & (bounds[3] >= d.lo)
            for i in np.flatnonzero(hit).tolist():
                box = boxes[i]
                if box.policy == without or (only is not None and not only[box.policy]):
                    continue
                if family is not None and box.family not in (None, family):
                    continue
                if bit is not None and not box.bits[bit[0]] & bit[1]:
                    continue
                rows = s.find(box.src)
                if rows.size:
                    or_box(out, rows, d.find(box.dst), box.bits if bit is None else full)
        if self.admin_rules:
            out = admin_layer(self._admin, direction, out, s, d, open_, C, family)
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
        """How many source rows of `width` eids fit in one streamed block."""
        width = self.eid_count if width is None else width
        return max(1, BLOCK_BYTES // max(1, width * self.ports.words * 8))

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
