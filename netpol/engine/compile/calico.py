"""Calico NetworkPolicy / GlobalNetworkPolicy → the tiered form (netpol/engine/tiers.py).

Semantics (docs.tigera.io Calico reference: "NetworkPolicy", "GlobalNetworkPolicy", "Tier", "Rule",
"Entity rule", "Selectors", "NetworkSet", "Policy ordering"; libcalico-go `updateprocessors/rules.go`
GetEntityRuleSelector, `lib/selector`):
- a Calico Tier is a `Tier(name, order, end=defaultAction)`; kube-admin / default / kube-baseline are the
  well-known tiers of the same name (Kubernetes NetworkPolicies live in `default` at order 1000);
- inside a tier, policies by (order, omitted = last; then the policy's name, as Felix's PolKVLess compares it);
  rules in order; first Allow / Deny decides, Pass leaves the tier, Log matches and goes on;
- an endpoint a policy of the tier selects for a direction, with no match, gets the tier's default action;
- workload endpoints carry the pod's labels plus `projectcalico.org/namespace`, `/orchestrator` (k8s) and
  `/serviceaccount`, the namespace's labels as `pcns.<key>` and the service account's as `pcsa.<key>`;
  namespaces carry `projectcalico.org/name`;
- an entity rule matches when every field given matches: `selector` (endpoints and NetworkSets whose labels
  match; a pod inside a matching NetworkSet's nets matches too, as Felix's IP sets hold both), `notSelector`,
  `namespaceSelector` (`all()` = any namespaced entity, `global()` = the non-namespaced ones), `nets` /
  `notNets` (pod addresses too), `serviceAccounts`, `services` (the Service's endpoints and, as a
  destination, their ports); in a namespaced policy the rule is limited to the policy's namespace as soon
  as any selector field is used (`notSelector` and `serviceAccounts` too) unless `namespaceSelector` is given;
- ports are destination ports (a numeric port, `first:last`, a named port resolved on the destination);
  protocols other than TCP/UDP/SCTP and source ports are outside the port-aware answer: named in notes.
Selectors are evaluated once per distinct value of each label key over the classes (numpy), cached per tree.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import assert_never

import numpy as np

from netpol.engine.compile.universe import Universe
from netpol.engine.tiers import (
    ADMIN_TIER,
    BASELINE_TIER,
    DEFAULT_TIER,
    CompileContext,
    CompiledPeer,
    CompiledPolicy,
    CompiledRule,
    PeerPart,
    Tier,
)
from netpol.model.calico import (
    IMPLICIT_KEYS,
    LABEL_NAME,
    LABEL_NAMESPACE,
    LABEL_ORCHESTRATOR,
    LABEL_SERVICE_ACCOUNT,
    NAMESPACE_PREFIX,
    SERVICE_ACCOUNT_PREFIX,
    CalicoObjects,
    CalicoPolicy,
    CalicoPort,
    CalicoRule,
    CalicoTier,
    EntityRule,
    NetworkSet,
)
from netpol.model.calico_selector import (
    All,
    And,
    Compare,
    Global,
    Has,
    InSet,
    Node,
    Not,
    Or,
    Selector,
    compare,
    evaluate,
    namespace_match,
)
from netpol.model.objects import IPBlock, Service
from netpol.model.objects import Node as KubeNode
from netpol.model.vocab import DIRECTIONS, PROTOCOLS, Direction
from netpol.ports import PortAtoms

WELL_KNOWN = {t.name: t for t in (ADMIN_TIER, DEFAULT_TIER, BASELINE_TIER)}
INF = float("inf")


def tier_of(tier: CalicoTier) -> Tier:
    """A Calico Tier as the engine's Tier; the well-known names are the shared well-known tiers."""
    known = WELL_KNOWN.get(tier.name)
    if known is not None:
        return known
    order = tier.order if tier.order is not None else INF
    return Tier(tier.name, order, tier.default_action, f"Calico tier {tier.name}")


def policy_key(pol: CalicoPolicy) -> str:
    """How outputs name a Calico policy: `Calico ns/name` or `GNP name` (unique beside Kubernetes' `ns/name`)."""
    return f"Calico {pol.key}" if pol.namespace else f"GNP {pol.name}"


