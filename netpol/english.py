"""Two rules of English that messages built from names need: "a" or "an" before a word, and plural forms."""

from __future__ import annotations

# Initial letters whose spoken name starts with a vowel sound (F "eff", N "en", …): "an NSA policy".
_VOWEL_SOUND_LETTERS = frozenset("AEFHILMNORSX")
# Words spelt with a vowel but said with a consonant: "a unique", "a user", "a one-off", "a European".
_CONSONANT_SOUND_PREFIXES = ("uni", "use", "usu", "eu", "one")


def article(word: str) -> str:
    """ "a" or "an" for `word` as it is said: "an Antrea policy", "an extensions policy", "a Cilium policy",
    "an OVN-Kubernetes policy" (an initialism is read letter by letter)."""
    if not word:
        return "a"
    head = word.split("-", 1)[0].split(".", 1)[0]
    if len(head) > 1 and head.isupper():
        return "an" if head[0] in _VOWEL_SOUND_LETTERS else "a"
    lower = word.lower()
    if lower.startswith(_CONSONANT_SOUND_PREFIXES):
        return "a"
    return "an" if lower[0] in "aeiou" else "a"


def with_article(word: str) -> str:
    return f"{article(word)} {word}"


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    """`1 policy`, `2 policies`, `0 peers`: the count and the noun in the form that count takes."""
    if count == 1:
        return f"1 {singular}"
    if plural_form is None:
        if singular.endswith("y") and singular[-2:-1] not in ("a", "e", "o", "u"):
            plural_form = singular[:-1] + "ies"
        elif singular.endswith(("s", "x", "ch", "sh")):
            plural_form = singular + "es"
        else:
            plural_form = singular + "s"
    return f"{count:,} {plural_form}"
