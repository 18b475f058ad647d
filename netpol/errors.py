"""One exception root, so the CLI can turn every input problem into exit code 2 without a traceback."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SourceRef:
    """Where an object came from: file, YAML document index (0-based; -1: the file as a whole) and kind/ns/name."""

    file: str = "<input>"
    document: int = 0
    kind: str = ""
    namespace: str = ""
    name: str = ""

    def describe(self) -> str:
        obj = self.kind
        if self.name:
            obj += f" {self.namespace + '/' if self.namespace else ''}{self.name}"
        where = f"{self.file}, document {self.document + 1}" if self.document >= 0 else self.file
        return f"{where}, {obj}" if obj else where


class NetpolError(Exception):
    """Root of every error the tool reports to a user (exit code 2)."""


class InputError(NetpolError):
    """A manifest is unreadable or invalid; names the file, object and field."""

    def __init__(
        self, message: str, source: SourceRef | None = None, field: str = "", *, show_field: bool = True
    ) -> None:
        self.source = source
        self.field = field  # the full path (`spec.ingress[0].from[0].podSelector`), kubectl's field.Path
        self.detail = message
        parts = []
        if source is not None:
            parts.append(source.describe())
        if field and show_field:
            parts.append(field)
        prefix = ": ".join(parts)
        super().__init__(f"{prefix}: {message}" if prefix else message)


class UsageError(NetpolError):
    """The command line asks for something impossible (unknown pod, bad flag value)."""
