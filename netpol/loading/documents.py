"""Files, folders and stdin → top-level Kubernetes objects, with where each came from.

Multi-document YAML, JSON, `kind: List` and `*List` objects as `kubectl get -o yaml/json` prints them (their
items may omit `kind`). YAML is loaded safely, with libyaml when available.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from netpol.errors import InputError, SourceRef

try:  # libyaml when available: several times faster on large dumps
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _Loader = yaml.SafeLoader


MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")


@dataclass(frozen=True, slots=True)
class Document:
    """One top-level object with where it came from."""

    obj: Mapping[str, Any]
    source: SourceRef


def iter_paths(paths: Iterable[str]) -> Iterator[str]:
    """Files in the given order; folders walked recursively in sorted order (repeatable output)."""
    for p in paths:
        if p == "-":
            yield p
        elif os.path.isdir(p):
            for root, dirs, files in os.walk(p):
                dirs.sort()
                for f in sorted(files):
                    if f.endswith(MANIFEST_SUFFIXES):
                        yield os.path.join(root, f)
        elif os.path.isfile(p):
            yield p
        else:
            raise InputError(f"no such file or directory: {p}")


def read_documents(path: str, text: str | None = None) -> Iterator[Document]:
    """Parse one file (or stdin text) into top-level objects, flattening `List` / `*List`."""
    label = "<stdin>" if path == "-" else path
    if text is None:
        if path == "-":
            text = sys.stdin.read()
        else:
            try:
                with open(path, encoding="utf-8") as fh:
                    text = fh.read()
            except (OSError, UnicodeDecodeError) as exc:
                raise InputError(f"cannot read: {exc}", SourceRef(label)) from exc
    docs: list[Any]
    stripped = text.lstrip()
    if path.endswith(".json") or stripped.startswith("{") or stripped.startswith("["):
        try:
            docs = [json.loads(text)]
        except json.JSONDecodeError:
            docs = _load_yaml(text, label)  # JSON is YAML; YAML gives a line number either way
    else:
        docs = _load_yaml(text, label)
    for i, doc in enumerate(docs):
        if doc is None:
            continue
        src = SourceRef(label, i)
        if isinstance(doc, list):
            for item in doc:
                yield from _flatten(item, src, None)
            continue
        if not isinstance(doc, Mapping):
            raise InputError(f"expected a Kubernetes object (a mapping), got {type(doc).__name__}", src)
        yield from _flatten(doc, src, None)


def _load_yaml(text: str, label: str) -> list[Any]:
    try:
        return list(yaml.load_all(text, Loader=_Loader))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise InputError(f"invalid YAML: {where}{problem}", SourceRef(label)) from exc


def _flatten(obj: Any, src: SourceRef, default_kind: str | None) -> Iterator[Document]:
    if not isinstance(obj, Mapping):
        raise InputError(f"expected a Kubernetes object (a mapping), got {type(obj).__name__}", src)
    kind = obj.get("kind") or default_kind
    if kind is None:
        raise InputError("object has no kind", src, "kind")
    if kind == "List" or (kind.endswith("List") and "items" in obj):
        inner = kind[: -len("List")] or None
        items = obj.get("items") or []
        if not isinstance(items, list):
            raise InputError("items must be a list", src, "items")
        for item in items:
            yield from _flatten(item, src, inner)
        return
    if "kind" not in obj:
        obj = {**obj, "kind": kind}
    meta = obj.get("metadata") or {}
    if not isinstance(meta, Mapping):
        raise InputError("metadata must be a mapping", src, "metadata")
    yield Document(
        obj, SourceRef(src.file, src.document, kind, str(meta.get("namespace") or ""), str(meta.get("name") or ""))
    )
