"""netpol's answer on each case where it and network-config-analyzer disagree (tests/data/calico-nca/README.md
says who is right and why, from Calico's reference). NCA is not needed here: its answers are in the README."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.netpol.calico_harness import compile_objects
from tests.netpol.calico_reference import Reference

DATA = Path(__file__).resolve().parents[1] / "data" / "calico-nca"

# (file, src, dst, Calico's answer); NCA's opposite answer (or refusal) is in the README's table.
CASES = [
    ("nets-match-pod-addresses", "a/x", "b/z", True),
    ("nets-match-pod-addresses", "a/x", "a/y", False),
    ("nets-match-pod-addresses", "a/y", "b/z", True),
    ("lone-not-selector-stays-in-namespace", "b/z", "a/y", False),
    ("lone-not-selector-stays-in-namespace", "192.0.2.1", "a/y", False),
    ("lone-not-selector-stays-in-namespace", "a/x", "a/y", False),
    ("empty-ingress-list-is-no-ingress-rules", "a/x", "a/y", True),
    ("empty-ingress-list-is-no-ingress-rules", "b/z", "a/y", True),
    ("implicit-namespace-label", "a/x", "b/z", False),
    ("implicit-namespace-label", "b/z", "a/x", True),
    ("double-quoted-selector", "a/x", "b/z", False),
    ("rules-outside-types-have-no-effect", "a/x", "a/y", True),
]


@pytest.mark.parametrize(("name", "src", "dst", "allowed"), CASES, ids=[f"{c[0]}:{c[1]}->{c[2]}" for c in CASES])
def test_netpol_gives_calicos_answer_where_nca_differs(name: str, src: str, dst: str, allowed: bool) -> None:
    objs = list(yaml.safe_load_all((DATA / f"{name}.yaml").read_text()))
    assert Reference(objs).allowed(src, dst) is allowed
    assert compile_objects(objs).allowed(src, dst) is allowed
