"""The partition of the address space induced by every ipBlock (cidr and except) in the cluster.

Each atom is a maximal IP range that no ipBlock boundary cuts: every ipBlock contains an atom entirely or
not at all. Atoms are how external peers are reported (`0.0.0.0-9.255.255.255 => web/web1 : TCP 80`) and
how pod IPs are tested against ipBlocks in bulk. netaddr does the CIDR arithmetic.
"""

from __future__ import annotations

import bisect
import socket
from collections.abc import Iterable
from dataclasses import dataclass

import netaddr
import numpy as np

from netpol.model.families import Family
from netpol.model.objects import IPBlock

_V4_END = 2**32
_V6_END = 2**128


@dataclass(frozen=True, slots=True)
class IPAtom:
    version: Family
    first: int
    last: int

    def render(self) -> str:
        return str(
            netaddr.IPRange(netaddr.IPAddress(self.first, self.version), netaddr.IPAddress(self.last, self.version))
        )

    def contains(self, ip: netaddr.IPAddress) -> bool:
        return ip.version == self.version and self.first <= int(ip) <= self.last


class IPSpace:
    """Atoms over IPv4 (always) and IPv6 (when any ipBlock or pod address is IPv6)."""

    def __init__(self, blocks: Iterable[IPBlock], extra_ips: Iterable[str] = ()) -> None:
        cuts: dict[Family, set[int]] = {4: {0}, 6: {0}}
        want_v6 = False
        self.blocks: list[IPBlock] = sorted(set(blocks), key=lambda b: (b.cidr, b.except_))
        for b in self.blocks:
            for c in (b.cidr, *b.except_):
                net = netaddr.IPNetwork(c)
                cuts[net.version].add(net.first)
                cuts[net.version].add(net.last + 1)
                want_v6 |= net.version == 6
        want_v6 |= any(":" in ip for ip in extra_ips)  # an IPv6 pod address: IPv6 external ranges matter
        self.atoms: list[IPAtom] = []
        self._starts: dict[int, list[int]] = {}
        self._offset: dict[int, int] = {}
        ends: tuple[tuple[Family, int], ...] = ((4, _V4_END), (6, _V6_END))
        for version, end in ends:
            if version == 6 and not want_v6:
                continue
            starts = sorted(c for c in cuts[version] if c < end)
            self._starts[version] = starts
            self._offset[version] = len(self.atoms)
            for i, s in enumerate(starts):
                last = (starts[i + 1] - 1) if i + 1 < len(starts) else end - 1
                self.atoms.append(IPAtom(version, s, last))
        # membership[b, a]: atom a lies inside block b (after except)
        self.membership = np.zeros((len(self.blocks), len(self.atoms)), dtype=bool)
        for bi, b in enumerate(self.blocks):
            for cidr in b.addresses().iter_cidrs():
                v = cidr.version
                lo = self.atom_index(netaddr.IPAddress(cidr.first, v))
                hi = self.atom_index(netaddr.IPAddress(cidr.last, v))
                self.membership[bi, lo : hi + 1] = True
        self._block_index = {b: i for i, b in enumerate(self.blocks)}

    def atom_index(self, ip: netaddr.IPAddress | str) -> int:
        addr = ip if isinstance(ip, netaddr.IPAddress) else netaddr.IPAddress(ip)
        starts = self._starts.get(addr.version)
        if starts is None:  # IPv6 address in a space built without IPv6
            raise KeyError(str(addr))
        return self._offset[addr.version] + bisect.bisect_right(starts, int(addr)) - 1

    def atom_indexes(self, ips: list[str]) -> np.ndarray:
        """Atom of each address ("" → -1), IPv4 in bulk: one searchsorted over the atom starts."""
        out = np.full(len(ips), -1, dtype=np.int64)
        v4 = [k for k, ip in enumerate(ips) if ip and ":" not in ip]
        if v4:
            nums = np.fromiter(
                (int.from_bytes(socket.inet_aton(ips[k]), "big") for k in v4), dtype=np.int64, count=len(v4)
            )
            starts = np.asarray(self._starts[4], dtype=np.int64)
            out[v4] = self._offset[4] + np.searchsorted(starts, nums, side="right") - 1
        for k, ip in enumerate(ips):
            if ip and ":" in ip:
                out[k] = self.atom_index(ip)
        return out

    def block_atoms(self, block: IPBlock) -> np.ndarray:
        return self.membership[self._block_index[block]]
