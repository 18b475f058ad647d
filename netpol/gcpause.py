"""Pause Python's cyclic garbage collector while a cluster is read and expanded.

Loading 100,000 pods makes millions of dicts, lists, tuples and dataclasses and no garbage cycles; each time
700 more containers exist than were freed the collector runs, and every so often it walks all of them again
to find nothing: at 100k pods that was half of reading, expanding and addressing them (4.4 s of 8.4 s).
Pausing it changes no result: reference counting still frees everything that is not part of a cycle.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

_freeze_on_resume = False  # keep_built_objects(): set once by a command's own process, never unset


def keep_built_objects() -> None:
    """For a process's own command run (not the UI, not a library): when a paused region ends, what it built is
    frozen before the collector resumes.

    Objects made while the collector was paused are all in its youngest generation; the first collection after
    it resumes walks them, and the next ones walk them again a generation up: at 100k pods about 0.45 s of a
    `matrix --compact` run, in the gaps between reading, expanding, addressing and compiling. A command keeps
    what those build until it exits (settle_heap below says the same of the analysis), so freezing costs
    nothing; objects freed later are freed by reference counting as before. Not for the UI: it runs on and
    makes garbage cycles of its own, which a freeze would keep for good."""
    global _freeze_on_resume
    _freeze_on_resume = True


@contextmanager
def gc_paused() -> Iterator[None]:
    """`@gc_paused()` on a function or `with gc_paused():` — nests, and leaves the collector as it found it."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if _freeze_on_resume:
                gc.freeze()
            gc.enable()


def settle_heap() -> None:
    """Move every object alive now out of the collector's sight, for a process that keeps them to its end.

    Objects made while the collector was paused are all still in its youngest generation: the first
    collections after it resumes walk them, then walk them again one generation up (at 100k pods, 1.4 s of a
    `matrix --compact` run, in the export's first allocations). A command that has loaded and analysed a
    cluster holds it until it exits, so freezing costs nothing and those walks never happen. Only for a
    process's own command run (`netpol.cli` as the entry point): frozen garbage cycles are never freed.
    """
    gc.freeze()
