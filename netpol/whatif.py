"""What-if editing: policies disabled, rules removed or default-denies added, never on disk, and the analysis
they give, recomputed only where an edit reaches.

A NetworkPolicy shapes only the ingress of the pods it selects (if it has the Ingress type) and their egress
(Egress type). So an edit keeps the loaded engine's classes, IP atoms, port atoms and every other policy's
compiled rules and boxes: those are a refinement valid for any subset of the policies (the engine's
`changes_without` relies on the same fact), and the added policies here (empty podSelector, no rules) draw no
new port or address boundary and select whole classes (a class never spans namespaces). The edited engine
is `Reachability.with_policies`: the kept policies' boxes, renumbered; nothing is compiled but the added
policies. `changed_sides` says which ingress columns and egress rows the edits can have changed; everything
else reads as before. `recompute` is the from-scratch reference the tests hold the incremental result to.

Pure: no Textual, no I/O. Used by the UI (`tui`) and its benchmark.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal, TypeVar, get_args

import numpy as np
import yaml

from netpol.diff import Change, DiffReport
from netpol.engine import Exception_, IPAtom, Reachability, build_reachability
from netpol.model.cnp import ClusterNetworkPolicy
from netpol.model.labels import LabelSelector
from netpol.model.objects import NetworkPolicy
from netpol.model.vocab import Direction
from netpol.pipeline import Analysis
from netpol.ports import ConnectionSet
from netpol.readout.l7 import ClassMarks, L7Mark

DenyDirection = Literal["ingress", "egress", "both"]
RuleDirection = Literal["ingress", "egress"]
TYPES: dict[DenyDirection, tuple[str, ...]] = {
    "ingress": ("Ingress",),
    "egress": ("Egress",),
    "both": ("Ingress", "Egress"),
}


def parse_deny_direction(text: str) -> DenyDirection | None:
    """`i`, `e`, `b` (or empty: both) or the word; None when it is none of them."""
    word = {"i": "ingress", "e": "egress", "b": "both", "": "both"}.get(text.strip().lower(), text.strip().lower())
    for d in get_args(DenyDirection):
        if d == word:
            return d
    return None


@dataclass(frozen=True, slots=True)
class DisablePolicy:
    """Take one NetworkPolicy (ns/name) out of the cluster."""

    key: str

    def describe(self) -> str:
        return f"disable {self.key}"


@dataclass(frozen=True, slots=True)
class RemoveRule:
    """Take one rule out of a NetworkPolicy: `index` counts from 0 in the policy as loaded (`#1` is 0), so
    removing two rules of one policy names both as the user saw them."""

    key: str
    direction: RuleDirection
    index: int

    def describe(self) -> str:
        return f"remove {self.key} {self.direction} rule #{self.index + 1}"


@dataclass(frozen=True, slots=True)
class AddDefaultDeny:
    """Add a default-deny policy (empty podSelector, no rules) for a direction to a namespace."""

    namespace: str
    direction: DenyDirection

    @property
    def name(self) -> str:
        return f"whatif-default-deny-{self.direction}"

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def describe(self) -> str:
        return f"default-deny {self.direction} in {self.namespace}"

    def policy(self) -> NetworkPolicy:
        types = TYPES[self.direction]
        raw = {
            "apiVersion": "networking.k8s.io/v1",
            "kind": "NetworkPolicy",
            "metadata": {"name": self.name, "namespace": self.namespace},
            "spec": {"podSelector": {}, "policyTypes": list(types)},
        }
        return NetworkPolicy(self.namespace, self.name, LabelSelector(), types, raw=raw)


Edit = DisablePolicy | RemoveRule | AddDefaultDeny


def toggle(edits: Sequence[Edit], edit: Edit) -> tuple[Edit, ...]:
    """`edits` with `edit` added, or removed when it is there already (space on a disabled policy enables it)."""
    return tuple(e for e in edits if e != edit) if edit in edits else (*edits, edit)


def added_policies(edits: Sequence[Edit]) -> tuple[NetworkPolicy, ...]:
    """The default-deny policies the edits add, in the order they were added (one per namespace and direction)."""
    seen: dict[str, NetworkPolicy] = {}
    for e in edits:
        if isinstance(e, AddDefaultDeny):
            seen.setdefault(e.key, e.policy())
    return tuple(seen.values())


def plain_data(obj: object) -> object:
    """Mappings and sequences as plain dicts and lists, the shapes yaml.safe_dump writes."""
    if isinstance(obj, Mapping):
        return {str(k): plain_data(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [plain_data(v) for v in obj]
    return obj


_Edited = TypeVar("_Edited", NetworkPolicy, ClusterNetworkPolicy)


def _without_rules(policy: _Edited, gone: set[tuple[str, int]]) -> _Edited:
    """`policy` without the rules `gone` ((direction, index)), its manifest edited alike."""
    ingress = tuple(r for i, r in enumerate(policy.ingress) if ("ingress", i) not in gone)
    egress = tuple(r for i, r in enumerate(policy.egress) if ("egress", i) not in gone)
    raw = plain_data(policy.raw) if policy.raw else {}
    assert isinstance(raw, dict)
    spec = raw.get("spec")
    if isinstance(spec, dict):
        for direction in ("ingress", "egress"):
            rules = spec.get(direction)
            if isinstance(rules, list):
                spec[direction] = [r for i, r in enumerate(rules) if (direction, i) not in gone]
    return replace(policy, ingress=ingress, egress=egress, raw=raw)


def _removed_rules(edits: Sequence[Edit]) -> dict[str, set[tuple[str, int]]]:
    out: dict[str, set[tuple[str, int]]] = {}
    for e in edits:
        if isinstance(e, RemoveRule):
            out.setdefault(e.key, set()).add((e.direction, e.index))
    return out


def edited_policies(base: Analysis, edits: Sequence[Edit]) -> tuple[NetworkPolicy, ...]:
    """The edited cluster's NetworkPolicies: the loaded ones not disabled (rules removed), then the added."""
    off = {e.key for e in edits if isinstance(e, DisablePolicy)}
    cut = _removed_rules(edits)
    kept = tuple(
        _without_rules(p, cut[p.key]) if p.key in cut else p for p in base.cluster.policies if p.key not in off
    )
    return kept + added_policies(edits)


