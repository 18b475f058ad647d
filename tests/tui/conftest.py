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


def real_app_loader(name: str):  # noqa: ANN201 - () -> Analysis
    """A loader for one app of tests/data/real-apps, as `netpol tui tests/data/real-apps/NAME` reads it."""
    from tests.conftest import REAL_APPS

    def load() -> Analysis:
        ctx = Context(argparse.Namespace(paths=[str(REAL_APPS / name)]))
        return ctx.analyze(ctx.load())

    return load


def pending_loader() -> Analysis:
    text = "\n---\n".join(p.read_text() for p in sorted(SEED.glob("*.yaml")))
    extra = UNSCHEDULABLE_POD if _context().placer() is not None else PENDING_STATUS_POD
    text += "\n---\n" + yaml.safe_dump(extra)
    return _context().analyze(load_text(text))


async def loaded(pilot) -> None:  # noqa: ANN001 - textual.pilot.Pilot
    """Wait until the last load finished and every view is ready (`ReachApp.settled`), then until the screen
    drew it (the key bar follows the focused widget's bindings: asked for explicitly, then awaited)."""
    app = pilot.app
    await asyncio.wait_for(app.settled.wait(), timeout=120)
    await app.workers.wait_for_complete()
    app.screen.refresh_bindings()
    await settle(pilot)


async def audited(pilot) -> None:  # noqa: ANN001
    """Until the audit of the model on screen is complete (`ReachApp.audited`: it runs in a worker after the
    UI opens, once the user is idle or the Audit view is opened), then drawn."""
    await asyncio.wait_for(pilot.app.audited.wait(), timeout=120)
    await settle(pilot)


async def settle(pilot) -> None:  # noqa: ANN001
    """Until the app is idle: no pending messages, timers due or animations (no fixed delay)."""
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
