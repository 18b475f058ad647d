"""YAML and JSON text → Python values, bounded, with duplicate keys seen: the one reader of every input.

Two paths, one result (tests/netpol/test_yamlread.py proves both identical to `yaml.safe_load_all` on every
YAML file of the repository, the real apps, generated clusters and a YAML 1.1 corpus):
- the C extension `_kyaml` (netpol/loading/_kyaml.c, built by setup.py) turns libyaml's events into dicts,
  lists and strings directly; a plain scalar that can be of another type (YAML 1.1: `yes`/`on` are booleans,
  `0777` an octal int, timestamps…) is resolved here, by PyYAML's resolver and SafeConstructor, once per
  distinct spelling. About 10× `safe_load_all` on Kubernetes manifests, where Python on top of PyYAML's C
  parser cannot pass 1.5× (it makes a Python object for every node). It declines what it does not reproduce
  itself (explicit tags, merge keys, duplicate keys, complex keys, any error or limit): then
- the Python path reads the text: libyaml (PyYAML's C parser) composes the node graph, and a construction
  specialised for Kubernetes documents (yamlbuild.py) builds the values; anything unusual (`!!set`, `!!binary`, merge keys…)
  goes through PyYAML's own SafeConstructor. It is the whole reader where the extension is not built.

What `safe_load_all` does not do, and Kubernetes' readers do (sigs.k8s.io/yaml over go-yaml):
- duplicate keys are recorded with their full path (`spec`, `metadata.labels.app`) — kubectl's strict
  decoding reports them as `duplicate field`;
- alias expansion is bounded by counting the nodes every alias stands for (go-yaml counts decoded nodes the
  same way), so an alias bomb is an error, never gigabytes of memory downstream;
- nesting depth, document count and text size are bounded; libyaml's composer recurses in C, so text that
  could nest deeper than it safely can is first measured with the event stream.

JSON is read as `json.loads` reads it, through orjson (the fastest well-kept JSON parser for CPython,
written in Rust, strict RFC 8259) unless the text has an integer beyond 64 bits (orjson makes it a float;
the standard library is used then). When both refuse a text (comments, a trailing comma), the YAML reader,
which reads JSON too, gives the answer or the error with a line number.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, ScalarNode
from yaml.parser import Parser
from yaml.reader import Reader
from yaml.scanner import Scanner

from netpol.loading.textbounds import (
    CONSTRUCTORS,
    DEFAULT_LIMITS,
    MAP,
    MERGE,
    RESOLVER,
    SEQ,
    STR,
    VALUE,
    Limits,
    Parsed,
    ReadError,
    mark_error,
)
from netpol.loading.yamlbuild import Builder

__all__ = ["DEFAULT_LIMITS", "Limits", "Parsed", "ReadError", "load_json", "load_text", "load_yaml", "read_in_c"]


class _PyParser(Reader, Scanner, Parser, Composer):
    """PyYAML's pure-Python parser: the same events as libyaml's, with no nesting limit of its own."""

    def __init__(self, stream: str) -> None:
        Reader.__init__(self, stream)
        Scanner.__init__(self)
        Parser.__init__(self)
        Composer.__init__(self)


try:  # pragma: no cover - the import itself is the test
    from yaml._yaml import CParser as _Parser
except ImportError:  # pragma: no cover - PyYAML without libyaml: same semantics, slower
    _Parser = _PyParser  # type: ignore[assignment,misc]


try:
    import orjson

    _json_loads: Callable[[str], Any] = orjson.loads
    _JSONError: type[Exception] = orjson.JSONDecodeError
except ImportError:  # pragma: no cover - orjson is a dependency; the standard library reads the same
    _json_loads = json.loads
    _JSONError = json.JSONDecodeError

try:  # the C fast path (setup.py builds it when gcc, Python's and libyaml's headers are there)
    from netpol.loading import _kyaml
except ImportError:  # pragma: no cover - CI proves the extension is built (test_yamlread)
    _kyaml = None  # type: ignore[assignment]


class _Loader(_Parser):
    """libyaml's parser and composer with a memoised YAML 1.1 scalar resolver (the one Python call per node)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self._plain: dict[str, str] = {}

    def resolve(self, kind: type, value: Any, implicit: tuple[bool, bool]) -> str:
        if kind is ScalarNode:
            if implicit[0]:
                tag = self._plain.get(value)
                if tag is None:
                    tag = self._plain[value] = RESOLVER.resolve(kind, value, implicit)
                return tag
            return STR
        return MAP if kind is MappingNode else SEQ

    def descend_resolver(self, *_: object) -> None:  # no path resolvers (SafeLoader has none)
        return None

    def ascend_resolver(self) -> None:
        return None


