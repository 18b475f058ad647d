"""Equivalence classes of pods: the unit every mask and matrix in the engine is indexed by.

Two running pods are equivalent when no policy can tell them apart: same namespace, same values for the
label keys some pod selector mentions (a StatefulSet's per-pod `statefulset.kubernetes.io/pod-name` or a
Deployment's `pod-template-hash` only split classes when a selector uses them), same named-port map, same
ipBlock atom of their address of each family (a dual-stack pod has an IPv4 and an IPv6 address), and (for
hostNetwork pods, whose traffic appears as their node's) the same node. Selectors are evaluated once per class with numpy label-code columns, never once per pod; only
selectors over the relevant keys may be evaluated (`pods_matching` checks it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from netpol.engine.compile.ipspace import IPSpace
from netpol.model.labels import Labels, LabelSelector
from netpol.model.objects import Namespace, Pod


@dataclass(frozen=True, slots=True)
class PodClass:
    namespace: str
    labels: Labels
    named_ports: tuple[tuple[str, str, int], ...]
    ip_atom: int  # the atom of the first address (families order); -1 without an address
    host_network: bool
    host_node: str  # node name for hostNetwork pods, "" otherwise
    family_atoms: tuple[int, ...] = ()  # per Universe.families, the atom of that family's address (-1: none)
    service_account: str = ""  # the pods' service account, when some compiler's selectors read it ("" otherwise)

    def resolve(self, name: str, protocol: str) -> int | None:
        for n, p, num in self.named_ports:
            if n == name and p == protocol:
                return num
        return None


# (namespace, label items, named ports, atom per family, hostNetwork, node of a hostNetwork pod, service account)
ClassKey = tuple[str, tuple[tuple[str, str], ...], tuple[tuple[str, str, int], ...], tuple[int, ...], bool, str, str]


def _first(atoms: tuple[int, ...]) -> int:
    return next((a for a in atoms if a >= 0), -1)


def selector_keys(selector: LabelSelector | None) -> tuple[str, ...]:
    if selector is None:
        return ()
    return (*selector.match_labels.keys(), *(r.key for r in selector.match_expressions))


class LabelColumns:
    """Label values of many objects as integer-coded numpy columns, so a selector is a few vector ops."""

    def __init__(self, label_maps: Sequence[Mapping[str, str]]) -> None:
        self.size = len(label_maps)
        self._codes: dict[str, dict[str, int]] = {}
        self._cols: dict[str, np.ndarray] = {}
        for i, labels in enumerate(label_maps):
            for k, v in getattr(labels, "_d", labels).items():  # a FrozenMap's own dict: iterating it is cheaper
                codes = self._codes.setdefault(k, {})
                col = self._cols.get(k)
                if col is None:
                    col = np.full(self.size, -1, dtype=np.int32)
                    self._cols[k] = col
                col[i] = codes.setdefault(v, len(codes))
        self._cache: dict[LabelSelector, np.ndarray] = {}

    def _col(self, key: str) -> np.ndarray:
        col = self._cols.get(key)
        return col if col is not None else np.full(self.size, -1, dtype=np.int32)

    def _codes_of(self, key: str, values: Sequence[str]) -> list[int]:
        codes = self._codes.get(key, {})
        return [codes[v] for v in values if v in codes]

    def match(self, selector: LabelSelector) -> np.ndarray:
        hit = self._cache.get(selector)
        if hit is not None:
            return hit
        mask = np.ones(self.size, dtype=bool)
        for k, v in selector.match_labels.items():
            codes = self._codes_of(k, [v])
            mask &= (self._col(k) == codes[0]) if codes else False
        for r in selector.match_expressions:
            col = self._col(r.key)
            match r.operator:
                case "In":
                    mask &= np.isin(col, self._codes_of(r.key, r.values))
                case "NotIn":  # absent key (-1) is never among the codes, so it matches
                    mask &= ~np.isin(col, self._codes_of(r.key, r.values))
                case "Exists":
                    mask &= col >= 0
                case "DoesNotExist":
                    mask &= col < 0
                case _:
                    raise AssertionError(r.operator)
        mask.flags.writeable = False
        self._cache[selector] = mask
        return mask


def _frozen(mask: np.ndarray) -> np.ndarray:
    mask.flags.writeable = False
    return mask


class Universe:
    """Running pods grouped into classes, plus namespace and IP-space indexes."""

    def __init__(
        self,
        pods: Sequence[Pod],
        namespaces: Sequence[Namespace],
        ipspace: IPSpace,
        label_keys: frozenset[str] | None = None,
        service_accounts: bool = False,
    ) -> None:
        """`label_keys`: the pod label keys selectors use (None: every key, the finest classes);
        `service_accounts`: some selector reads pods' service accounts, so classes are cut by them too."""
        self.label_keys = label_keys
        self.pods = tuple(sorted(pods, key=lambda p: (p.namespace, p.name)))
        self.namespaces = tuple(sorted(namespaces, key=lambda n: n.name))
        self.ns_index = {ns.name: i for i, ns in enumerate(self.namespaces)}
        self.ipspace = ipspace
        # Keys are plain tuples (hashing a tuple of strings is cheap; PodClass objects are built per class).
        class_ids: dict[ClassKey, int] = {}
        firsts: list[int] = []
        pod_class = np.empty(len(self.pods), dtype=np.int64)
        # Address families in play: every family some pod has an address of (IPv4 alone when none has any).
        # A pod holds one address per family (status.podIPs); each family's ipBlocks see that address only.
        present = {6 if ":" in ip else 4 for p in self.pods for ip in p.pod_ips}
        self.families: tuple[int, ...] = tuple(sorted(present)) or (4,)
        by_family = [  # per pod, the atom of its address of each family
            tuple(row)
            for row in np.stack(
                [ipspace.atom_indexes([p.ip_of(f) for p in self.pods]) for f in self.families]
            ).T.tolist()
        ]
        ports_of: dict[int, tuple[tuple[str, str, int], ...]] = {}
        for i, p in enumerate(self.pods):
            items: Iterable[tuple[str, str]] = p.labels._d.items()  # FrozenMap's own dict: Mapping.items() is slower
            if label_keys is not None:
                items = [(k, v) for k, v in items if k in label_keys]
            containers = p.containers
            named = ports_of.get(id(containers))
            if named is None:
                named = ports_of[id(containers)] = p.named_ports()
            key: ClassKey = (
                p.namespace,
                tuple(items),
                named,
                by_family[i],
                p.host_network,
                p.node_name if p.host_network else "",
                p.service_account if service_accounts else "",
            )
            c = class_ids.get(key)
            if c is None:
                c = class_ids[key] = len(firsts)
                firsts.append(i)
            pod_class[i] = c
        self.classes: tuple[PodClass, ...] = tuple(
            PodClass(ns, Labels(dict(labels)), named, _first(fam), host, node, fam, sa)
            for ns, labels, named, fam, host, node, sa in class_ids
        )
        self.pod_class = pod_class
        self.class_ns = np.array([self.ns_index[c.namespace] for c in self.classes], dtype=np.int64)
        # (families, classes): each class's atom of each family, -1 when it has no address of that family
        self.class_family_atoms = np.array([c.family_atoms for c in self.classes], dtype=np.int64).T.reshape(
            len(self.families), len(self.classes)
        )
        # (families, classes): may the class speak that family? Pods with no address at all are not ruled
        # out by any family (their ipBlock matches are empty in each).
        none = (self.class_family_atoms < 0).all(axis=0)
        self.class_has_family = (self.class_family_atoms >= 0) | none
        # hostNetwork pods are not selectable by pod/namespace selectors: their traffic carries the node IP.
        self.selectable = np.array([not c.host_network for c in self.classes], dtype=bool)
        self.class_labels = LabelColumns([c.labels for c in self.classes])
        self.ns_labels = LabelColumns([ns.labels for ns in self.namespaces])
        self._ns_masks: dict[str, np.ndarray] = {}
        # Masks compiled policies share (read-only): per pod selector, per namespace selector, per AND of shared
        # masks. Ten thousand policies repeat a few hundred selectors and peers (the DNS peer in every namespace):
        # one array each instead of one per use (at 100,000 pods, 30 KB per mask).
        self._pod_masks: dict[LabelSelector, np.ndarray] = {}
        self._nsel_masks: dict[LabelSelector, np.ndarray] = {}
        self._and_masks: dict[tuple[int, ...], tuple[tuple[np.ndarray, ...], np.ndarray]] = {}
        self._block_masks: dict[bytes, tuple[np.ndarray, ...]] = {}

    @property
    def class_count(self) -> int:
        return len(self.classes)

    @property
    def multi_family(self) -> bool:
        """Do pods speak more than one address family (a dual-stack cluster, or single-stack pods of both)?"""
        return len(self.families) > 1

    def block_classes(self, atoms: np.ndarray) -> list[np.ndarray]:
        """Per family of `families`, the classes whose address of that family lies in the atoms `atoms`
        (an ipBlock matches a pod through the address of the block's own family only)."""
        out = []
        for k in range(len(self.families)):
            fam = self.class_family_atoms[k]
            mask = np.zeros(self.class_count, dtype=bool)
            known = fam >= 0
            if known.any():
                mask[known] = atoms[fam[known]]
            out.append(mask)
        return out

    def shared_block_classes(self, atoms: np.ndarray) -> tuple[np.ndarray, ...]:
        """`block_classes`, shared and read-only: one per distinct set of atoms (the same address block in every
        namespace's policies, e.g. 0.0.0.0/0 except the private ranges, is one set of masks)."""
        key = np.packbits(atoms).tobytes() + len(atoms).to_bytes(4, "little")
        hit = self._block_masks.get(key)
        if hit is None:
            hit = self._block_masks[key] = tuple(_frozen(m) for m in self.block_classes(atoms))
        return hit

    def in_namespace(self, ns: str) -> np.ndarray:
        """Class mask of one namespace (shared and read-only: one per namespace however many policies ask)."""
        hit = self._ns_masks.get(ns)
        if hit is None:
            idx = self.ns_index.get(ns)
            hit = np.zeros(self.class_count, dtype=bool) if idx is None else self.class_ns == idx
            hit.flags.writeable = False
            self._ns_masks[ns] = hit
        return hit

    def pods_matching(self, selector: LabelSelector) -> np.ndarray:
        """Class mask: selectable classes whose labels match (shared and read-only, one per selector)."""
        hit = self._pod_masks.get(selector)
        if hit is None:
            if self.label_keys is not None:
                unknown = set(selector_keys(selector)) - self.label_keys
                if unknown:
                    raise ValueError(f"selector uses label keys {sorted(unknown)} this universe was not built for")
            hit = self._pod_masks[selector] = _frozen(self.class_labels.match(selector) & self.selectable)
        return hit

    def namespaces_matching(self, selector: LabelSelector) -> np.ndarray:
        """Class mask: classes whose namespace matches (shared and read-only, one per selector)."""
        hit = self._nsel_masks.get(selector)
        if hit is None:
            mask = self.ns_labels.match(selector)[self.class_ns] if self.class_count else np.zeros(0, dtype=bool)
            hit = self._nsel_masks[selector] = _frozen(mask)
        return hit

    def selectable_in_all(self, masks: Sequence[np.ndarray]) -> np.ndarray:
        """Class mask: selectable classes every mask holds. Over read-only masks that own their memory (the shared
        ones above: nothing can change them) the result is shared and read-only too, computed once per
        combination; otherwise a new array."""
        if not all(not m.flags.writeable and m.base is None for m in masks):
            out = self.selectable.copy()
            for m in masks:
                out &= m
            return out
        key = tuple(id(m) for m in masks)  # the entry keeps the masks alive, so their ids stay theirs
        hit = self._and_masks.get(key)
        if hit is None:
            out = self.selectable.copy()
            for m in masks:
                out &= m
            hit = self._and_masks[key] = (tuple(masks), _frozen(out))
        return hit[1]
