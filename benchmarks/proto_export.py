#!/usr/bin/env python3
"""PROTOTYPE (benchmark evidence, not product code): a streamed, class-vectorised `-o json` exporter.

`netpol.export` builds one Edge, one ConnectionSet render and one dict per allowed ordered pod pair, holds
them all, then `json.dumps(..., indent=2)` (the pure-Python encoder: the C encoder is only used when
indent is None). This script shows what the same bytes cost when

- allowed pairs are read per *source row* from the class matrix with numpy (no Python loop over denied
  pairs, no per-pair `connection()`),
- each distinct connection bit-vector is rendered once into a pre-indented JSON template,
- endpoint names are JSON-encoded once, and rows are written as they are produced (constant memory).

It reproduces `render(MatrixView(analysis), "json")` and `render_probe(..., "json", proto, port)` byte for
byte for the default view (all namespaces, external ranges, no --focus); `--check` proves it on a file.

    python benchmarks/proto_export.py CLUSTER.yaml --check          # compare with netpol's exporter
    python benchmarks/proto_export.py CLUSTER.yaml > /dev/null       # time + bytes on stderr
    python benchmarks/proto_export.py CLUSTER.yaml --port 80 --check
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from collections.abc import Iterator

import numpy as np

MIB = 1 << 20


def _unique_ids(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distinct rows, id of each row) for a 2-D uint64 array."""
    flat = np.ascontiguousarray(rows)
    if flat.shape[1] == 1:
        uniq, inv = np.unique(flat[:, 0], return_inverse=True)
        return uniq[:, None], inv.reshape(-1)
    view = flat.view(np.dtype((np.void, flat.dtype.itemsize * flat.shape[1]))).reshape(-1)
    uniq, inv = np.unique(view, return_inverse=True)
    return uniq.view(flat.dtype).reshape(-1, flat.shape[1]), inv.reshape(-1)


def matrix_json_chunks(analysis) -> Iterator[str]:  # noqa: ANN001
    r = analysis.reachability
    u = r.universe
    pods = r.pods
    n, C, E = len(pods), u.class_count, len(r.atoms)
    W = r.ports.words
    pc = np.asarray(u.pod_class, dtype=np.int64)

    # 1. everything but the connections (the same fields as export.matrix_json), split around a sentinel
    obj: dict[str, object] = {
        "pods": [
            {
                "name": p.key,
                "namespace": p.namespace,
                "pod": p.name,
                "node": p.node_name or None,
                "ip": p.pod_ip or None,
                "owner": p.owner.render() if p.owner else None,
                "labels": dict(p.labels),
            }
            for p in pods
        ],
        "pending": [{"name": p.key, "reason": p.reason} for p in analysis.pending],
        "external": [a.render() for a in r.atoms],
    }
    obj["connections"] = "\x00CONNECTIONS"
    text = json.dumps(obj, indent=2) + "\n"
    before, after = text.split('"\\u0000CONNECTIONS"')

    # 2. connection bit-vectors: class→class, class→atom (egress), atom→class (ingress), all (loopback/host)
    ext_in = np.asarray(r.ext_ingress).reshape(E, C, W)
    ext_eg = np.asarray(r.ext_egress).reshape(C, E, W)
    # out_bits[c, k]: source class c towards endpoint-column k (classes then atoms)
    out_bits = np.concatenate([r.class_matrix, ext_eg], axis=1)  # (C, C+E, W)
    in_bits = np.concatenate([ext_in, np.zeros((E, E, W), dtype=np.uint64)], axis=1)  # (E, C+E, W)
    all_bits = r.ports.all_bits[None, :]
    stacked = np.concatenate([out_bits.reshape(-1, W), in_bits.reshape(-1, W), all_bits])
    uniq, inv = _unique_ids(stacked)
    out_id = inv[: C * (C + E)].reshape(C, C + E)
    in_id = inv[C * (C + E) : C * (C + E) + E * (C + E)].reshape(E, C + E)
    all_id = int(inv[-1])
    zero = np.flatnonzero(~uniq.any(axis=1))
    zero_id = int(zero[0]) if zero.size else -1

    # one pre-indented template per distinct vector: entry = pre + src + mid + dst + post
    templates: list[tuple[str, str, str]] = []
    for bits in uniq:
        cs = r.ports.to_set(bits)
        t = json.dumps({"src": "\x01", "dst": "\x02", "conn": cs.to_json(), "text": cs.render()}, indent=2)
        t = "    " + t.replace("\n", "\n    ")
        pre, rest = t.split('"\\u0001"')
        mid, post = rest.split('"\\u0002"')
        templates.append((pre, mid, post))

    # 3. endpoints (pods then atoms) in the exporter's order: sorted by name
    names = [p.key for p in pods] + [a.render() for a in r.atoms]
    enc = [json.dumps(x) for x in names]
    order = np.argsort(np.array(names), kind="stable")
    col = np.concatenate([pc, C + np.arange(E)])  # endpoint → column of out_bits / in_bits
    col_sorted = col[order]
    host_pods = {i for i, p in enumerate(pods) if p.host_network and p.node_name}

    first = True
    yield before
    for ep in order.tolist():
        if ep < n:
            ids = out_id[pc[ep]][col_sorted]
            if ep in host_pods:  # traffic from a pod's own node: always allowed
                node = pods[ep].node_name
                same = np.array([e < n and pods[e].node_name == node for e in order.tolist()])
                ids = np.where(same, all_id, ids)
            mask = ids != zero_id
            mask &= order != ep  # a pod reaching itself is not listed
        else:
            ids = in_id[ep - n][col_sorted]
            mask = ids != zero_id
        if not mask.any():
            continue
        src = enc[ep]
        dsts = order[mask].tolist()
        tids = ids[mask].tolist()
        rows = []
        for d, i in zip(dsts, tids, strict=True):
            pre, mid, post = templates[i]
            rows.append(f"{pre}{src}{mid}{enc[d]}{post}")
        yield ("[\n" if first else ",\n") + ",\n".join(rows)
        first = False
    yield "[]" if first else "\n  ]"
    yield after


