"""Small builders so semantic tests read like the manifests they pin."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import yaml

from netpol.engine import Endpoint, Reachability
from netpol.manifests import load_text
from netpol.pipeline import Analysis, analyze
from netpol.ports import ConnectionSet
from netpol.readout.rows import RowFilter, Rows


def pod(
    ns: str, name: str, labels: dict[str, str] | None = None, ports: list[dict] | None = None, **spec: object
) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": ns, "labels": labels or {}},
        "spec": {"containers": [{"name": "c", "image": "nginx", "ports": ports or []}], **spec},
    }


def namespace(name: str, labels: dict[str, str] | None = None) -> dict:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels or {}}}


def policy(ns: str, name: str, spec: dict) -> dict:
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": name, "namespace": ns},
        "spec": spec,
    }


def analyze_objects(*objs: dict, placer=None, **kw) -> Analysis:
    text = yaml.safe_dump_all(list(objs))
    return analyze(load_text(text), placer, **kw)


def conn(a: Analysis, src: str, dst: str) -> ConnectionSet:
    r = a.reachability
    return r.connection(r.pod_index[src], r.pod_index[dst])


def allowed(a: Analysis, src: str, dst: str, port: int, protocol: str = "TCP") -> bool:
    return conn(a, src, dst).contains(protocol, port)


def run_cli(*args: str, stdin: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run the real `netpol` entry point as a subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "netpol.cli", *args], input=stdin, capture_output=True, text=True, cwd=cwd, timeout=120
    )


def generate_cluster_module():  # noqa: ANN201 - the module benchmarks/generate_cluster.py
    """The benchmark's cluster generator, imported from its file (benchmarks/ is not a package)."""
    import importlib.util

    loaded = sys.modules.get("generate_cluster")
    if loaded is not None:
        return loaded
    path = Path(__file__).resolve().parent.parent / "benchmarks" / "generate_cluster.py"
    spec = importlib.util.spec_from_file_location("generate_cluster", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["generate_cluster"] = module  # its dataclasses look their module up while being defined
    spec.loader.exec_module(module)
    return module


def grid_cells(text: str) -> dict[tuple[str, str], str]:
    """The cells of `netpol matrix -o grid` by (source, destination), read as a person reads them: the full
    names from the legend below the table (rows come in the columns' order), each column's glyph under the
    last digit of its number in the header line (the line just above the rows)."""
    lines = [line for line in text.splitlines() if not line.startswith("# ")]
    blank = lines.index("")
    names = [line.split(" = ", 1)[1] for line in lines[blank + 1 :]]
    numbers = list(re.finditer(r"\d+", lines[1]))  # lines[0] is the namespace band line
    assert [int(m.group()) for m in numbers] == list(range(len(names))), lines[1]
    rows = lines[2:blank]
    cells: dict[tuple[str, str], str] = {}
    for src, row in zip(names, rows, strict=True):
        for dst, m in zip(names, numbers, strict=True):
            x = m.end() - 1
            cells[(src, dst)] = row[x] if x < len(row) else " "
    return cells


def matrix_bits(r: Reachability) -> dict[tuple[int, int], bytes]:
    """Endpoint pair → connection bits as the export rows give them (endpoint ids: pods, then atoms)."""
    rows = Rows(r)
    out = {}
    for s, dsts, ids in rows.rows(RowFilter(np.ones(len(r.pods), dtype=bool))):
        for d, c in zip(dsts.tolist(), ids.tolist(), strict=True):
            out[(s, d)] = rows.table.sets[c]
    return out


def endpoint_of(r: Reachability, e: int) -> Endpoint:
    """The endpoint of a matrix endpoint id (pods, then atoms)."""
    n = len(r.pods)
    return Endpoint(pod=e) if e < n else Endpoint(atom=e - n)
