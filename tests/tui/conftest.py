"""Apps over the seed lab (and the seed lab plus a pod no node can take), and a helper to await loading."""

from __future__ import annotations

import argparse
import asyncio
import functools
import inspect
from pathlib import Path

import pytest
import yaml

from netpol.commands.context import Context
from netpol.manifests import load_text
from netpol.pipeline import Analysis

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "samples" / "seed-lab"

UNSCHEDULABLE_POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "db", "namespace": "web", "labels": {"run": "db"}},
    "spec": {"nodeSelector": {"disk": "ssd"}, "containers": [{"name": "db", "image": "postgres"}]},
}
# Without the scheduler a pod is Pending only when its status says so: the same pod, read as Pending.
PENDING_STATUS_POD = {**UNSCHEDULABLE_POD, "status": {"phase": "Pending"}}


def _context() -> Context:
    return Context(argparse.Namespace(paths=[str(SEED)]))


def seed_loader() -> Analysis:
    ctx = _context()
    return ctx.analyze(ctx.load())


def pending_loader() -> Analysis:
    text = "\n---\n".join(p.read_text() for p in sorted(SEED.glob("*.yaml")))
    extra = UNSCHEDULABLE_POD if _context().placer() is not None else PENDING_STATUS_POD
    text += "\n---\n" + yaml.safe_dump(extra)
    return _context().analyze(load_text(text))


async def loaded(pilot) -> None:  # noqa: ANN001 - textual.pilot.Pilot
    """Wait until the loader worker delivered its model and the screen shows it."""
    for _ in range(400):
        if pilot.app.model is not None and not pilot.app.loading_now:
            break
        await pilot.pause(0.01)
    await pilot.pause(0.2)
    await pilot.app.workers.wait_for_complete()
    for _ in range(200):  # the views are composed off screen after start (ReachApp.warm_up)
        if pilot.app.warm:
            break
        await pilot.pause(0.01)
    await pilot.pause()
    # The screen focuses its table after the model arrives; the footer's bindings follow focus.
    for _ in range(100):
        if pilot.app.focused is not None:
            break
        await pilot.pause(0.01)
    # Let the footer settle on the focused widget's bindings. The first app of a process renders it a
    # beat later (cold CSS and widget caches), so ask for the refresh explicitly, then wait it out.
    pilot.app.screen.refresh_bindings()
    await pilot.pause(0.2)
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


@pytest.fixture
def seed_app(tmp_path):
    from tui.app import ReachApp

    return ReachApp(seed_loader, export_dir=tmp_path)


def pytest_collection_modifyitems(items):  # noqa: ANN001, ANN201
    """Run `async def` tests of this folder with asyncio.run (no async plugin is a test dependency)."""
    for item in items:
        fn = getattr(item, "obj", None)
        if inspect.iscoroutinefunction(fn) and "tests/tui" in str(item.fspath):

            @functools.wraps(fn)
            def sync(*args, __fn=fn, **kwargs):  # noqa: ANN002, ANN003, ANN202
                return asyncio.run(__fn(*args, **kwargs))

            item.obj = sync
