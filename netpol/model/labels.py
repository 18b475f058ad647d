"""Labels and label selectors, with Kubernetes' own matching rules.

Mirrors apimachinery pkg/labels/selector.go: `NotIn` and `DoesNotExist` match when the key is absent,
`In`/`NotIn` need values, `Exists`/`DoesNotExist` must not have them. Node selectors add `Gt`/`Lt`
(k8s.io/component-helpers/scheduling/corev1/nodeaffinity): the label value must parse as an integer.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Generic, TypeVar

V = TypeVar("V")


class FrozenMap(Mapping[str, V], Generic[V]):
    """An immutable, hashable, key-sorted map (so pods with equal labels share an equivalence class)."""

    __slots__ = ("_d", "_h")

    def __init__(self, data: Mapping[str, V] | None = None) -> None:
        self._d: dict[str, V] = dict(sorted((data or {}).items()))
        self._h = hash(tuple(self._d.items()))

    def __getitem__(self, key: str) -> V:
        return self._d[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._d)

    def __len__(self) -> int:
        return len(self._d)

    def __hash__(self) -> int:
        return self._h

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FrozenMap):
            return self._h == other._h and self._d == other._d
        if isinstance(other, Mapping):
            return self._d == dict(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._d!r})"


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


def parse_selector_string(text: str) -> LabelSelector:
    """Parse kubectl's `-l` syntax: `a=b,c!=d,e in (x,y),f notin (z),g,!h`."""
    labels: dict[str, str] = {}
    exprs: list[LabelSelectorRequirement] = []
    parts: list[str] = []
    depth = 0
    cur = ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur:
        parts.append(cur)
    for raw in parts:
        p = raw.strip()
        if not p:
            continue
        low = p.replace("  ", " ")
        if " notin " in low or " in " in low:
            op = "NotIn" if " notin " in low else "In"
            key, _, rest = low.partition(" notin " if op == "NotIn" else " in ")
            vals = tuple(v.strip() for v in rest.strip().strip("()").split(",") if v.strip())
            if not vals:
                raise ValueError(f"selector {text!r}: {op} needs values")
            exprs.append(LabelSelectorRequirement(key.strip(), op, vals))
        elif "!=" in p:
            key, _, val = p.partition("!=")
            exprs.append(LabelSelectorRequirement(key.strip(), "NotIn", (val.strip(),)))
        elif "==" in p or "=" in p:
            key, _, val = p.partition("==") if "==" in p else p.partition("=")
            labels[key.strip()] = val.strip()
        elif p.startswith("!"):
            exprs.append(LabelSelectorRequirement(p[1:].strip(), "DoesNotExist"))
        else:
            exprs.append(LabelSelectorRequirement(p, "Exists"))
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
