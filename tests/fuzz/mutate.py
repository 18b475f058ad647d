"""A seeded generator of mutated manifests, and the harness that runs one through matrix, schedule, audit.

Seeds are the folders of samples/ and tests/data/real-apps, each read as one multi-document YAML text.
A mutation is chosen by a random.Random(seed): a field path of one document gets its value swapped for
another type, removed, nulled, pushed out of range, replaced by a bad CIDR, name, label or quantity;
a key is misspelt or duplicated; the text gets an alias bomb, a NUL, unicode, empty or `---`-only
documents. The same (seed, index) always gives the same input.

The outcome of a run is one of: ok (exit 0/1), error (the project's own error, exit 2, whose field path
exists in the input), bad-path (an error naming a field the input does not have), traceback (anything
else escaping), and, in the full run (run_full.py), hang and over-memory.
"""

from __future__ import annotations

import io
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
ROOT = Path(__file__).resolve().parent.parent.parent
REAL_APPS = ROOT / "tests" / "data" / "real-apps"  # the copy every checkout has
SUFFIXES = (".yaml", ".yml", ".json")

WRONG_VALUES: tuple[Any, ...] = (
    "x",
    "",
    "three",
    "false",
    "80",
    0,
    -1,
    5,
    2**31,
    10**18,
    10**40,
    1.5,
    float("inf"),
    float("nan"),
    True,
    None,
    [],
    [1],
    ["a", 1],
    {},
    {"a": 1},
    {"matchLabel": {"a": "b"}},
    "1e999999",
    "9223372036854775808",
    "nan",
    "10.0.0.0/33",
    "300.1.2.3",
    "x/y",
    "-bad-",
    "a" * 300,
    "ü\u202eé",
    "a\x00b",
    "\x1b[31mred",
    "a|b",
)


def seeds() -> list[tuple[str, str]]:
    """(name, text) for every sample and real-app folder that holds manifests."""
    folders: list[Path] = []
    for root in (ROOT / "samples", REAL_APPS):
        if root.is_dir():
            folders += sorted(p for p in root.rglob("*") if p.is_dir())
    out = []
    for folder in folders:
        files = sorted(f for f in folder.iterdir() if f.suffix in SUFFIXES and f.is_file())
        texts = []
        for f in files:
            text = f.read_text(encoding="utf-8")
            if f.suffix == ".json" or not _is_manifest(text):
                continue
            texts.append(text if text.endswith("\n") else text + "\n")
        if texts:
            out.append((str(folder.relative_to(folder.parents[1])), "---\n".join(texts)))
    return out


def _is_manifest(text: str) -> bool:
    try:
        docs = list(yaml.load_all(text, Loader=_LOADER))
    except yaml.YAMLError:
        return False
    return any(isinstance(d, dict) and "kind" in d for d in docs)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*prefix, i))


def _get(root: Any, path: tuple[Any, ...]) -> Any:
    for p in path:
        root = root[p]
    return root


def _misspell(key: str, rng: random.Random) -> str:
    if len(key) < 2:
        return key + "x"
    i = rng.randrange(len(key))
    match rng.randrange(3):
        case 0:
            return key[:i] + key[i + 1 :]
        case 1:
            return key[:i] + key[i] + key[i:]
        case _:
            return key[:i] + key[i].swapcase() + key[i + 1 :]


BOMB = "".join(f"{c}: &{c} [{', '.join(['*' + p] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi", strict=True)).join(
    ("a: &a [x, x, x, x, x, x, x, x, x]\n", "")
)


def mutate(text: str, rng: random.Random) -> str:
    """One mutated copy of `text` (a multi-document YAML)."""
    kind = rng.randrange(10)
    if kind == 0:
        return _text_mutation(text, rng)
    docs = list(yaml.load_all(text, Loader=_LOADER))
    candidates = [i for i, d in enumerate(docs) if isinstance(d, dict)]
    if not candidates:
        return _text_mutation(text, rng)
    d = rng.choice(candidates)
    paths = [p for p in _paths(docs[d]) if p]
    if not paths:
        return _text_mutation(text, rng)
    path = rng.choice(paths)
    parent = _get(docs[d], path[:-1])
    last = path[-1]
    op = rng.randrange(6)
    if op == 0:  # remove
        del parent[last]
    elif op == 1:  # null
        parent[last] = None
    elif op == 2 and isinstance(last, str) and isinstance(parent, dict):  # misspell the key
        value = parent.pop(last)
        parent[_misspell(last, rng)] = value
    elif op == 3 and isinstance(last, str):  # duplicate the key, with another value (text level)
        marker = f"__dup_{rng.randrange(10**6)}__"
        value = parent[last]
        parent[marker] = rng.choice(WRONG_VALUES) if rng.random() < 0.5 else value
        out = yaml.dump_all(docs, Dumper=_DUMPER, sort_keys=False, allow_unicode=True)
        return out.replace(f"{marker}:", f"{_yaml_key(last)}:", 1)
    else:  # a value of another type, out of range, or malformed
        parent[last] = rng.choice(WRONG_VALUES)
    return yaml.dump_all(docs, Dumper=_DUMPER, sort_keys=False, allow_unicode=True)


