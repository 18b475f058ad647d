"""The reachability engine: bit tensors over (source class, destination class, port atoms).

For every destination class the ingress tensor holds the ports its policies admit from each source
(class or external IP atom); for every source class the egress tensor holds the ports its policies let
out. A connection needs both (NetworkPolicy is additive allow-lists on both ends), so pod→pod traffic is
`ingress & egress`. Every rule is applied as one numpy block update over (peers × targets); no Python
loop runs per pod pair. Pod-level exceptions — a pod reaching itself, a hostNetwork pod reaching pods on
its own node — are applied when pairs are read out (`Reachability.connection`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from netpol.compile.admin import CompiledAdminRule, admin_blocks, admin_port_cuts, compile_admin
from netpol.compile.ipspace import IPAtom, IPSpace
from netpol.compile.policies import CompiledPolicy, CompiledRule, compile_policy, port_cuts
from netpol.compile.universe import Universe, selector_keys
from netpol.model.objects import AdminNetworkPolicy, Namespace, NetworkPolicy, Node, Pod
from netpol.ports import ConnectionSet, PortAtoms


@dataclass(frozen=True, slots=True)
class EngineOptions:
    # The upstream e2e suite expects ipBlock to match pod IPs; some CNIs (those that SNAT or evaluate
    # ipBlock only for cluster-external traffic) differ. Default: upstream behaviour.
    ipblock_matches_pods: bool = True


def pod_label_keys(policies: Sequence[NetworkPolicy], admin: Sequence[AdminNetworkPolicy]) -> frozenset[str]:
    """Every pod label key any pod selector mentions: other keys cannot tell pods apart."""
    keys: set[str] = set()
    for pol in policies:
        keys.update(selector_keys(pol.pod_selector))
        for rule in (*pol.ingress, *pol.egress):
            for peer in rule.peers:
                keys.update(selector_keys(peer.pod_selector))
    for anp in admin:
        keys.update(selector_keys(anp.subject_pods))
        for rule in (*anp.ingress, *anp.egress):
            for peer in rule.peers:
                keys.update(selector_keys(peer.pod_selector))
    return frozenset(keys)


def _isolated(policies: Sequence[CompiledPolicy], classes: np.ndarray, direction: str) -> np.ndarray:
    """Which of `classes` some policy of `direction` selects (isolated: only what rules allow passes)."""
    isolated = np.zeros(len(classes), dtype=bool)
    for cp in policies:
        if cp.policy.affects_ingress if direction == "ingress" else cp.policy.affects_egress:
            isolated |= cp.selected[classes]
    return isolated


def _apply(tensor: np.ndarray, rows: np.ndarray, cols: np.ndarray, bits: np.ndarray) -> None:
    if rows.size and cols.size:
        tensor[np.ix_(rows, cols)] |= bits


class Reachability:
    """The computed matrix. Endpoints: pods (by index into `pods`) and external IP atoms."""

    def __init__(
        self,
        pods: Sequence[Pod],
        namespaces: Sequence[Namespace],
        policies: Sequence[NetworkPolicy],
        options: EngineOptions = EngineOptions(),
        admin_policies: Sequence[AdminNetworkPolicy] = (),
        nodes: Sequence[Node] = (),
    ) -> None:
        self.options = options
        admin = tuple(admin_policies)
        blocks = [
            p.ip_block
            for pol in policies
            for r in (*pol.ingress, *pol.egress)
            for p in r.peers
            if p.ip_block is not None
        ]
        blocks += admin_blocks(admin, tuple(nodes))
        self.ipspace = IPSpace(blocks, (p.pod_ip for p in pods if p.pod_ip))
        self.universe = u = Universe(pods, namespaces, self.ipspace, pod_label_keys(policies, admin))
        self.pods = u.pods
        self.pod_index = {p.key: i for i, p in enumerate(self.pods)}
        self.ports = PortAtoms(port_cuts(policies, u) + admin_port_cuts(admin, u))
        self.policies: tuple[CompiledPolicy, ...] = tuple(
            compile_policy(p, u, self.ports, ipblock_matches_pods=options.ipblock_matches_pods) for p in policies
        )
        self.admin_rules: tuple[CompiledAdminRule, ...] = compile_admin(
            admin, u, self.ports, tuple(nodes), ipblock_matches_pods=options.ipblock_matches_pods
        )
        self._compute()

    # ------------------------------------------------------------------------------------------ compute

    def _compute(self) -> None:
        ingress, egress, self.isolated_ingress, self.isolated_egress = self._tensors(self.policies)
        C = self.universe.class_count
        self.class_matrix = ingress[:C] & egress[:, :C]
        self.ext_ingress = ingress[C:]  # atom → class
        self.ext_egress = egress[:, C:]  # class → atom
        self.ingress_tensor = ingress  # [source class or C+atom, destination class]
        self.egress_tensor = egress  # [source class, destination class or C+atom]

    def _tensors(self, policies: Sequence[CompiledPolicy]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(ingress, egress, isolated_ingress, isolated_egress) for these compiled policies (+ admin tiers)."""
        everything = np.arange(self.universe.class_count)
        isolated_ingress = _isolated(policies, everything, "ingress")
        isolated_egress = _isolated(policies, everything, "egress")
        # ingress[s, d]: sources are classes then atoms; destinations are classes.
        ingress = self._ingress_columns(policies, everything)
        egress = self._egress_rows(policies, everything)
        if self.admin_rules:
            ingress = self._admin_tiers("ingress", ingress, isolated_ingress)
            egress = self._admin_tiers("egress", egress, isolated_egress)
        return ingress, egress, isolated_ingress, isolated_egress

    def changes_without(self, policy: NetworkPolicy) -> bool:
        """Would removing `policy` change any connection (pods and external ranges)?

        Recomputed on this engine's own classes, IP atoms and port atoms — a refinement valid for any
        subset of the policies — so the answer is a plain array comparison. A NetworkPolicy only shapes
        the ingress of the classes it selects and the egress of the same classes, so without admin tiers
        (which layer over whole tensors) only those columns and rows are recomputed.
        """
        if self.admin_rules:
            rest = [cp for cp in self.policies if cp.policy is not policy]
            ingress, egress, _, _ = self._tensors(rest)
            return not (np.array_equal(ingress, self.ingress_tensor) and np.array_equal(egress, self.egress_tensor))
        k = next(k for k, cp in enumerate(self.policies) if cp.policy is policy)
        chosen = np.flatnonzero(self.policies[k].selected)
        if not chosen.size:
            return False
        # Only the policies that select some of those classes shape them.
        overlapping = np.flatnonzero(self._selection[:, chosen].any(axis=1))
        rest = [self.policies[j] for j in overlapping.tolist() if j != k]
        if policy.affects_ingress and not np.array_equal(
            self._ingress_columns(rest, chosen), self.ingress_tensor[:, chosen]
        ):
            return True
        return policy.affects_egress and not np.array_equal(self._egress_rows(rest, chosen), self.egress_tensor[chosen])

    @cached_property
    def _selection(self) -> np.ndarray:
        """(policies, classes): which classes each NetworkPolicy selects."""
        C = self.universe.class_count
        if not self.policies:
            return np.zeros((0, C), dtype=bool)
        return np.stack([cp.selected for cp in self.policies])

    def _ingress_columns(self, policies: Sequence[CompiledPolicy], dst: np.ndarray) -> np.ndarray:
        """`_tensors(policies)[0][:, dst]`, computed for those destination classes only."""
        C, ports = self.universe.class_count, self.ports
        isolated = _isolated(policies, dst, "ingress")
        cols = np.zeros((C + len(self.ipspace.atoms), len(dst), ports.words), dtype=np.uint64)
        cols[:, ~isolated] = ports.all_bits
        position = np.full(C, -1, dtype=np.int64)
        position[dst] = np.arange(len(dst))
        for cp in policies:
            targets = np.flatnonzero(cp.selected[dst])  # positions in dst
            if not targets.size:
                continue
            for rule in cp.ingress:
                sources = np.concatenate([np.flatnonzero(rule.peer_classes), C + np.flatnonzero(rule.peer_atoms)])
                if not rule.named:
                    _apply(cols, sources, targets, rule.static_bits)
                    continue
                for bits, group in self._group_by_bits(rule, dst[targets]):  # names resolve on each target
                    _apply(cols, sources, position[group], bits)
        return cols

    def _egress_rows(self, policies: Sequence[CompiledPolicy], src: np.ndarray) -> np.ndarray:
        """`_tensors(policies)[1][src]`, computed for those source classes only."""
        C, ports = self.universe.class_count, self.ports
        isolated = _isolated(policies, src, "egress")
        rows = np.zeros((len(src), C + len(self.ipspace.atoms), ports.words), dtype=np.uint64)
        rows[~isolated] = ports.all_bits
        for cp in policies:
            targets = np.flatnonzero(cp.selected[src])  # positions in src
            if not targets.size:
                continue
            for rule in cp.egress:
                dst_classes = np.flatnonzero(rule.peer_classes)
                _apply(
                    rows, targets, C + np.flatnonzero(rule.peer_atoms), rule.static_bits
                )  # names never resolve on IPs
                if not rule.named:
                    _apply(rows, targets, dst_classes, rule.static_bits)
                    continue
                for bits, group in self._group_by_bits(rule, dst_classes):  # names resolve on each peer
                    _apply(rows, targets, group, bits)
        return rows

    def _admin_tiers(self, direction: str, np_tensor: np.ndarray, isolated: np.ndarray) -> np.ndarray:
        """Layer the ANP tier above and the BANP tier below the NetworkPolicy result (first match wins)."""
        C = self.universe.class_count
        tiers = {}
        for baseline in (False, True):
            allow = np.zeros_like(np_tensor)
            deny = np.zeros_like(np_tensor)
            decided = np.zeros_like(np_tensor)
            for rule in self.admin_rules:
                if rule.direction != direction or rule.policy.baseline != baseline:
                    continue
                subject = np.flatnonzero(rule.subject)
                peers_c = np.flatnonzero(rule.peer_classes)
                peers_a = C + np.flatnonzero(rule.peer_atoms)
                if direction == "ingress":  # names resolve on the subject (the destination)
                    blocks = [
                        (np.concatenate([peers_c, peers_a]), grp, bits)
                        for bits, grp in self._group_by_bits(rule, subject)
                    ]
                else:  # names resolve on the peer; never on external addresses
                    blocks = [(subject, grp, bits) for bits, grp in self._group_by_bits(rule, peers_c)]
                    blocks.append((subject, peers_a, rule.static_bits))
                for rows, cols, bits in blocks:
                    if not rows.size or not cols.size:
                        continue
                    ix = np.ix_(rows, cols)
                    before = decided[ix]
                    fresh = bits & ~before
                    if rule.action == "Allow":
                        allow[ix] |= fresh
                    elif rule.action == "Deny":
                        deny[ix] |= fresh
                    decided[ix] = before | bits
            tiers[baseline] = (allow, deny)
        anp_allow, anp_deny = tiers[False]
        _, banp_deny = tiers[True]
        base = np_tensor.copy()
        # Pods no NetworkPolicy isolates fall to the baseline tier: allowed unless the BANP denies.
        if direction == "ingress":
            base[:, ~isolated] &= ~banp_deny[:, ~isolated]
        else:
            base[~isolated] &= ~banp_deny[~isolated]
        return anp_allow | (~(anp_allow | anp_deny) & base)

    def admin_trace(
        self,
        direction: str,
        src_class: int | None,
        dst_class: int | None,
        src_atom: int | None = None,
        dst_atom: int | None = None,
    ) -> list[tuple[CompiledAdminRule, np.ndarray]]:
        """Admin rules that match this pair in evaluation order, each with the ports it covers (for explain)."""
        out = []
        for rule in self.admin_rules:
            if rule.direction != direction:
                continue
            if direction == "ingress":
                if dst_class is None or not rule.subject[dst_class]:
                    continue
                hit = (src_class is not None and rule.peer_classes[src_class]) or (
                    src_atom is not None and rule.peer_atoms[src_atom]
                )
            else:
                if src_class is None or not rule.subject[src_class]:
                    continue
                hit = (dst_class is not None and rule.peer_classes[dst_class]) or (
                    dst_atom is not None and rule.peer_atoms[dst_atom]
                )
            if hit:
                bits = rule.bits_for(self.universe, self.ports, dst_class)
                if np.any(bits):
                    out.append((rule, bits))
        return out

    def _group_by_bits(
        self, rule: CompiledRule | CompiledAdminRule, classes: np.ndarray
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        groups: dict[bytes, tuple[np.ndarray, list[int]]] = {}
        for c in classes:
            bits = rule.bits_for(self.universe, self.ports, int(c))
            groups.setdefault(bits.tobytes(), (bits, []))[1].append(int(c))
        for bits, members in groups.values():
            yield bits, np.array(members, dtype=np.int64)

    # ------------------------------------------------------------------------------------------ read out

    @property
    def atoms(self) -> list[IPAtom]:
        return self.ipspace.atoms

    def pod_class(self, pod: int) -> int:
        return int(self.universe.pod_class[pod])

    def pod_bits(self, src: int, dst: int) -> np.ndarray:
        if src == dst or self.same_node_host(src, dst):
            return self.ports.all_bits
        return self.class_matrix[self.universe.pod_class[src], self.universe.pod_class[dst]]

    def same_node_host(self, src: int, dst: int) -> bool:
        # Traffic from a pod's own node is always allowed (NetworkPolicy docs); hostNetwork pods speak
        # with their node's address.
        s, d = self.pods[src], self.pods[dst]
        return s.host_network and bool(s.node_name) and s.node_name == d.node_name

    def connection(self, src: int, dst: int) -> ConnectionSet:
        return self.ports.to_set(self.pod_bits(src, dst))

    def ingress_from_atom(self, atom: int, dst: int) -> ConnectionSet:
        return self.ports.to_set(self.ext_ingress[atom, self.universe.pod_class[dst]])

    def egress_to_atom(self, src: int, atom: int) -> ConnectionSet:
        return self.ports.to_set(self.ext_egress[self.universe.pod_class[src], atom])

    def probe_bit(self, protocol: str, port: int) -> tuple[int, np.uint64]:
        k = self.ports.atom_of(protocol, port)
        return k >> 6, np.uint64(1) << np.uint64(k & 63)

    def class_probe(self, protocol: str, port: int) -> np.ndarray:
        """Bool matrix over class pairs: is (protocol, port) allowed?"""
        w, bit = self.probe_bit(protocol, port)
        return (self.class_matrix[:, :, w] & bit) != 0

    def allowed_pod_pairs(self, protocol: str | None = None, port: int | None = None) -> Iterator[tuple[int, int]]:
        """Every ordered pod pair with some allowed connection (or the probe allowed), in pod order."""
        u = self.universe
        if protocol is not None and port is not None:
            cls_ok = self.class_probe(protocol, port)
        else:
            cls_ok = self.class_matrix.any(axis=2)
        n = len(self.pods)
        pc = u.pod_class
        host_pods = [i for i, p in enumerate(self.pods) if p.host_network and p.node_name]
        for s in range(n):
            row = cls_ok[pc[s]][pc]
            row = row.copy()
            row[s] = True
            if host_pods and self.pods[s].host_network:
                for d in range(n):
                    if self.same_node_host(s, d):
                        row[d] = True
            for d in np.flatnonzero(row):
                yield s, int(d)

    def ingress_rules_for(
        self, src_class: int | None, dst_class: int, src_atom: int | None = None
    ) -> list[CompiledRule]:
        """Ingress rules of policies selecting dst_class whose peers contain the source (for explain)."""
        out = []
        for cp in self.policies:
            if not cp.selected[dst_class]:
                continue
            for r in cp.ingress:
                if (src_class is not None and r.peer_classes[src_class]) or (
                    src_atom is not None and r.peer_atoms[src_atom]
                ):
                    out.append(r)
        return out

    def egress_rules_for(
        self, src_class: int, dst_class: int | None, dst_atom: int | None = None
    ) -> list[CompiledRule]:
        out = []
        for cp in self.policies:
            if not cp.selected[src_class]:
                continue
            for r in cp.egress:
                if (dst_class is not None and r.peer_classes[dst_class]) or (
                    dst_atom is not None and r.peer_atoms[dst_atom]
                ):
                    out.append(r)
        return out


def unresolved_named_ports(r: Reachability) -> list[tuple[CompiledRule, str, str]]:
    """(rule, port name, protocol) for every named port that resolves on no destination the rule covers.

    Ingress names resolve on the pods the policy selects; egress names on the peer pods. A name that
    resolves nowhere matches nothing — legal, but almost always a typo or a missing containerPort name.
    """
    out = []
    u = r.universe
    for cp in r.policies:
        for rule in (*cp.ingress, *cp.egress):
            if not rule.named:
                continue
            dests = np.flatnonzero(cp.selected if rule.direction == "ingress" else rule.peer_classes)
            for name, proto in rule.named:
                if not any(u.classes[int(c)].resolve(name, proto) is not None for c in dests):
                    out.append((rule, name, proto))
    return out
