"""`netpol report`: one self-contained HTML page per cluster (summary, heatmap, pods, findings, graph)."""

from __future__ import annotations

from collections.abc import Sequence

from netpol.pipeline import Analysis


def report_html(
    analysis: Analysis,
    sources: Sequence[str],
    *,
    title: str | None = None,
    diff: object | None = None,
    old_sources: Sequence[str] = (),
) -> str:
    """The page for one analysed cluster; with `diff` (a DiffReport from `old_sources` to this cluster), the
    gained, lost and changed connections are marked."""
    from netpol.report import data as data_mod
    from netpol.report.html import render

    data, blobs = data_mod.build(analysis, title=title or "netpol report", sources=sources)
    if diff is not None:
        data["diff"] = {**data_mod.diff_marks(diff), "old": list(old_sources)}  # type: ignore[arg-type]
    return render(data, blobs)