def precedence_text(pol: CalicoPolicy) -> str:
    return f"order {pol.order:g}" if pol.order is not None else "no order (after every ordered policy)"


class ClassColumns:
    """Label values of the classes as integer codes per key; a selector primitive is evaluated once per distinct
    value of its key and spread with a numpy take, a tree is combined with boolean ops; results cached per node."""

    def __init__(self, label_maps: Sequence[Mapping[str, str]]) -> None:
        self.size = len(label_maps)
        self._values: dict[str, list[str]] = {}
        self._cols: dict[str, np.ndarray] = {}
        codes: dict[str, dict[str, int]] = {}
        for i, labels in enumerate(label_maps):
            for k, v in labels.items():
                col = self._cols.get(k)
                if col is None:
                    col = self._cols[k] = np.full(self.size, -1, dtype=np.int64)
                    codes[k] = {}
                    self._values[k] = []
                c = codes[k].get(v)
                if c is None:
                    c = codes[k][v] = len(self._values[k])
                    self._values[k].append(v)
                col[i] = c
        self._cache: dict[Node, np.ndarray] = {}

    def _primitive(self, key: str, test: object) -> np.ndarray:
        """Apply `test(value | None) -> bool` per distinct value of `key` (None = absent), spread over classes."""
        assert callable(test)
        values = self._values.get(key, [])
        table = np.array([bool(test(v)) for v in values] + [bool(test(None))], dtype=bool)
        col = self._cols.get(key)
        if col is None:
            return np.full(self.size, table[-1], dtype=bool)
        return table[col]  # -1 (absent) indexes the last entry

    def match(self, node: Node) -> np.ndarray:
        hit = self._cache.get(node)
        if hit is not None:
            return hit
        out: np.ndarray
        match node:
            case All() | Global():
                out = np.ones(self.size, dtype=bool)
            case Has(key):
                out = self._primitive(key, lambda v: v is not None)
            case Compare(key, op, value):
                out = self._primitive(key, lambda v: compare(op, v, value))
            case InSet(key, op, values):
                out = self._primitive(key, lambda v: (v is not None and v in values) == (op == "in"))
            case Not(operand):
                out = ~self.match(operand)
            case And(operands):
                out = np.logical_and.reduce([self.match(o) for o in operands])
            case Or(operands):
                out = np.logical_or.reduce([self.match(o) for o in operands])
            case _:
                assert_never(node)
        out.flags.writeable = False
        self._cache[node] = out
        return out


@dataclass(frozen=True, slots=True)
class _Entity:
    """What an entity rule's selector fields need, besides the labels of classes."""

    classes: np.ndarray  # bool over classes
    sets: tuple[NetworkSet, ...]  # the NetworkSets it selects (their nets hold addresses, pods included)


