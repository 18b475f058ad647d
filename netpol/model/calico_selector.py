"""Calico's selector language: a parser of its own, an expression tree, and evaluation on one label map.

The grammar, from Calico's reference (docs.tigera.io, "Selectors" in the NetworkPolicy resource page) and
libcalico-go `lib/selector/tokenizer` and `lib/selector/parser`:

    expr     := and ( "||" and )*
    and      := op ( "&&" op )*
    op       := "!"* ( "all()" | "global()" | "has(" key ")" | "(" expr ")"
                     | key ( "==" | "!=" | "contains" | "starts with" | "ends with" ) string
                     | key ( "in" | "not in" ) "{" [ string ( "," string )* ] "}" )
    key      := [a-zA-Z0-9_./-]{1,512}
    string   := "…" | '…'          (no escapes: the quote that opened the string ends it)

The empty selector is `all()`. `k != "v"` and `k not in {…}` also match when `k` is absent; `contains`,
`starts with` and `ends with` need the label. `global()` is true of every label map: what it means (a
non-namespaced entity) is decided by the namespaceSelector that uses it (libcalico-go `GetEntityRuleSelector`).
Vectorised evaluation over pod classes lives in the engine's Calico compiler; this module is the language.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Literal, assert_never

KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-")
MAX_KEY = 512

ValueOp = Literal["==", "!=", "contains", "starts with", "ends with"]
SetOp = Literal["in", "not in"]


@dataclass(frozen=True, slots=True)
class All:
    """all(): every endpoint (also the empty selector)."""


@dataclass(frozen=True, slots=True)
class Global:
    """global(): in a namespaceSelector, the entities that live in no namespace."""


@dataclass(frozen=True, slots=True)
class Has:
    key: str


@dataclass(frozen=True, slots=True)
class Compare:
    key: str
    op: ValueOp
    value: str


@dataclass(frozen=True, slots=True)
class InSet:
    key: str
    op: SetOp
    values: frozenset[str]


@dataclass(frozen=True, slots=True)
class Not:
    operand: Node


@dataclass(frozen=True, slots=True)
class And:
    operands: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Or:
    operands: tuple[Node, ...]


Node = All | Global | Has | Compare | InSet | Not | And | Or


class SelectorError(ValueError):
    """A malformed selector; `column` is 1-based, counted in the selector's own text."""

    def __init__(self, message: str, column: int) -> None:
        self.message = message
        self.column = column
        super().__init__(f"column {column}: {message}")


@dataclass(frozen=True, slots=True)
class Selector:
    """A parsed selector with the text it came from (outputs quote the policy's own words)."""

    text: str
    root: Node

    def matches(self, labels: Mapping[str, str]) -> bool:
        return evaluate(self.root, labels)

    @property
    def keys(self) -> frozenset[str]:
        return frozenset(label_keys(self.root))

    @property
    def uses_global(self) -> bool:
        return any(isinstance(n, Global) for n in walk(self.root))

    @property
    def is_all(self) -> bool:
        return isinstance(self.root, All)


ALL = Selector("", All())


def evaluate(node: Node, labels: Mapping[str, str]) -> bool:
    match node:
        case All() | Global():
            return True
        case Has(key):
            return key in labels
        case Compare(key, op, value):
            have = labels.get(key)
            return compare(op, have, value)
        case InSet(key, op, values):
            have = labels.get(key)
            inside = have is not None and have in values
            return inside if op == "in" else not inside
        case Not(operand):
            return not evaluate(operand, labels)
        case And(operands):
            return all(evaluate(o, labels) for o in operands)
        case Or(operands):
            return any(evaluate(o, labels) for o in operands)
        case _:
            assert_never(node)


def namespace_match(node: Node, labels: Mapping[str, str], namespaced: bool) -> bool:
    """A namespaceSelector on one entity: its namespace's labels, `all()` = namespaced, `global()` = not
    (libcalico-go rules.go rewrites them to has / !has(projectcalico.org/namespace)); `pcns.`-prefixed keys of
    a non-namespaced entity are absent."""
    match node:
        case All():
            return namespaced
        case Global():
            return not namespaced
        case Not(operand):
            return not namespace_match(operand, labels, namespaced)
        case And(operands):
            return all(namespace_match(o, labels, namespaced) for o in operands)
        case Or(operands):
            return any(namespace_match(o, labels, namespaced) for o in operands)
        case Has() | Compare() | InSet():
            return evaluate(node, labels)
        case _:
            assert_never(node)


