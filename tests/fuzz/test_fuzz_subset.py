"""The fast seeded subset of the mutation fuzzer (issue 16 item 7), run in-process in the suite.

Every mutated input either succeeds through matrix, schedule and audit, or stops with the project's own
input error whose field path names keys of the input; never a traceback. The full run (>= 20,000
inputs under time and memory limits) is tests/fuzz/run_full.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fuzz.mutate import inputs, run_one, seeds

COUNT = 120


def test_the_corpus_has_the_samples_and_the_real_apps() -> None:
    names = [n for n, _ in seeds()]
    assert any(n.startswith("scheduling/") for n in names)
    assert len(names) > 20


@pytest.mark.parametrize("seed", [11, 12])
def test_mutated_manifests_succeed_or_fail_with_a_field_of_the_input(tmp_path: Path, seed: int) -> None:
    findings = []
    kinds = set()
    for i, name, text in inputs(COUNT, seed):
        path = tmp_path / f"in{i}.yaml"
        path.write_text(text, encoding="utf-8", errors="surrogateescape")
        outcome = run_one(str(path), text)
        kinds.add(outcome.kind)
        if outcome.kind not in ("ok", "error"):
            findings.append(f"{i} {name}: {outcome.kind}: {outcome.detail}")
    assert findings == []
    assert kinds == {"ok", "error"}  # the mix proves the mutations reach both ends


def test_an_unknown_key_with_dots_is_a_field_of_the_input() -> None:
    """Full fuzz run (seed 1, index 10859): an unknown key holding dots is one path step, as kubectl prints it."""
    from tests.fuzz.mutate import path_in_input

    text = "spec:\n  pods:\n    'x.io/name': 1\n"
    assert path_in_input("spec.pods.x.io/name", 'unknown field "spec.pods.x.io/name"', text)
    assert not path_in_input("spec.pods.y.io/name", 'unknown field "spec.pods.y.io/name"', text)
