"""Shared fixtures: paths to the bundled samples and the third-party apps copied into tests/data/real-apps.

The real apps live in the repository (Apache-2.0, attribution in tests/data/real-apps/SOURCES.md) so a fresh
clone runs every test; nothing here reads ../shared.
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
REAL_APPS = ROOT / "tests" / "data" / "real-apps"


@pytest.fixture
def samples() -> Path:
    return SAMPLES


@pytest.fixture
def real_apps() -> Path:
    return REAL_APPS