def probe_json_chunks(analysis, protocol: str, port: int) -> Iterator[str]:  # noqa: ANN001
    r = analysis.reachability
    pods = r.pods
    pc = np.asarray(r.universe.pod_class, dtype=np.int64)
    cls_ok = r.class_probe(protocol, port)
    enc = [json.dumps(p.key) for p in pods]
    host = [i for i, p in enumerate(pods) if p.host_network and p.node_name]
    head = json.dumps({"port": port, "protocol": protocol, "allowed": "\x00"}, indent=2)
    before, after = head.split('"\\u0000"')
    first = True
    yield before
    for s in range(len(pods)):
        row = cls_ok[pc[s]][pc]
        row[s] = True
        if s in host:
            node = pods[s].node_name
            row |= np.array([p.node_name == node for p in pods])
        dsts = np.flatnonzero(row).tolist()
        if not dsts:
            continue
        a = f"    [\n      {enc[s]},\n      "
        rows = [f"{a}{enc[d]}\n    ]" for d in dsts]
        yield ("[\n" if first else ",\n") + ",\n".join(rows)
        first = False
    yield ("[]" if first else "\n  ]") + after + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--port", type=int)
    ap.add_argument("--protocol", default="TCP")
    ap.add_argument("--check", action="store_true", help="compare with netpol.export's output (byte for byte)")
    args = ap.parse_args(argv)

    from netpol.export import MatrixView, render, render_probe
    from netpol.manifests import load_paths
    from netpol.pipeline import analyze

    t0 = time.perf_counter()
    analysis = analyze(load_paths(args.paths))
    t1 = time.perf_counter()
    chunks = probe_json_chunks(analysis, args.protocol, args.port) if args.port else matrix_json_chunks(analysis)
    if args.check:
        mine = "".join(chunks)
        t2 = time.perf_counter()
        view = MatrixView(analysis)
        ref = render_probe(view, "json", args.protocol, args.port) if args.port else render(view, "json")
        t3 = time.perf_counter()
        same = mine == ref
        print(
            f"{'IDENTICAL' if same else 'DIFFERENT'}: prototype {t2 - t1:.2f} s, netpol.export {t3 - t2:.2f} s, "
            f"{len(ref):,} bytes",
            file=sys.stderr,
        )
        if not same:
            for i, (a, b) in enumerate(zip(mine, ref, strict=False)):
                if a != b:
                    print(
                        f"first difference at {i}: {mine[i - 80 : i + 80]!r} vs {ref[i - 80 : i + 80]!r}",
                        file=sys.stderr,
                    )
                    break
        return 0 if same else 1
    size = 0
    out = sys.stdout
    for c in chunks:
        size += len(c)
        out.write(c)
    out.flush()
    t2 = time.perf_counter()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"load+analyze {t1 - t0:.2f} s, export {t2 - t1:.2f} s, {size:,} bytes ({size / MIB:.0f} MiB), "
        f"peak RSS {rss:.0f} MiB",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