class CalicoCompiler:
    """The PolicyCompiler of Calico's policies (netpol/engine/tiers.py)."""

    def __init__(self, objects: CalicoObjects, services: Sequence[Service] = ()) -> None:
        """`services`: the cluster's Services (rules' `services` select their endpoints by the Service's
        selector, whose label keys must cut classes too)."""
        self.objects = objects
        self.sa_labels = {(a.namespace, a.name): a.labels for a in objects.service_accounts}
        wanted = {(e.services.namespace, e.services.name) for e in self._entities() if e.services is not None}
        self.services = tuple(svc for svc in services if (svc.namespace, svc.name) in wanted)
        self._service_label_keys = sorted({k for svc in self.services for k in (svc.selector or ())})

    # --- what the policies can tell apart ------------------------------------------------------------------

    def _pod_selectors(self) -> Iterable[Selector]:
        for pol in self.objects.policies:
            yield pol.selector
            for rule in (*pol.ingress, *pol.egress):
                for e in (rule.source, rule.destination):
                    if e.selector is not None:
                        yield e.selector
                    if e.not_selector is not None:
                        yield e.not_selector

    def label_keys(self) -> Iterable[str]:
        keys: set[str] = set()
        for sel in self._pod_selectors():
            keys |= {
                k
                for k in sel.keys
                if k not in IMPLICIT_KEYS
                and not k.startswith(NAMESPACE_PREFIX)
                and not k.startswith(SERVICE_ACCOUNT_PREFIX)
            }
        return sorted(keys | set(self._service_label_keys))

    def _entities(self) -> Iterable[EntityRule]:
        for pol in self.objects.policies:
            for rule in (*pol.ingress, *pol.egress):
                yield rule.source
                yield rule.destination

    def mask_count(self) -> int:
        """Policies and rules compiled (each holds masks over classes): for the engine's memory estimate."""
        return sum(1 + len(p.ingress) + len(p.egress) for p in self.objects.policies)

    def splits_by_service_account(self) -> bool:
        for pol in self.objects.policies:
            if pol.service_account_selector is not None:
                return True
        for e in self._entities():
            if e.service_accounts is not None:
                return True
        return any(
            LABEL_SERVICE_ACCOUNT in s.keys or any(k.startswith(SERVICE_ACCOUNT_PREFIX) for k in s.keys)
            for s in self._pod_selectors()
        )

    def ip_blocks(self, nodes: Sequence[KubeNode]) -> Iterable[IPBlock]:
        out = {IPBlock(n) for s in self.objects.network_sets for n in s.nets}
        for e in self._entities():
            out |= {IPBlock(n) for n in (*e.nets, *e.not_nets)}
        return sorted(out, key=lambda b: b.cidr)

    def port_cuts(self, universe: Universe) -> Iterable[tuple[str, int, int]]:
        cuts: list[tuple[str, int, int]] = []
        names: set[str] = set()
        for pol in self.objects.policies:
            for rule in (*pol.ingress, *pol.egress):
                protos = _protocols(rule)
                for p in (*rule.destination.ports, *rule.destination.not_ports):
                    if p.name:
                        names.add(p.name)
                        continue
                    lo, hi = max(p.first, 1), p.last
                    if hi >= lo:
                        cuts.extend((proto, lo, hi) for proto in protos)
        for svc in self.services:  # a destination Service: its target ports
            for sp in svc.ports:
                if isinstance(sp.target_port, str):
                    names.add(sp.target_port)
                else:
                    cuts.append((sp.protocol, sp.target_port, sp.target_port))
        if names:
            for cls in universe.classes:
                cuts.extend((proto, num, num) for n, proto, num in cls.named_ports if n in names)
        return cuts

    # --- compiling -----------------------------------------------------------------------------------------

    def compile(self, ctx: CompileContext) -> Iterable[CompiledPolicy]:
        if not self.objects.policies:  # no per-class work for a cluster without Calico's policies
            return
        state = _State(self, ctx)
        tiers = {t.name: tier_of(t) for t in self.objects.tiers}
        for pol in self.objects.policies:
            tier = tiers.get(pol.tier) or WELL_KNOWN.get(pol.tier) or Tier(pol.tier, INF, "Deny")
            selected = state.subject(pol)
            rules: dict[Direction, tuple[CompiledRule, ...]] = {
                "ingress": tuple(state.rule(pol, "ingress", i, r) for i, r in enumerate(pol.ingress)),
                "egress": tuple(state.rule(pol, "egress", i, r) for i, r in enumerate(pol.egress)),
            }
            yield from _split(pol, tier, selected, rules, state)


def _protocols(rule: CalicoRule) -> tuple[str, ...]:
    """The port-aware protocols a rule's ports apply to (all three when it names none)."""
    if rule.protocol is None:
        return PROTOCOLS
    proto = rule.protocol.port_protocol
    return (proto,) if proto else ()


