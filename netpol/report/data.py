"""The report's only contact with the engine: Analysis (+ audit, explain, diff) → plain, compact data.

Everything the page shows is computed here, when the report is written, and aggregated by equivalence
class (pods no policy can tell apart share every verdict and every reason): the class × class matrix of
connection ids, each distinct connection rendered once; per side, a reason id for every (class, class or
external range) pair into one table of the engine's words (report/reasons.py); the pod pairs the engine
answers before the policies (a pod and itself, node-local traffic) with their kind and connection; and
`explain` text per class pair (for a representative pod of each class) while the pair count stays within
a budget. The page expands pod-level detail from these in JavaScript, on demand, by lookups only: it never
matches a rule or applies an exception itself. A change of the engine's API is a change of this module alone.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from netpol.audit import audit
from netpol.diff import DiffReport
from netpol.engine import CapacityError, Reachability
from netpol.explain import EP, EXCEPTION_WORDS, explain_pair
from netpol.exposure import analyze_exposure
from netpol.exposure.render import path_json
from netpol.model.vocab import Direction
from netpol.pipeline import Analysis
from netpol.readout.l7 import ClassMarks, L7Mark
from netpol.report.layout import Drawing, choose_unit, draw
from netpol.report.reasons import Exceptions, SideReasons, Texts, exceptions, external_words, side_reasons
from netpol.targets import workload_label
from netpol.unevaluated import coverages

# explain text is embedded for every class pair up to this many pairs (about 1 ms each); above that the
# page shows the verdict with each side's embedded reasons and names the `netpol explain` command for the rest
EXPLAIN_BUDGET = 4096
# The page embeds the class × class connection matrix (the browser expands it to pods) and the heatmap is
# counted over it: about 30 bytes per cell while building. 8,902 classes (30,000 generated pods) peak at
# 2.6 GB; 100,000 pods have about 30,000 classes, 900 million cells, more than a page or this tool can hold.
MAX_REPORT_CLASSES = 12_000
SEVERITY_ORDER = ("high", "medium", "low", "info")


@dataclass
class Blobs:
    """Binary arrays the page decodes (gzip + base64): name → (numpy dtype name, array)."""

    arrays: dict[str, np.ndarray] = field(default_factory=dict)
    svg: str = ""

    def put(self, name: str, arr: np.ndarray) -> str:
        self.arrays[name] = np.ascontiguousarray(arr)
        return name

    def put_ids(self, name: str, arr: np.ndarray) -> str:
        """Non-negative ids in the smallest unsigned type the page reads (uint8, uint16, uint32)."""
        top = int(arr.max()) if arr.size else 0
        dtype = np.uint8 if top < 256 else np.uint16 if top < 65536 else np.uint32
        return self.put(name, arr.astype(dtype))


def _connection_ids(bits: np.ndarray, table: dict[bytes, int], texts: list[str], render) -> np.ndarray:
    """Connection id of each cell of `bits` (..., W); 0 is "no connection"; each distinct set rendered once."""
    shape = bits.shape[:-1]
    flat = np.ascontiguousarray(bits.reshape(-1, bits.shape[-1]))
    if flat.shape[0] == 0:
        return np.zeros(shape, dtype=np.int32)
    if flat.shape[1] == 1:
        keys = flat[:, 0]
    else:
        keys = flat.view(np.dtype((np.void, flat.shape[1] * 8))).ravel()
    uniq, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    ids = np.empty(len(uniq), dtype=np.int32)
    for k, i in enumerate(first.tolist()):
        row = flat[i]
        if not row.any():
            ids[k] = 0
            continue
        key = row.tobytes()
        got = table.get(key)
        if got is None:
            got = table[key] = len(texts)
            texts.append(render(row))
        ids[k] = got
    return ids[inverse.ravel()].reshape(shape)


def build(
    analysis: Analysis,
    *,
    title: str,
    sources: Sequence[str],
    explain_budget: int = EXPLAIN_BUDGET,
    redundancy: bool = True,
) -> tuple[dict[str, object], Blobs]:
    """(JSON-ready data, binary arrays) for one cluster."""
    r = analysis.reachability
    u = r.pod_classes
    cluster = analysis.cluster
    blobs = Blobs()
    pods = r.pods
    C = u.class_count
    if C > MAX_REPORT_CLASSES:
        raise CapacityError(
            f"netpol report: {len(r.pods):,} pods fall in {C:,} equivalence classes; the page embeds the class × "
            f"class connection matrix ({C * C / 1e6:,.0f} million cells) and holds at most {MAX_REPORT_CLASSES:,} "
            "classes. For a cluster this size use `netpol matrix -o json --compact`, `netpol audit`, or a report "
            "of part of the manifests"
        )
    pc = np.asarray(u.pod_class, dtype=np.int64)

    # ---------------------------------------------------------------- namespaces, pods, workloads
    ns_names = sorted({ns.name for ns in cluster.namespaces} | {p.namespace for p in pods})
    ns_index = {n: i for i, n in enumerate(ns_names)}
    wl_names: list[str] = []
    wl_index: dict[str, int] = {}
    pod_wl = []
    for p in pods:
        label = workload_label(p)
        if label not in wl_index:
            wl_index[label] = len(wl_names)
            wl_names.append(label)
        pod_wl.append(wl_index[label])
    nodes = sorted({p.node_name for p in pods if p.node_name})
    node_index = {n: i + 1 for i, n in enumerate(nodes)}  # 0: not placed
    pod_ns = np.asarray([ns_index[p.namespace] for p in pods], dtype=np.int64)
    class_ns = np.asarray([ns_index[c.namespace] for c in u.classes], dtype=np.int32)

    # ---------------------------------------------------------------- connections by class
    table: dict[bytes, int] = {}
    texts: list[str] = [""]

    def render(bits: np.ndarray) -> str:
        return r.ports.to_set(bits).render()

    all_id = _connection_ids(r.ports.all_bits[None, :], table, texts, render)[0]
    # the engine computes the class matrix a block of rows at a time; the page keeps only connection ids
    blocks = [_connection_ids(b, table, texts, render) for _, b in r.stream_class_blocks()]
    cm = np.concatenate(blocks) if blocks else np.zeros((0, 0), dtype=np.int32)
    E = len(r.atoms)
    ein = (
        _connection_ids(r.ext_ingress_block(range(E)), table, texts, render) if E else np.zeros((0, C), dtype=np.int32)
    )
    eout = (
        _connection_ids(r.ext_egress_block(range(C)), table, texts, render) if E else np.zeros((C, 0), dtype=np.int32)
    )
    # connections some of whose ports go only through a layer-7 filter (Cilium): ids and texts of their own
    l7_ids = _l7_ids(r, cm, ein, eout, texts) if r.has_l7 else []
    # the pod pairs the engine answers before the policies, with their own connection ids
    exc = exceptions(r)
    exc_ids = _connection_ids(exc.bits, table, texts, render)
    blobs.put_ids("cm", cm)
    blobs.put_ids("ein", ein)
    blobs.put_ids("eout", eout)
    blobs.put_ids("exc", np.stack([exc.src, exc.dst, exc.kind, exc_ids], axis=1).ravel())

    # ---------------------------------------------------------------- namespace heatmap (pod pairs)
    heat = _heatmap(pc, pod_ns, class_ns, cm, len(ns_names), len(texts), exc, exc_ids)

    # ---------------------------------------------------------------- each side's reasons (the engine's words)
    rep = np.full(C, -1, dtype=np.int64)
    rep[pc[::-1]] = np.arange(len(pc))[::-1]  # first pod of each class
    words = Texts()
    sides = {d: side_reasons(r, d, words, rep) for d in ("egress", "ingress")}
    reasons: dict[str, object] = {"external": external_words(r, words)}
    for d, sr in sides.items():
        reasons[d] = {"peer_groups": int(sr.table.shape[1])}
        _put_side(blobs, d[:2], sr)
    reasons["texts"] = [list(w) for w in words.words]
    exception_kinds = [
        {"name": k, "egress": list(EXCEPTION_WORDS[k][0]), "ingress": list(EXCEPTION_WORDS[k][1])} for k in exc.kinds
    ]

    # ---------------------------------------------------------------- doors (netpol exposure) and audit
    exposure = analyze_exposure(analysis)
    doors = [path_json(p) for p in exposure.paths]
    report = audit(analysis, (), redundancy=redundancy, exposure_result=exposure)
    findings = [f.to_json() for f in report.findings]
    findings.sort(key=lambda f: (SEVERITY_ORDER.index(str(f["severity"])), str(f["id"]), str(f["namespace"])))
    by_ns: dict[str, Counter[str]] = defaultdict(Counter)
    for f in report.findings:
        by_ns[f.namespace][f.severity] += 1
    nsinfo = []
    reports = {nr.name: nr for nr in report.namespaces}
    for name in ns_names:
        members = pod_ns == ns_index[name]
        cls = pc[members]
        nr = reports.get(name)
        external = [(src, cs.render()) for src, cs in (nr.reach_in if nr else []) if src not in ns_index]
        other_ns = [(src, cs.render()) for src, cs in (nr.reach_in if nr else []) if src in ns_index and src != name]
        nsinfo.append(
            {
                "pods": int(members.sum()),
                "iso_in": int(r.isolated_ingress[cls].sum()),
                "iso_out": int(r.isolated_egress[cls].sum()),
                "dd_in": nr.default_deny_ingress if nr else [],
                "dd_out": nr.default_deny_egress if nr else [],
                "policies": len(nr.policies) if nr else 0,
                "from_outside": external,
                "from_ns": other_ns,
                "findings": {s: by_ns[name][s] for s in SEVERITY_ORDER if by_ns[name][s]},
            }
        )

    # ---------------------------------------------------------------- policies netpol did not evaluate
    pod_at = {p.key: i for i, p in enumerate(pods)}
    unevaluated = [
        {"policy": c.policy.key, "what": c.what(), "selects": c.selects(), "pods": [pod_at[k] for k in c.pods]}
        for c in coverages(cluster.unevaluated, pods)
    ]

    # ---------------------------------------------------------------- explain per class pair
    explain = _explanations(analysis, pc, explain_budget)

    drawing = _drawing(r, pc, ns_names, np.asarray(pod_wl, dtype=np.int64), wl_names, heat, cm != 0, exc, exc_ids)

    data: dict[str, object] = {
        "title": title,
        "sources": list(sources),
        "counts": {
            "namespaces": len(ns_names),
            "pods": len(pods),
            "policies": len(cluster.policies),
            "calico_policies": len(cluster.calico.policies),
            # every compiled policy kind besides NetworkPolicy, for one card each: the page names them all
            "kinds": dict(sorted(Counter(cp.kind for cp in r.policies if cp.kind != "NetworkPolicy").items())),
            "nodes": len(cluster.nodes),
            "pending": len(analysis.pending),
            "classes": C,
            "workloads": len(wl_names),
            "findings": {s: sum(1 for f in report.findings if f.severity == s) for s in SEVERITY_ORDER},
            "unevaluated": len(unevaluated),
        },
        "unevaluated": unevaluated,
        # Every policy the engine evaluates, in evaluation order (tiers, then precedence), as explain names them.
        "policies": [
            {
                "key": cp.key,
                "kind": cp.kind,
                "tier": cp.tier.label,
                "precedence": cp.precedence_text,
                "in": "ingress" in cp.isolates,
                "out": "egress" in cp.isolates,
                "rules": [cp.rule_label(rule) for rule in (*cp.ingress, *cp.egress)],
            }
            for cp in r.policies
        ],
        "pending": [[p.key, p.reason] for p in analysis.pending],
        "notes": list(report.notes),
        "ns": ns_names,
        "nsinfo": nsinfo,
        "conns": texts,
        "all_id": int(all_id),
        "l7": l7_ids,  # connection ids through a layer-7 filter: the matrix's `f` glyph
        "pods": {
            "name": [p.name for p in pods],
            "ns": pod_ns.tolist(),
            "cls": pc.tolist(),
            "node": [node_index.get(p.node_name, 0) for p in pods],
            "ip": [p.pod_ip for p in pods],
            "wl": pod_wl,
            "host": [i for i, p in enumerate(pods) if p.host_network],
        },
        # The pairs the engine answers before the policies (blob exc: source, destination, kind, connection id
        # per pair), and each kind's words per side: the page looks them up, never applies the rule itself.
        "exceptions": exception_kinds,
        "reasons": reasons,
        "nodes": ["", *nodes],
        "wl": wl_names,
        "C": C,
        "class_ns": class_ns.tolist(),
        "atoms": [a.render() for a in r.atoms],
        "heat": heat,
        "explain": explain,
        "findings": findings,
        "doors": doors,
        "graph": {
            "unit": drawing.unit,
            "nodes": drawing.nodes,
            "edges": drawing.edges,
            "merged": drawing.merged,
            "dropped": drawing.dropped,
        },
    }
    blobs.svg = drawing.svg
    return data, blobs


def _l7_ids(r: Reachability, cm: np.ndarray, ein: np.ndarray, eout: np.ndarray, texts: list[str]) -> list[int]:
    """Give the class pairs (and class/range pairs) whose connection has ports allowed only through a layer-7
    filter a connection id of their own, its text with the mark (`TCP 80 (L7 filter: HTTP POST /v1/x)`); the ids
    so made, sorted. cm, ein, eout are changed in place."""
    marks = ClassMarks(r)
    made: dict[tuple[int, L7Mark], int] = {}
    C, E = r.C, r.A

    def patch(ids: np.ndarray, src: np.ndarray, dst: np.ndarray, sides: tuple[Direction, ...]) -> None:
        """ids (len(src), len(dst)) of class eids src × dst (atoms: C + atom)."""
        f = r.filtered_block(src, dst, sides)
        hit = np.argwhere(f.any(axis=2))
        if not len(hit):
            return
        bits = r.pair_block(src, dst, sides=sides)
        for i, j in hit.tolist():
            s, d = int(src[i]), int(dst[j])
            cell = (int(r.cell_of[s]) if s < C else r.K + s - C, int(r.cell_of[d]) if d < C else r.K + d - C)
            mark = marks.mark(cell[0], cell[1], f[i, j])
            key = (int(ids[i, j]), mark)
            k = made.get(key)
            if k is None:
                k = made[key] = len(texts)
                texts.append(texts[key[0]] + mark.suffix(r.ports.to_set(bits[i, j])))
            ids[i, j] = k

    classes = np.arange(C, dtype=np.int64)
    step = r.block_rows(C)
    for lo in range(0, C, step):
        patch(cm[lo : lo + step], classes[lo : lo + step], classes, ("ingress", "egress"))
    if E:
        atoms = np.arange(C, C + E, dtype=np.int64)
        patch(ein, atoms, classes, ("ingress",))
        patch(eout, classes, atoms, ("egress",))
    return sorted(made.values())


def _put_side(blobs: Blobs, prefix: str, sr: SideReasons) -> None:
    """One direction's reason ids: owner group per class, peer group per eid, the (owner, peer) group table."""
    blobs.put_ids(f"{prefix}og", sr.owner_group)
    blobs.put_ids(f"{prefix}pg", sr.peer_group)
    blobs.put_ids(f"{prefix}tab", sr.table.ravel())


