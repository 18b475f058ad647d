"""The Python path's construction: a composed YAML node graph → Python values for one document.

Specialised for Kubernetes documents (plain strings, maps and lists built directly; anything unusual such as
`!!set`, `!!binary` or merge keys goes to PyYAML's own SafeConstructor), with what `safe_load_all` does not
do and Kubernetes' readers do: alias expansion counted, depth bounded, duplicate keys named by their path.
yamlread uses it where the C extension declines a text or is not built.
"""

from __future__ import annotations

import re
from typing import Any

from yaml.constructor import ConstructorError, SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from netpol.loading.textbounds import (
    CONSTRUCTORS,
    MAP,
    MERGE,
    SEQ,
    STR,
    VALUE,
    Limits,
    Parsed,
    ReadError,
    mark_error,
)


class Builder:
    """Node graph → Python values for one document (see the module docstring for why not SafeConstructor)."""

    __slots__ = ("_aliases", "_dups", "_limits", "_memo", "_safe", "_scalars")

    def __init__(self, limits: Limits, aliases: bool) -> None:
        self._limits = limits
        self._aliases = aliases
        self._memo: dict[int, Any] = {}
        self._scalars: dict[tuple[str, str], Any] = {}
        self._dups = False
        self._safe: SafeConstructor | None = None

    def document(self, node: Node) -> Parsed:
        if self._aliases:
            self._check_aliases(node)
        value = self._build(node, 0)
        dups = tuple(duplicate_paths(node)) if self._dups else ()
        return Parsed(value, dups)

    def _check_aliases(self, root: Node) -> None:
        """Count the nodes the document stands for (each alias counted in full) without expanding it."""
        sizes: dict[int, int] = {}
        seen_once: set[int] = set()
        on_path: set[int] = set()
        stack: list[tuple[Node, bool]] = [(root, False)]
        repeated = 0
        while stack:
            node, done = stack.pop()
            key = id(node)
            if done:
                on_path.discard(key)
                if isinstance(node, ScalarNode):
                    sizes[key] = 1
                elif isinstance(node, SequenceNode):
                    sizes[key] = 1 + sum(sizes[id(c)] for c in node.value)
                else:
                    sizes[key] = 1 + sum(sizes[id(k)] + sizes[id(v)] for k, v in node.value)
                continue
            if key in sizes:
                repeated += sizes[key]
                if repeated > self._limits.max_alias_nodes:
                    mark = node.start_mark
                    raise ReadError(
                        f"aliases expand to more than {self._limits.max_alias_nodes} nodes (a YAML alias bomb?)",
                        mark.line + 1,
                        mark.column + 1,
                    )
                continue
            if key in on_path:
                mark = node.start_mark
                raise ReadError("an alias refers to a node that contains it", mark.line + 1, mark.column + 1)
            if key in seen_once:  # reached again before its size is known: only possible through a cycle
                continue
            seen_once.add(key)
            on_path.add(key)
            stack.append((node, True))
            if isinstance(node, SequenceNode):
                stack.extend((c, False) for c in reversed(node.value))
            elif isinstance(node, MappingNode):
                for k, v in reversed(node.value):
                    stack.append((v, False))
                    stack.append((k, False))

    def _build(self, node: Node, depth: int) -> Any:
        cls = node.__class__
        tag = node.tag
        if cls is ScalarNode:
            if tag == STR:
                return node.value
            return self._scalar(node)
        if depth >= self._limits.max_depth:
            mark = node.start_mark
            raise ReadError(f"nesting deeper than {self._limits.max_depth} levels", mark.line + 1, mark.column + 1)
        if self._aliases:
            key = id(node)
            if key in self._memo:
                return self._memo[key]
        if cls is MappingNode:
            if tag != MAP:
                return self._other(node)
            pairs = node.value
            merged = False
            for k, _ in pairs:
                if k.tag == MERGE or k.tag == VALUE:
                    self._flatten(node)
                    pairs = node.value
                    merged = True
                    break
            out: dict[Any, Any] = {}
            if self._aliases:
                self._memo[id(node)] = out
            build = self._build
            d = depth + 1
            for k, v in pairs:
                if k.__class__ is ScalarNode and k.tag == STR:
                    kv = k.value
                else:
                    kv = build(k, d)
                    try:
                        hash(kv)
                    except TypeError:
                        mark = k.start_mark
                        raise ReadError(
                            "found unhashable key (a mapping or list used as a key)", mark.line + 1, mark.column + 1
                        ) from None
                out[kv] = build(v, d)
            if len(out) != len(pairs) and not merged:
                self._dups = True
            return out
        if tag != SEQ:
            return self._other(node)
        items: list[Any] = []
        if self._aliases:
            self._memo[id(node)] = items
        build = self._build
        d = depth + 1
        for c in node.value:
            items.append(c.value if c.__class__ is ScalarNode and c.tag == STR else build(c, d))
        return items

    def _scalar(self, node: Node) -> Any:
        key = (node.tag, node.value)
        try:
            return self._scalars[key]
        except KeyError:
            pass
        ctor = CONSTRUCTORS.get(node.tag)
        if ctor is None:
            return self._other(node)
        if node.tag == "tag:yaml.org,2002:int" and len(node.value.replace("_", "")) > 64:
            mark = node.start_mark
            raise ReadError(f"integer {node.value[:20]}… is too large", mark.line + 1, mark.column + 1)
        try:
            value = ctor(self._constructor(), node)
        except ConstructorError as exc:
            raise mark_error(exc) from None
        except ValueError as exc:  # e.g. a timestamp out of range
            mark = node.start_mark
            raise ReadError(f"invalid value {node.value[:40]!r}: {exc}", mark.line + 1, mark.column + 1) from None
        if not isinstance(value, list | dict | set):
            self._scalars[key] = value
        return value

    def _constructor(self) -> SafeConstructor:
        if self._safe is None:
            self._safe = SafeConstructor()
        return self._safe

    def _other(self, node: Node) -> Any:
        """Explicitly tagged nodes (`!!set`, `!!omap`, `!!binary`, unknown tags): PyYAML's own constructor."""
        try:
            return self._constructor().construct_object(node, deep=True)
        except ConstructorError as exc:
            raise mark_error(exc) from None

    def _flatten(self, node: Node) -> None:
        assert isinstance(node, MappingNode)  # merge keys are only found in mappings
        try:
            self._constructor().flatten_mapping(node)
        except ConstructorError as exc:
            raise mark_error(exc) from None


_PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")


def duplicate_paths(root: Node) -> list[str]:
    """Paths of keys that appear twice in one mapping (slow path, only for documents that have them)."""
    out: list[str] = []
    seen_nodes: set[int] = set()
    stack: list[tuple[Node, str]] = [(root, "")]
    while stack:
        node, path = stack.pop()
        if id(node) in seen_nodes:
            continue
        seen_nodes.add(id(node))
        if isinstance(node, SequenceNode):
            for i, c in enumerate(node.value):
                stack.append((c, f"{path}[{i}]"))
        elif isinstance(node, MappingNode):
            keys: set[Any] = set()
            for k, v in node.value:
                name = k.value if isinstance(k, ScalarNode) else "<key>"
                if not _PLAIN_KEY.match(name):
                    sub = f"{path}[{name}]"  # map keys as apimachinery's field.Path renders them
                else:
                    sub = f"{path}.{name}" if path else str(name)
                if isinstance(k, ScalarNode):
                    if name in keys and k.tag != MERGE:
                        out.append(sub)
                    keys.add(name)
                stack.append((v, sub))
    return sorted(set(out))
