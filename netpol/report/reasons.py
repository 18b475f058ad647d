"""Each side's reasons for every pair the page shows, as ids into one table of texts: the engine's words
(`netpol.explain.side_words`, who-can-reach's), worked out once per group of pairs they cannot tell apart.

A side's words (netpol/engine/provenance.py `side_verdict`) depend on the owner's class only through the
policies selecting it (their rules in this direction, in evaluation order, and the tiers isolating it) and, for
an ingress owner, its named ports; on the other end only through which of those rules hold it (one of a rule's
peers does) and, for egress, its named ports (where names resolve). So per direction:

- peer groups: endpoints (classes, then external atoms) that every rule of the direction holds alike and, for
  egress, on which the rules' named ports resolve alike;
- owner groups: classes selected alike by the policies that have rules in the direction or isolate in it and,
  for ingress, on which the named ports of those policies' rules resolve alike;
- per owner group, its peer groups split by the pattern of its candidate rules holding them (plus, for egress,
  where its candidates' named ports resolve): one provenance call per distinct pattern, never per pair.

The page reads `texts[table[owner_group[owner], peer_group[peer]]]`; it never matches a rule itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from netpol.engine import CompiledRule, Endpoint, Exception_, Reachability
from netpol.explain import side_words
from netpol.model.vocab import Direction


@dataclass
class Texts:
    """Distinct reason texts (each a side's words), numbered in order of first use."""

    words: list[tuple[str, ...]] = field(default_factory=list)
    index: dict[tuple[str, ...], int] = field(default_factory=dict)

    def id(self, words: tuple[str, ...]) -> int:
        k = self.index.get(words)
        if k is None:
            k = self.index[words] = len(self.words)
            self.words.append(words)
        return k


@dataclass(frozen=True, slots=True)
class SideReasons:
    """One direction's reason ids: `table[owner_group[owner class], peer_group[other end's eid]]`."""

    direction: Direction
    owner_group: np.ndarray  # (C,) the owner group of each class
    peer_group: np.ndarray  # (C + A,) the peer group of each eid: classes, then external atoms
    table: np.ndarray  # (owner groups, peer groups) ids into Texts.words


@dataclass(frozen=True, slots=True)
class Exceptions:
    """The pod pairs the policies never decide, as the engine names and connects them (unique directed pairs)."""

    src: np.ndarray  # pod indexes
    dst: np.ndarray
    kind: np.ndarray  # index into `kinds`
    bits: np.ndarray  # (pairs, W) the engine's connection of each pair
    kinds: tuple[str, ...]  # the engine's names (Exception_): "loopback", "node-local"


def _groups(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(group of each row, first row of each group) of a (n, bytes) uint8 key matrix; groups in order of their
    first row, so the numbering is the same on every run."""
    n = keys.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    if keys.shape[1] == 0:
        return np.zeros(n, dtype=np.int64), np.zeros(1, dtype=np.int64)
    flat = np.ascontiguousarray(keys).view(np.dtype((np.void, keys.shape[1]))).ravel()
    _, first, inverse = np.unique(flat, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty(len(first), dtype=np.int64)
    rank[order] = np.arange(len(first))
    return rank[inverse.ravel()], first[order]


def _bytes(ids: np.ndarray) -> np.ndarray:
    """int ids → (n, 8) uint8, to join a key matrix."""
    return np.ascontiguousarray(ids.astype(np.int64)).view(np.uint8).reshape(len(ids), 8)


class _Resolutions:
    """Where named ports resolve: for a set of rules, an id per endpoint of the ports those rules hold towards it
    as a destination (the same ports, the same id). Worked out per distinct container-port list (classes share
    few), each rule's bits once per list, so a key never splits endpoints whose ports resolve alike."""

    def __init__(self, r: Reachability) -> None:
        self.r = r
        lists: dict[tuple[tuple[str, str, int], ...], int] = {}
        self.class_list = np.asarray(
            [lists.setdefault(c.named_ports, len(lists)) for c in r.pod_classes.classes], dtype=np.int64
        )
        self.lists: list[tuple[tuple[str, str, int], ...] | None] = [*lists, None]  # None: an external atom
        self.eid_list = np.concatenate([self.class_list, np.full(r.A, len(lists), dtype=np.int64)])
        self.bits: dict[tuple[int, int], bytes] = {}

    def _bits(self, rule: CompiledRule, k: int) -> bytes:
        got = self.bits.get((id(rule), k))
        if got is None:
            got = self.bits[(id(rule), k)] = rule.bits_for(self.r.ports, self.lists[k]).tobytes()
        return got

    def of(self, rules: Sequence[CompiledRule], eids: np.ndarray) -> np.ndarray:
        """The id of each of `eids` (classes, then atoms) for these rules."""
        lists = self.eid_list[eids]
        seen: dict[bytes, int] = {}
        lut = np.zeros(len(self.lists), dtype=np.int64)
        for k in np.flatnonzero(np.bincount(lists, minlength=len(self.lists))).tolist():
            lut[k] = seen.setdefault(b"".join(self._bits(rule, k) for rule in rules), len(seen))
        out: np.ndarray = lut[lists]
        return out


def side_reasons(r: Reachability, direction: Direction, texts: Texts, rep_pod: np.ndarray) -> SideReasons:
    """The reason ids of one direction for every (owner class, other end) pair; `rep_pod`: a pod of each class."""
    C, A = r.C, r.A
    resolve = _Resolutions(r)
    rule_rows: list[list[int]] = []  # per policy, its rules' rows in `holds`
    rules: list[CompiledRule] = []
    peers: list[np.ndarray] = []
    for cp in r.policies:
        rows = []
        for rule in cp.rules(direction):
            held = np.zeros(C + A, dtype=bool)
            for p in rule.peers:
                held[:C] |= p.classes
                held[C:] |= p.atoms
            rows.append(len(peers))
            peers.append(held)
            rules.append(rule)
        rule_rows.append(rows)
    holds = np.array(peers, dtype=bool).reshape(len(peers), C + A)

    # peer groups: the columns of `holds` (packed over rules); for egress also where the rules' named ports
    # resolve (on the peer, the destination)
    peer_key = np.ascontiguousarray(np.packbits(holds, axis=0).T)
    named = [rule for rule in rules if rule.per_destination]
    if direction == "egress" and named:
        peer_key = np.concatenate([peer_key, _bytes(resolve.of(named, np.arange(C + A)))], axis=1)
    peer_group, peer_first = _groups(peer_key)
    group_holds = holds[:, peer_first]

    # owner groups: selected alike by the policies that matter in this direction; for ingress also where the
    # named ports of the rules selecting them resolve (on the owner, the destination)
    matter = [k for k, cp in enumerate(r.policies) if rule_rows[k] or direction in cp.isolates]
    selected = np.array([r.policies[k].selected for k in matter], dtype=bool).reshape(len(matter), C)
    owner_group, owner_first = _groups(np.ascontiguousarray(np.packbits(selected, axis=0).T))
    if direction == "ingress" and named:
        resolution = np.zeros(C, dtype=np.int64)
        for g, owner in enumerate(owner_first.tolist()):
            naming = [rules[row] for k in r.selecting(owner) for row in rule_rows[k] if rules[row].per_destination]
            if naming:
                members = np.flatnonzero(owner_group == g)
                resolution[members] = resolve.of(naming, members)
        owner_group, owner_first = _groups(np.concatenate([_bytes(owner_group), _bytes(resolution)], axis=1))

    table = np.zeros((len(owner_first), len(peer_first)), dtype=np.int64)
    for g, owner in enumerate(owner_first.tolist()):
        cand = [row for k in r.selecting(owner) for row in rule_rows[k]]
        key = np.ascontiguousarray(np.packbits(group_holds[cand], axis=0).T)
        cand_named = [rules[row] for row in cand if rules[row].per_destination]
        if direction == "egress" and cand_named:
            key = np.concatenate([key, _bytes(resolve.of(cand_named, peer_first))], axis=1)
        pattern, first = _groups(key)
        ids = np.empty(len(first), dtype=np.int64)
        me = Endpoint(pod=int(rep_pod[owner]))
        for j, eid in enumerate(peer_first[first].tolist()):
            other = Endpoint(pod=int(rep_pod[eid])) if eid < C else Endpoint(atom=eid - C)
            src, dst = (me, other) if direction == "egress" else (other, me)
            ids[j] = texts.id(side_words(r, direction, src, dst))
        table[g] = ids[pattern]
    return SideReasons(direction, owner_group, peer_group, table)


def external_words(r: Reachability, texts: Texts) -> int:
    """The id of a side whose owner is an external address (nothing of ours filters there); -1 without atoms."""
    if r.A == 0 or not len(r.pods):
        return -1
    return texts.id(side_words(r, "egress", Endpoint(atom=0), Endpoint(pod=0)))


def exceptions(r: Reachability) -> Exceptions:
    """Every pod pair the engine answers before the policies (`Reachability.exception`: a pod itself, and its
    node-local peers): each pod with itself (loopback), then the engine's node-local pairs, with the engine's
    connection for each."""
    n = len(r.pods)
    local = np.asarray(r.node_local_pairs(), dtype=np.int64).reshape(-1, 2)
    src = np.concatenate([np.arange(n, dtype=np.int64), local[:, 0]])
    dst = np.concatenate([np.arange(n, dtype=np.int64), local[:, 1]])
    kinds = (str(Exception_.LOOPBACK), str(Exception_.NODE_LOCAL))
    kind = np.concatenate([np.zeros(n, dtype=np.int64), np.ones(len(local), dtype=np.int64)])
    bits = np.empty((len(src), r.ports.words), dtype=np.uint64)
    for i, (a, b) in enumerate(zip(src.tolist(), dst.tolist(), strict=True)):
        bits[i] = r.endpoint_bits(Endpoint(pod=a), Endpoint(pod=b))
    return Exceptions(src, dst, kind, bits, kinds)
