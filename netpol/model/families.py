"""IP address families (IPv4, IPv6) of the addresses and ranges a cluster hands out.

A dual-stack cluster gives a pod at most one address per family (`status.podIPs`) and a node at most one
pod range per family (`spec.podCIDRs`); a connection uses one family at both ends
(kubernetes.io/docs/concepts/services-networking/dual-stack). Textual checks only: the loader has already
validated every address.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

Family = Literal[4, 6]
FAMILIES: tuple[Family, ...] = (4, 6)


def family(address: str) -> Family:
    """4 or 6 for an address or a CIDR (IPv6 text always holds a colon, IPv4 text never does)."""
    return 6 if ":" in address else 4


def family_name(version: int) -> str:
    return "IPv6" if version == 6 else "IPv4"


def families(addresses: Iterable[str]) -> tuple[Family, ...]:
    """The families present, in first-seen order."""
    return tuple(dict.fromkeys(family(a) for a in addresses if a))


def dual_stack_problem(values: Sequence[str]) -> str | None:
    """Why a podIPs / podCIDRs list is not a valid dual-stack list, or None.

    The API server's rule (pkg/apis/core/validation, validatePodIPs and the Node podCIDRs check): more than
    one value must be a dual-stack pair, "may specify no more than one IP for each IP family"."""
    if len(values) > 2 or (len(values) == 2 and family(values[0]) == family(values[1])):
        return "may specify no more than one IP for each IP family"
    return None
