"""Connection sets: what may flow between two endpoints, as per-protocol port interval sets.

The universe is TCP, UDP and SCTP × ports 1–65535 (the protocols NetworkPolicy can name); the full set
is printed `All Connections`, like netpol-analyzer and Cyclonus do. The engine works on a partition of
that universe into *atoms* (maximal port ranges no rule boundary cuts), so a connection set becomes a
fixed-width bit vector and union/intersection become bitwise or/and over numpy uint64 words.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from netpol.model.objects import PROTOCOLS

MIN_PORT = 1
MAX_PORT = 65535


@dataclass(frozen=True, slots=True)
class ConnectionSet:
    """Per protocol, sorted disjoint inclusive port ranges. Protocols with no range are absent."""

    ranges: tuple[tuple[str, tuple[tuple[int, int], ...]], ...] = ()

    @staticmethod
    def all() -> ConnectionSet:
        return ConnectionSet(tuple((p, ((MIN_PORT, MAX_PORT),)) for p in PROTOCOLS))

    @staticmethod
    def none() -> ConnectionSet:
        return ConnectionSet()

    @staticmethod
    def of(items: Iterable[tuple[str, int, int]]) -> ConnectionSet:
        by: dict[str, list[tuple[int, int]]] = {}
        for proto, lo, hi in items:
            by.setdefault(proto, []).append((lo, hi))
        out = []
        for proto in PROTOCOLS:
            if proto in by:
                out.append((proto, _merge(by[proto])))
        return ConnectionSet(tuple(out))

    @property
    def is_all(self) -> bool:
        return self == ConnectionSet.all()

    @property
    def is_empty(self) -> bool:
        return not self.ranges

    def contains(self, protocol: str, port: int) -> bool:
        for proto, rs in self.ranges:
            if proto == protocol:
                return any(lo <= port <= hi for lo, hi in rs)
        return False

    def items(self) -> Iterable[tuple[str, int, int]]:
        for proto, rs in self.ranges:
            for lo, hi in rs:
                yield proto, lo, hi

    def union(self, other: ConnectionSet) -> ConnectionSet:
        return ConnectionSet.of([*self.items(), *other.items()])

    def intersection(self, other: ConnectionSet) -> ConnectionSet:
        out = []
        for p, a_lo, a_hi in self.items():
            for q, b_lo, b_hi in other.items():
                if p == q and max(a_lo, b_lo) <= min(a_hi, b_hi):
                    out.append((p, max(a_lo, b_lo), min(a_hi, b_hi)))
        return ConnectionSet.of(out)

    def render(self) -> str:
        """`All Connections`, `No Connections`, or `TCP 80,443,8000-8080,UDP 53`."""
        if self.is_all:
            return "All Connections"
        if self.is_empty:
            return "No Connections"
        parts = []
        for proto, rs in self.ranges:
            if rs == ((MIN_PORT, MAX_PORT),):
                parts.append(proto)
                continue
            ports = ",".join(str(lo) if lo == hi else f"{lo}-{hi}" for lo, hi in rs)
            parts.append(f"{proto} {ports}")
        return ",".join(parts)

    def to_json(self) -> object:
        if self.is_all:
            return "all"
        return [
            {"protocol": proto, "ports": "all" if rs == ((MIN_PORT, MAX_PORT),) else [[lo, hi] for lo, hi in rs]}
            for proto, rs in self.ranges
        ]


def _merge(ranges: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return tuple(out)


class PortAtoms:
    """A partition of (protocol × port) into atoms, built from every port boundary the policies use."""

    def __init__(self, cuts: Iterable[tuple[str, int, int]]) -> None:
        starts: dict[str, set[int]] = {p: {MIN_PORT} for p in PROTOCOLS}
        for proto, lo, hi in cuts:
            starts[proto].add(lo)
            if hi + 1 <= MAX_PORT:
                starts[proto].add(hi + 1)
        self.atoms: list[tuple[str, int, int]] = []
        self._starts: dict[str, list[int]] = {}
        self._offset: dict[str, int] = {}
        for proto in PROTOCOLS:
            s = sorted(starts[proto])
            self._starts[proto] = s
            self._offset[proto] = len(self.atoms)
            for i, lo in enumerate(s):
                hi = s[i + 1] - 1 if i + 1 < len(s) else MAX_PORT
                self.atoms.append((proto, lo, hi))
        self.count = len(self.atoms)
        self.words = (self.count + 63) // 64
        self.all_bits = self._bits(range(self.count))
        self.no_bits = np.zeros(self.words, dtype=np.uint64)
        self._render_cache: dict[bytes, ConnectionSet] = {}

    def _bits(self, indexes: Iterable[int]) -> np.ndarray:
        v = np.zeros(self.words, dtype=np.uint64)
        for k in indexes:
            v[k >> 6] |= np.uint64(1) << np.uint64(k & 63)
        return v

    def atom_of(self, protocol: str, port: int) -> int:
        s = self._starts[protocol]
        return self._offset[protocol] + bisect.bisect_right(s, port) - 1

    def range_bits(self, protocol: str, lo: int | None = None, hi: int | None = None) -> np.ndarray:
        """Bits of [lo, hi] for one protocol (all its ports when lo is None); lo/hi must be atom boundaries."""
        if lo is None:
            first = self._offset[protocol]
            last = first + len(self._starts[protocol]) - 1
        else:
            first = self.atom_of(protocol, lo)
            last = self.atom_of(protocol, hi if hi is not None else lo)
        return self._bits(range(first, last + 1))

    def to_set(self, bits: np.ndarray) -> ConnectionSet:
        key = bits.tobytes()
        cs = self._render_cache.get(key)
        if cs is None:
            items = []
            for w in range(self.words):
                word = int(bits[w])
                while word:
                    low = word & -word
                    k = (w << 6) + low.bit_length() - 1
                    items.append(self.atoms[k])
                    word ^= low
            cs = ConnectionSet.of(items)
            self._render_cache[key] = cs
        return cs
