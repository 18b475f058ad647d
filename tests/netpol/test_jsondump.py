"""netpol.readout.jsondump writes exactly `json.dumps(value, indent=2)`: the -o json bytes users and tests compare."""

from __future__ import annotations

import json
import random
from enum import IntEnum, StrEnum
from pathlib import Path

import pytest

from netpol.readout.export import MatrixView, matrix_json
from netpol.readout.jsondump import dumps_indent2


class Color(StrEnum):
    RED = "red"


class Level(IntEnum):
    HIGH = 3


TRICKY = [
    {},
    [],
    "",
    None,
    True,
    0,
    -1,
    2**63 - 1,
    2**64,  # orjson refuses integers past 64 bits
    -(2**63),
    1.0,
    1e16,  # json: 1e+16, orjson: 1e16
    float("nan"),
    float("inf"),
    0.1,
    {"a": [], "b": {}, "c": [[], [{}]], "d": [1, {"x": None, "y": False}]},
    {"k": "\x7f"},  # json escapes DEL (ensure_ascii), orjson writes it raw
    {"k": "caf\u00e9", "n\u00e4me": "x"},
    {"k": "\U0001f600 \u2028 \ud7ff"},
    {"k": "\x00\x01\x1f\"\\\n\t\b\f\r/<>&'"},
    {1: "int key"},  # json makes it "1"; orjson refuses
    {True: "bool key", None: "none key"},
    {"e": Color.RED, "i": Level.HIGH},
    ("a", ("b", 1)),
    {"deep": [[[[[[[[[[["x"]]]]]]]]]]]},
]


@pytest.mark.parametrize("value", TRICKY, ids=range(len(TRICKY)))
def test_same_text_as_json_dumps(value: object) -> None:
    assert dumps_indent2(value) == json.dumps(value, indent=2)


def test_nesting_orjson_refuses_is_written_by_json() -> None:
    value: list[object] = []
    for _ in range(300):  # orjson stops at 254 levels
        value = [value]
    assert dumps_indent2(value) == json.dumps(value, indent=2)


def _random_value(rng: random.Random, depth: int = 0) -> object:
    alphabet = 'ab/-."\\\n\x7f\u00e9\u4e2d\U0001f600 0'
    roll = rng.random()
    if depth < 4 and roll < 0.3:
        return {"".join(rng.choices(alphabet, k=rng.randint(0, 4))): _random_value(rng, depth + 1) for _ in range(3)}
    if depth < 4 and roll < 0.5:
        return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return rng.choice(
        [
            None,
            True,
            rng.randint(-(2**70), 2**70),
            rng.randint(-100, 100),
            rng.random() * 10 ** rng.randint(-20, 20),
            "".join(rng.choices(alphabet, k=rng.randint(0, 6))),
            "".join(rng.choices("abc-/", k=rng.randint(0, 6))),
        ]
    )


def test_same_text_on_random_values() -> None:
    rng = random.Random(9)
    for _ in range(2000):
        value = _random_value(rng)
        assert dumps_indent2(value) == json.dumps(value, indent=2), value


REAL_APPS = Path(__file__).resolve().parents[1] / "data" / "real-apps"


@pytest.mark.parametrize("app", sorted(p.name for p in REAL_APPS.iterdir() if p.is_dir()))
def test_same_text_on_real_apps_matrix_heads(app: str) -> None:
    from netpol.manifests import load_paths
    from netpol.pipeline import analyze

    analysis = analyze(load_paths([str(REAL_APPS / app)]))
    head = matrix_json(MatrixView(analysis, ()), with_connections=True)
    assert dumps_indent2(head) == json.dumps(head, indent=2)