def _split(
    pol: CalicoPolicy,
    tier: Tier,
    selected: np.ndarray,
    rules: Mapping[Direction, tuple[CompiledRule, ...]],
    state: _State,
) -> Iterable[CompiledPolicy]:
    """One CompiledPolicy, or several when rules restrict the policy's own endpoint (an ingress rule's
    `destination` selector/nets, an egress rule's `source` ones): the tiered form has no rule-level subject.

    Each run of rules with the same owner restriction becomes its own CompiledPolicy over
    `selected & restriction`, with a precedence that sorts right after the previous run of the same policy (the
    name, NUL, the run number: no other policy's name falls between), so walking rules by (precedence, index)
    keeps Calico's rule order. Only the first part isolates.
    """
    key = policy_key(pol)
    base = _precedence(pol)
    isolates = frozenset(pol.types)
    runs: list[tuple[Direction, np.ndarray | None, list[CompiledRule]]] = []
    for d in DIRECTIONS:
        current: tuple[np.ndarray | None, list[CompiledRule]] | None = None
        for cr in rules[d]:
            restriction = state.owner_restriction(pol, d, cr.source)
            if current is None or not _same(current[0], restriction):
                current = (restriction, [])
                runs.append((d, restriction, current[1]))
            current[1].append(cr)
    head_in = runs[0][2] if runs and runs[0][0] == "ingress" and runs[0][1] is None else []
    first_egress = next((r for r in runs if r[0] == "egress"), None)
    head_out = first_egress[2] if first_egress is not None and first_egress[1] is None else []
    yield CompiledPolicy(
        kind=pol.kind if pol.kind == "GlobalNetworkPolicy" else "NetworkPolicy (Calico)",
        key=key,
        tier=tier,
        precedence=base,
        selected=selected,
        isolates=isolates,
        ingress=tuple(head_in),
        egress=tuple(head_out),
        source=pol,
        precedence_text=precedence_text(pol),
        namespace=pol.namespace,
    )
    n = 0
    for direction, restriction, crs in runs:
        if crs is head_in or crs is head_out:
            continue
        n += 1
        first, last = crs[0].index + 1, crs[-1].index + 1
        span = f"{first}" if first == last else f"{first}-{last}"
        yield CompiledPolicy(
            kind=pol.kind if pol.kind == "GlobalNetworkPolicy" else "NetworkPolicy (Calico)",
            key=f"{key} ({direction} rule {span})",
            tier=tier,
            precedence=(base[0], f"{base[1]}\x00{n:06d}"),
            selected=selected & restriction if restriction is not None else selected,
            isolates=frozenset(),
            ingress=tuple(crs) if direction == "ingress" else (),
            egress=tuple(crs) if direction == "egress" else (),
            source=pol,
            precedence_text=precedence_text(pol),
            namespace=pol.namespace,
        )