# First characters that can start a plain scalar of another type than str: PyYAML's own YAML 1.1 table.
_SPECIAL = bytes(1 if chr(c) in RESOLVER.yaml_implicit_resolvers else 0 for c in range(256))
_INT = "tag:yaml.org,2002:int"
_SAFE_CONSTRUCTOR = SafeConstructor()


def _plain_scalar(value: str) -> Any:
    """The C path's one call into Python: a plain scalar's value, resolved and built as the Python path does
    (`_Loader.resolve`, `_Builder._scalar`); what that path would refuse or treat specially is `Unusual`."""
    tag = RESOLVER.resolve(ScalarNode, value, (True, False))
    if tag == STR:
        return value
    ctor = CONSTRUCTORS.get(tag)
    if ctor is None or tag == MERGE or tag == VALUE or (tag == _INT and len(value.replace("_", "")) > 64):
        raise _kyaml.Unusual
    try:
        built = ctor(_SAFE_CONSTRUCTOR, ScalarNode(tag, value))
    except Exception:  # the Python path gives the message with its position
        raise _kyaml.Unusual from None
    if isinstance(built, list | dict | set):  # pragma: no cover - no implicit YAML 1.1 type is a collection
        raise _kyaml.Unusual
    return built


def _depth_bound(text: str) -> int:
    """An upper bound of the nesting depth, cheap: block nesting needs indentation, flow nesting brackets."""
    longest = max(map(len, text.split("\n")), default=0)
    return 2 * longest + text.count("[") + text.count("{") + 4


# libyaml's composer recurses in C: 10,000 levels are fine with the default 8 MiB stack, 100,000 are not.
_COMPOSE_SAFE_DEPTH = 4_000


def _measure_depth(text: str, limits: Limits, parser_class: type = _Parser) -> None:
    """Walk the event stream (iterative) and refuse nesting deeper than the limit before composing."""
    parser = parser_class(text)
    depth = 0
    try:
        while True:
            ev = parser.get_event()
            if ev is None:
                return
            cls = ev.__class__
            if cls is yaml.MappingStartEvent or cls is yaml.SequenceStartEvent:
                depth += 1
                if depth > limits.max_depth:
                    mark = ev.start_mark
                    line, column = (mark.line + 1, mark.column + 1) if mark is not None else (None, None)
                    raise ReadError(f"nesting deeper than {limits.max_depth} levels", line, column)
            elif cls is yaml.MappingEndEvent or cls is yaml.SequenceEndEvent:
                depth -= 1
            elif cls is yaml.StreamEndEvent:
                return
    except yaml.MarkedYAMLError as exc:
        if "maximum nesting depth" not in (exc.problem or "") or parser_class is _PyParser:
            raise mark_error(exc) from None
    finally:
        parser.dispose()
    # libyaml 0.2.6+ (bundled in PyYAML 6.0.4) stops at 1,000 levels, and its scanner reads a run of `[` ahead
    # of the events: the pure-Python parser gives the same events without that limit, so our own limit answers
    # at its own place, as it does with older libyaml and in the C path.
    _measure_depth(text, limits, _PyParser)


