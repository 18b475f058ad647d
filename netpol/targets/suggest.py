"""Did-you-mean hints and cut lists for usage errors: the nearest names, and lists that say they were cut."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence


def listing(items: Sequence[str], limit: int = 10) -> str:
    """`a, b, c`, or the first `limit` items and `… and N more`: a list that was cut says so."""
    shown = ", ".join(items[:limit])
    return shown + (f", … and {len(items) - limit} more" if len(items) > limit else "")


def nearest(word: str, candidates: Iterable[str], n: int = 5, key=None) -> list[str]:  # noqa: ANN001
    """The candidates closest to `word` (difflib's ratio, then those containing it or contained in it)."""
    cands = sorted(set(candidates))
    keyed = {c: (key(c) if key else c) for c in cands}
    by_key: dict[str, list[str]] = {}
    for c, k in keyed.items():
        by_key.setdefault(k, []).append(c)
    w = word.lower()
    close = difflib.get_close_matches(w, [k.lower() for k in by_key], n=n, cutoff=0.6)
    lower = {k.lower(): k for k in by_key}
    out: list[str] = []
    for k in close:
        out += by_key[lower[k]]
    out += [c for c, k in keyed.items() if c not in out and len(w) >= 3 and (w in k.lower() or k.lower() in w)]
    return out[:n]


def did_you_mean(word: str, candidates: Iterable[str], key=None) -> str:  # noqa: ANN001
    near = nearest(word, candidates, key=key)
    return (
        f"; did you mean {' or '.join(near) if len(near) <= 2 else ', '.join(near[:-1]) + ' or ' + near[-1]}?"
        if near
        else ""
    )
