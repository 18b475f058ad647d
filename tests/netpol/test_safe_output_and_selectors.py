"""Issue 16 items 5 and 6: names are safe in the text formats; `-l` is parsed with kubectl's grammar.

The grammar and its messages follow apimachinery pkg/labels/selector.go (Parser.parse,
parseKeyAndInferOperator, parseValues, parseExactValue); keys and values are validated as label keys
and values (IsQualifiedName, IsValidLabelValue).
"""

from __future__ import annotations

import pytest

from netpol.model.cluster import Cluster
from netpol.model.labels import Labels, parse_selector_string
from netpol.model.objects import Namespace, Pod
from netpol.pipeline import analyze
from netpol.readout.export import MatrixView, render, render_probe
from netpol.readout.textsafe import md_safe, text_safe
from tests.helpers import run_cli


def test_control_characters_are_escaped_and_plain_text_is_untouched() -> None:
    assert text_safe("web/web1") == "web/web1"
    assert text_safe("a\x00b\x1b[31mc\x7f\u202e") == "a\\x00b\\x1b[31mc\\x7f\\u202e"
    assert md_safe("a|b") == "a\\|b"
    assert md_safe("a|b\n") == "a\\|b\\x0a"


def analysis_with_names(*names: str):  # noqa: ANN201 - an Analysis
    """Names the reader would refuse, built directly: the output edge must be safe on its own."""
    pods = tuple(Pod("ns", n, Labels({"app": "x"}), pod_ips=(f"10.0.0.{i + 2}",)) for i, n in enumerate(names))
    return analyze(Cluster(namespaces=(Namespace("ns"),), pods=pods), None)


@pytest.mark.parametrize("fmt", ["txt", "md"])
def test_txt_and_md_never_carry_a_raw_escape_or_a_bare_pipe(fmt: str) -> None:
    a = analysis_with_names("evil\x1b]52;c;x\x07", "pipe|name", "ok")
    out = render(MatrixView(a, include_external=False), fmt)
    assert "\x1b" not in out and "\x07" not in out
    assert "evil\\x1b]52;c;x\\x07" in out
    if fmt == "md":
        assert "pipe\\|name" in out
        for line in out.splitlines()[2:]:
            assert line.replace("\\|", "").count("|") == 4  # three cells, never a fourth
    probe = render_probe(MatrixView(a, include_external=False), fmt, "TCP", 80)
    assert "\x1b" not in probe


@pytest.mark.parametrize(
    ("text", "rendered"),
    [
        ("a=b,c!=d,e in (x,y),f notin (z),g,!h", "a=b,c notin (d),e in (x,y),f notin (z),g,!h"),
        ("a==b", "a=b"),
        ("a=", "a="),
        (" a = b ", "a=b"),
        ("", "{}"),
    ],
)
def test_selectors_kubectl_accepts(text: str, rendered: str) -> None:
    assert parse_selector_string(text).render() == rendered


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("!!", "found '!', expected: identifier"),
        ("a in (b", "found '', expected: ',' or ')'"),
        ("a in ()", "for 'in', 'notin' operators, values set can't be empty (key a)"),
        ("a,", "found '', expected: identifier after ','"),
        ("=b", "found '=', expected: !, identifier, or 'end of string'"),
        ("a b", "found 'b', expected: !=, <, =, ==, >, in, notin"),
        ("app=x y", "found 'y', expected: ',' or 'end of string'"),
        ("a in b", "found 'b', expected: '('"),
        ("a=b=c", "found '=', expected: ',' or 'end of string'"),
        (
            "a=b c",
            "found 'c', expected: ',' or 'end of string'",
        ),
        (
            "a=-x",
            'values[0]: Invalid value: "-x": a valid label must be an empty string or consist of alphanumeric '
            "characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        ),
    ],
)
def test_selectors_kubectl_refuses_with_its_message(text: str, message: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_selector_string(text)
    assert str(info.value) == f"-l {text!r}: unable to parse requirement: {message}"


@pytest.mark.parametrize("selector", ["!!", "a in (b"])
def test_a_bad_selector_is_a_usage_error_not_every_pod_or_nothing(selector: str) -> None:
    r = run_cli("who-can-reach", "-l", selector, "-n", "web")
    assert r.returncode == 2, r.stdout
    assert "unable to parse requirement" in r.stderr and "Traceback" not in r.stderr
