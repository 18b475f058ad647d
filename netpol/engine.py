"""The reachability engine: compiled rules as boxes over endpoints, read out a block at a time.

Endpoints of the engine ("eids") are the pod equivalence classes `0..C-1` followed by the external IP
atoms `C..C+A-1`. Every compiled rule is kept as what it *is*: one or more boxes `sources × destinations
→ port bits` (sorted eid arrays and a port-atom bit vector), ingress boxes on the destination's side,
egress boxes on the source's side. A connection needs both sides (NetworkPolicy is additive allow-lists
on both ends), so a block of the matrix is `ingress_block & egress_block`, each the OR of the boxes that
cut the block (plus "everything" for endpoints no policy isolates), with the admin tiers layered on top.

No class × class array is ever held: rows, columns or blocks of rows are computed when asked (a question
about one pod touches one row or one column); exports stream the matrix block by block. Pod-level
exceptions — loopback and node-local traffic — live in one place, `Reachability.endpoint_bits` and
`node_local_mask`. See netpol/ENGINE.md for the data, the invariants and the cost of each question.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from netpol.compile.admin import CompiledAdminRule, admin_blocks, admin_port_cuts, compile_admin
from netpol.compile.ipspace import IPAtom, IPSpace
from netpol.compile.policies import CompiledPolicy, CompiledRule, compile_policy, port_cuts
from netpol.compile.universe import Universe, selector_keys
from netpol.errors import NetpolError
from netpol.model.admin import peer_pod_selectors
from netpol.model.objects import AdminNetworkPolicy, Namespace, NetworkPolicy, Node, Pod
from netpol.ports import ConnectionSet, PortAtoms

# Bytes one streamed block may take (per side); blocks of rows are sized to it.
BLOCK_BYTES = 64 << 20


class CapacityError(NetpolError):
    """The cluster's compiled form cannot fit in this machine's memory (exit 2, with the figures)."""


def available_memory() -> int | None:
    """Bytes this process may still allocate: MemAvailable, capped by RLIMIT_AS (None: unknown)."""
    avail = None
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    avail = int(line.split()[1]) * 1024
                    break
    except OSError:
        pass
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft != resource.RLIM_INFINITY:
            with open("/proc/self/statm") as f:
                used = int(f.read().split()[0]) * resource.getpagesize()
            avail = min(avail if avail is not None else soft, soft - used)
    except (ImportError, OSError, ValueError):
        pass
    return avail


def estimated_bytes(pods: int, classes: int, masks: int, words: int = 1) -> int:
    """What the engine holds: one bool mask over classes per policy and per rule, the per-pod tables, and up to
    three streamed blocks of ~BLOCK_BYTES per side (netpol/ENGINE.md)."""
    return masks * classes + pods * 2048 + 6 * BLOCK_BYTES + classes * 64 * words


def check_capacity(pods: int, classes: int, masks: int) -> None:
    need = estimated_bytes(pods, classes, masks)
    have = available_memory()
    if have is not None and need > have:
        gib = 1 << 30
        raise CapacityError(
            f"this cluster cannot fit in memory here: {pods:,} pods in {classes:,} equivalence classes, "
            f"{masks:,} policies and rules; the engine needs about {need / gib:.1f} GiB and "
            f"{max(have, 0) / gib:.1f} GiB is available"
        )


@dataclass(frozen=True, slots=True)
class EngineOptions:
    # The upstream e2e suite expects ipBlock to match pod IPs; some CNIs (those that SNAT or evaluate
    # ipBlock only for cluster-external traffic) differ. Default: upstream behaviour.
    ipblock_matches_pods: bool = True


@dataclass(frozen=True, slots=True)
class Endpoint:
    """One concrete endpoint: a running pod (index into `Reachability.pods`) or an external IP atom."""

    pod: int | None = None
    atom: int | None = None

    def name(self, r: Reachability) -> str:
        return r.pods[self.pod].key if self.pod is not None else r.atoms[self.atom].render()  # type: ignore[index]


@dataclass(frozen=True, slots=True, eq=False)
class Box:
    """Every (source, destination) endpoint pair in `src × dst` gets `bits` from `rule` (eids, sorted)."""

    src: np.ndarray
    dst: np.ndarray
    bits: np.ndarray
    rule: CompiledRule | CompiledAdminRule
    policy: int  # index into Reachability.policies (-1 for admin rules)


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


def _positions(idx: np.ndarray, sel: np.ndarray, lo: int, contiguous: bool) -> np.ndarray:
    """Positions in the sorted eid array `sel` of the members of the sorted eid array `idx`."""
    if contiguous:
        a, b = np.searchsorted(idx, (lo, lo + len(sel)))
        return idx[a:b] - lo
    if not len(idx) or not len(sel):
        return idx[:0]
    if len(sel) <= len(idx):
        at = np.minimum(np.searchsorted(idx, sel), len(idx) - 1)
        return np.flatnonzero(idx[at] == sel)
    at = np.minimum(np.searchsorted(sel, idx), len(sel) - 1)
    return at[sel[at] == idx]


def _or_box(out: np.ndarray, rows: np.ndarray, cols: np.ndarray, bits: np.ndarray) -> None:
    if not rows.size or not cols.size:
        return
    if rows[-1] - rows[0] + 1 == rows.size:
        r: slice | np.ndarray = slice(int(rows[0]), int(rows[-1]) + 1)
        if cols[-1] - cols[0] + 1 == cols.size:
            out[r, int(cols[0]) : int(cols[-1]) + 1] |= bits
        else:
            out[r, cols] |= bits
        return
    out[np.ix_(rows, cols)] |= bits


def _canonical(eids: np.ndarray | range | Sequence[int]) -> tuple[np.ndarray | range, np.ndarray | None]:
    """(sorted unique eids, positions to gather the asked order back, or None when already sorted)."""
    if isinstance(eids, range) and eids.step == 1:
        return eids, None
    arr = np.asarray(eids, dtype=np.int64).ravel()
    if arr.size <= 1 or bool(np.all(arr[1:] > arr[:-1])):
        return arr, None
    uniq, back = np.unique(arr, return_inverse=True)
    return uniq, back.ravel()


class _Sel:
    """A sorted eid selection, with its bounds (contiguous selections are sliced, not searched)."""

    __slots__ = ("eids", "lo", "hi", "contiguous")

    def __init__(self, eids: np.ndarray | range | Sequence[int]) -> None:
        if isinstance(eids, range) and eids.step == 1:
            self.eids = np.arange(eids.start, eids.stop, dtype=np.int64)
        else:
            self.eids = np.asarray(eids, dtype=np.int64)
        n = len(self.eids)
        self.lo = int(self.eids[0]) if n else 0
        self.hi = int(self.eids[-1]) if n else -1
        self.contiguous = n > 0 and self.hi - self.lo + 1 == n

    def find(self, idx: np.ndarray) -> np.ndarray:
        return _positions(idx, self.eids, self.lo, self.contiguous)


class Reachability:
    """The compiled cluster. Endpoints: pods (by index into `pods`) and external IP atoms."""

    def __init__(
        self,
        pods: Sequence[Pod],
        namespaces: Sequence[Namespace],
        policies: Sequence[NetworkPolicy],
        options: EngineOptions = EngineOptions(),
        admin_policies: Sequence[AdminNetworkPolicy] = (),
        nodes: Sequence[Node] = (),
    ) -> None:
        self.options = options
        admin = tuple(admin_policies)
        blocks = [
            p.ip_block
            for pol in policies
            for r in (*pol.ingress, *pol.egress)
            for p in r.peers
            if p.ip_block is not None
        ]
        blocks += admin_blocks(admin, tuple(nodes))
        self.ipspace = IPSpace(blocks, (p.pod_ip for p in pods if p.pod_ip))
        self.universe = u = Universe(pods, namespaces, self.ipspace, pod_label_keys(policies, admin))
        self.pods = u.pods
        masks = sum(1 + len(p.ingress) + len(p.egress) for p in policies) + sum(
            1 + len(a.ingress) + len(a.egress) for a in admin
        )
        check_capacity(len(self.pods), u.class_count, masks)
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
        self._boxes = {"ingress": self._np_boxes("ingress"), "egress": self._np_boxes("egress")}
        self._admin = {
            (d, baseline): [
                b for b in self._admin_boxes() if b.rule.direction == d and b.rule.policy.baseline == baseline
            ]
            for d in ("ingress", "egress")
            for baseline in (False, True)
        }
        self._bounds = {d: self._box_bounds(boxes) for d, boxes in self._boxes.items()}
        host = [i for i, p in enumerate(self.pods) if p.host_network and p.node_name]
        self.host_pods = np.zeros(len(self.pods), dtype=bool)
        self.host_pods[host] = True
        node_names = sorted({p.node_name for p in self.pods if p.node_name})
        code = {name: k for k, name in enumerate(node_names)}
        self.pod_node = np.asarray([code.get(p.node_name, -1) for p in self.pods], dtype=np.int64)

    # ------------------------------------------------------------------------------------------ compile

    def _groups(
        self, rule: CompiledRule | CompiledAdminRule, classes: np.ndarray
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """(bits, classes) groups of `classes` by the port bits the rule gives towards each of them."""
        if not rule.named:
            yield rule.static_bits, classes
            return
        groups: dict[bytes, tuple[np.ndarray, list[int]]] = {}
        by_ports: dict[tuple[tuple[str, str, int], ...], tuple[bytes, np.ndarray]] = {}
        classes_ = self.universe.classes
        for c in classes.tolist():
            named = classes_[c].named_ports  # names resolve on the class's port map only
            hit = by_ports.get(named)
            if hit is None:
                bits = rule.bits_for(self.universe, self.ports, c)
                hit = by_ports[named] = (bits.tobytes(), bits)
            groups.setdefault(hit[0], (hit[1], []))[1].append(c)
        for bits, members in groups.values():
            if bits.any():
                yield bits, np.asarray(members, dtype=np.int64)

    def _rule_boxes(
        self, direction: str, rule: CompiledRule | CompiledAdminRule, owner: np.ndarray, k: int
    ) -> Iterator[Box]:
        C = self.C
        owner_e = np.flatnonzero(owner).astype(np.int64)
        peer_c = np.flatnonzero(rule.peer_classes).astype(np.int64)
        peer_a = C + np.flatnonzero(rule.peer_atoms).astype(np.int64)
        if not owner_e.size:
            return
        if direction == "ingress":  # names resolve on the destination: the owner
            peers = np.concatenate([peer_c, peer_a])
            if peers.size:
                for bits, grp in self._groups(rule, owner_e):
                    yield Box(peers, grp, bits, rule, k)
        else:  # names resolve on the peer; never on external addresses
            for bits, grp in self._groups(rule, peer_c):
                if grp.size:
                    yield Box(owner_e, grp, bits, rule, k)
            if peer_a.size and rule.static_bits.any():
                yield Box(owner_e, peer_a, rule.static_bits, rule, k)

    def _np_boxes(self, direction: str) -> list[Box]:
        out = []
        for k, cp in enumerate(self.policies):
            for rule in cp.ingress if direction == "ingress" else cp.egress:
                out.extend(self._rule_boxes(direction, rule, cp.selected, k))
        return out

    def _admin_boxes(self) -> list[Box]:
        out = []
        for rule in self.admin_rules:
            out.extend(self._rule_boxes(rule.direction, rule, rule.subject, -1))
        return out

    @staticmethod
    def _box_bounds(boxes: list[Box]) -> np.ndarray:
        """(4, boxes): min/max source eid, min/max destination eid, to skip boxes a block misses."""
        if not boxes:
            return np.zeros((4, 0), dtype=np.int64)
        return np.array([[b.src[0], b.src[-1], b.dst[0], b.dst[-1]] for b in boxes], dtype=np.int64).T

    # ------------------------------------------------------------------------------------------ blocks

    @property
    def eid_count(self) -> int:
        return self.C + self.A

    def side_block(
        self,
        direction: str,
        src: np.ndarray | range | Sequence[int],
        dst: np.ndarray | range | Sequence[int],
        *,
        without: int | None = None,
        only: np.ndarray | None = None,
        probe: tuple[str, int] | None = None,
    ) -> np.ndarray:
        """(len(src), len(dst), W) port bits one side lets through between these eids (sorted).

        With `probe` (protocol, port) and no admin tiers: (len(src), len(dst)) bool, that port only — an
        eighth of the memory traffic, for `--port` questions over the whole matrix.

        Ingress is decided at the destination (an external destination: nothing of ours filters, all
        bits); egress at the source. `without`: leave out policy number k; `only`: bool over policies,
        consider only those (both for what-if questions on the same classes and atoms). Unsorted or
        repeated eids are computed once each and gathered back."""
        src, s_back = _canonical(src)
        dst, d_back = _canonical(dst)
        if probe is not None and not self.admin_rules:
            out = self._side_block(direction, src, dst, without, only, self.probe_bit(*probe))
        else:
            out = self._side_block(direction, src, dst, without, only)
            if probe is not None:
                w, bit = self.probe_bit(*probe)
                out = (out[..., w] & bit) != 0
        if s_back is not None:
            out = out[s_back]
        if d_back is not None:
            out = out[:, d_back]
        return out

    def _side_block(
        self,
        direction: str,
        src: np.ndarray | range,
        dst: np.ndarray | range,
        without: int | None,
        only: np.ndarray | None,
        bit: tuple[int, np.uint64] | None = None,
    ) -> np.ndarray:
        s, d = _Sel(src), _Sel(dst)
        C, W = self.C, self.ports.words
        S, D = len(s.eids), len(d.eids)
        full: np.ndarray | bool = self.ports.all_bits if bit is None else True
        iso = self._iso_count[direction]
        if without is not None or only is not None:
            iso = self._isolation(direction, without, only)
        else:
            iso = iso > 0
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
                if bit is not None and not box.bits[bit[0]] & bit[1]:
                    continue
                rows = s.find(box.src)
                if rows.size:
                    _or_box(out, rows, d.find(box.dst), box.bits if bit is None else full)
        if self.admin_rules:
            out = self._admin_layer(direction, out, s, d, open_)
        return out

    def _isolation(self, direction: str, without: int | None, only: np.ndarray | None) -> np.ndarray:
        count = np.zeros(self.C, dtype=np.int32)
        for k, cp in enumerate(self.policies):
            if k == without or (only is not None and not only[k]):
                continue
            if cp.policy.affects_ingress if direction == "ingress" else cp.policy.affects_egress:
                count += cp.selected
        return count > 0

    def _admin_layer(self, direction: str, np_block: np.ndarray, s: _Sel, d: _Sel, open_: np.ndarray) -> np.ndarray:
        """ANP tier above and BANP tier below the NetworkPolicy result (first match wins, per port)."""
        tiers = {}
        for baseline in (False, True):
            allow = np.zeros_like(np_block)
            deny = np.zeros_like(np_block)
            decided = np.zeros_like(np_block)
            for box in self._admin[(direction, baseline)]:
                rows, cols = s.find(box.src), d.find(box.dst)
                if not rows.size or not cols.size:
                    continue
                ix = np.ix_(rows, cols)
                before = decided[ix]
                fresh = box.bits & ~before
                action = box.rule.action
                if action == "Allow":
                    allow[ix] |= fresh
                elif action == "Deny":
                    deny[ix] |= fresh
                decided[ix] = before | box.bits
            tiers[baseline] = (allow, deny)
        anp_allow, anp_deny = tiers[False]
        _, banp_deny = tiers[True]
        base = np_block.copy()
        # Endpoints no NetworkPolicy isolates fall to the baseline tier: allowed unless the BANP denies.
        C = self.C
        if direction == "ingress":
            subj = open_ & (d.eids < C)
            base[:, subj] &= ~banp_deny[:, subj]
        else:
            subj = open_ & (s.eids < C)
            base[subj] &= ~banp_deny[subj]
        return anp_allow | (~(anp_allow | anp_deny) & base)

    def class_block(
        self,
        src: np.ndarray | range | Sequence[int],
        dst: np.ndarray | range | Sequence[int] | None = None,
        probe: tuple[str, int] | None = None,
    ) -> np.ndarray:
        """Class-to-class port bits for these source classes (rows) and destination classes (default all);
        with `probe`, bool: that one port allowed."""
        dst = range(self.C) if dst is None else dst
        return self.side_block("ingress", src, dst, probe=probe) & self.side_block("egress", src, dst, probe=probe)

    def block_rows(self, width: int | None = None) -> int:
        """How many source rows of `width` eids fit in one streamed block."""
        width = self.eid_count if width is None else width
        return max(1, BLOCK_BYTES // max(1, width * self.ports.words * 8))

    def ext_ingress_block(
        self, atoms: Sequence[int] | np.ndarray, dst_classes: np.ndarray | range | Sequence[int] | None = None
    ) -> np.ndarray:
        """(atoms, classes): what external atoms may open towards classes (only the ingress side filters)."""
        dst = range(self.C) if dst_classes is None else dst_classes
        return self.side_block("ingress", np.asarray(atoms, dtype=np.int64) + self.C, dst)

    def ext_egress_block(
        self, src_classes: np.ndarray | range | Sequence[int], atoms: Sequence[int] | np.ndarray | None = None
    ) -> np.ndarray:
        """(classes, atoms): what classes may open towards external atoms (only the egress side filters)."""
        a = range(self.C, self.C + self.A) if atoms is None else np.asarray(atoms, dtype=np.int64) + self.C
        return self.side_block("egress", src_classes, a)

    def stream_class_blocks(self, probe: tuple[str, int] | None = None) -> Iterator[tuple[int, np.ndarray]]:
        """(first class, block) over every class row, each block `block_rows()` rows of the class matrix
        (with `probe`: bool blocks of that port, eight times as many rows per block)."""
        step = self.block_rows(self.C) * (8 if probe is not None else 1)
        for lo in range(0, self.C, step):
            yield lo, self.class_block(range(lo, min(self.C, lo + step)), probe=probe)

    # ------------------------------------------------------------------------------------------ what-if

    def changes_without(self, policy: NetworkPolicy) -> bool:
        """Would removing `policy` change any connection (pods and external ranges)?

        Recomputed on this engine's own classes, IP atoms and port atoms — a refinement valid for any
        subset of the policies — so the answer is a plain array comparison. A NetworkPolicy only shapes
        the ingress of the classes it selects and the egress of the same classes, so without admin tiers
        only those columns and rows are recomputed (from the policies that select some of them)."""
        k = next(k for k, cp in enumerate(self.policies) if cp.policy is policy)
        E = self.eid_count
        if self.admin_rules:
            step = self.block_rows(E)
            for direction in ("ingress", "egress"):
                for lo in range(0, E, step):
                    rows = range(lo, min(E, lo + step))
                    a = self.side_block(direction, rows, range(E))
                    b = self.side_block(direction, rows, range(E), without=k)
                    if not np.array_equal(a, b):
                        return True
            return False
        chosen = np.flatnonzero(self.policies[k].selected)
        if not chosen.size:
            return False
        only = self._selection[:, chosen].any(axis=1)
        everyone = range(E)
        without = only.copy()
        without[k] = False
        if policy.affects_ingress and not np.array_equal(
            self.side_block("ingress", everyone, chosen, only=only),
            self.side_block("ingress", everyone, chosen, only=without),
        ):
            return True
        return bool(policy.affects_egress) and not np.array_equal(
            self.side_block("egress", chosen, everyone, only=only),
            self.side_block("egress", chosen, everyone, only=without),
        )

    @cached_property
    def _selection(self) -> np.ndarray:
        """(policies, classes): which classes each NetworkPolicy selects."""
        if not self.policies:
            return np.zeros((0, self.C), dtype=bool)
        return np.stack([cp.selected for cp in self.policies])

    # ------------------------------------------------------------------------------------------ read out

    @property
    def atoms(self) -> list[IPAtom]:
        return self.ipspace.atoms

    def pod_class(self, pod: int) -> int:
        return int(self.universe.pod_class[pod])

    def eid(self, ep: Endpoint) -> int:
        return self.pod_class(ep.pod) if ep.pod is not None else self.C + int(ep.atom)  # type: ignore[arg-type]

    def node_local(self, src: int, dst: int) -> bool:
        """Traffic between a pod and its own node: "traffic to and from the node where a Pod is running is
        always allowed" (concepts/services-networking/network-policies). A hostNetwork pod speaks with
        its node's address, so a hostNetwork pod and any pod of its node reach each other, both ways."""
        n = self.pod_node
        return bool(n[src] >= 0 and n[src] == n[dst] and (self.host_pods[src] or self.host_pods[dst]))

    def node_local_mask(self, pod: int) -> np.ndarray:
        """Bool over pods: the pods `pod` exchanges node-local traffic with (either direction; symmetric)."""
        n = self.pod_node
        if n[pod] < 0:
            return np.zeros(len(self.pods), dtype=bool)
        same = n == n[pod]
        return same if self.host_pods[pod] else same & self.host_pods

    def endpoint_bits(self, src: Endpoint, dst: Endpoint) -> np.ndarray:
        """The one read-out of a pair: loopback and node-local traffic first, then the policies' verdict."""
        if src.pod is not None and dst.pod is not None and (src.pod == dst.pod or self.node_local(src.pod, dst.pod)):
            return self.ports.all_bits
        if src.atom is not None and dst.atom is not None:
            return self.ports.no_bits
        s, d = [self.eid(src)], [self.eid(dst)]
        bits = self.side_block("ingress", s, d)[0, 0] & self.side_block("egress", s, d)[0, 0]
        return bits

    def pod_bits(self, src: int, dst: int) -> np.ndarray:
        return self.endpoint_bits(Endpoint(pod=src), Endpoint(pod=dst))

    def connection(self, src: int, dst: int) -> ConnectionSet:
        return self.ports.to_set(self.pod_bits(src, dst))

    def ingress_from_atom(self, atom: int, dst: int) -> ConnectionSet:
        return self.ports.to_set(self.endpoint_bits(Endpoint(atom=atom), Endpoint(pod=dst)))

    def egress_to_atom(self, src: int, atom: int) -> ConnectionSet:
        return self.ports.to_set(self.endpoint_bits(Endpoint(pod=src), Endpoint(atom=atom)))

    def probe_bit(self, protocol: str, port: int) -> tuple[int, np.uint64]:
        k = self.ports.atom_of(protocol, port)
        return k >> 6, np.uint64(1) << np.uint64(k & 63)

    def pod_line(self, pod: int, direction: str) -> tuple[np.ndarray, np.ndarray]:
        """((pods, W), (atoms, W)) port bits of one pod's line of the matrix, exceptions applied.

        "out": what `pod` may open towards every pod and external atom (one row); "in": what every pod
        and external atom may open towards `pod` (one column). Loopback and node-local pairs get every
        port, as `endpoint_bits` gives them."""
        cls = [self.pod_class(pod)]
        classes, atoms = range(self.C), range(self.C, self.C + self.A)
        if direction == "out":
            by_class = self.class_block(cls)[0]
            ext = self.side_block("egress", cls, atoms)[0]
        else:
            by_class = (self.side_block("ingress", classes, cls) & self.side_block("egress", classes, cls))[:, 0]
            ext = self.side_block("ingress", atoms, cls)[:, 0]
        bits = by_class[self.universe.pod_class]
        special = self.node_local_mask(pod)
        special[pod] = True
        bits[special] = self.ports.all_bits
        return bits, ext

    def atom_line(self, atom: int, direction: str) -> np.ndarray:
        """(pods, W): "out": what external atom may open towards every pod; "in": what every pod may open
        towards it."""
        a, classes = [self.C + atom], range(self.C)
        if direction == "out":
            by_class = self.side_block("ingress", a, classes)[0]
        else:
            by_class = self.side_block("egress", classes, a)[:, 0]
        return by_class[self.universe.pod_class]

    # ------------------------------------------------------------------------------------------ reasons

    @cached_property
    def _class_policies(self) -> list[list[int]]:
        """Per class, the policies selecting it (few), so a pair's reasons never scan every policy."""
        out: list[list[int]] = [[] for _ in range(self.C)]
        for k, cp in enumerate(self.policies):
            for c in np.flatnonzero(cp.selected).tolist():
                out[c].append(k)
        return out

    def policies_selecting(self, cls: int) -> list[CompiledPolicy]:
        return [self.policies[k] for k in self._class_policies[cls]]

    def ingress_rules_for(
        self, src_class: int | None, dst_class: int, src_atom: int | None = None
    ) -> list[CompiledRule]:
        """Ingress rules of policies selecting dst_class whose peers contain the source."""
        out = []
        for cp in self.policies_selecting(dst_class):
            for r in cp.ingress:
                if (src_class is not None and r.peer_classes[src_class]) or (
                    src_atom is not None and r.peer_atoms[src_atom]
                ):
                    out.append(r)
        return out

    def egress_rules_for(
        self, src_class: int, dst_class: int | None, dst_atom: int | None = None
    ) -> list[CompiledRule]:
        """Egress rules of policies selecting src_class whose peers contain the destination."""
        out = []
        for cp in self.policies_selecting(src_class):
            for r in cp.egress:
                if (dst_class is not None and r.peer_classes[dst_class]) or (
                    dst_atom is not None and r.peer_atoms[dst_atom]
                ):
                    out.append(r)
        return out

    def admin_trace(
        self,
        direction: str,
        src_class: int | None,
        dst_class: int | None,
        src_atom: int | None = None,
        dst_atom: int | None = None,
    ) -> list[tuple[CompiledAdminRule, np.ndarray]]:
        """Admin rules that match this pair in evaluation order, each with the ports it covers (for explain)."""
        out = []
        for rule in self.admin_rules:
            if rule.direction != direction:
                continue
            if direction == "ingress":
                if dst_class is None or not rule.subject[dst_class]:
                    continue
                hit = (src_class is not None and rule.peer_classes[src_class]) or (
                    src_atom is not None and rule.peer_atoms[src_atom]
                )
            else:
                if src_class is None or not rule.subject[src_class]:
                    continue
                hit = (dst_class is not None and rule.peer_classes[dst_class]) or (
                    dst_atom is not None and rule.peer_atoms[dst_atom]
                )
            if hit:
                bits = rule.bits_for(self.universe, self.ports, dst_class)
                if np.any(bits):
                    out.append((rule, bits))
        return out


def unresolved_named_ports(r: Reachability) -> list[tuple[CompiledRule, str, str]]:
    """(rule, port name, protocol) for every named port that resolves on no destination the rule covers.

    Ingress names resolve on the pods the policy selects; egress names on the peer pods. A name that
    resolves nowhere matches nothing — legal, but almost always a typo or a missing containerPort name.
    """
    out = []
    u = r.universe
    for cp in r.policies:
        for rule in (*cp.ingress, *cp.egress):
            if not rule.named:
                continue
            dests = np.flatnonzero(cp.selected if rule.direction == "ingress" else rule.peer_classes)
            for name, proto in rule.named:
                if not any(u.classes[int(c)].resolve(name, proto) is not None for c in dests):
                    out.append((rule, name, proto))
    return out
