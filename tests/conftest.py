"""Shared fixtures: paths to the bundled samples and the third-party apps in ../shared/real-apps."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
REAL_APPS = ROOT.parent / "shared" / "real-apps"


@pytest.fixture
def samples() -> Path:
    return SAMPLES


@pytest.fixture
def real_apps() -> Path:
    if not REAL_APPS.is_dir():
        pytest.skip("../shared/real-apps is not present beside this checkout")
    return REAL_APPS
