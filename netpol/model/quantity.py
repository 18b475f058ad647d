"""Resource quantities (apimachinery resource.Quantity), reduced to integers the scheduler compares.

CPU is kept in millicores (kube-scheduler's MilliValue); every other resource in base units (Value),
rounded up like Quantity.Value() does.
"""

from __future__ import annotations

import re
from decimal import ROUND_CEILING, Decimal

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
# resource.Quantity's grammar (apimachinery pkg/api/resource/quantity.go):
#   <signedNumber><suffix>, number = digits | digits.digits | digits. | .digits,
#   suffix = Ki|Mi|Gi|Ti|Pi|Ei | n|u|m|""|k|M|G|T|P|E | e<signedNumber>|E<signedNumber>
_QUANTITY = re.compile(r"^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?)$")
# A Quantity never holds more than 2^63-1 (in its base unit after scaling; larger values are capped, as
# Quantity caps them), and the numeric part is bounded so nothing unbounded reaches Decimal arithmetic.
MAX_VALUE = Decimal(2**63 - 1)
_MAX_TEXT = 64


def parse_quantity(value: object) -> Decimal:
    """Parse `500m`, `1.5Gi`, `2`, `1e3`; raise ValueError on anything else (`2x`, `nan`, `inf`)."""
    if isinstance(value, bool):
        raise ValueError("must be a quantity (e.g. 500m, 2, 1Gi), got a boolean")
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError("must be a finite quantity")
        value = repr(value)
    if isinstance(value, int):
        value = str(value)
    if not isinstance(value, str):
        raise ValueError("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
    if len(value) > _MAX_TEXT:  # a million digits is not a wrong pattern, it is too long for a real quantity
        raise ValueError(
            f"a quantity of {len(value):,} characters is too long (at most {_MAX_TEXT}: a quantity is at most "
            "2^63-1 of its unit)"
        )
    m = _QUANTITY.match(value)
    if not m:
        raise ValueError("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
    number, exponent, suffix = m.groups()
    base = Decimal(number)
    if exponent:
        exp = int(exponent[1:])
        if base and base.adjusted() + exp > 40:  # far beyond 2^63: capped, without computing 10**exp
            return MAX_VALUE.copy_sign(base)
        if exp < -40:
            return Decimal("1e-40").copy_sign(base) if base else Decimal(0)
        q = base.scaleb(exp)
    else:
        q = base * _SUFFIXES[suffix or ""]
    return q if abs(q) <= MAX_VALUE else MAX_VALUE.copy_sign(q)


def to_units(resource: str, value: object) -> int:
    """cpu → millicores; others → base units; both rounded up as Quantity does, capped at 2^63-1."""
    key = (resource, value) if type(value) is str or type(value) is int else None  # never bool or float
    if key is not None:
        known = _UNITS.get(key)
        if known is not None:
            return known
    q = parse_quantity(value)
    if q < 0:
        raise ValueError("must be greater than or equal to 0")
    if resource == "cpu":
        q = q * 1000
    units = min(int(q.to_integral_value(rounding=ROUND_CEILING)), 2**63 - 1)
    if key is not None and len(_UNITS) < 100_000:
        _UNITS[key] = units
    return units


# 100,000 pods repeat a few dozen quantities (`100m`, `128Mi`): each is parsed once (bounded memo).
_UNITS: dict[tuple[str, object], int] = {}


def format_units(resource: str, units: int) -> str:
    """The inverse for display: `250m`, `2`, `128Mi`."""
    if resource == "cpu":
        return f"{units // 1000}" if units % 1000 == 0 else f"{units}m"
    if resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-"):
        for suffix, size in (("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)):
            if units and units % size == 0:
                return f"{units // size}{suffix}"
    return str(units)