def _yaml_key(key: str) -> str:
    return yaml.safe_dump(key).strip().removesuffix("...").strip()


def _text_mutation(text: str, rng: random.Random) -> str:
    match rng.randrange(7):
        case 0:  # an alias bomb referenced from some scalar field
            lines = text.splitlines()
            idx = [i for i, ln in enumerate(lines) if re.match(r"^\s+[A-Za-z]+: [A-Za-z0-9-]+$", ln)]
            if idx:
                i = rng.choice(idx)
                key = lines[i].split(":")[0]
                lines[i] = f"{key}: *i"
                return BOMB + "\n".join(lines) + "\n"
            return BOMB + text
        case 1:
            pos = rng.randrange(len(text) + 1)
            return text[:pos] + "\x00" + text[pos:]
        case 2:
            return ""
        case 3:
            return "---\n---\n"
        case 4:
            pos = rng.randrange(len(text) + 1)
            return text[:pos] + "ü\u202e\U0001f600" + text[pos:]
        case 5:
            return text + "---\n" + "a: " + "[" * 5000 + "]" * 5000 + "\n"
        case _:
            return text.replace("\n", "\n---\n", 1)


@dataclass(frozen=True, slots=True)
class Outcome:
    kind: str  # ok | error | bad-path | traceback
    detail: str = ""


def _keys(value: Any, out: set[str]) -> set[str]:
    stack = [value]
    seen = 0
    while stack and seen < 200_000:
        v = stack.pop()
        seen += 1
        if isinstance(v, dict):
            out.update(str(k) for k in v)
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return out


_SEGMENT = re.compile(r"\[([^\]]*)\]|([^.\[]+)")


def path_in_input(field: str, message: str, text: str) -> bool:
    """The error's field path names keys of the input (a Required value's own key, and parents, may be absent)."""
    if not field or "Required value" in message:
        return True
    try:
        keys = _keys(list(yaml.load_all(text, Loader=_LOADER)), set())
    except Exception:  # the text is not YAML at all: the error cannot name a field in it
        return False
    if message.startswith("unknown field"):  # the unknown key is the path's last step, dots and all
        return any(
            (field == k or field.endswith("." + k)) and _names_in(field[: -len(k)].rstrip("."), keys) for k in keys
        )
    return _names_in(field, keys)


def _names_in(field: str, keys: set[str]) -> bool:
    names = [m.group(1) if m.group(2) is None else m.group(2) for m in _SEGMENT.finditer(field)]
    return all(n in keys for n in names if n and not n.isdigit())


_PARSERS: dict[str, Any] = {}


def run_one(path: str, text: str) -> Outcome:
    """Load once, then matrix, schedule and audit in-process on that cluster, as the CLI runs them."""
    import importlib

    from netpol.cli import COMMANDS, build_parser
    from netpol.commands.context import Context
    from netpol.errors import InputError, NetpolError
    from netpol.manifests import load_paths

    try:
        cluster = load_paths([path])
    except InputError as exc:
        if not path_in_input(exc.field, exc.detail, text):
            return Outcome("bad-path", str(exc)[:300])
        return Outcome("error", str(exc)[:300])
    except NetpolError as exc:
        return Outcome("error", str(exc)[:300])
    except Exception as exc:  # noqa: BLE001 - the finding
        return Outcome("traceback", f"load: {type(exc).__name__}: {exc}"[:300])
    for argv in (["matrix", path, "-o", "json"], ["schedule", path, "-o", "json"], ["audit", path]):
        if argv[0] not in _PARSERS:
            _PARSERS[argv[0]] = build_parser(only=argv[0])
        args = _PARSERS[argv[0]].parse_args(argv)
        ctx = Context(args, out=io.StringIO(), err=io.StringIO())
        ctx._cluster = cluster
        try:
            importlib.import_module(COMMANDS[argv[0]][0]).run(args, ctx)
        except NetpolError:
            continue
        except Exception as exc:  # noqa: BLE001 - the finding
            return Outcome("traceback", f"{argv[0]}: {type(exc).__name__}: {exc}"[:300])
    return Outcome("ok")


_SEEDS: list[tuple[str, str]] = []


def mutated(index: int, seed: int) -> tuple[str, str]:
    """(seed folder, mutated text) of input `index`: a pure function of (index, seed)."""
    if not _SEEDS:
        _SEEDS.extend(seeds())
    name, text = _SEEDS[index % len(_SEEDS)]
    return name, mutate(text, random.Random(seed * 1_000_003 + index))


def inputs(count: int, seed: int, start: int = 0, step: int = 1) -> Iterator[tuple[int, str, str]]:
    """(index, seed folder, mutated text) for indexes start, start + step, … below `count`."""
    for i in range(start, count, step):
        yield (i, *mutated(i, seed))
