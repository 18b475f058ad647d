"""netpol.english: "a"/"an" as the word is said, and plural forms (issue 25: "is a Antrea policy", "1 policies")."""

from __future__ import annotations

import pytest

from netpol.english import article, plural
from tests.helpers import run_cli


@pytest.mark.parametrize(
    ("word", "said"),
    [
        ("Antrea", "an"),
        ("extensions", "an"),
        ("Istio", "an"),
        ("OpenShift", "an"),
        ("OVN-Kubernetes", "an"),  # read letter by letter: "oh-vee-en"
        ("Cilium", "a"),
        ("Calico", "a"),
        ("crd.antrea.io", "a"),
        ("user", "a"),  # "you-ser"
        ("NSA", "an"),  # "en-es-ay"
    ],
)
def test_article_follows_the_sound(word: str, said: str) -> None:
    assert article(word) == said


@pytest.mark.parametrize(
    ("count", "noun", "text"),
    [(1, "policy", "1 policy"), (0, "policy", "0 policies"), (2, "peer", "2 peers"), (1, "pod", "1 pod"),
     (1234, "pod", "1,234 pods"), (3, "pass", "3 passes"), (2, "key", "2 keys")],
)  # fmt: skip
def test_plural_takes_the_count(count: int, noun: str, text: str) -> None:
    assert plural(count, noun) == text


def test_audit_header_uses_the_singular_for_one() -> None:
    """Seed lab: cyh holds 1 pod and no policy, web 3 pods and 1 policy (web/web1-allow-test)."""
    out = run_cli("audit").stdout
    assert "namespace cyh: 1 pod, 0 policies\n" in out and "namespace web: 3 pods, 1 policy\n" in out
