"""Files, folders and stdin → top-level Kubernetes objects, with where each came from.

Multi-document YAML, JSON, `kind: List` and `*List` objects as `kubectl get -o yaml/json` prints them (their
items may omit `kind`). Text goes through netpol.loading.yamlread (bounded, duplicate keys recorded).

Folders are walked in sorted order; symlinked folders are followed, each real folder once (a link back up
the tree is reported, not walked forever); an unreadable file or folder is an error naming it; FIFOs,
sockets and devices are skipped with a warning and never opened (opening a FIFO blocks).
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from netpol.errors import InputError, SourceRef
from netpol.loading import typed as t
from netpol.loading.objsize import MAX_ANNOTATION_BYTES, MAX_OBJECT_BYTES, annotations_size, oversized
from netpol.loading.yamlread import DEFAULT_LIMITS, Limits, ReadError, load_text

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
# kubectl apply -f FOLDER compares the extension exactly (cli-runtime pkg/resource/visitor.go ignoreFile), so
# `web.YAML` in a folder is not applied: it is not read here either, but never in silence.
CASE_SUFFIX = (
    "its suffix is not .yaml, .yml or .json in lowercase, the only ones `kubectl apply -f FOLDER` reads "
    "(it skips this file too); pass it by name to read it"
)


@dataclass(frozen=True, slots=True)
class Document:
    """One top-level object with where it came from, and the keys its text gave twice."""

    obj: Mapping[str, Any]
    source: SourceRef
    duplicates: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Skipped:
    """A path inside a folder that is not read, and why (a FIFO, a socket, a device, a symlink loop)."""

    path: str
    reason: str


def iter_paths(paths: Iterable[str], skipped: list[Skipped] | None = None) -> Iterator[str]:
    """Files in the given order; folders walked recursively in sorted order (repeatable output)."""
    for p in paths:
        if p == "-":
            yield p
            continue
        try:
            st = os.stat(p)
        except FileNotFoundError:
            raise InputError(f"no such file or directory: {p}") from None
        except OSError as exc:
            raise InputError(f"cannot read {p}: {exc.strerror}") from None
        if stat.S_ISDIR(st.st_mode):
            yield from _walk(p, skipped if skipped is not None else [])
        elif stat.S_ISREG(st.st_mode):
            yield p
        else:  # named explicitly: a FIFO or /dev/stdin is what the user means (`<(helm template …)`)
            yield p


def _walk(top: str, skipped: list[Skipped]) -> Iterator[str]:
    """Depth-first, sorted, following symlinked folders once each (by device and inode)."""
    seen: set[tuple[int, int]] = set()
    stack = [top]
    while stack:
        folder = stack.pop()
        try:
            st = os.stat(folder)
        except OSError as exc:
            raise InputError(f"cannot read folder {folder}: {exc.strerror}") from None
        ident = (st.st_dev, st.st_ino)
        if ident in seen:
            skipped.append(Skipped(folder, "a symlink to a folder already read (a loop?)"))
            continue
        seen.add(ident)
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            raise InputError(f"cannot read folder {folder}: {exc.strerror}") from None
        subfolders = []
        for e in entries:
            path = os.path.join(folder, e.name)
            try:
                est = e.stat(follow_symlinks=True)
            except FileNotFoundError:
                skipped.append(Skipped(path, "a broken symlink"))
                continue
            except OSError as exc:
                raise InputError(f"cannot read {path}: {exc.strerror}") from None
            if stat.S_ISDIR(est.st_mode):
                subfolders.append(path)
            elif stat.S_ISREG(est.st_mode):
                if e.name.endswith(MANIFEST_SUFFIXES):
                    yield path
                elif e.name.lower().endswith(MANIFEST_SUFFIXES):  # web.YAML: kubectl skips it too, but say so
                    skipped.append(Skipped(path, CASE_SUFFIX))
            else:
                kind = (
                    "a FIFO" if stat.S_ISFIFO(est.st_mode) else "a socket" if stat.S_ISSOCK(est.st_mode) else "a device"
                )
                skipped.append(Skipped(path, f"{kind}, not a regular file"))
        stack.extend(reversed(subfolders))


def read_text(path: str, limits: Limits = DEFAULT_LIMITS) -> str:
    """A file's (or stdin's) text: UTF-8 (a BOM allowed), at most limits.max_bytes."""
    label = "<stdin>" if path == "-" else path
    try:
        if path == "-":
            if sys.stdin is None:
                raise InputError("no standard input", SourceRef(label))
            if sys.stdin.isatty():
                print("netpol: reading manifests from the terminal (end with Ctrl-D)", file=sys.stderr)
            data = sys.stdin.buffer.read(limits.max_bytes + 1) if hasattr(sys.stdin, "buffer") else None
            if data is None:
                return sys.stdin.read(limits.max_bytes + 1)
        else:
            with open(path, "rb") as fh:
                st = os.fstat(fh.fileno())
                if stat.S_ISREG(st.st_mode) and st.st_size > limits.max_bytes:  # refused before reading a byte
                    raise InputError(
                        f"{st.st_size:,} bytes, larger than {limits.max_bytes:,}; not read", SourceRef(label, -1)
                    )
                data = fh.read(limits.max_bytes + 1)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", SourceRef(label, -1)) from None
    if len(data) > limits.max_bytes:
        raise InputError(f"larger than {limits.max_bytes} bytes; not read", SourceRef(label, -1))
    return decode(data, label)


def decode(data: bytes, label: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); Kubernetes manifests are UTF-8",
            SourceRef(label, -1),
        ) from None


def read_documents(path: str, text: str | None = None, limits: Limits = DEFAULT_LIMITS) -> Iterator[Document]:
    """Parse one file (or stdin text) into top-level objects, flattening `List` / `*List`."""
    label = "<stdin>" if path == "-" else path
    if text is None:
        text = read_text(path, limits)
    try:
        docs = load_text(text, json_hint=path.endswith(".json"), limits=limits)
    except ReadError as exc:
        kind = "invalid JSON/YAML" if path.endswith(".json") else "invalid YAML"
        raise InputError(f"{kind}: {exc}", SourceRef(label, -1)) from None
    aliased = "*" in text  # once per file: a YAML alias needs a `*`
    for i, parsed in enumerate(docs):
        doc = parsed.value
        if doc is None:
            continue
        src = SourceRef(label, i)
        _check_size(doc, src, aliased=aliased)
        if isinstance(doc, list):
            for j, item in enumerate(doc):
                yield from _flatten(item, src, None, _under(parsed.duplicates, f"[{j}]"), f"[{j}]")
            continue
        yield from _flatten(doc, src, None, parsed.duplicates, "")


def _check_size(doc: Any, src: SourceRef, *, aliased: bool) -> None:
    """An object larger than the API server accepts never exists: exit 2 naming it and the field that grew.
    The whole size is walked only when the text may hold an alias (a `*`): otherwise the object is no larger
    than its text, and the fingerprint (cluster.py) measures it as it serialises it anyway."""
    if not isinstance(doc, Mapping):
        return
    objects = doc.get("items") if isinstance(doc.get("items"), list) else None
    for j, obj in enumerate(objects if objects is not None else [doc]):
        if not isinstance(obj, Mapping):
            continue
        meta = obj.get("metadata")
        meta = meta if isinstance(meta, Mapping) else {}
        prefix = f"items[{j}]." if objects is not None else ""
        big = oversized(obj) if aliased else None
        if big is not None:
            field, size = big
            raise InputError(
                f"expands to about {size / 2**20:,.0f} MiB (YAML aliases repeat it); the API server refuses an "
                f"object over {MAX_OBJECT_BYTES // 2**20} MiB, so it cannot exist",
                _named(src, obj, meta),
                prefix + field if field else prefix.rstrip("."),
            )
        annotations = meta.get("annotations")
        if isinstance(annotations, Mapping):
            total = annotations_size(annotations)
            if total is not None:
                raise InputError(
                    f"annotations total more than {total:,} bytes; the API server allows {MAX_ANNOTATION_BYTES:,} "
                    "(256 KiB) in all, so the object cannot exist",
                    _named(src, obj, meta),
                    prefix + "metadata.annotations",
                )


def _named(src: SourceRef, obj: Mapping[str, Any], meta: Mapping[str, Any]) -> SourceRef:
    """The document's place with the object's kind, namespace and name (for an error about it)."""
    name, ns, kind = meta.get("name"), meta.get("namespace"), obj.get("kind")
    return SourceRef(
        src.file,
        src.document,
        kind if isinstance(kind, str) else "",
        ns if isinstance(ns, str) else "",
        name if isinstance(name, str) else "",
    )


def _under(paths: tuple[str, ...], prefix: str) -> tuple[str, ...]:
    """The duplicate-key paths inside one item, relative to it."""
    out = []
    for p in paths:
        if p.startswith(prefix + ".") or p.startswith(prefix + "["):
            out.append(p[len(prefix) :].lstrip("."))
    return tuple(out)


def _flatten(
    obj: Any,
    src: SourceRef,
    default_kind: str | None,
    duplicates: tuple[str, ...],
    where: str,
    default_api: str | None = None,
) -> Iterator[Document]:
    if not isinstance(obj, Mapping):
        raise InputError(
            f"expected a Kubernetes object (a mapping), got {t.type_name(obj)}", src, where, show_field=bool(where)
        )
    kind = obj.get("kind")
    if kind is None:
        kind = default_kind
    if kind is None:
        raise InputError("Required value: every object has a kind", src, f"{where}.kind" if where else "kind")
    if not isinstance(kind, str) or not kind:
        raise t.wrong_type(kind, "a non-empty string", src, f"{where}.kind" if where else "kind")
    items = obj.get("items")
    if kind == "List" or (kind.endswith("List") and "items" in obj):
        inner = kind[: -len("List")] or None
        api = obj.get("apiVersion") if inner and isinstance(obj.get("apiVersion"), str) else None
        for i, item in enumerate(t.arr(items, src, f"{where}.items" if where else "items")):
            sub = f"items[{i}]"
            yield from _flatten(
                item, src, inner, _under(duplicates, sub), f"{where}.{sub}" if where else sub, api
            )
        return
    if "kind" not in obj:
        obj = {**obj, "kind": kind}
    if default_api and "apiVersion" not in obj:  # an item of a `<Kind>List` speaks its list's API group
        obj = {**obj, "apiVersion": default_api}
    meta = t.obj(obj.get("metadata"), src, "metadata")
    name = meta.get("name")
    namespace = meta.get("namespace")
    yield Document(
        obj,
        SourceRef(
            src.file,
            src.document,
            kind,
            namespace if isinstance(namespace, str) else "",
            name if isinstance(name, str) else "",
        ),
        duplicates,
    )