def edited_cluster_network_policies(base: Analysis, edits: Sequence[Edit]) -> tuple[ClusterNetworkPolicy, ...]:
    """The edited cluster's ClusterNetworkPolicies: the loaded ones not disabled, rules removed."""
    off = {e.key for e in edits if isinstance(e, DisablePolicy)}
    cut = _removed_rules(edits)
    return tuple(
        _without_rules(p, cut[p.key]) if p.key in cut else p
        for p in base.cluster.cluster_network_policies
        if p.key not in off
    )


def recompute(base: Analysis, edits: Sequence[Edit]) -> Analysis:
    """The edited analysis computed from scratch (new classes, atoms, compiled rules): the reference."""
    off = {e.key for e in edits if isinstance(e, DisablePolicy)}
    cluster = replace(
        base.cluster,
        policies=edited_policies(base, edits),
        admin_policies=tuple(p for p in base.cluster.admin_policies if p.key not in off),
        cluster_network_policies=edited_cluster_network_policies(base, edits),
    )
    # Kinds whose model objects are not edited here (Cilium's, Calico's) are left out by their compiled keys.
    return replace(base, cluster=cluster, reachability=build_reachability(cluster, base.options, exclude=off))


def apply_edits(base: Analysis, edits: Sequence[Edit]) -> Analysis:
    """The analysis of `base`'s cluster with `edits` applied (`base` itself when there are none), on the
    loaded engine's classes and compiled rules: only the added default-denies are compiled."""
    if not edits:
        return base
    off = {e.key for e in edits if isinstance(e, DisablePolicy)}
    cut = _removed_rules(edits)
    policies = edited_policies(base, edits)
    cnps = edited_cluster_network_policies(base, edits)
    sources: dict[str, NetworkPolicy | ClusterNetworkPolicy] = {p.key: p for p in policies if p.key in cut}
    sources.update((p.key, p) for p in cnps if p.key in cut)
    reach = base.reachability.edited(off, cut, added_policies(edits), sources)  # type: ignore[arg-type]
    cluster = replace(
        base.cluster,
        policies=policies,
        admin_policies=tuple(p for p in base.cluster.admin_policies if p.key not in off),
        cluster_network_policies=cnps,
    )
    return replace(base, cluster=cluster, reachability=reach)


def changed_sides(base: Analysis, edits: Sequence[Edit]) -> tuple[np.ndarray, np.ndarray]:
    """(ingress, egress): bool over the loaded engine's classes, the classes whose ingress (as a destination)
    or egress (as a source) the edits can change: a policy of any kind decides only the sides of the endpoints
    it selects (its rules' owners and the ones it isolates), per the directions it has. Every other class pair
    reads the same before and after."""
    r = base.reachability
    ingress = np.zeros(r.C, dtype=bool)
    egress = np.zeros(r.C, dtype=bool)
    keys = {e.key for e in edits if isinstance(e, DisablePolicy | RemoveRule)}
    for cp in r.policies:
        if cp.key in keys:
            if cp.ingress or "ingress" in cp.isolates:
                ingress |= cp.selected
            if cp.egress or "egress" in cp.isolates:
                egress |= cp.selected
    for policy in added_policies(edits):
        ns = r.pod_classes.in_namespace(policy.namespace)
        if policy.affects_ingress:
            ingress |= ns
        if policy.affects_egress:
            egress |= ns
    return ingress, egress


