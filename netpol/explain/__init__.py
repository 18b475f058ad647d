"""Answers with reasons: `explain SRC DST`, `who-can-reach TARGET`, `can-reach SOURCE`.

The verdicts and the rules are the engine's (`netpol.engine.provenance`); this package words them:
`reasons` (why a peer does or does not match), `pair` (one pair, nearest misses), `reach` (the
directional query behind who-can-reach and can-reach), each result renders itself (text, Markdown, JSON).
"""

from netpol.explain.pair import EP, Explanation, RuleCheck, SideExplanation, explain_pair, explain_targets
from netpol.explain.reach import (
    EXCEPTION_WORDS,
    ReachEntry,
    ReachReport,
    can_reach,
    reach,
    side_words,
    who_can_reach,
)

__all__ = [
    "EP",
    "EXCEPTION_WORDS",
    "Explanation",
    "ReachEntry",
    "ReachReport",
    "RuleCheck",
    "SideExplanation",
    "can_reach",
    "explain_pair",
    "explain_targets",
    "reach",
    "side_words",
    "who_can_reach",
]
