"""The reader netpol.loading.yamlread gives exactly what `yaml.safe_load_all` gives (issue 9 item 4).

A differential test over every YAML file of the checkout (samples/, tests/, the real apps in tests/data),
generated clusters, and a corpus of YAML 1.1 scalars and texts that trip readers up, read by both of its
paths: the C extension (libyaml events → values) and the Python construction it falls back to. Values are
compared with their types at every level (`1 == 1.0 == True` would hide a wrong type). Then the bounds it adds
(issue 16 item 3), which both paths must draw at exactly the same place.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from netpol.loading import yamlread
from netpol.loading.yamlread import Limits, ReadError, load_json, load_text, load_yaml, read_in_c
from tests.conftest import REAL_APPS, ROOT
from tests.helpers import generate_cluster_module

try:
    SAFE = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    SAFE = yaml.SafeLoader

BUILT = yamlread._kyaml is not None


@pytest.fixture(params=["c", "python"])
def fast(request: pytest.FixtureRequest) -> bool:
    """Both reading paths: the C extension (where it is built; CI builds it) and the Python one."""
    if request.param == "c" and not BUILT:
        pytest.skip("the C extension is not built here (python3 setup.py build_ext --inplace)")
    return request.param == "c"


def reference(text: str) -> list:
    return list(yaml.load_all(text, Loader=SAFE))


def typed(value: Any) -> Any:
    """The value with the type of every part spelt out, so equal means equal values of equal types."""
    if isinstance(value, dict):
        return ("dict", [(typed(k), typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [typed(v) for v in value])
    if isinstance(value, float):
        return ("float", repr(value))
    return (type(value).__name__, value)


def same_or_both_fail(text: str, fast: bool = True) -> None:
    try:
        want = reference(text)
    except (yaml.YAMLError, ValueError):
        with pytest.raises(ReadError):
            load_yaml(text, fast=fast)
        assert read_in_c(text) is None
        return
    got = [p.value for p in load_yaml(text, fast=fast)]
    assert typed(got) == typed(want)
    direct = read_in_c(text)
    if direct is not None:  # what the C path reads itself (not through the fallback) is right too
        assert typed(direct) == typed(want)


def yaml_files() -> list[Path]:
    roots = [ROOT / "samples", ROOT / "tests"]
    if REAL_APPS.is_dir():
        roots.append(REAL_APPS)
    return sorted(p for r in roots for p in r.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())


def test_every_yaml_file_of_the_repository_and_the_real_apps_reads_identically(fast: bool) -> None:
    files = yaml_files()
    assert len(files) > 50
    for f in files:
        same_or_both_fail(f.read_text(encoding="utf-8"), fast)


@pytest.mark.parametrize("bare", [False, True], ids=["workloads", "bare-pods"])
def test_generated_clusters_read_identically(bare: bool, fast: bool) -> None:
    gen = generate_cluster_module()
    same_or_both_fail(gen.generate_yaml(600, 120, seed=7, bare_pods=bare, nodes=5), fast)


@pytest.mark.skipif(not BUILT, reason="the C extension is not built here")
def test_the_c_path_itself_reads_the_real_apps_and_generated_clusters() -> None:
    """The differential tests above would pass if the C path declined everything: it must not."""
    gen = generate_cluster_module()
    texts = [gen.generate_yaml(300, 60, seed=3, bare_pods=bare, nodes=3) for bare in (False, True)]
    texts += [f.read_text(encoding="utf-8") for f in sorted(REAL_APPS.rglob("*.yaml"))]
    assert len(texts) > 10
    for text in texts:
        assert read_in_c(text) is not None


def test_ci_reads_with_the_c_extension() -> None:
    """CI (`CI` set) installs gcc, python3-dev and libyaml-dev, so the extension must be built and in use."""
    if not os.environ.get("CI"):
        pytest.skip("outside CI the extension may be absent (the Python path reads the same)")
    assert BUILT, "netpol.loading._kyaml was not built: see setup.py and .ci/run"
    assert read_in_c("a: [1, yes, '2']\n") == [{"a": [1, True, "2"]}]


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
        # what the C path does itself: documents, comments, unicode, BOM, line ends, long and odd scalars
        "# comment only\n",
        "---\n# comment\n...\n",
        "--- 1\n--- yes\n--- ~\n--- 'x'\n",
        "---\na: 1\n...\n...\n---\n",
        "a: 1\r\nb:\r\n  - x\r\n  - 'y'\r\n",
        "a: |\r\n  l1\r\n  l2\r\n",
        "\ufeffa: 1\n",
        "\ufeff---\na: 1\n",
        "a: \ufeff1\n",
        "ünï: cödé\n日本: [語, 'ü', \"😀\"]\nemoji😀: ok\n",
        "é: 1\nÿes: 2\n",
        "a: " + "x" * 100_000 + "\n",
        "a: '" + "y" * 70_000 + "'\nb: \"" + "z\\n" * 5000 + '"\n',
        "k" * 1000 + ": v\n",
        'a: "nul\\0inside"\nb: "\\x01\\u00e9\\U0001F600"\n',
        "a: plain\n  continued\n  lines\nb: 'single\n\n  quoted'\n",
        "a: >-\n  folded\n\n  kept\nb: |+\n  keep\n\nc: |2\n    indented\n",
        "[a, b, {c: d, e: [f, {g: h}]}, [], {}]\n",
        "{a: [1, 2], b: {c: {}}, 'd': [[]]}\n",
        "a:\nb: ~\nc: ''\nd: null\n? e\n",
        "? a\n: 1\n? b\n",
        "1: int\n1.5: float\ntrue: bool\n~: null\n2001-12-14: date\n0x10: hex\n",
        "[1, '1', \"1\", 1.0, !!str 1, yes, 'yes', No, nO, oN, '', ~, 010, 0o10, 0b1, 1_0, -0, +1, .5, -.inf]\n",
        "a: 0x_1F\nb: 1__0\nc: 1:20\nd: -1:20.5\ne: 0.\nf: '.'\ng: .\nh: -\ni: +\nj: 1e\nk: 1.e+3\n",
        "a: 12345678901234567890123\nb: -0b111111111111111111111111111111111111111111111111111111111111\n",
        "a: 2001-12-14 21:59:43.10 -5\nb: 2001-13-14\nc: 2001-12-14T21:59:43\n",
        "- !!str\n- !!str [a]\n",
        "a: !!str {b: c}\n",
        "a: !!map {b: c}\nd: !!seq [e]\nf: !!str g\n",
        "%TAG !e! tag:yaml.org,2002:\n---\na: !e!str 1\nb: !e!int '2'\n",
        "a: ! 12\nb: ! [1]\nc: ! {d: 1}\n",
        "a: &s 1\nb: *s\n*s : c\n",
        "a: &m {x: [1, 2]}\nb: *m\nc: [*m, *m]\n",
        "a: &l [1]\n*l : 2\n",
        "a: &m {x: 1}\n*m : 2\n",
        "a: *undefined\n",
        "a: &x 1\nb: &x 2\nc: *x\n",
        "a: &x 1\n---\nb: *x\n",
        "a: &x 1\n---\nb: &x 2\nc: *x\n",
        "a: &e\nb: *e\n",
        "<<: {a: 1}\nb: 2\n",
        "a: <<\n",
        "a: =\nb: '='\n= : 1\n",
        "a: 1\nb: {c: 1, c: 2}\n",
        "{1: a, 1.0: b, true: c}\n",
        "[1, 2\n",
        "a: b: c\n",
        "a: 'unterminated\n",
        'a: "bad \\q escape"\n',
        "a: \x07bell\n",
        "- \ud800\n",
    ],
    ids=lambda t: repr(t[:20]),
)
def test_yaml11_corner_cases_read_identically(text: str, fast: bool) -> None:
    same_or_both_fail(text, fast)


def test_duplicate_keys_are_recorded_with_their_paths(fast: bool) -> None:
    (doc,) = load_yaml("a: 1\nb:\n  c: [ {d: 1, d: 2} ]\na: 2\n", fast=fast)
    assert doc.value == {"a": 2, "b": {"c": [{"d": 2}]}}
    assert doc.duplicates == ("a", "b.c[0].d")


def test_merge_keys_are_not_duplicates(fast: bool) -> None:
    (doc,) = load_yaml("a: &b {x: 1}\nc:\n  <<: *b\n  x: 2\n", fast=fast)
    assert doc.value["c"] == {"x": 2} and doc.duplicates == ()


def test_alias_expansion_is_counted_like_go_yaml(fast: bool) -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [{', '.join(['*' + p] * 10)}]\n" for p, c in zip("abcde", "bcdef", strict=True)
    )
    with pytest.raises(ReadError, match="aliases expand to more than 100000 nodes"):
        load_yaml(bomb, fast=fast)
    (doc,) = load_yaml(bomb, Limits(max_alias_nodes=10**7), fast=fast)
    assert len(doc.value["f"]) == 10


def test_depth_document_count_and_size_are_bounded(fast: bool) -> None:
    with pytest.raises(ReadError, match="nesting deeper than 5 levels"):
        load_yaml("a: {b: {c: {d: {e: {f: 1}}}}}\n", Limits(max_depth=5), fast=fast)
    with pytest.raises(ReadError, match="more than 2 documents"):
        load_yaml("a: 1\n---\nb: 1\n---\nc: 1\n", Limits(max_documents=2), fast=fast)
    with pytest.raises(ReadError, match="larger than 10 bytes"):
        load_yaml("a: 12345678901\n", Limits(max_bytes=10), fast=fast)
    with pytest.raises(ReadError, match="NUL"):
        load_yaml("a: b\x00\n", fast=fast)
    with pytest.raises(ReadError, match="line 1, column 5: integer 99999999999999999999… is too large"):
        load_yaml("a: [" + "9" * 70 + "]\n", fast=fast)
    with pytest.raises(ReadError, match="line 1, column 203: nesting deeper than 200 levels"):
        load_yaml("a: " + "[" * 100_000 + "]" * 100_000 + "\n", fast=fast)


def test_json_goes_through_orjson_and_reads_like_yaml() -> None:
    obj = {"kind": "Pod", "metadata": {"name": "x", "labels": {"a": "1"}}, "n": [1, 2.5, True, None]}
    text = json.dumps(obj)
    assert [p.value for p in load_json(text)] == [obj] == reference(text)
    assert load_text(text)[0].value == obj


def test_a_node_containing_its_own_alias_is_refused_as_go_yaml_refuses_it(fast: bool) -> None:
    with pytest.raises(ReadError, match="an alias refers to a node that contains it"):
        load_yaml("a: &a {b: *a}\n", fast=fast)


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


LIMIT_TEXTS = [
    "a: &a [x, x]\nb: &b [*a, *a, {k: *a}]\nc: [*b, *b]\n",
    "a: &s 1\nb: [*s, *s, *s]\nc: &m {x: *s, y: [*s]}\nd: *m\n---\ne: &t [1, [2, [3]]]\nf: [*t, [*t]]\n",
    "- &a {p: &b [q, &c r]}\n- *c\n- *b\n- [[*a]]\n- {k: {k: *b}}\n",
    "a: {b: {c: [d, {e: [f]}]}}\ng: [[[[h]]]]\n---\n[[], {}]\n--- x\n---\n",
]


@pytest.mark.skipif(not BUILT, reason="the C extension is not built here")
@pytest.mark.parametrize("text", LIMIT_TEXTS, ids=range(len(LIMIT_TEXTS)))
def test_the_c_path_declines_exactly_where_the_python_path_draws_a_limit(text: str) -> None:
    """Alias expansion, depth and document count: for every bound around the text's own figures, the C path
    reads the text exactly when the Python path accepts it (and then the same values)."""
    for limits in (
        *(Limits(max_alias_nodes=k) for k in range(40)),
        *(Limits(max_depth=k) for k in range(8)),
        *(Limits(max_documents=k) for k in range(6)),
    ):
        try:
            want: list[Any] | None = [p.value for p in load_yaml(text, limits, fast=False)]
        except ReadError:
            want = None
        got = read_in_c(text, limits)
        assert (got is None) == (want is None), limits
        if got is not None:
            assert typed(got) == typed(want)


@pytest.mark.skipif(not BUILT, reason="the C extension is not built here")
def test_the_c_path_shares_aliased_values_as_safe_load_does() -> None:
    (doc,) = read_in_c("a: &m {x: [1]}\nb: *m\nc: &l [2]\nd: [*l]\n") or [None]
    assert doc["a"] is doc["b"] and doc["c"] is doc["d"][0]
    want = reference("a: &m {x: [1]}\nb: *m\n")[0]
    assert want["a"] is want["b"]


@pytest.mark.skipif(not BUILT, reason="the C extension is not built here")
def test_the_c_path_leaves_the_garbage_collector_as_it_found_it() -> None:
    import gc

    assert gc.isenabled()
    read_in_c("a: [1, {b: c}]\n")
    assert gc.isenabled()
    gc.disable()
    try:
        read_in_c("a: [1, {b: c}]\n")
        assert not gc.isenabled()
    finally:
        gc.enable()


def mutations(seed: int, count: int) -> list[str]:
    """Texts a few YAML-significant characters away from the real apps' manifests (seeded)."""
    import random

    rng = random.Random(seed)
    sources = [f.read_text(encoding="utf-8") for f in sorted(REAL_APPS.rglob("*.yaml"))]
    pieces = list(":-[]{}&*!|>'\"#?,% \n\t") + ["&a ", "*a", "<<: ", "!!str ", "yes", "0x1", "~", "---\n", "\r\n"]
    out = []
    for _ in range(count):
        text = rng.choice(sources)
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(len(text) + 1)
            if rng.random() < 0.4 and at < len(text):
                text = text[:at] + text[at + rng.randint(1, 3) :]
            else:
                text = text[:at] + rng.choice(pieces) + text[at:]
        out.append(text)
    return out


@pytest.mark.skipif(not BUILT, reason="the C extension is not built here")
def test_mutated_manifests_read_identically_or_the_c_path_declines() -> None:
    """Near-miss texts (valid or not): wherever the C path reads one itself, it reads what safe_load_all
    reads, and it declines every text the reference refuses."""
    read_by_c = 0
    for text in mutations(seed=9, count=400):
        try:
            want: list[Any] | None = reference(text)
        except (yaml.YAMLError, ValueError, RecursionError):
            want = None
        got = read_in_c(text)
        if want is None:
            assert got is None, text
            continue
        if got is not None:
            read_by_c += 1
            assert typed(got) == typed(want), text
    assert read_by_c > 100
