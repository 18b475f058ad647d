"""The isolation report's "reachable from" (`reach_in_all`): per destination namespace, which other namespaces
and external ranges reach it, on which ports, and which of its pods. Checked against a pod-by-pod oracle over
the whole class matrix, on the samples and the real apps (some namespaces reach others, some don't)."""

from __future__ import annotations

from pathlib import Path

import netaddr
import numpy as np
import pytest

from netpol.audit.namespaces import reach_in_all
from netpol.pipeline import Analysis
from netpol.ports import ConnectionSet
from tests.conftest import REAL_APPS
from tests.questions.conftest import AUDIT, SEED, analyze_path

CASES = [SEED, AUDIT, *(p for p in sorted(REAL_APPS.iterdir()) if p.is_dir())]


def oracle(a: Analysis) -> dict[str, list[tuple[str, ConnectionSet, list[str]]]]:
    """Pod pair by pod pair: the ports each (source namespace or range, destination pod) pair allows, OR-ed."""
    r = a.reachability
    pc = np.asarray(r.universe.pod_class)
    words = r.ports.words
    full = r.class_block(range(r.C), range(r.C)).reshape(r.C, r.C, words)
    ext = r.ext_ingress_block(range(r.A), range(r.C)).reshape(r.A, r.C, words)
    out: dict[str, list[tuple[str, ConnectionSet, list[str]]]] = {}
    for ns in sorted({p.namespace for p in r.pods}):
        mine = [q for q, p in enumerate(r.pods) if p.namespace == ns]
        found = []
        for other in sorted({p.namespace for p in r.pods} - {ns}):
            bits = np.zeros(words, dtype=np.uint64)
            reached = set()
            for s, p in enumerate(r.pods):
                if p.namespace != other:
                    continue
                for d in mine:
                    cell = full[pc[s], pc[d]]
                    if cell.any():
                        bits |= cell
                        reached.add(r.pods[d].key)
            if bits.any():
                found.append((other, r.ports.to_set(bits), sorted(reached)))
        # external ranges: address-adjacent atoms with the same ports into the same pods read as one range
        # (issue 25), a single address as itself
        runs: list[list] = []  # [version, first, last, ports, pods]
        for k, atom in enumerate(r.atoms):
            cells = [ext[k, pc[d]] for d in mine]
            if any(c.any() for c in cells):
                bits = np.bitwise_or.reduce(np.array(cells), axis=0)
                conn = r.ports.to_set(bits)
                reached_ext = sorted(r.pods[d].key for d, c in zip(mine, cells, strict=True) if c.any())
                last = runs[-1] if runs else None
                if last and last[0] == atom.version and last[2] + 1 == atom.first and last[3:] == [conn, reached_ext]:
                    last[2] = atom.last
                else:
                    runs.append([atom.version, atom.first, atom.last, conn, reached_ext])
        for version, first, last_ip, conn, reached_ext in runs:
            lo, hi = netaddr.IPAddress(first, version), netaddr.IPAddress(last_ip, version)
            found.append((str(lo) if first == last_ip else f"{lo}-{hi}", conn, reached_ext))
        out[ns] = found
    return out


@pytest.mark.parametrize("path", CASES, ids=lambda p: Path(p).name)
def test_reach_in_names_the_same_sources_ports_and_pods_as_a_pod_by_pod_reading(path: Path) -> None:
    a = analyze_path(path)
    namespaces = sorted({p.namespace for p in a.reachability.pods})
    assert reach_in_all(a.reachability, namespaces) == oracle(a)


def test_some_case_has_a_namespace_reached_from_another() -> None:
    """The oracle is not compared on empty reports only."""
    reached = 0
    for path in CASES:
        a = analyze_path(path)
        report = reach_in_all(a.reachability, sorted({p.namespace for p in a.reachability.pods}))
        reached += sum(1 for found in report.values() for src, _, _ in found if src[0].isalpha())
    assert reached


def test_adjacent_external_ranges_with_one_verdict_are_one_line_and_a_single_address_is_itself(tmp_path) -> None:  # noqa: ANN001
    """Issue 25 (5,222 lines on npg-ipblockstest-4). By hand: t/a admits TCP 80 from 10.0.0.0/25 and from
    10.0.0.128/25 (two ipBlocks: two atoms, adjacent, one verdict → `10.0.0.0-10.0.0.255 : TCP 80`) and TCP 443
    from 10.0.1.7/32 (one address → `10.0.1.7`, not `10.0.1.7-10.0.1.7`). Nothing else reaches t/a."""
    import yaml

    from tests.helpers import namespace, pod, policy, run_cli

    rules = [
        {
            "from": [{"ipBlock": {"cidr": "10.0.0.0/25"}}, {"ipBlock": {"cidr": "10.0.0.128/25"}}],
            "ports": [{"port": 80}],
        },
        {"from": [{"ipBlock": {"cidr": "10.0.1.7/32"}}], "ports": [{"port": 443}]},
    ]
    docs = [namespace("t"), pod("t", "a", {"app": "a"}), policy("t", "in", {"podSelector": {}, "ingress": rules})]
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    r = run_cli("audit", str(path), "-q")
    lines = r.stdout[r.stdout.index("  reachable from:") :].splitlines()[1:3]
    assert lines == ["    10.0.0.0-10.0.0.255 : TCP 80 (to t/a)", "    10.0.1.7 : TCP 443 (to t/a)"]
