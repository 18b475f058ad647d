"""Labels and label selectors, with Kubernetes' own matching rules.

Mirrors apimachinery pkg/labels/selector.go: `NotIn` and `DoesNotExist` match when the key is absent,
`In`/`NotIn` need values, `Exists`/`DoesNotExist` must not have them. Node selectors add `Gt`/`Lt`
(k8s.io/component-helpers/scheduling/corev1/nodeaffinity): the label value must parse as an integer.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from netpol.model.names import label_key, label_value

V = TypeVar("V")


class FrozenMap(Mapping[str, V], Generic[V]):
    """An immutable, hashable, key-sorted map (so pods with equal labels share an equivalence class)."""

    __slots__ = ("_d", "_h")

    def __init__(self, data: Mapping[str, V] | None = None) -> None:
        self._d: dict[str, V] = dict(sorted(data.items())) if data else {}
        # hashed on first use: most maps (a container's resources, a workload's own labels) never are, and
        # reading 100,000 pods builds hundreds of thousands of them
        self._h: int | None = None

    def __getitem__(self, key: str) -> V:
        return self._d[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._d)

    def __len__(self) -> int:
        return len(self._d)

    def __hash__(self) -> int:
        h = self._h
        if h is None:
            h = self._h = hash(tuple(self._d.items()))
        return h

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FrozenMap):
            if self._h is not None and other._h is not None and self._h != other._h:
                return False
            return self._d == other._d
        if isinstance(other, Mapping):
            return self._d == dict(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._d!r})"

    def to_dict(self) -> dict[str, V]:
        """A plain dict, copied in C (`dict(m)` reads a Mapping key by key through Python methods)."""
        return dict(self._d)


class Labels(FrozenMap[str]):
    """Labels of a pod, node or namespace."""

    __slots__ = ()

    def render(self) -> str:
        return ",".join(f"{k}={v}" for k, v in self._d.items())


EMPTY_LABELS = Labels()

SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")
NODE_SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")


@dataclass(frozen=True, slots=True)
class LabelSelectorRequirement:
    key: str
    operator: str
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        match self.operator:
            case "In":
                return self.key in labels and labels[self.key] in self.values
            case "NotIn":
                # Absent key matches NotIn (apimachinery labels.Requirement.Matches).
                return self.key not in labels or labels[self.key] not in self.values
            case "Exists":
                return self.key in labels
            case "DoesNotExist":
                return self.key not in labels
            case _:  # validated at load time
                raise AssertionError(self.operator)

    def render(self) -> str:
        match self.operator:
            case "In":
                return f"{self.key} in ({','.join(self.values)})"
            case "NotIn":
                return f"{self.key} notin ({','.join(self.values)})"
            case "Exists":
                return self.key
            case _:
                return f"!{self.key}"


@dataclass(frozen=True, slots=True)
class LabelSelector:
    """metav1.LabelSelector. The empty selector matches everything; a nil selector is modelled as None."""

    match_labels: Labels = field(default_factory=Labels)
    match_expressions: tuple[LabelSelectorRequirement, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        for k, v in self.match_labels.items():
            if labels.get(k) != v:
                return False
        return all(r.matches(labels) for r in self.match_expressions)

    @property
    def is_empty(self) -> bool:
        return not self.match_labels and not self.match_expressions

    def render(self) -> str:
        parts = [f"{k}={v}" for k, v in self.match_labels.items()]
        parts += [r.render() for r in self.match_expressions]
        return ",".join(parts) if parts else "{}"


MATCH_ALL = LabelSelector()


_SPECIAL = "!=(),<>"
_OPERATORS = ("!=", "<", "=", "==", ">", "in", "notin")


def _tokens(text: str) -> list[str]:
    """apimachinery labels.Lexer: `!=`/`==` and single special characters; runs of other characters."""
    out: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c.isspace():
            i += 1
        elif c in _SPECIAL:
            if text[i : i + 2] in ("!=", "=="):
                out.append(text[i : i + 2])
                i += 2
            else:
                out.append(c)
                i += 1
        else:
            j = i
            while j < len(text) and not text[j].isspace() and text[j] not in _SPECIAL:
                j += 1
            out.append(text[i:j])
            i = j
    return out


def _is_identifier(tok: str | None) -> bool:
    return tok is not None and tok not in ("!=", "==") and tok not in _SPECIAL


def parse_selector_string(text: str) -> LabelSelector:
    """kubectl's `-l` grammar (apimachinery pkg/labels/selector.go Parser), with its error messages.

    `a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`, comma-separated (AND). Keys and values
    are validated as label keys and values. `-l '!!'` and `-l 'a in (b'` are errors, as kubectl says.
    Gt/Lt (`a>1`) parse upstream but select pods only through node affinity here: refused with a message.
    """
    toks = _tokens(text)
    pos = 0

    def peek() -> str | None:
        return toks[pos] if pos < len(toks) else None

    def take() -> str | None:
        nonlocal pos
        tok = peek()
        pos += 1
        return tok

    def shown(tok: str | None) -> str:
        return "" if tok is None else tok

    def fail(message: str) -> ValueError:
        return ValueError(f"-l {text!r}: unable to parse requirement: {message}")

    def check_value(v: str) -> str:
        reason = label_value(v)
        if reason:
            raise fail(f'values[0]: Invalid value: "{v}": {reason}')
        return v

    labels: dict[str, str] = {}
    exprs: list[LabelSelectorRequirement] = []
    if peek() is None:
        return LabelSelector()
    while True:
        tok = peek()
        if not (_is_identifier(tok) or tok == "!"):
            raise fail(f"found '{shown(tok)}', expected: !, identifier, or 'end of string'")
        negated = take() == "!"
        key = take() if negated else tok
        if not negated:
            pass
        if not _is_identifier(key):
            raise fail(f"found '{shown(key)}', expected: identifier")
        assert key is not None
        reason = label_key(key)
        if reason:
            raise fail(f'key: Invalid value: "{key}": {reason}')
        nxt = peek()
        if nxt is None or nxt == ",":
            exprs.append(LabelSelectorRequirement(key, "DoesNotExist" if negated else "Exists"))
        else:
            op = take()
            if op in ("in", "notin"):
                if take() != "(":
                    raise fail(f"found '{shown(toks[pos - 1] if pos <= len(toks) else None)}', expected: '('")
                values: list[str] = []
                expect_value = True
                while True:
                    t = take()
                    if t == ")":
                        if expect_value and values:
                            values.append("")
                        break
                    if t == ",":
                        if expect_value:
                            values.append("")
                        expect_value = True
                        continue
                    if _is_identifier(t) and expect_value:
                        values.append(check_value(t))  # type: ignore[arg-type]
                        expect_value = False
                        if peek() not in (",", ")"):
                            raise fail(f"found '{shown(peek())}', expected: ',' or ')'")
                        continue
                    raise fail(f"found '{shown(t)}', expected: ',', or identifier")
                if not values:
                    raise fail(f"for 'in', 'notin' operators, values set can't be empty (key {key})")
                exprs.append(LabelSelectorRequirement(key, "In" if op == "in" else "NotIn", tuple(sorted(set(values)))))
            elif op in ("=", "==", "!="):
                v = peek()
                if v is None or v == ",":
                    value = ""
                elif _is_identifier(v):
                    value = check_value(take())  # type: ignore[arg-type]
                else:
                    raise fail(f"found '{shown(v)}', expected: identifier")
                if op == "!=":
                    exprs.append(LabelSelectorRequirement(key, "NotIn", (value,)))
                elif key in labels and labels[key] != value:
                    exprs.append(LabelSelectorRequirement(key, "In", (value,)))  # a=x,a=y selects nothing
                else:
                    labels[key] = value
            elif op in ("<", ">"):
                raise fail(f"operator '{op}' (Gt/Lt) is not supported for pod labels here; use in/notin")
            else:
                raise fail(f"found '{shown(op)}', expected: {', '.join(_OPERATORS)}")
        t = take()
        if t is None:
            break
        if t != ",":
            raise fail(f"found '{t}', expected: ',' or 'end of string'")
        if not (_is_identifier(peek()) or peek() == "!"):
            raise fail(f"found '{shown(peek())}', expected: identifier after ','")
    return LabelSelector(Labels(labels), tuple(exprs))


@dataclass(frozen=True, slots=True)
class NodeSelectorRequirement:
    key: str
    operator: str
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        match self.operator:
            case "In" | "NotIn" | "Exists" | "DoesNotExist":
                return LabelSelectorRequirement(self.key, self.operator, self.values).matches(labels)
            case "Gt" | "Lt":
                if self.key not in labels:
                    return False
                try:
                    have = int(labels[self.key])
                except ValueError:
                    return False
                want = int(self.values[0])  # validated at load time
                return have > want if self.operator == "Gt" else have < want
            case _:
                raise AssertionError(self.operator)


@dataclass(frozen=True, slots=True)
class NodeSelectorTerm:
    """Expressions and fields are ANDed; an empty term matches no node (nodeaffinity helper)."""

    match_expressions: tuple[NodeSelectorRequirement, ...] = ()
    match_fields: tuple[NodeSelectorRequirement, ...] = ()

    def matches(self, node_labels: Mapping[str, str], node_name: str) -> bool:
        if not self.match_expressions and not self.match_fields:
            return False
        if not all(r.matches(node_labels) for r in self.match_expressions):
            return False
        fields = {"metadata.name": node_name}
        return all(r.matches(fields) for r in self.match_fields)
