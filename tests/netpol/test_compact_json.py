"""`netpol matrix -o json --compact` is lossless: expanded, it is exactly the plain `-o json` document
(and, with --port, exactly the plain probe document). Run through the real CLI, as users run it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from netpol.readout.compact import FORMAT, expand
from tests.conftest import REAL_APPS
from tests.helpers import generate_cluster_module, pod, policy, run_cli

ROOT = Path(__file__).resolve().parents[2]


def _host_cluster() -> str:
    deny_all = {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]}
    objs = [
        {**pod("default", "agent"), "spec": {"hostNetwork": True, "nodeName": "n1", "containers": [{"name": "c"}]}},
        {**pod("default", "app", {"app": "web"}), "spec": {"nodeName": "n1", "containers": [{"name": "c"}]}},
        {**pod("default", "far", {"app": "web"}), "spec": {"nodeName": "n2", "containers": [{"name": "c"}]}},
        {**pod("other", "open", {"app": "x"}), "spec": {"nodeName": "n2", "containers": [{"name": "c"}]}},
        policy("default", "deny-all", deny_all),
        policy(
            "default", "web", {"podSelector": {"matchLabels": {"app": "web"}}, "ingress": [{"ports": [{"port": 80}]}]}
        ),
    ]
    return yaml.safe_dump_all(objs)


def _inputs(tmp_path: Path) -> list[Path]:
    out = [ROOT / "samples" / "seed-lab"]
    gen = generate_cluster_module()
    for seed in (1, 2):
        p = tmp_path / f"gen{seed}.yaml"
        p.write_text(gen.generate_yaml(80, 30, seed))
        out.append(p)
    host = tmp_path / "host.yaml"
    host.write_text(_host_cluster())
    out.append(host)
    # layer-7 filters (Cilium): a filtered connection is a set of its own, its `l7` field kept (issue 22)
    out += [REAL_APPS / "cilium-starwars" / "l7", ROOT / "tests" / "data" / "cilium-l7"]
    return out


@pytest.mark.parametrize("port", [None, 80])
def test_compact_expands_to_exactly_the_plain_document(tmp_path: Path, port: int | None) -> None:
    probe = [] if port is None else ["--port", str(port)]
    for path in _inputs(tmp_path):
        plain = run_cli("matrix", str(path), "-o", "json", *probe)
        compact = run_cli("matrix", str(path), "-o", "json", "--compact", *probe)
        assert plain.returncode == 0 and compact.returncode == 0, (plain.stderr, compact.stderr)
        doc = json.loads(compact.stdout)
        assert doc["format"] == FORMAT
        assert expand(doc) == json.loads(plain.stdout), path
        # byte for byte the standard library's compact text of the document (orjson writes it, jsondump.py)
        assert compact.stdout == json.dumps(doc, separators=(",", ":")) + "\n", path


def test_compact_refuses_partial_views() -> None:
    got = run_cli("matrix", str(ROOT / "samples" / "seed-lab"), "-o", "json", "--compact", "-n", "web")
    assert got.returncode == 2 and "--compact writes the whole matrix" in got.stderr
    got = run_cli("matrix", str(ROOT / "samples" / "seed-lab"), "-o", "txt", "--compact")
    assert got.returncode == 2 and "-o json" in got.stderr


@pytest.mark.parametrize("port", [None, 80])
def test_compact_keeps_the_layer7_filters(port: int | None) -> None:
    """The demo's l7 policy (sw_l3_l4_l7_policy.yaml) filters TCP 80 into the Death Star with one HTTP rule: the
    compact document holds that filter as data (a set with `l7`; with --port, a set naming the filter)."""
    probe = [] if port is None else ["--port", str(port)]
    out = run_cli("matrix", str(REAL_APPS / "cilium-starwars" / "l7"), "-o", "json", "--compact", *probe, "-q")
    assert out.returncode == 0, out.stderr
    sets = json.loads(out.stdout)["sets"]
    marked = [s["l7"] for s in sets if "l7" in s]
    assert len(marked) == 1
    if port is None:
        assert [f["filter"] for f in marked[0]["filters"]] == ["HTTP POST /v1/request-landing"]
    else:
        assert marked[0] == {"filters": ["HTTP POST /v1/request-landing"]}
