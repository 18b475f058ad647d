"""Bounds a Kubernetes object's size the way the API server does, so nothing downstream (the duplicate
fingerprint's orjson.dumps, the schema walk) ever handles an object that could not exist.

- An object is at most 3 MiB as sent: k8s.io/apiserver pkg/server/config.go `MaxRequestBodyBytes` (3 × 1024 ×
  1024); a larger create or update is refused with 413 (etcd's own default request limit, 1.5 MiB, is lower).
- Annotations are at most 256 KiB in total, keys and values: apimachinery pkg/api/validation/objectmeta.go
  `TotalAnnotationSizeLimitB` (256 × (1 << 10)), `ValidateAnnotationsSize`.

YAML aliases make a small text stand for a huge object (one 1 MB value aliased 5,000 times is 5 GB). The reader
keeps an alias as the same Python object, so the size is computed here over distinct objects (memoised by id),
never by expanding them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

MAX_OBJECT_BYTES = 3 * 1024 * 1024
MAX_ANNOTATION_BYTES = 256 * 1024


def json_size(value: Any, memo: dict[int, int]) -> int:
    """About the JSON size of `value` (strings counted in characters, punctuation included), aliases counted
    in full but each distinct object walked once."""
    key = id(value)
    hit = memo.get(key)
    if hit is not None:
        return hit
    if isinstance(value, str):
        size = len(value) + 2
    elif isinstance(value, Mapping):
        size = 2 + sum(json_size(k, memo) + 1 + json_size(v, memo) + 1 for k, v in value.items())
    elif isinstance(value, list | tuple):
        size = 2 + sum(json_size(v, memo) + 1 for v in value)
    else:  # numbers, booleans, null, timestamps: short
        size = len(str(value)) if isinstance(value, int) and not isinstance(value, bool) else 8
    if isinstance(value, Mapping | list | tuple | str):
        memo[key] = size
    return size


def oversized(obj: Mapping[str, Any], limit: int = MAX_OBJECT_BYTES) -> tuple[str, int] | None:
    """(field path, size) when the object is over `limit`: the deepest field that is itself over it (where the
    expansion is), or "" for the object as a whole; None when it fits."""
    memo: dict[int, int] = {}
    total = json_size(obj, memo)
    if total <= limit:
        return None
    path, node = "", obj
    while True:
        children: list[tuple[str, Any]]
        if isinstance(node, Mapping):
            children = [(f"{path}.{k}" if path else str(k), v) for k, v in node.items()]
        elif isinstance(node, list | tuple):
            children = [(f"{path}[{i}]", v) for i, v in enumerate(node)]
        else:
            break
        big = next(((p, v) for p, v in children if json_size(v, memo) > limit), None)
        if big is None:
            break
        path, node = big
    return path, json_size(node, memo)


def annotations_size(annotations: Mapping[Any, Any], limit: int = MAX_ANNOTATION_BYTES) -> int | None:
    """The annotations' total size in bytes (UTF-8 keys and values) when over `limit`, else None; stops
    counting as soon as it is over, so aliased values are not encoded thousands of times."""
    total = 0
    for k, v in annotations.items():
        total += len(str(k).encode()) + (len(v.encode()) if isinstance(v, str) else 0)
        if total > limit:
            return total
    return None