def _drawing(r, pc, ns_names, pod_wl, wl_names, heat, class_any, exc: Exceptions, exc_ids: np.ndarray) -> Drawing:
    """Pod graph up to 300 pods, else workload graph up to 300 workloads, else namespace graph."""
    n, N = len(pc), len(ns_names)
    unit = choose_unit(n, len(wl_names))
    if unit == "pod":
        adj = class_any[pc][:, pc].astype(np.int64)
        adj[exc.src, exc.dst] = exc_ids != 0  # the engine's pod-level answers (self pairs are drawn as no arrow)
        labels = [p.key for p in r.pods]
        groups = [p.namespace for p in r.pods]
    elif unit == "workload":
        W, C = len(wl_names), r.pod_classes.class_count
        members = np.zeros((W, C))
        np.add.at(members, (pod_wl, pc), 1)
        adj = np.rint(members @ class_any.astype(np.float64) @ members.T).astype(np.int64)
        labels = wl_names
        groups = [w.split("/", 1)[0] for w in wl_names]
    else:
        adj = np.asarray(heat["allowed"], dtype=np.int64).reshape(N, N)
        labels = ns_names
        groups = ns_names
    return draw(labels, groups, adj, unit)


def _heatmap(
    pc: np.ndarray,
    pod_ns: np.ndarray,
    class_ns: np.ndarray,
    cm: np.ndarray,
    N: int,
    K: int,
    exc: Exceptions,
    exc_ids: np.ndarray,
) -> dict[str, object]:
    """Per namespace pair: pod pairs (self pairs excluded), allowed ones, and pod pairs per connection id.

    Counted per class pair (members × members), one bincount over (source ns, destination ns, connection
    id); then the pairs the engine answers pod by pod (exc) move from their class's connection to their own,
    and a pod and itself is not a pair.
    """
    C = len(class_ns)
    size = np.bincount(pc, minlength=C).astype(np.float64)
    ns_size = np.bincount(pod_ns, minlength=N).astype(np.int64)
    key = (class_ns[:, None].astype(np.int64) * N + class_ns[None, :]) * K + cm
    weight = size[:, None] * size[None, :]
    counts = np.bincount(key.ravel(), weights=weight.ravel(), minlength=N * N * K).reshape(N, N, K)
    # self pairs: each class's members counted once against themselves under cm[c, c]
    diag = np.arange(C)
    np.subtract.at(counts, (class_ns, class_ns, cm[diag, diag]), size)
    other = exc.src != exc.dst  # the engine's pod-level answers between two pods (self pairs are gone already)
    src, dst = exc.src[other], exc.dst[other]
    np.subtract.at(counts, (pod_ns[src], pod_ns[dst], cm[pc[src], pc[dst]]), 1)
    np.add.at(counts, (pod_ns[src], pod_ns[dst], exc_ids[other]), 1)
    counts = np.rint(counts).astype(np.int64)
    allowed = counts[:, :, 1:].sum(axis=2)
    total = ns_size[:, None] * ns_size[None, :] - np.diag(ns_size)
    a, b, k = np.nonzero(counts[:, :, 1:])
    return {
        "allowed": allowed.ravel().tolist(),
        "total": total.ravel().tolist(),
        # sparse (src ns, dst ns, connection id, pod pairs) for the tooltips
        "ports": np.stack([a, b, k + 1, counts[a, b, k + 1]], axis=1).ravel().tolist(),
    }