def _same(a: np.ndarray | None, b: np.ndarray | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return bool(np.array_equal(a, b))


def _precedence(pol: CalicoPolicy) -> tuple[float, str]:
    return (pol.order if pol.order is not None else INF, pol.sort_name)


class _State:
    """Per compile: the class label columns with Calico's implicit labels, namespace masks, caches."""

    def __init__(self, compiler: CalicoCompiler, ctx: CompileContext) -> None:
        self.c = compiler
        self.ctx = ctx
        u = self.u = ctx.universe
        self.ports: PortAtoms = ctx.ports
        ns_labels = {ns.name: {**ns.labels, LABEL_NAME: ns.name} for ns in u.namespaces}
        self.ns_labels = ns_labels
        maps = []
        for cls in u.classes:
            labels = dict(cls.labels)
            for k, v in ns_labels.get(cls.namespace, {}).items():
                labels[NAMESPACE_PREFIX + k] = v
            labels[LABEL_NAMESPACE] = cls.namespace
            labels[LABEL_ORCHESTRATOR] = "k8s"
            if cls.service_account:
                labels[LABEL_SERVICE_ACCOUNT] = cls.service_account
                for k, v in compiler.sa_labels.get((cls.namespace, cls.service_account), {}).items():
                    labels[SERVICE_ACCOUNT_PREFIX + k] = v
            maps.append(labels)
        self.columns = ClassColumns(maps)
        self.selectable = u.selectable
        self.n_atoms = len(u.ipspace.atoms)
        self._ns_cache: dict[Node, np.ndarray] = {}
        self._set_atoms: dict[str, np.ndarray] = {}
        self._owner_cache: dict[tuple[int, Direction, int], np.ndarray | None] = {}

    # namespaces and sets

    def namespaces(self, sel: Selector) -> np.ndarray:
        """Classes whose namespace the namespaceSelector matches."""
        hit = self._ns_cache.get(sel.root)
        if hit is None:
            per_ns = np.array(
                [namespace_match(sel.root, self.ns_labels[ns.name], True) for ns in self.u.namespaces], dtype=bool
            )
            hit = per_ns[self.u.class_ns] if self.u.class_count else np.zeros(0, dtype=bool)
            self._ns_cache[sel.root] = hit
        return hit

    def set_atoms(self, nets: Sequence[str]) -> np.ndarray:
        atoms = np.zeros(self.n_atoms, dtype=bool)
        for n in nets:
            hit = self._set_atoms.get(n)
            if hit is None:
                hit = self._set_atoms[n] = self.u.ipspace.block_atoms(IPBlock(n))
            atoms |= hit
        return atoms

    # entity rules

    def subject(self, pol: CalicoPolicy) -> np.ndarray:
        """The endpoints a policy selects: its namespace (NetworkPolicy) or namespaceSelector (global), selector,
        serviceAccountSelector; never hostNetwork pods (not workload endpoints)."""
        mask = self.columns.match(pol.selector.root) & self.selectable
        if pol.namespace:
            mask = mask & self.u.in_namespace(pol.namespace)
        if pol.namespace_selector is not None:
            mask = mask & self.namespaces(pol.namespace_selector)
        if pol.service_account_selector is not None:
            mask = mask & self._sa_selector(pol.service_account_selector)
        return mask

    def _sa_selector(self, sel: Selector) -> np.ndarray:
        """serviceAccountSelector / serviceAccounts.selector: over the ServiceAccount's labels (`pcsa.`)."""
        return self.columns.match(_prefixed(sel.root, SERVICE_ACCOUNT_PREFIX))

    def _positive(self, e: EntityRule, ns: str) -> tuple[np.ndarray, list[NetworkSet]] | None:
        """The classes and NetworkSets the entity's combined selector holds (GetEntityRuleSelector), None when it
        holds everything (no selector field, or a GlobalNetworkPolicy's lone notSelector)."""
        has_sel = e.selector is not None or e.service_accounts is not None
        limit_ns = e.namespace_selector is not None or (ns != "" and e.selects)
        if not has_sel and not limit_ns:
            return None
        classes = self.selectable.copy()
        sets = list(self.c.objects.network_sets)
        if e.namespace_selector is not None:
            classes &= self.namespaces(e.namespace_selector)
            sets = [
                s
                for s in sets
                if namespace_match(e.namespace_selector.root, self.ns_labels.get(s.namespace, {}), bool(s.namespace))
            ]
        elif limit_ns:
            classes &= self.u.in_namespace(ns)
            sets = [s for s in sets if s.namespace == ns]
        if e.service_accounts is not None:
            sam = e.service_accounts
            if sam.names:
                classes &= self.columns.match(InSet(LABEL_SERVICE_ACCOUNT, "in", frozenset(sam.names)))
            if sam.selector is not None:
                classes &= self._sa_selector(sam.selector)
            # NetworkSets carry no service account: `names` never holds them; a selector over absent pcsa. labels
            sets = [
                s
                for s in sets
                if not sam.names
                and (sam.selector is None or evaluate(_prefixed(sam.selector.root, SERVICE_ACCOUNT_PREFIX), {}))
            ]
        if e.selector is not None:
            classes &= self.columns.match(e.selector.root)
            sets = [s for s in sets if e.selector.matches(_set_labels(s))]
        return classes, sets

    def entity(self, e: EntityRule, ns: str, family: int | None) -> tuple[np.ndarray, np.ndarray]:
        """(classes, atoms) one entity rule holds, over the address family at `family` (None: any)."""
        classes, atoms, _ = self.entity_parts(e, ns, family)
        return classes, atoms

    def entity_parts(
        self, e: EntityRule, ns: str, family: int | None
    ) -> tuple[np.ndarray, np.ndarray, tuple[PeerPart, ...]]:
        """(classes, atoms, the conditions it ANDs) of one entity rule, over the family at `family` (None: any).
        The parts word explain's near miss; the classes and atoms are the exact answer (a NetworkSet must pass
        every selector condition at once, which the parts, each alone, do not say)."""
        u = self.u
        classes = np.ones(u.class_count, dtype=bool)
        atoms = np.ones(self.n_atoms, dtype=bool)
        fam = range(len(u.families)) if family is None else [family]
        parts: list[PeerPart] = []

        def by_address(atom_mask: np.ndarray) -> np.ndarray:
            per = u.block_classes(atom_mask)
            return np.logical_or.reduce([per[k] for k in fam]) if per else np.zeros(u.class_count, dtype=bool)

        positive = self._positive(e, ns)
        if positive is not None:
            sel_classes, sets = positive
            set_atoms = self.set_atoms([n for s in sets for n in s.nets])
            classes &= sel_classes | by_address(set_atoms)
            atoms &= set_atoms
            parts += self._selector_parts(e, ns, by_address)
        if e.not_selector is not None:
            neg = e.not_selector
            neg_sets = [s for s in self.c.objects.network_sets if neg.matches(_set_labels(s))]
            neg_atoms = self.set_atoms([n for s in neg_sets for n in s.nets])
            held = ~((self.columns.match(neg.root) & self.selectable) | by_address(neg_atoms))
            classes &= held
            atoms &= ~neg_atoms
            parts.append(PeerPart("pod", f"notSelector {neg.text}", held, ~neg_atoms))
        for nets, negate, word in ((e.nets, False, "nets"), (e.not_nets, True, "notNets")):
            if not nets:
                continue
            net_atoms = self.set_atoms(nets)
            held = ~by_address(net_atoms) if negate else by_address(net_atoms)
            held_atoms = ~net_atoms if negate else net_atoms
            classes &= held
            atoms &= held_atoms
            version = 6 if ":" in nets[0] else 4  # the reader refuses both families in one rule
            parts.append(PeerPart("address", f"{word} {','.join(nets)}", held, held_atoms, version))
        if e.services is not None:
            svc = self.service_pods(e.services.namespace, e.services.name)
            classes &= svc
            atoms &= False
            parts.append(PeerPart("pod", f"services {e.services.namespace}/{e.services.name}", svc))
        return classes, atoms, tuple(parts)

    def _selector_parts(self, e: EntityRule, ns: str, by_address: Callable[[np.ndarray], np.ndarray]) -> list[PeerPart]:
        """The selector conditions one at a time: the namespace (given or implied), service accounts, selector;
        each holds the pods it matches and the addresses of the NetworkSets it matches."""
        out = []
        sets = self.c.objects.network_sets
        if e.namespace_selector is not None:
            sel = e.namespace_selector
            kept = [
                s for s in sets if namespace_match(sel.root, self.ns_labels.get(s.namespace, {}), bool(s.namespace))
            ]
            a = self.set_atoms([n for s in kept for n in s.nets])
            out.append(PeerPart("namespace", f"namespaceSelector {sel.text}", self.namespaces(sel) | by_address(a), a))
        elif ns and e.selects:
            a = self.set_atoms([n for s in sets if s.namespace == ns for n in s.nets])
            out.append(
                PeerPart("namespace", f"the policy's namespace {ns}", self.u.in_namespace(ns) | by_address(a), a)
            )
        if e.service_accounts is not None:
            sam = e.service_accounts
            held = self.selectable.copy()
            if sam.names:
                held &= self.columns.match(InSet(LABEL_SERVICE_ACCOUNT, "in", frozenset(sam.names)))
            if sam.selector is not None:
                held &= self._sa_selector(sam.selector)
            out.append(PeerPart("pod", entity_text(EntityRule(service_accounts=sam), "").removeprefix(": "), held))
        if e.selector is not None:
            sel = e.selector
            a = self.set_atoms([n for s in sets if sel.matches(_set_labels(s)) for n in s.nets])
            held = (self.columns.match(sel.root) & self.selectable) | by_address(a)
            out.append(PeerPart("pod", f"selector {sel.text}", held, a))
        return out

    def service_pods(self, ns: str, name: str) -> np.ndarray:
        for svc in self.ctx.services:
            if svc.namespace == ns and svc.name == name and svc.selector is not None:
                sel = And(tuple(Compare(k, "==", v) for k, v in svc.selector.items())) if svc.selector else All()
                return self.columns.match(sel) & self.u.in_namespace(ns) & self.selectable
        return np.zeros(self.u.class_count, dtype=bool)

    def owner_restriction(self, pol: CalicoPolicy, direction: Direction, rule: object) -> np.ndarray | None:
        """The classes of the policy's own endpoint a rule keeps (its destination fields on ingress, its source
        fields on egress), or None when it keeps them all."""
        assert isinstance(rule, CalicoRule)
        e = rule.destination if direction == "ingress" else rule.source
        owner = EntityRule(
            e.nets,
            e.not_nets,
            e.selector,
            e.not_selector,
            e.namespace_selector,
            service_accounts=e.service_accounts,
            services=e.services,
        )
        if owner.is_empty:
            return None
        classes, _ = self.entity(owner, pol.namespace, None)
        return classes

    # rules

    def rule(self, pol: CalicoPolicy, direction: Direction, index: int, rule: CalicoRule) -> CompiledRule:
        peer_side = rule.source if direction == "ingress" else rule.destination
        notes: list[str] = []
        u = self.u
        families = [k for k, f in enumerate(u.families) if rule.ip_version in (None, f)]
        per_family = []
        atoms = np.zeros(self.n_atoms, dtype=bool)
        for k in range(len(u.families)):
            if k in families:
                c, a = self.entity(peer_side, pol.namespace, k)
                per_family.append(c)
                atoms |= a
            else:
                per_family.append(np.zeros(u.class_count, dtype=bool))
        _, _, parts = self.entity_parts(peer_side, pol.namespace, None)
        if rule.ip_version is not None:
            want = rule.ip_version
            atoms &= np.array([a.version == want for a in u.ipspace.atoms], dtype=bool)
        classes = np.logical_or.reduce(per_family)
        split = any(not np.array_equal(m, per_family[0]) for m in per_family[1:])
        peer = CompiledPeer(
            classes=classes,
            atoms=atoms,
            text=entity_text(peer_side, "source" if direction == "ingress" else "destination"),
            parts=parts,
            family_classes=tuple(per_family) if split else (),
            note=self._peer_note(peer_side),
        )
        static, named, not_named, ports_text = self._ports(rule, notes)
        if rule.source.ports or rule.source.not_ports:
            notes.append("source ports are not modelled: evaluated as if every source port matched")
        if rule.icmp:
            notes.append(f"{rule.icmp}: ICMP is outside the port-aware answer")
        if rule.http:
            notes.append(f"HTTP match ({rule.http}) needs Calico's application layer: evaluated as any request")
        return CompiledRule(
            direction=direction,
            index=index,
            action=rule.action,
            peers=(peer,),
            static_bits=static,
            named=named,
            not_named=not_named,
            ports_text=ports_text,
            l7=rule.http,
            note="; ".join(notes),
            source=rule,
        )

    def _peer_note(self, e: EntityRule) -> str:
        if e.services is not None and not any(
            s.namespace == e.services.namespace and s.name == e.services.name and s.selector is not None
            for s in self.ctx.services
        ):
            return (
                f"Service {e.services.namespace}/{e.services.name} is not in the input or has no selector: "
                "its endpoints are not known, so it holds no pod"
            )
        return ""

    def _ports(
        self, rule: CalicoRule, notes: list[str]
    ) -> tuple[np.ndarray, tuple[tuple[str, str], ...], tuple[tuple[str, str], ...], str]:
        """Destination port bits, named ports, named ports taken out (notPorts), and the ports in the rule's words ("TCP https", "TCP 5000:5999
        not 5433", "all but UDP", "all ports")."""
        ports = self.ports
        words: list[str] = []
        if rule.protocol is not None:
            words.append(rule.protocol.text)
            proto = rule.protocol.port_protocol
            if proto is None:
                notes.append(f"protocol {rule.protocol.text} is not TCP, UDP or SCTP: outside the port-aware answer")
                return ports.no_bits.copy(), (), (), " ".join(words)
            base = ports.range_bits(proto)
        else:
            base = ports.all_bits.copy()
        if rule.not_protocol is not None:
            words.append(f"all but {rule.not_protocol.text}")
            other = rule.not_protocol.port_protocol
            if other is not None:
                base = base & ~ports.range_bits(other)
        protos = _protocols(rule)
        if rule.not_protocol is not None and rule.not_protocol.port_protocol in protos:
            protos = tuple(p for p in protos if p != rule.not_protocol.port_protocol)
        # a named port of a rule without a protocol resolves whatever its protocol ("" = any), less notProtocol
        name_protos = ("",) if rule.protocol is None and len(protos) == len(PROTOCOLS) else protos
        dst = rule.destination
        named: list[tuple[str, str]] = []
        not_named: list[tuple[str, str]] = []
        bits = base
        if dst.ports:
            words.append(",".join(p.render() for p in dst.ports))
            bits = ports.no_bits.copy()
            for p in dst.ports:
                if p.name:
                    named.extend((p.name, proto) for proto in name_protos)
                    continue
                bits |= self._range(p, protos)
            bits &= base
        if dst.not_ports:
            words.append("not " + ",".join(p.render() for p in dst.not_ports))
            for p in dst.not_ports:
                if p.name:  # resolved on each destination, as `ports` names are (CompiledRule.not_named)
                    not_named.extend((p.name, proto) for proto in name_protos)
                    continue
                bits = bits & ~self._range(p, protos)
        if dst.services is not None:
            svc_bits, svc_named = self._service_ports(dst.services.namespace, dst.services.name, protos)
            words.append(f"the ports of Service {dst.services.namespace}/{dst.services.name}")
            bits = bits & svc_bits
            named = [(n, pr) for n, pr in svc_named]
        if rule.protocol is not None and rule.protocol.port_protocol is None:
            bits = ports.no_bits.copy()
        return bits, tuple(dict.fromkeys(named)), tuple(dict.fromkeys(not_named)), " ".join(words) or "all ports"

    def _range(self, p: CalicoPort, protos: Sequence[str]) -> np.ndarray:
        bits = self.ports.no_bits.copy()
        lo, hi = max(p.first, 1), p.last
        if hi < lo:
            return bits
        for proto in protos:
            bits |= self.ports.range_bits(proto, lo, hi)
        return bits

    def _service_ports(self, ns: str, name: str, protos: Sequence[str]) -> tuple[np.ndarray, list[tuple[str, str]]]:
        """A destination Service's target ports: "only to/from each endpoint's port" (EntityRule.services)."""
        bits = self.ports.no_bits.copy()
        named: list[tuple[str, str]] = []
        for svc in self.ctx.services:
            if svc.namespace == ns and svc.name == name:
                for sp in svc.ports:
                    if sp.protocol not in protos:
                        continue
                    if isinstance(sp.target_port, str):
                        named.append((sp.target_port, sp.protocol))
                    else:
                        bits |= self.ports.range_bits(sp.protocol, sp.target_port)
        return bits, named


def _prefixed(node: Node, prefix: str) -> Node:
    """The same tree over `prefix`-ed keys (service-account and namespace labels as endpoints carry them)."""
    match node:
        case All() | Global():
            return node
        case Has(key):
            return Has(prefix + key)
        case Compare(key, op, value):
            return Compare(prefix + key, op, value)
        case InSet(key, op, values):
            return InSet(prefix + key, op, values)
        case Not(operand):
            return Not(_prefixed(operand, prefix))
        case And(operands):
            return And(tuple(_prefixed(o, prefix) for o in operands))
        case Or(operands):
            return Or(tuple(_prefixed(o, prefix) for o in operands))
        case _:
            assert_never(node)


def _set_labels(s: NetworkSet) -> Mapping[str, str]:
    """A NetworkSet's labels as selectors see them (a namespaced one also carries projectcalico.org/namespace)."""
    return {**s.labels, LABEL_NAMESPACE: s.namespace} if s.namespace else s.labels


def entity_text(e: EntityRule, side: str) -> str:
    """An entity rule in the policy's own words: `source: selector app == "db"; nets 10.0.0.0/8`."""
    parts = []
    if e.selector is not None:
        parts.append(f"selector {e.selector.text}")
    if e.not_selector is not None:
        parts.append(f"notSelector {e.not_selector.text}")
    if e.namespace_selector is not None:
        parts.append(f"namespaceSelector {e.namespace_selector.text}")
    if e.service_accounts is not None:
        sam = e.service_accounts
        bits = []
        if sam.names:
            bits.append("names " + ",".join(sam.names))
        if sam.selector is not None:
            bits.append(f"selector {sam.selector.text}")
        parts.append("serviceAccounts " + " ".join(bits))
    if e.services is not None:
        parts.append(f"services {e.services.namespace}/{e.services.name}")
    if e.nets:
        parts.append("nets " + ",".join(e.nets))
    if e.not_nets:
        parts.append("notNets " + ",".join(e.not_nets))
    return f"{side}: " + ("; ".join(parts) if parts else "any")
