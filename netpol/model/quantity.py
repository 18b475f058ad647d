"""Resource quantities (apimachinery resource.Quantity), reduced to integers the scheduler compares.

CPU is kept in millicores (kube-scheduler's MilliValue); every other resource in base units (Value),
rounded up like Quantity.Value() does.
"""

from __future__ import annotations

import re
from decimal import ROUND_CEILING, Decimal, InvalidOperation

_SUFFIXES: dict[str, Decimal] = {
    "": Decimal(1),
    "n": Decimal("1e-9"),
    "u": Decimal("1e-6"),
    "m": Decimal("1e-3"),
    "k": Decimal("1e3"),
    "M": Decimal("1e6"),
    "G": Decimal("1e9"),
    "T": Decimal("1e12"),
    "P": Decimal("1e15"),
    "E": Decimal("1e18"),
    "Ki": Decimal(2**10),
    "Mi": Decimal(2**20),
    "Gi": Decimal(2**30),
    "Ti": Decimal(2**40),
    "Pi": Decimal(2**50),
    "Ei": Decimal(2**60),
}
_QUANTITY = re.compile(r"^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?)$")


def parse_quantity(value: object) -> Decimal:
    """Parse `500m`, `1.5Gi`, `2`, `1e3`; raise ValueError on anything else (e.g. `2x`)."""
    if isinstance(value, bool):
        raise ValueError(f"invalid quantity {value!r}")
    if isinstance(value, int | float):
        return Decimal(str(value))
    if not isinstance(value, str):
        raise ValueError(f"invalid quantity {value!r}")
    m = _QUANTITY.match(value.strip())
    if not m:
        raise ValueError(f"invalid quantity {value!r}")
    number, exponent, suffix = m.groups()
    try:
        base = Decimal(number)
    except InvalidOperation as exc:  # pragma: no cover - regex guards it
        raise ValueError(f"invalid quantity {value!r}") from exc
    if exponent:
        return base * Decimal(10) ** int(exponent[1:])
    return base * _SUFFIXES[suffix or ""]


def to_units(resource: str, value: object) -> int:
    """cpu → millicores; others → base units; both rounded up as Quantity does."""
    q = parse_quantity(value)
    if q < 0:
        raise ValueError(f"negative quantity {value!r}")
    if resource == "cpu":
        q = q * 1000
    return int(q.to_integral_value(rounding=ROUND_CEILING))


def format_units(resource: str, units: int) -> str:
    """The inverse for display: `250m`, `2`, `128Mi`."""
    if resource == "cpu":
        return f"{units // 1000}" if units % 1000 == 0 else f"{units}m"
    if resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-"):
        for suffix, size in (("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)):
            if units and units % size == 0:
                return f"{units // size}{suffix}"
    return str(units)
