from __future__ import annotations

from pathlib import Path

import pytest

from netpol.manifests import load_paths
from netpol.pipeline import Analysis, analyze

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "samples" / "seed-lab"
EXPECT = ROOT / "samples" / "expectations"
AUDIT = EXPECT / "audit"


def analyze_path(*paths: Path | str) -> Analysis:
    return analyze(load_paths([str(p) for p in paths]))


@pytest.fixture(scope="session")
def seed() -> Analysis:
    return analyze_path(SEED)