def _explanations(analysis: Analysis, pc: np.ndarray, budget: int) -> dict[str, object] | None:
    """`netpol explain` text per class pair for one representative pod of each class (None: over budget)."""
    r = analysis.reachability
    C = r.pod_classes.class_count
    if C * C > budget:
        return None
    rep = np.full(C, -1, dtype=np.int64)
    rep[pc[::-1]] = np.arange(len(pc))[::-1]  # first pod of each class
    second = np.full(C, -1, dtype=np.int64)  # a second pod, for pairs inside one class
    rest = np.ones(len(pc), dtype=bool)
    rest[rep] = False
    others = np.flatnonzero(rest)
    second[pc[others[::-1]]] = others[::-1]
    texts: list[str] = []
    index: dict[str, int] = {}
    pairs: list[int] = []
    for s in range(C):
        for d in range(C):
            a, b = int(rep[s]), int(rep[d] if s != d else second[d])
            if b < 0:  # one pod alone in its class: no pair inside it (loopback is a note in the page)
                pairs.append(-1)
                continue
            text = "\n".join(explain_pair(analysis, EP(pod=a), EP(pod=b)).lines())
            k = index.get(text)
            if k is None:
                k = index[text] = len(texts)
                texts.append(text)
            pairs.append(k)
    return {"rep": rep.tolist(), "second": second.tolist(), "pairs": pairs, "texts": texts}


def diff_marks(report: DiffReport, limit: int = 50_000) -> dict[str, object]:
    """Gained, lost and changed connections by pod/range names (the page marks them in its views)."""
    changes = [
        [
            c.kind[0],
            c.src,
            c.dst,
            c.old_text if not c.old.is_empty else "",  # with the layer-7 filter, when the ports go through one
            c.new_text if not c.new.is_empty else "",
        ]
        for c in report.changes[:limit]
    ]
    return {
        "pods_added": report.pods_added,
        "pods_removed": report.pods_removed,
        "changes": changes,
        "total": len(report.changes),
        "kinds": dict(Counter(c.kind for c in report.changes)),
    }
