"""Issue 16's crash site: the UI's export of a pod named "a\\0b". The reader refuses such a name (pinned in
tests/netpol/test_strict_crash_sites.py); a model built another way must still export without a traceback:
the file name is made safe and the text written as it is."""

from __future__ import annotations

from dataclasses import replace

from tests.tui.conftest import _context, loaded

NAME = "a\x00b\x1b[31m"


def _loader():  # noqa: ANN202 - () -> Analysis
    ctx = _context()
    cluster = ctx.load()
    pods = tuple(replace(p, name=NAME) if p.name == "web1" else p for p in cluster.pods)
    return ctx.analyze(replace(cluster, pods=pods))


async def test_exporting_a_pod_whose_name_holds_control_characters_writes_a_safe_file_name(tmp_path) -> None:
    from tui.app import ReachApp

    app = ReachApp(_loader, export_dir=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await loaded(pilot)
        rows = app.screen.rows
        (i,) = [i for i in rows if app.screen.model.pod_row(i).name == NAME]
        app.open_pod(i)
        await pilot.pause()
        await pilot.press("e", "y")
        await pilot.pause()
    (written,) = list(tmp_path.iterdir())
    assert written.name == "netpol-pod-web_a_b_[31m.txt"
    assert f"# web/{NAME}" in written.read_text()