def load_yaml(text: str, limits: Limits = DEFAULT_LIMITS, *, fast: bool = True) -> list[Parsed]:
    """Every document of a YAML stream, as `yaml.safe_load_all` would give it, within `limits`.

    With the C extension (`fast`), libyaml's events become values in C; the Python path below reads what it
    declines, and is the whole reader where the extension is not built (`fast=False`: the tests read both).
    """
    if len(text) > limits.max_bytes:
        raise ReadError(f"input larger than {limits.max_bytes} bytes")
    if "\x00" in text:
        raise ReadError("input contains a NUL character (binary data?)")
    if fast:
        values = read_in_c(text, limits)
        if values is not None:
            return [Parsed(v) for v in values]
    try:
        if _depth_bound(text) > _COMPOSE_SAFE_DEPTH:
            _measure_depth(text, limits)
        loader = _Loader(text)
    except UnicodeEncodeError as exc:  # a str that no file gives (decoding is strict): a lone surrogate
        raise ReadError(f"not UTF-8 text (an unpaired surrogate at character {exc.start})") from None
    docs: list[Parsed] = []
    aliases = "*" in text and "&" in text
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is None:  # pragma: no cover - check_node said there is one
                break
            if len(docs) >= limits.max_documents:
                raise ReadError(f"more than {limits.max_documents} documents")
            docs.append(Builder(limits, aliases).document(node))
    except yaml.MarkedYAMLError as exc:
        if "maximum nesting depth" in (exc.problem or ""):  # libyaml's own 1,000 levels: ours is lower
            _measure_depth(text, limits)
        raise mark_error(exc) from None
    except yaml.YAMLError as exc:  # pragma: no cover - libyaml's unmarked errors (e.g. a reader error)
        raise ReadError(str(exc)) from None
    finally:
        loader.dispose()
    return docs


def read_in_c(text: str, limits: Limits = DEFAULT_LIMITS) -> list[Any] | None:
    """Every document's value read by the C extension, or None where it declines the text (a limit reached,
    an error, a duplicate key, an explicit tag, a merge key…: the Python path says which) or is not built."""
    if _kyaml is None:  # pragma: no cover - CI proves the extension is built (test_yamlread)
        return None
    try:
        return _kyaml.load(
            text, _SPECIAL, _plain_scalar, limits.max_depth, limits.max_documents, limits.max_alias_nodes
        )
    except _kyaml.Unusual:
        return None


def load_json(text: str, limits: Limits = DEFAULT_LIMITS) -> list[Parsed]:
    """One JSON value, as `json.loads` reads it (orjson when it reads the same: no integer beyond 64 bits);
    texts it refuses, and texts that repeat a key, go through the YAML reader (line numbers, key paths)."""
    if len(text) > limits.max_bytes:
        raise ReadError(f"input larger than {limits.max_bytes} bytes")
    try:
        if _LONG_NUMBER.search(text) or _json_loads is json.loads:
            value = json.loads(text)  # orjson would read integers beyond 64 bits as floats
            keys, depth = _count_keys(value)
        else:
            value = _json_loads(text)
            keys, depth = _orjson_keys(value)
    except (_JSONError, ValueError, RecursionError):
        return load_yaml(text, limits)
    if depth > limits.max_depth:
        raise ReadError(f"nesting deeper than {limits.max_depth} levels")
    if _text_keys(text) != keys:  # a key given twice (or written unusually): the YAML reader names its path
        return load_yaml(text, limits)
    return [Parsed(value)]


_LONG_NUMBER = re.compile(r"\d{19}")


def _text_keys(text: str) -> int:
    """Keys in a JSON text: `":` outside strings (inside one, a quote is escaped: `\\":`)."""
    return text.count('":') - text.count('\\":')


def _orjson_keys(value: Any) -> tuple[int, int]:
    """Keys of a parsed value, counted in C: orjson's compact form writes every key as `"key":`.

    orjson refuses to write nesting deeper than 254 levels, which bounds the depth the same way.
    """
    try:
        data = orjson.dumps(value)
    except orjson.JSONEncodeError:
        return 0, 255
    return data.count(b'":') - data.count(b'\\":'), 0


def _count_keys(value: Any) -> tuple[int, int]:
    """Keys in a parsed JSON value, and its nesting depth (the standard library's path)."""
    n = 0
    deepest = 0
    stack = [(value, 0)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, dict):
            n += len(v)
            depth += 1
            stack.extend((c, depth) for c in v.values() if isinstance(c, dict | list))
        elif isinstance(v, list):
            depth += 1
            stack.extend((c, depth) for c in v if isinstance(c, dict | list))
        deepest = max(deepest, depth)
    return n, deepest


def looks_like_json(text: str) -> bool:
    stripped = text.lstrip()
    return stripped.startswith(("{", "["))


def load_text(text: str, *, json_hint: bool = False, limits: Limits = DEFAULT_LIMITS) -> list[Parsed]:
    """YAML or JSON (by hint or by the first character), bounded; raises ReadError."""
    if json_hint or looks_like_json(text):
        return load_json(text, limits)
    return load_yaml(text, limits)
