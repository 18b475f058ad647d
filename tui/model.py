"""The UI's view of an Analysis: pure functions and lazy per-row lookups, no Textual import.

Everything here is O(pods) to build and O(1)–O(classes) per row read, so that a 10,000-pod cluster opens at
once: lists of "who can reach this pod" come from one column of the class matrix (never from a full
networkx graph), and their texts (ports, deciding policies) are computed only for the rows on screen.

Every read of the engine's class matrix is here, in one class, so a change of the engine's API is one file's
change. Explain texts come from `netpol.explain`, findings from `netpol.audit` (adapted and cached in
`tui.findings`); node rows are in `tui.nodes`, the `/` filter in `tui.filtering`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import yaml

from netpol.engine import CompiledRule, Endpoint, side_verdict
from netpol.explain import EP
from netpol.explain import explain_pair as explain_endpoints
from netpol.model.objects import Pod
from netpol.model.vocab import Direction
from netpol.pipeline import Analysis
from netpol.ports import ConnectionSet
from netpol.readout.l7 import endpoint_mark
from netpol.readout.l7 import render as l7_render
from netpol.targets import workload_label
from netpol.whatif import plain_data
from scheduling.diagnosis import render_trace
from tui.filtering import PodFilter
from tui.findings import AuditFindings
from tui.nodes import NodeInfo, node_infos

# Cell states of the matrix; glyphs carry the meaning, colours only repeat it. FILTERED: some allowed port goes
# only through a layer-7 filter (Cilium's HTTP/Kafka/DNS rules), whatever the other ports (netpol/readout/grid.py).
DENIED, PARTIAL, ALLOWED, FILTERED = 0, 1, 2, 3
GLYPHS = {DENIED: "X", PARTIAL: "~", ALLOWED: ".", FILTERED: "f"}
STATE_WORDS = {DENIED: "denied", PARTIAL: "some ports", ALLOWED: "all ports", FILTERED: "through an L7 filter"}
# How open a state is, for what-if marks (gained / lost): a filter on ports that were open is a loss, its removal a
# gain; FILTERED and PARTIAL are not ordered (each restricts something).
OPENNESS = np.array([0, 1, 2, 1], dtype=np.int8)


# ----------------------------------------------------------------------------------------------- filters


@dataclass(frozen=True, eq=False)
class WorkloadGroup:
    """A row/column of the by-workload matrix: the pods of one owner and their distinct classes (sorted)."""

    name: str
    pods: tuple[int, ...]
    classes: np.ndarray
    host_network: bool  # some member is a hostNetwork pod on a node: read its row pod by pod


# ----------------------------------------------------------------------------------------------- rows


@dataclass(frozen=True, slots=True)
class PodRow:
    namespace: str
    name: str
    node: str
    ip: str
    phase: str
    isolated_in: bool | None  # None: the pod takes no part in traffic (Pending)
    isolated_out: bool | None


def iso_word(flag: bool | None) -> str:
    return "-" if flag is None else ("isolated" if flag else "open")


# ----------------------------------------------------------------------------------------------- model


class ViewModel(AuditFindings):
    """Wraps one Analysis. Built in the loader's worker thread; read from the UI thread."""

    def __init__(self, analysis: Analysis, like: ViewModel | None = None) -> None:
        """`like`: a model of the same pods (what-if edits keep the loaded engine's pods): its per-pod tables
        are shared, not rebuilt (tens of ms at 10,000 pods)."""
        self.analysis = a = analysis
        self.r = r = a.reachability
        self.pods: tuple[Pod, ...] = r.pods
        self.n = len(self.pods)
        self.pc = r.pod_classes.pod_class
        self.atoms = r.atoms
        if like is not None and like.pods is self.pods and like.analysis.cluster.pods is a.cluster.pods:
            self.pending: tuple[Pod, ...] = like.pending
            self.namespaces: tuple[str, ...] = like.namespaces
            self.all_pods: tuple[Pod, ...] = like.all_pods
            self.index_of: dict[str, int] = like.index_of
            self._workload_labels: list[str] = like._workload_labels
        else:
            self.pending = a.pending
            self.namespaces = tuple(sorted({ns.name for ns in a.cluster.namespaces} | {p.namespace for p in self.pods}))
            self.all_pods = self.pods + self.pending  # row index space of the Pods view
            self.index_of = {p.key: i for i, p in enumerate(self.all_pods)}
            self._workload_labels = [workload_label(p) for p in self.pods]  # here, in the loader's thread
        self.policies = tuple(sorted(r.policies, key=lambda cp: cp.key))
        self._via_cache: dict[tuple[int, int, bool, bool], str] = {}  # (source, destination: class or atom; pods?)
        self._explained: dict[tuple[int, int], str] = {}
        self._state_all = r.ports.all_bits
        self._l7 = r.has_l7  # some rule allows only through a layer-7 filter: cells may be FILTERED
        self._host_pods = [i for i, p in enumerate(self.pods) if p.host_network and p.node_name]

    # -------------------------------------------------------------------------------- pods

    @property
    def summary(self) -> str:
        a = self.analysis
        return (
            f"{self.n} pods, {len(self.pending)} pending, {len(a.cluster.nodes)} nodes, "
            f"{len(self.namespaces)} namespaces, {len(self.policies)} policies"
        )

    def pod_row(self, i: int) -> PodRow:
        p = self.all_pods[i]
        if i < self.n:
            cls = self.pc[i]
            return PodRow(
                p.namespace,
                p.name,
                p.node_name,
                p.pod_ip,
                p.phase or "Running",
                bool(self.r.isolated_ingress[cls]),
                bool(self.r.isolated_egress[cls]),
            )
        return PodRow(p.namespace, p.name, p.node_name, p.pod_ip, "Pending", None, None)

    @cached_property
    def pod_field_widths(self) -> tuple[int, int, int]:
        """The longest namespace, node name and IP: the Pods view sizes those columns to them (as k9s does)
        and leaves the rest to the pod names."""
        pods = self.all_pods
        return (
            max((len(p.namespace) for p in pods), default=0),
            max((len(p.node_name or "-") for p in pods), default=1),
            max((len(p.pod_ip or "-") for p in pods), default=1),
        )

    def filter_pods(self, flt: PodFilter, namespace: str | None = None) -> list[int]:
        out = []
        for i, p in enumerate(self.all_pods):
            if namespace and p.namespace != namespace:
                continue
            if flt.text and not flt.matches(p):
                continue
            out.append(i)
        return out

    def is_running(self, i: int) -> bool:
        return 0 <= i < self.n

    # -------------------------------------------------------------------------------- endpoints
    # Entries of the detail lists: 0 <= e < n is a pod; e >= n is external atom e - n.

    def endpoint_name(self, e: int) -> str:
        return self.pods[e].key if e < self.n else self.atoms[e - self.n].render()

    def sources(self, d: int) -> np.ndarray:
        """Who can reach pod d (itself left out), pods then external ranges: one class-matrix column."""
        pods, ext = self.r.pod_line(d, "in")  # the engine's read-out: node-local and loopback applied
        mask = np.asarray(pods.any(axis=1))
        mask[d] = False
        atoms = np.flatnonzero(ext.any(axis=1)) + self.n
        return np.concatenate([np.flatnonzero(mask), atoms])

    def targets(self, s: int) -> np.ndarray:
        """What pod s can reach (itself left out), pods then external ranges: one class-matrix row."""
        pods, ext = self.r.pod_line(s, "out")
        mask = np.asarray(pods.any(axis=1))
        mask[s] = False
        atoms = np.flatnonzero(ext.any(axis=1)) + self.n
        return np.concatenate([np.flatnonzero(mask), atoms])

    def connection(self, s: int, d: int) -> ConnectionSet:
        """Between two endpoints (pods or external atoms)."""
        r = self.r
        if s < self.n and d < self.n:
            return r.connection(s, d)
        if s >= self.n and d < self.n:
            return r.ingress_from_atom(s - self.n, d)
        if s < self.n:
            return r.egress_to_atom(s, d - self.n)
        return ConnectionSet.none()

    def connection_text(self, s: int, d: int) -> str:
        """`TCP 80`, or `TCP 80 (L7 filter: HTTP POST /v1/x)` when some of it goes only through a layer-7 filter."""
        cs = self.connection(s, d)
        if not self._l7 or cs.is_empty:
            return cs.render()
        n = self.n
        src = Endpoint(pod=s) if s < n else Endpoint(atom=s - n)
        dst = Endpoint(pod=d) if d < n else Endpoint(atom=d - n)
        return l7_render(cs, endpoint_mark(self.r, src, dst))

    def via(self, s: int, d: int) -> str:
        """The deciding policies of s → d, short: `in web1-allow-test#1`, `out …`, or `not isolated`; a rule that
        allows some port here only through its layer-7 filter reads `rule1#1(L7)`."""
        r, n = self.r, self.n
        if s == d:
            return "itself (always allowed)"
        sc = int(self.pc[s]) if s < n else None
        dc = int(self.pc[d]) if d < n else None
        key = (s if sc is None else sc, d if dc is None else dc, s < n, d < n)
        hit = self._via_cache.get(key)
        if hit is not None:
            return hit
        parts = []
        src = Endpoint(pod=s) if s < n else Endpoint(atom=s - n)
        dst = Endpoint(pod=d) if d < n else Endpoint(atom=d - n)
        sides: tuple[tuple[str, Direction], ...] = (("out", "egress"), ("in", "ingress"))
        for word, direction in sides:
            sv = side_verdict(r, direction, src, dst)  # the engine's reasons: rules whose ports hold here
            deciding = [h for h in sv.deciding if h.rule.action != "Log"]
            if not sv.isolated and not deciding:
                continue
            filtered = (  # this side's ports allowed only through an L7 filter (a plain allow of a port wins)
                r.filtered_block([r.eid(src)], [r.eid(dst)], (direction,))[0, 0]
                if any(h.rule.l7 for h in deciding)
                else None
            )
            names = ",".join(
                f"{h.policy.key.rsplit('/', 1)[-1]}#{h.rule.index + 1}"
                + ("" if h.rule.action == "Allow" else f"({h.rule.action})")
                + ("(L7)" if filtered is not None and h.rule.l7 and (h.decided & filtered).any() else "")
                for h in deciding
            )
            parts.append(f"{word} " + (names or "node/self"))
        text = "; ".join(parts) or "not isolated"
        self._via_cache[key] = text
        return text

    def explain(self, s: int, d: int) -> str:
        """Memoised for the last few pairs: moving a cursor back and forth re-asks the same ones."""
        key = (s, d)
        text = self._explained.get(key)
        if text is None:
            text = explain_pair(self, s, d)
            if len(self._explained) >= 64:
                self._explained.pop(next(iter(self._explained)))
            self._explained[key] = text
        return text

    # -------------------------------------------------------------------------------- matrix

    def bits_state(self, bits: np.ndarray, probe: tuple[str, int] | None = None) -> int:
        """ALLOWED (every port, or the probe), PARTIAL (some ports) or DENIED, of one pair's port bits."""
        if probe is not None:
            w, bit = self.r.probe_bit(*probe)
            return ALLOWED if bits[w] & bit else DENIED
        if not bits.any():
            return DENIED
        return ALLOWED if np.array_equal(bits, self._state_all) else PARTIAL

    def cell_state(self, s: int, d: int, probe: tuple[str, int] | None = None) -> int:
        state = self.bits_state(self.r.pod_bits(s, d), probe)
        if self._l7 and state != DENIED:
            f = self.r.endpoint_filtered(Endpoint(pod=s), Endpoint(pod=d))
            if probe is None:
                return FILTERED if f.any() else state
            w, bit = self.r.probe_bit(*probe)
            if f[w] & bit:
                return FILTERED
        return state

    def row_states(self, s: int, cols: np.ndarray, probe: tuple[str, int] | None = None) -> np.ndarray:
        """States of pod s towards the pods `cols`, vectorised over the class matrix."""
        states = self.class_states(self.pc[s : s + 1], self.pc[cols], probe)[0]
        over, bits = self.r.pod_overrides(s)  # the pairs no class block gives (loopback, node-local): their ports
        states[over[cols]] = self.bits_state(bits, probe)
        return states

    def workloads(self, indexes: Iterable[int]) -> list[WorkloadGroup]:
        """Group pods by workload, named as `netpol matrix --by workload` names them: `web/frontend[Deployment]`
        (through its ReplicaSet), `web/db[StatefulSet]`, a bare pod `web/test[Pod]`."""
        groups: dict[str, list[int]] = {}
        for i in indexes:
            groups.setdefault(self._workload_labels[i], []).append(i)
        # Each group's distinct classes, for all groups at once: unique (group, class) pairs, split by group.
        members = [np.asarray(pods, dtype=np.int64) for pods in groups.values()]
        sizes = np.asarray([len(m) for m in members], dtype=np.int64)
        gid = np.repeat(np.arange(len(members), dtype=np.int64), sizes)
        flat = np.concatenate(members) if members else np.zeros(0, dtype=np.int64)
        C = max(1, self.r.pod_classes.class_count)
        pairs = np.unique(gid * C + self.pc[flat])
        bounds = np.searchsorted(pairs // C, np.arange(len(members) + 1))
        position = {name: k for k, name in enumerate(groups)}
        host = np.zeros(len(members), dtype=bool)
        for i in self._host_pods:  # hostNetwork pods on a node: few
            k = position.get(self._workload_labels[i])
            if k is not None:
                host[k] = True
        return [
            WorkloadGroup(name, tuple(pods), pairs[bounds[k] : bounds[k + 1]] % C, bool(host[k]))
            for k, (name, pods) in enumerate(groups.items())
        ]

    def class_states(self, src: np.ndarray, dst: np.ndarray, probe: tuple[str, int] | None = None) -> np.ndarray:
        """States of class pairs src × dst, shape (len(src), len(dst)), from the class matrix."""
        r = self.r
        bits = r.class_block(src, dst)  # (S, D, W), computed for these classes only
        if probe is not None:
            w, bit = r.probe_bit(*probe)
            return self._filtered(src, dst, np.where((bits[..., w] & bit) != 0, ALLOWED, DENIED), probe)
        anyb = bits.any(axis=2)
        allb = (bits == self._state_all).all(axis=2)
        out = np.where(allb, ALLOWED, np.where(anyb, PARTIAL, DENIED))
        return self._filtered(src, dst, out, None)

    def _filtered(
        self, src: np.ndarray, dst: np.ndarray, states: np.ndarray, probe: tuple[str, int] | None
    ) -> np.ndarray:
        """`states` with FILTERED where some allowed port (the probe) of a class pair goes only through an L7 filter."""
        if not self._l7:
            return states
        f = self.r.filtered_block(src, dst)
        if probe is not None:
            w, bit = self.r.probe_bit(*probe)
            states[(f[..., w] & bit) != 0] = FILTERED
        else:
            states[f.any(axis=2)] = FILTERED
        return states

    def group_states(
        self, src: WorkloadGroup, dsts: list[WorkloadGroup], probe: tuple[str, int] | None = None
    ) -> np.ndarray:
        """The cell state of workload `src` towards each of `dsts`, over every pod pair of the two.

        ALLOWED when every pair is allowed, DENIED when none is, else PARTIAL. Pod pairs of the same two
        classes share a state, so this reads the class matrix once for the row's classes × the columns'
        classes. A pod reaching itself is always allowed; hostNetwork sources are read pod by pod (their
        node's pods are always reachable: `row_states`)."""
        out = np.empty(len(dsts), dtype=np.int8)
        if not dsts:
            return out
        if src.host_network:
            for k, dst in enumerate(dsts):
                seen = set()
                for s in src.pods:
                    seen.update(np.unique(self.row_states(s, np.asarray(dst.pods), probe)).tolist())
                out[k] = _combine(seen)
            return out
        cols = np.concatenate([d.classes for d in dsts])
        starts = np.cumsum([0] + [len(d.classes) for d in dsts[:-1]])
        st = self.class_states(src.classes, cols, probe)
        seen_allowed = np.logical_or.reduceat((st == ALLOWED).any(axis=0), starts)
        seen_denied = np.logical_or.reduceat((st == DENIED).any(axis=0), starts)
        seen_partial = np.logical_or.reduceat((st == PARTIAL).any(axis=0), starts)
        seen_filtered = np.logical_or.reduceat((st == FILTERED).any(axis=0), starts)
        out[:] = PARTIAL
        out[seen_allowed & ~seen_denied & ~seen_partial] = ALLOWED
        out[seen_denied & ~seen_allowed & ~seen_partial] = DENIED
        out[seen_filtered] = FILTERED  # some pod pair goes through a layer-7 filter
        for k, dst in enumerate(dsts):
            if dst is src:  # the diagonal: pairs of two different pods, plus each pod to itself
                out[k] = self._self_group_state(src, probe)
            elif dst.host_network:  # node-local pairs (a pod and a hostNetwork pod of its node): pod by pod
                seen = set()
                for s in src.pods:
                    seen.update(np.unique(self.row_states(s, np.asarray(dst.pods), probe)).tolist())
                out[k] = _combine(seen)
        return out

    def _self_group_state(self, g: WorkloadGroup, probe: tuple[str, int] | None) -> int:
        if len(g.pods) == 1:
            return ALLOWED
        st = self.class_states(g.classes, g.classes, probe)
        shared = np.bincount(np.searchsorted(g.classes, self.pc[np.asarray(g.pods)]), minlength=len(g.classes))
        occurs = np.ones(st.shape, dtype=bool)
        occurs[np.diag_indices(len(g.classes))] = shared >= 2  # (c, c) needs two pods of class c
        return _combine(set(st[occurs].tolist()) | {ALLOWED})

    # -------------------------------------------------------------------------------- policies

    def pods_of_classes(self, mask: np.ndarray) -> np.ndarray:
        return np.flatnonzero(mask[self.pc]) if self.n else np.zeros(0, dtype=np.int64)

    def policy_selected(self, k: int) -> np.ndarray:
        return self.pods_of_classes(self.policies[k].selected)

    def policy_types(self, k: int) -> str:
        """The directions a policy decides, in NetworkPolicy's words (`Ingress,Egress`)."""
        cp = self.policies[k]
        return ",".join(d.capitalize() for d in ("ingress", "egress") if d in cp.isolates or cp.rules(d))

    def policy_admits(self, k: int) -> tuple[np.ndarray, list[str]]:
        """Pods and external ranges some ingress rule of the policy names as a peer."""
        return self._peers_of(self.policies[k].ingress)

    def policy_reaches(self, k: int) -> tuple[np.ndarray, list[str]]:
        return self._peers_of(self.policies[k].egress)

    def _peers_of(self, rules: tuple[CompiledRule, ...]) -> tuple[np.ndarray, list[str]]:
        cls = np.zeros(self.r.pod_classes.class_count, dtype=bool)
        atoms = np.zeros(len(self.atoms), dtype=bool)
        for rule in rules:
            for peer in rule.peers:
                cls |= peer.classes
                atoms |= peer.atoms
        return self.pods_of_classes(cls), [self.atoms[a].render() for a in np.flatnonzero(atoms)]

    def policy_yaml(self, k: int) -> str:
        cp = self.policies[k]
        raw = cp.source.raw if cp.source is not None else None
        if not raw:
            return f"# {cp.key}: original manifest not kept\n"
        return yaml.safe_dump(plain_data(raw), sort_keys=False, default_flow_style=False)

    def policy_index(self, key: str) -> int | None:
        for k, cp in enumerate(self.policies):
            if cp.key == key:
                return k
        return None

    # -------------------------------------------------------------------------------- nodes

    @cached_property
    def node_infos(self) -> list[NodeInfo]:
        return node_infos(self.analysis.cluster.nodes, self.pods)

    @cached_property
    def nodes_unread(self) -> str | None:
        """Why a live read has no Nodes (`cannot list nodes: forbidden; …`), or None: the Nodes view says it
        could not read them rather than that the input has none (netpol.loading.live warns so)."""
        for w in self.analysis.warnings:
            if w.code == "live-forbidden" and w.source is not None and w.source.file == "<kubectl get nodes>":
                return w.message
        return None

    def trace_lines(self, pod: Pod) -> list[str]:
        """The scheduler's per-node story of a pod, when the scheduler placed this cluster."""
        traces = getattr(self.analysis.placement, "traces", None) or {}
        trace = traces.get(pod.key)
        return render_trace(trace).splitlines() if trace is not None else []


def _combine(states: set[int]) -> int:
    if FILTERED in states:
        return FILTERED
    if states == {ALLOWED}:
        return ALLOWED
    if states == {DENIED}:
        return DENIED
    return PARTIAL


# ----------------------------------------------------------------------------------------------- explain


def explain_pair(model: ViewModel, s: int, d: int) -> str:
    """Why s → d is what it is, in the words of `netpol explain`."""
    src = EP(pod=s) if s < model.n else EP(atom=s - model.n)
    dst = EP(pod=d) if d < model.n else EP(atom=d - model.n)
    return "\n".join(explain_endpoints(model.analysis, src, dst).lines())
