"""What the YAML/JSON readers share: the bounds on one input text, the error they raise, one parsed document.

Kept apart from the readers so the C path (yamlread), the Python construction (yamlbuild) and the JSON path
speak the same types without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml
from yaml.constructor import SafeConstructor
from yaml.resolver import Resolver

STR = "tag:yaml.org,2002:str"
MAP = "tag:yaml.org,2002:map"
SEQ = "tag:yaml.org,2002:seq"
MERGE = "tag:yaml.org,2002:merge"
VALUE = "tag:yaml.org,2002:value"


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds on one input text (a file, stdin, an --expect file, kubectl's output)."""

    max_bytes: int = 256 * 2**20
    max_documents: int = 1_000_000
    max_depth: int = 200
    # Nodes that aliases stand for, per document (go-yaml allows aliases up to a ratio of the decoded
    # nodes; a fixed count is simpler and as safe: a Kubernetes object is thousands of nodes, not millions).
    max_alias_nodes: int = 100_000


DEFAULT_LIMITS = Limits()


class ReadError(ValueError):
    """The text is not valid YAML/JSON or exceeds a limit; `line` is 1-based when known."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        self.line = line
        self.column = column
        where = f"line {line}, column {column}: " if line is not None and column is not None else ""
        super().__init__(f"{where}{message}")


@dataclass(frozen=True, slots=True)
class Parsed:
    """One YAML document: its value and the paths of keys given twice in it (kubectl: duplicate field)."""

    value: Any
    duplicates: tuple[str, ...] = ()


RESOLVER = Resolver()
CONSTRUCTORS = SafeConstructor.yaml_constructors


def mark_error(exc: yaml.MarkedYAMLError) -> ReadError:
    """PyYAML's marked error as a ReadError with a 1-based line and column."""
    mark = exc.problem_mark or exc.context_mark
    problem = exc.problem or exc.context or str(exc)
    if mark is None:
        return ReadError(problem)
    return ReadError(problem, mark.line + 1, mark.column + 1)
