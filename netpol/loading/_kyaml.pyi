"""Types of the C extension netpol/loading/_kyaml.c (libyaml events → Python values)."""

from collections.abc import Callable
from typing import Any

LIBYAML_VERSION: str

class Unusual(Exception): ...

def load(
    text: str,
    special: bytes,
    resolve: Callable[[str], Any],
    max_depth: int,
    max_documents: int,
    max_alias_nodes: int,
    /,
) -> list[Any]: ...
