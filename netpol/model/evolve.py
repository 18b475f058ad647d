"""`dataclasses.replace` for the loading hot paths: the same object, built about twice as fast.

Expanding 100,000 pods copies a pod template 100,000 times and IPAM copies every pod again; the standard
`replace` looks up every field's metadata on each call. Here the field order is read once per class and the
copy is one call of the class with every field's value in order, which is what `replace` ends up doing for a
dataclass whose fields are all `__init__` parameters (the only kind this accepts).
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_PLANS: dict[type, tuple[Callable[[Any], tuple[Any, ...]], dict[str, int]]] = {}


def _plan(cls: type) -> tuple[Callable[[Any], tuple[Any, ...]], dict[str, int]]:
    fields = dataclasses.fields(cls)
    if len(fields) < 2 or not all(f.init for f in fields) or hasattr(cls, "__post_init__"):
        raise TypeError(f"evolve() needs a dataclass of init fields only, got {cls.__name__}")
    names = [f.name for f in fields]
    return operator.attrgetter(*names), {n: i for i, n in enumerate(names)}


def evolve(obj: T, **changes: Any) -> T:
    """A copy of dataclass instance `obj` with `changes`, equal to `dataclasses.replace(obj, **changes)`."""
    cls = type(obj)
    plan = _PLANS.get(cls)
    if plan is None:
        plan = _PLANS[cls] = _plan(cls)
    values_of, index = plan
    values = list(values_of(obj))
    for name, value in changes.items():
        i = index.get(name)
        if i is None:
            raise TypeError(f"{cls.__name__} has no field {name!r}")
        values[i] = value
    return cls(*values)
