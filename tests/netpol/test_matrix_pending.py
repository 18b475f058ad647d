"""Pending pods (issue 3 item 7): excluded from the matrix, listed in JSON, noted on stderr for other formats."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import run_cli

SEED = Path(__file__).resolve().parents[2] / "samples" / "seed-lab"
UNSCHEDULABLE = """\
apiVersion: v1
kind: Pod
metadata: {name: db, namespace: web, labels: {run: db}}
spec:
  nodeSelector: {disk: ssd}
  containers: [{name: db, image: postgres}]
"""


def test_pending_pod_is_left_out_of_the_matrix_and_reported(tmp_path: Path) -> None:
    extra = tmp_path / "db.yaml"
    extra.write_text(UNSCHEDULABLE)
    txt = run_cli("matrix", str(SEED), str(extra))
    assert txt.returncode == 0, txt.stderr
    assert "web/db" not in txt.stdout
    assert "note: web/db is Pending" in txt.stderr
    assert "didn't match Pod's node affinity/selector" in txt.stderr
    doc = json.loads(run_cli("matrix", str(SEED), str(extra), "-o", "json").stdout)
    assert [p["name"] for p in doc["pending"]] == ["web/db"]
    assert doc["pending"][0]["reason"].startswith("0/3 nodes are available:")
    assert "web/db" not in {p["name"] for p in doc["pods"]}
