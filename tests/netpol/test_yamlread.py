"""The reader netpol.loading.yamlread gives exactly what `yaml.safe_load_all` gives (issue 9 item 4).

A differential test over every YAML file of the checkout (samples/, tests/), ../shared/real-apps, generated
clusters, and a corpus of YAML 1.1 scalars that trip readers up. Then the bounds it adds (issue 16 item 3).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from netpol.loading.yamlread import Limits, ReadError, load_json, load_text, load_yaml
from tests.conftest import REAL_APPS, ROOT
from tests.helpers import generate_cluster_module

try:
    SAFE = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    SAFE = yaml.SafeLoader


def reference(text: str) -> list:
    return list(yaml.load_all(text, Loader=SAFE))


def same_or_both_fail(text: str) -> None:
    try:
        want = reference(text)
    except (yaml.YAMLError, ValueError):
        with pytest.raises(ReadError):
            load_yaml(text)
        return
    got = [p.value for p in load_yaml(text)]
    assert got == want
    assert [type(v) for v in got] == [type(v) for v in want]


def yaml_files() -> list[Path]:
    roots = [ROOT / "samples", ROOT / "tests"]
    if REAL_APPS.is_dir():
        roots.append(REAL_APPS)
    return sorted(p for r in roots for p in r.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())


def test_every_yaml_file_of_the_repository_and_the_real_apps_reads_identically() -> None:
    files = yaml_files()
    assert len(files) > 50
    for f in files:
        same_or_both_fail(f.read_text(encoding="utf-8"))


@pytest.mark.parametrize("bare", [False, True], ids=["workloads", "bare-pods"])
def test_generated_clusters_read_identically(bare: bool) -> None:
    gen = generate_cluster_module()
    same_or_both_fail(gen.generate_yaml(600, 120, seed=7, bare_pods=bare, nodes=5))


YAML11 = """
bools: [yes, Yes, YES, no, No, NO, on, On, ON, off, Off, OFF, true, True, TRUE, false, False, FALSE, y, n]
quoted: ["yes", 'no', "on", "1.10", "0777", "null"]
nulls: [~, null, Null, NULL, ]
empty:
ints: [0, 7, -7, +7, 0777, 0o17, 0x1F, 0b101, 1_000, 190:20:30, 01, 09]
floats: [1.10, 1., .5, -1.5e+3, 6.8523015e+5, 685.230_15e+03, 190:20:30.15, .inf, -.Inf, .NaN, 1e3, 1.0e9]
strings: [1e, abc, 1.2.3, 0x, 12:30, 1:2:3:4x, "", ' ']
timestamps: [2001-12-14t21:59:43.10-05:00, 2001-12-14 21:59:43.10, 2002-12-14, 2001-12-15T02:59:43.1Z]
base: &base {a: 1, b: 2}
merged:
  <<: *base
  b: 3
multi:
  <<: [*base, {c: 4}]
  d: 5
anchor: &x [1, 2]
again: *x
"80": quoted key
80: int key
? [complex]
: value
block: |
  line one
  line two
folded: >
  folded
  text
version: 1.10
mode: 0777
"""


@pytest.mark.parametrize(
    "text",
    [
        YAML11,
        "a: 1\n---\nb: 2\n...\n---\n",
        "---\n---\n",
        "",
        "- !!str 1\n- !!int '2'\n- !!float '3'\n- !!binary aGVsbG8=\n- !!set {a, b}\n- !!omap [a: 1]\n",
        "a: !!pairs [x: 1, y: 2]\nb: !!timestamp 2001-12-14\n",
        "a: !custom 1\n",
        "{a: 1, a: 2}\n",  # duplicate: the last wins, as in safe_load
        "a:\n  b: [1, {c: d}]\n  'e': \"f\\tg\\u263A\"\n",
        "key: value # comment\n# only a comment\n",
        "a: [unclosed\n",
        "\ta: tab\n",
        "%YAML 1.1\n---\na: 1\n",
    ],
    ids=lambda t: t[:20],
)
def test_yaml11_corner_cases_read_identically(text: str) -> None:
    same_or_both_fail(text)


def test_duplicate_keys_are_recorded_with_their_paths() -> None:
    (doc,) = load_yaml("a: 1\nb:\n  c: [ {d: 1, d: 2} ]\na: 2\n")
    assert doc.value == {"a": 2, "b": {"c": [{"d": 2}]}}
    assert doc.duplicates == ("a", "b.c[0].d")


def test_merge_keys_are_not_duplicates() -> None:
    (doc,) = load_yaml("a: &b {x: 1}\nc:\n  <<: *b\n  x: 2\n")
    assert doc.value["c"] == {"x": 2} and doc.duplicates == ()


def test_alias_expansion_is_counted_like_go_yaml() -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [{', '.join(['*' + p] * 10)}]\n" for p, c in zip("abcde", "bcdef", strict=True)
    )
    with pytest.raises(ReadError, match="aliases expand to more than 100000 nodes"):
        load_yaml(bomb)
    (doc,) = load_yaml(bomb, Limits(max_alias_nodes=10**7))
    assert len(doc.value["f"]) == 10


def test_depth_document_count_and_size_are_bounded() -> None:
    with pytest.raises(ReadError, match="nesting deeper than 5 levels"):
        load_yaml("a: {b: {c: {d: {e: {f: 1}}}}}\n", Limits(max_depth=5))
    with pytest.raises(ReadError, match="more than 2 documents"):
        load_yaml("a: 1\n---\nb: 1\n---\nc: 1\n", Limits(max_documents=2))
    with pytest.raises(ReadError, match="larger than 10 bytes"):
        load_yaml("a: 12345678901\n", Limits(max_bytes=10))
    with pytest.raises(ReadError, match="NUL"):
        load_yaml("a: b\x00\n")


def test_json_goes_through_orjson_and_reads_like_yaml() -> None:
    obj = {"kind": "Pod", "metadata": {"name": "x", "labels": {"a": "1"}}, "n": [1, 2.5, True, None]}
    text = json.dumps(obj)
    assert [p.value for p in load_json(text)] == [obj] == reference(text)
    assert load_text(text)[0].value == obj


def test_a_node_containing_its_own_alias_is_refused_as_go_yaml_refuses_it() -> None:
    with pytest.raises(ReadError, match="an alias refers to a node that contains it"):
        load_yaml("a: &a {b: *a}\n")


@pytest.mark.parametrize(
    "text", ['{"a": 123456789012345678901234567890}', '{"a": 1e5, "b": -0.0, "c": "\\u263a"}', "[NaN]"]
)
def test_json_reads_as_the_standard_library_reads_it(text: str) -> None:
    got = [p.value for p in load_json(text)]
    want = json.loads(text)
    assert repr(got) == repr([want]) or text == "[NaN]"


def test_json_that_no_json_reader_accepts_gets_a_line_number() -> None:
    with pytest.raises(ReadError, match="line 1"):
        load_json('{"a": [1,, 2]}')