def compare(op: ValueOp, have: str | None, value: str) -> bool:
    """One comparison on a label's value (None: the label is absent)."""
    match op:
        case "==":
            return have == value
        case "!=":  # also true when the label is absent
            return have != value
        case "contains":
            return have is not None and value in have
        case "starts with":
            return have is not None and have.startswith(value)
        case "ends with":
            return have is not None and have.endswith(value)
        case _:
            assert_never(op)


def walk(node: Node) -> Iterator[Node]:
    yield node
    match node:
        case Not(operand):
            yield from walk(operand)
        case And(operands) | Or(operands):
            for o in operands:
                yield from walk(o)
        case _:
            pass


def label_keys(node: Node) -> Iterator[str]:
    for n in walk(node):
        if isinstance(n, Has | Compare | InSet):
            yield n.key


def render(node: Node) -> str:
    """The canonical text of a tree (for messages about combined selectors)."""
    match node:
        case All():
            return "all()"
        case Global():
            return "global()"
        case Has(key):
            return f"has({key})"
        case Compare(key, op, value):
            return f"{key} {op} {_quote(value)}"
        case InSet(key, op, values):
            return f"{key} {op} {{{', '.join(_quote(v) for v in sorted(values))}}}"
        case Not(operand):
            inner = render(operand)
            return f"!{inner}" if isinstance(operand, Has | All | Global) else f"!({inner})"
        case And(operands):
            return " && ".join(f"({render(o)})" if isinstance(o, Or) else render(o) for o in operands)
        case Or(operands):
            return " || ".join(render(o) for o in operands)
        case _:
            assert_never(node)


def _quote(value: str) -> str:
    return f"'{value}'" if '"' in value else f'"{value}"'


# --- parsing ---------------------------------------------------------------------------------------------

TokKind = Literal[
    "key", "string", "(", ")", "{", "}", ",", "==", "!=", "!", "&&", "||", "op", "all", "global", "has", "end"
]


@dataclass(frozen=True, slots=True)
class _Tok:
    kind: TokKind
    text: str
    column: int  # 1-based


_WORD_OPS: tuple[tuple[str, str], ...] = (  # after a key: (words, operator) in the order they are tried
    ("contains", "contains"),
    ("starts with", "starts with"),
    ("ends with", "ends with"),
    ("not in", "not in"),
    ("in", "in"),
)


def _key_at(text: str, i: int) -> int:
    """The end of the label key starting at i (i when none)."""
    j = i
    while j < len(text) and text[j] in KEY_CHARS:
        j += 1
    return j


