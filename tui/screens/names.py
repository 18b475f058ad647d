"""Lists of names in a detail panel: only the names shown are built (a policy may select thousands of pods)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tui.model import ViewModel

MORE = 40  # names listed in a detail panel before "… and N more"


def names_text(names: list[str], limit: int = MORE) -> str:
    if not names:
        return "  (none)"
    text = "\n".join(f"  {n}" for n in names[:limit])
    if len(names) > limit:
        text += f"\n  … and {len(names) - limit} more"
    return text


def pod_names_text(model: ViewModel, pods: np.ndarray, external: Sequence[str] = (), limit: int = MORE) -> str:
    """`names_text` of pod keys then external ranges, building only the names shown (plus one, for "… more")."""
    shown = [model.pods[j].key for j in pods[: limit + 1].tolist()]
    shown += list(external[: max(0, limit + 1 - len(shown))])
    text = names_text(shown, limit)
    total = len(pods) + len(external)
    if total > limit:
        text = text.rsplit("\n", 1)[0] + f"\n  … and {total - limit} more"
    return text