def changes(base: Analysis, edited: Analysis, edits: Sequence[Edit], pod: int | None = None) -> DiffReport:
    """What `netpol diff BASE EDITED` reports (`netpol.diff.diff`: the same changes, texts and order), read
    only where the edits reach: the ingress columns and egress rows of `changed_sides`. `edited` is
    `apply_edits(base, edits)` (same classes, atoms, port atoms). With `pod`: only the changes involving it.

    Seconds at most where the whole diff is minutes at 10,000 pods (every pod pair of both sides)."""
    rb, re_ = base.reachability, edited.reachability
    ing, eg = changed_sides(base, edits)
    pc = rb.pod_classes.pod_class
    names = [p.key for p in rb.pods]
    if pod is not None:
        own = np.zeros(rb.C, dtype=bool)
        own[pc[pod]] = True
        ing_own, eg_own = ing & own, eg & own  # the pod as a destination / as a source
    found: list[Change] = []
    sets: dict[tuple[int, bytes], ConnectionSet] = {}

    def conn(r: Reachability, bits: np.ndarray) -> ConnectionSet:
        key = (id(r), bits.tobytes())
        hit = sets.get(key)
        if hit is None:
            hit = sets[key] = r.ports.to_set(bits)
        return hit

    members = np.split(np.argsort(pc, kind="stable"), np.cumsum(np.bincount(pc, minlength=rb.C))[:-1])
    # class pair → (old bits, new bits, old layer-7 mark, new mark): a filter that changes is a change (netpol diff)
    pairs: dict[tuple[int, int], tuple[np.ndarray, np.ndarray, L7Mark | None, L7Mark | None]] = {}
    l7 = _Filters(rb, re_) if rb.has_l7 or re_.has_l7 else None

    def compare(src: np.ndarray, dst: np.ndarray) -> None:
        if not src.size or not dst.size:
            return
        step = max(1, rb.block_rows(len(dst)) // 2)
        for lo in range(0, len(src), step):
            rows = src[lo : lo + step]
            old, new = rb.class_block(rows, dst), re_.class_block(rows, dst)
            differ = (old != new).any(axis=2)
            if l7 is None:
                for i, j in np.argwhere(differ).tolist():
                    pairs[(int(rows[i]), int(dst[j]))] = (old[i, j], new[i, j], None, None)
                continue
            for (i, j), (mo, mn) in l7.block(rows, dst, differ).items():
                pairs[(int(rows[i]), int(dst[j]))] = (old[i, j], new[i, j], mo, mn)

    everyone = np.arange(rb.C)
    if pod is None:
        compare(np.flatnonzero(eg), everyone)
        compare(everyone, np.flatnonzero(ing))
    else:
        compare(np.flatnonzero(eg_own), everyone)  # its row, when its egress changed
        compare(everyone, np.flatnonzero(ing_own))  # its column, when its ingress changed
        compare(np.flatnonzero(eg), np.asarray([pc[pod]]))  # sources whose egress changed, towards it
        compare(np.asarray([pc[pod]]), np.flatnonzero(ing))  # it, towards destinations whose ingress changed
    for (cs, cd), (ob, nb, mo, mn) in pairs.items():
        if pod is None:
            candidates = [(s, d) for s in members[cs].tolist() for d in members[cd].tolist()]
        else:  # the pod's row and column within this class pair
            candidates = [(pod, d) for d in members[cd].tolist()] if pc[pod] == cs else []
            candidates += [(s, pod) for s in members[cs].tolist() if s != pod] if pc[pod] == cd else []
        for s, d in candidates:
            if rb.pod_exception(s, d) is not Exception_.NONE:
                continue  # a pod reaching itself, and node-local traffic: no policy decides them, nothing changed
            found.append(Change(names[s], names[d], conn(rb, ob), conn(re_, nb), mo, mn))
    found += _external_changes(rb, re_, ing, eg, names, pod, l7)
    found.sort(key=lambda c: (c.src, c.dst))
    return DiffReport([], [], found)


_Conn = tuple[ConnectionSet, L7Mark | None]  # ports, and their layer-7 filters when some go through one


class _Filters:
    """The layer-7 marks of both sides (netpol/readout/l7.py), for the pairs whose ports or filters differ."""

    def __init__(self, rb: Reachability, re_: Reachability) -> None:
        self.sides = [(r, ClassMarks(r) if r.has_l7 else None) for r in (rb, re_)]

    def marks(
        self, src: np.ndarray, dst: np.ndarray, sides: tuple[Direction, ...]
    ) -> list[dict[tuple[int, int], L7Mark]]:
        """Per side, (row, column) → mark of the pairs of class eids src × dst (atoms: C + atom) with a filter."""
        out = []
        for r, m in self.sides:
            got: dict[tuple[int, int], L7Mark] = {}
            if m is not None:
                f = r.filtered_block(src, dst, sides)
                for i, j in np.argwhere(f.any(axis=2)).tolist():
                    s, d = int(src[i]), int(dst[j])
                    cell_s = int(r.cell_of[s]) if s < r.C else r.K + s - r.C
                    cell_d = int(r.cell_of[d]) if d < r.C else r.K + d - r.C
                    got[(i, j)] = m.mark(cell_s, cell_d, f[i, j])
            out.append(got)
        return out

    def block(
        self, rows: np.ndarray, dst: np.ndarray, differ: np.ndarray
    ) -> dict[tuple[int, int], tuple[L7Mark | None, L7Mark | None]]:
        """(row, column) → (old mark, new mark) of the pairs whose ports differ or whose marks do."""
        old, new = self.marks(rows, dst, ("ingress", "egress"))
        out = {(i, j): (old.get((i, j)), new.get((i, j))) for i, j in np.argwhere(differ).tolist()}
        for k in old.keys() | new.keys():
            if old.get(k) != new.get(k):
                out[k] = (old.get(k), new.get(k))
        return out


def _external_changes(
    rb: Reachability,
    re_: Reachability,
    ing: np.ndarray,
    eg: np.ndarray,
    names: list[str],
    pod: int | None,
    l7: _Filters | None = None,
) -> list[Change]:
    """Changes between pods and external ranges, adjacent atoms with the same change merged (netpol.diff)."""
    out: list[Change] = []
    pc = rb.pod_classes.pod_class
    atoms = rb.atoms
    for ingress, side in ((True, ing), (False, eg)):
        classes = np.flatnonzero(side)
        if not classes.size or not rb.A:
            continue
        if ingress:
            old, new = rb.ext_ingress_block(range(rb.A), classes), re_.ext_ingress_block(range(rb.A), classes)
            old, new = old.transpose(1, 0, 2), new.transpose(1, 0, 2)  # (classes, atoms, W)
        else:
            old, new = rb.ext_egress_block(classes), re_.ext_egress_block(classes)
        # layer-7 marks by (class position, atom), both sides (the same atoms: an edit keeps the IP space)
        mo: dict[tuple[int, int], L7Mark] = {}
        mn: dict[tuple[int, int], L7Mark] = {}
        if l7 is not None:
            at = np.arange(rb.C, rb.C + rb.A, dtype=np.int64)
            if ingress:
                mo, mn = ({(k, a): m for (a, k), m in side.items()} for side in l7.marks(at, classes, ("ingress",)))
            else:
                mo, mn = l7.marks(classes, at, ("egress",))
        marked = {k for k, _ in mo.keys() | mn.keys()}
        where = {int(c): k for k, c in enumerate(classes.tolist())}
        pods = range(len(pc)) if pod is None else [pod]
        for p in pods:
            k = where.get(int(pc[p]))
            if k is None or (np.array_equal(old[k], new[k]) and k not in marked):
                continue
            runs: list[tuple[IPAtom, _Conn, _Conn]] = []  # (range so far, old, new)
            for a, atom in enumerate(atoms):
                o = (rb.ports.to_set(old[k, a]), mo.get((k, a)))
                n = (re_.ports.to_set(new[k, a]), mn.get((k, a)))
                if (
                    runs
                    and runs[-1][0].version == atom.version
                    and runs[-1][0].last + 1 == atom.first
                    and runs[-1][1:] == (o, n)
                ):
                    runs[-1] = (replace(runs[-1][0], last=atom.last), o, n)
                else:
                    runs.append((atom, o, n))
            for piece, was, now in runs:
                if was != now:
                    rng = piece.render()  # the merged range, as netpol diff writes it
                    ends = (rng, names[p]) if ingress else (names[p], rng)
                    out.append(Change(*ends, was[0], now[0], was[1], now[1]))
    return out


def policies_yaml(base: Analysis, edits: Sequence[Edit]) -> str:
    """Every NetworkPolicy and ClusterNetworkPolicy of the edited cluster as YAML documents: the kept ones as
    written (rules removed), the added ones; used in place of the input's policies it gives the cluster the UI
    shows (`netpol diff` confirms)."""
    docs = []
    edited: tuple[NetworkPolicy | ClusterNetworkPolicy, ...] = (
        *edited_policies(base, edits),
        *edited_cluster_network_policies(base, edits),
    )
    for policy in edited:
        raw = policy.raw or None
        if raw is None:
            docs.append(f"# {policy.key}: its manifest was not kept; write it back by hand\n")
            continue
        docs.append(yaml.safe_dump(plain_data(raw), sort_keys=False, default_flow_style=False))
    head = "# netpol tui what-if: " + ("; ".join(e.describe() for e in edits) or "no edits") + "\n"
    return head + "---\n".join(docs)