def _skip_blanks(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t":
        i += 1
    return i


def _tokens(text: str) -> list[_Tok]:
    out: list[_Tok] = []
    i = 0
    n = len(text)
    while True:
        i = _skip_blanks(text, i)
        if i >= n:
            out.append(_Tok("end", "", n + 1))
            return out
        col = i + 1
        c = text[i]
        two = text[i : i + 2]
        if c in "(){},":
            out.append(_Tok(c, c, col))  # type: ignore[arg-type]
            i += 1
        elif c in "\"'":
            close = text.find(c, i + 1)
            if close < 0:
                raise SelectorError(f"unterminated string (no closing {c})", col)
            out.append(_Tok("string", text[i + 1 : close], col))
            i = close + 1
        elif two in ("==", "!=", "&&", "||"):
            out.append(_Tok(two, two, col))  # type: ignore[arg-type]
            i += 2
        elif c == "!":
            out.append(_Tok("!", c, col))
            i += 1
        elif c in "=&|":
            raise SelectorError(f"expected {c * 2 if c != '=' else '=='}", col)
        elif out and out[-1].kind == "key":
            i = _word_operator(text, i, out)
        elif text.startswith("has(", i):
            j = _skip_blanks(text, i + 4)
            end = _key_at(text, j)
            if end == j:
                raise SelectorError("expected a label key inside has()", j + 1)
            k = _skip_blanks(text, end)
            if k >= n or text[k] != ")":
                raise SelectorError("expected ) to close has(", k + 1)
            _check_key(text[j:end], j + 1)
            out.append(_Tok("has", text[j:end], col))
            i = k + 1
        elif text.startswith("all(", i) or text.startswith("global(", i):
            word = "all" if text.startswith("all(", i) else "global"
            k = _skip_blanks(text, i + len(word) + 1)
            if k >= n or text[k] != ")":
                raise SelectorError(f"expected ) to close {word}(", k + 1)
            out.append(_Tok(word, word, col))  # type: ignore[arg-type]
            i = k + 1
        else:
            end = _key_at(text, i)
            if end == i:
                raise SelectorError(f"unexpected character {c!r}", col)
            _check_key(text[i:end], col)
            out.append(_Tok("key", text[i:end], col))
            i = end


def _word_operator(text: str, i: int, out: list[_Tok]) -> int:
    for words, op in _WORD_OPS:
        first, _, second = words.partition(" ")
        if not text.startswith(first, i):
            continue
        j = i + len(first)
        if second:
            j = _skip_blanks(text, j)
            if not text.startswith(second, j):
                continue
            j += len(second)
        out.append(_Tok("op", op, i + 1))
        return j
    key = out[-1].text
    raise SelectorError(
        f"expected an operator after label {key!r} (==, !=, in, not in, contains, starts with, ends with)", i + 1
    )


def _check_key(key: str, column: int) -> None:
    if len(key) > MAX_KEY:
        raise SelectorError(f"label key longer than {MAX_KEY} characters", column)


class _Parser:
    def __init__(self, text: str) -> None:
        self.toks = _tokens(text)
        self.pos = 0

    def peek(self) -> _Tok:
        return self.toks[self.pos]

    def take(self) -> _Tok:
        tok = self.toks[self.pos]
        if tok.kind != "end":
            self.pos += 1
        return tok

    def fail(self, message: str, tok: _Tok | None = None) -> SelectorError:
        tok = tok or self.peek()
        found = (
            "the end of the selector"
            if tok.kind == "end"
            else repr(tok.text if tok.kind != "string" else f"'{tok.text}'")
        )
        return SelectorError(f"{message}, found {found}", tok.column)

    def expr(self) -> Node:
        parts = [self.conj()]
        while self.peek().kind == "||":
            self.take()
            parts.append(self.conj())
        return parts[0] if len(parts) == 1 else Or(tuple(parts))

    def conj(self) -> Node:
        parts = [self.op()]
        while self.peek().kind == "&&":
            self.take()
            parts.append(self.op())
        return parts[0] if len(parts) == 1 else And(tuple(parts))

    def op(self) -> Node:
        negate = False
        while self.peek().kind == "!":
            self.take()
            negate = not negate
        node = self.primary()
        return Not(node) if negate else node

    def primary(self) -> Node:
        tok = self.take()
        match tok.kind:
            case "all":
                return All()
            case "global":
                return Global()
            case "has":
                return Has(tok.text)
            case "(":
                inner = self.expr()
                if self.peek().kind != ")":
                    raise self.fail("expected ) to close the ( at column " + str(tok.column))
                self.take()
                return inner
            case "key":
                return self.comparison(tok.text)
            case _:
                raise self.fail("expected a label key, has(), all(), global(), ! or (", tok)

    def comparison(self, key: str) -> Node:
        tok = self.take()
        if tok.kind in ("==", "!="):
            value = self.take()
            if value.kind != "string":
                raise self.fail(f"expected a quoted string after {tok.text}", value)
            return Compare(key, tok.kind, value.text)
        if tok.kind != "op":
            raise self.fail(f"expected an operator after label {key!r}", tok)
        if tok.text in ("in", "not in"):
            if self.peek().kind != "{":
                raise self.fail(f"expected {{ after {tok.text}")
            self.take()
            values: list[str] = []
            while self.peek().kind == "string":
                values.append(self.take().text)
                if self.peek().kind != ",":
                    break
                self.take()
            if self.peek().kind != "}":
                raise self.fail("expected a quoted string or } in the set")
            self.take()
            return InSet(key, tok.text, frozenset(values))  # type: ignore[arg-type]
        value = self.take()
        if value.kind != "string":
            raise self.fail(f"expected a quoted string after {tok.text}", value)
        return Compare(key, tok.text, value.text)  # type: ignore[arg-type]


def parse_selector(text: str) -> Selector:
    """Parse one selector; raises SelectorError with the column of the problem."""
    parser = _Parser(text)
    if parser.peek().kind == "end":
        return Selector(text, All())
    root = parser.expr()
    if parser.peek().kind != "end":
        raise parser.fail("unexpected text after the selector (missing && or ||?)")
    return Selector(text, root)
