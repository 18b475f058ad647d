"""Resolving endpoint names against one analysis: pods, workloads, Services, selectors, namespaces, addresses,
with usage errors that name what exists instead."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import assert_never

import netaddr

from netpol.errors import UsageError
from netpol.ipam import DEFAULT_CLUSTER_CIDR
from netpol.model.labels import LabelSelector, parse_selector_string
from netpol.model.objects import Pod
from netpol.pipeline import Analysis
from netpol.targets.grammar import KIND_PREFIX, parse_endpoint, workload_of
from netpol.targets.probe import Probe
from netpol.targets.suggest import did_you_mean, listing, nearest
from netpol.targets.target import Target, service_selects


class Resolver:
    """Resolves endpoint names against one Analysis; every command and the expectation files use it."""

    def __init__(self, analysis: Analysis, cluster_cidr: str | None = None) -> None:
        self.analysis = analysis
        self.r = analysis.reachability
        self.cluster_cidr = cluster_cidr or DEFAULT_CLUSTER_CIDR
        self.not_running = tuple(
            sorted((p for p in analysis.cluster.pods if p.key not in self.r.pod_index), key=lambda p: p.key)
        )

    # -------------------------------------------------------------------------------------- public

    def resolve(self, text: str, namespaces: Sequence[str] = ()) -> Target:
        ref = parse_endpoint(text, namespaces)
        match ref.kind:
            case "address":
                return self.address(ref.text)
            case "workload":
                assert ref.namespace is not None and ref.workload_kind is not None
                return self.workload(ref.workload_kind, ref.namespace, ref.name, ref.text)
            case "service":
                assert ref.namespace is not None
                return self.service(ref.namespace, ref.name, ref.text)
            case "pod":
                assert ref.namespace is not None
                return self.pod(ref.namespace, ref.name, ref.text)
            case "bare":
                return self.bare(ref.name, namespaces)
            case _:
                assert_never(ref.kind)

    def selector(self, selector: str | LabelSelector, namespaces: Sequence[str] = (), text: str = "") -> Target:
        try:
            sel = parse_selector_string(selector) if isinstance(selector, str) else selector
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        self._check_namespaces(namespaces)
        label = text or f"-l {selector if isinstance(selector, str) else selector.render()}"

        def ok(p: Pod) -> bool:
            return (not namespaces or p.namespace in namespaces) and sel.matches(p.labels)

        return Target(
            label,
            tuple(i for i, p in enumerate(self.r.pods) if ok(p)),
            tuple(p for p in self.not_running if ok(p)),
        )

    def namespace(self, ns: str, text: str = "") -> Target:
        self._check_namespaces([ns])
        return Target(
            text or f"namespace {ns}",
            tuple(i for i, p in enumerate(self.r.pods) if p.namespace == ns),
            tuple(p for p in self.not_running if p.namespace == ns),
        )

    def pod(self, ns: str, name: str, text: str = "") -> Target:
        key = f"{ns}/{name}"
        i = self.r.pod_index.get(key)
        if i is not None:
            return Target(text or key, (i,))
        for p in self.not_running:
            if p.key == key:
                return Target(text or key, (), (p,))
        if ns not in self._namespaces():
            raise UsageError(f"pod {key} not found: no namespace {ns!r}{did_you_mean(ns, self._namespaces())}")
        others = [p.key for p in self._every_pod() if p.name == name]
        hint = f" (a pod of that name runs in {listing(others)})" if others else ""
        raise UsageError(f"pod {key} not found{hint}{self._name_hint(name, ns)}")

    def bare(self, name: str, namespaces: Sequence[str] = ()) -> Target:
        self._check_namespaces(namespaces)
        hits = sorted(
            {p.key for p in self._every_pod() if p.name == name and (not namespaces or p.namespace in namespaces)},
        )
        if not hits:
            where = f" in {', '.join(namespaces)}" if namespaces else ""
            hint = self._name_hint(name, None, namespaces) or (
                " (name an endpoint as ns/pod, deploy/ns/name, svc/ns/name, or give an IP/CIDR)"
            )
            raise UsageError(f"no pod named {name!r}{where}{hint}")
        if len(hits) > 1:
            raise UsageError(f"{name!r} is ambiguous: {listing(hits)}; say which, e.g. {hits[0]}")
        ns, _, pod_name = hits[0].partition("/")
        return self.pod(ns, pod_name, name)

    def workload(self, kind: str, ns: str, name: str, text: str = "") -> Target:
        def ok(p: Pod) -> bool:
            return p.namespace == ns and workload_of(p) == (kind, name)

        t = Target(
            text or f"{ns}/{name}[{kind}]",
            tuple(i for i, p in enumerate(self.r.pods) if ok(p)),
            tuple(p for p in self.not_running if ok(p)),
        )
        if t.pods or t.pending:
            return t
        prefix = KIND_PREFIX.get(kind, kind.lower())
        known = self._workloads()
        if (kind, ns, name) in known:
            raise UsageError(f"{kind} {ns}/{name} has no pods (no replicas, or none of its pods is in the input)")
        same_kind = sorted(f"{prefix}/{n}/{w}" for k, n, w in known if k == kind)
        others = sorted(f"{KIND_PREFIX.get(k, k.lower())}/{n}/{w}" for k, n, w in known if k != kind and w == name)
        hint = did_you_mean(name, same_kind + others, key=lambda ref: ref.rpartition("/")[2])
        in_ns = [r.rpartition("/")[2] for r in same_kind if r.split("/")[1] == ns]
        known_text = f" ({kind}s in {ns}: {listing(in_ns)})" if in_ns else ""
        raise UsageError(f"{kind} {ns}/{name} does not exist{hint}{known_text}")

    def service(self, ns: str, name: str, text: str = "") -> Target:
        svc = next((s for s in self.analysis.cluster.services if s.namespace == ns and s.name == name), None)
        if svc is None:
            known = sorted(f"svc/{s.key}" for s in self.analysis.cluster.services)
            hint = did_you_mean(name, known, key=lambda ref: ref.rpartition("/")[2])
            in_ns = [r.rpartition("/")[2] for r in known if r.split("/")[1] == ns]
            raise UsageError(
                f"Service {ns}/{name} not found{hint}" + (f" (Services in {ns}: {listing(in_ns)})" if in_ns else "")
            )
        if svc.selector is None:
            raise UsageError(f"Service {ns}/{name} has no selector: its endpoints are not known from the manifests")
        pods = tuple(i for i, p in enumerate(self.r.pods) if service_selects(svc, p))
        return Target(
            text or f"svc/{ns}/{name}",
            pods,
            tuple(p for p in self.not_running if service_selects(svc, p)),
            service=svc,
        )

    def address(self, text: str) -> Target:
        """An IP, a CIDR or a range as the outputs print it (FIRST-LAST). A single address that is a running
        pod's is that pod (said in a note); one inside a pod range that no pod holds is answered as an external
        address, after a note saying so."""
        if "-" in text:
            return self._range(text)
        try:
            net = netaddr.IPNetwork(text)
        except (netaddr.AddrFormatError, ValueError, TypeError):
            raise UsageError(f"{text!r} is not a valid IP address or CIDR") from None
        single = "/" not in text
        if single:
            holders = self._ip_holders().get(net.ip, ())
            if holders:
                keys = [self.r.pods[i].key for i in holders]
                pod = self.r.pods[holders[0]]
                if pod.host_network:
                    note = f"{net.ip} is node {pod.node_name}'s address, used by hostNetwork pod(s) {listing(keys)}"
                else:
                    note = f"{net.ip} is the address of pod {listing(keys)}"
                return Target(text, pods=holders, notes=(note + "; answering for the pod",))
        try:
            lo = self.r.atom_index(netaddr.IPAddress(net.first, net.version))
            hi = self.r.atom_index(netaddr.IPAddress(net.last, net.version))
        except KeyError:
            raise UsageError(f"{text}: no pod or policy of this cluster uses IPv{net.version}") from None
        notes: list[str] = []
        if single:
            where = self._pod_range_of(net.ip)
            if where:
                notes.append(
                    f"no pod has the address {net.ip} (inside {where}); answering for it as an external address"
                )
        else:
            inside = sorted(self.r.pods[i].key for ip, ids in self._ip_holders().items() if ip in net for i in ids)
            if inside:
                notes.append(
                    f"{net.cidr} also holds the addresses of pods ({listing(inside, 5)}); as a CIDR it stands for "
                    "the external addresses only: name pods with ns/pod, deploy/ns/name or -l"
                )
        return Target(
            text, atoms=tuple(range(lo, hi + 1)), cidr=str(net.cidr) if not single else str(net.ip), notes=tuple(notes)
        )

    def _range(self, text: str) -> Target:
        """FIRST-LAST, the printed form of an external range (`0.0.0.0-9.255.255.255`): the atoms it spans. A
        range of one address is that address (outputs print it alone, and may have printed `a-a`)."""
        first, _, last = text.partition("-")
        try:
            span = netaddr.IPRange(first.strip(), last.strip())
        except (netaddr.AddrFormatError, ValueError, TypeError):
            raise UsageError(
                f"{text!r} is not a valid address range (FIRST-LAST, both of one family, FIRST not after LAST)"
            ) from None
        if span.first == span.last:
            return self.address(first.strip())
        try:
            lo = self.r.atom_index(netaddr.IPAddress(span.first, span.version))
            hi = self.r.atom_index(netaddr.IPAddress(span.last, span.version))
        except KeyError:
            raise UsageError(f"{text}: no pod or policy of this cluster uses IPv{span.version}") from None
        inside = sorted(self.r.pods[i].key for ip, ids in self._ip_holders().items() if ip in span for i in ids)
        notes = (
            (
                f"{text} also holds the addresses of pods ({listing(inside, 5)}); as a range it stands for the "
                "external addresses only: name pods with ns/pod, deploy/ns/name or -l",
            )
            if inside
            else ()
        )
        return Target(text, atoms=tuple(range(lo, hi + 1)), cidr=f"{span[0]}-{span[-1]}", notes=notes)

    # -------------------------------------------------------------------------------------- helpers

    def _every_pod(self) -> list[Pod]:
        return [*self.r.pods, *self.not_running]

    def _namespaces(self) -> list[str]:
        return sorted({ns.name for ns in self.analysis.cluster.namespaces})

    def _workloads(self) -> set[tuple[str, str, str]]:
        """(kind, namespace, name) of every workload the input declares or its pods' owners name."""
        out = {(w.kind, w.namespace, w.name) for w in self.analysis.cluster.workloads}
        for p in self._every_pod():
            if p.owner is not None:
                kind, name = workload_of(p)
                out.add((kind, p.namespace, name))
        return out

    def _name_hint(self, name: str, ns: str | None, namespaces: Sequence[str] = ()) -> str:
        """Did you mean: nearest pods (in `ns` when given), and workloads or Services of that very name."""
        pods = [
            p.key
            for p in self._every_pod()
            if (ns is None or p.namespace == ns) and (not namespaces or p.namespace in namespaces)
        ]
        near = nearest(name, pods, key=lambda k: k.partition("/")[2])
        exact = sorted(
            f"{KIND_PREFIX.get(k, k.lower())}/{n}/{w}"
            for k, n, w in self._workloads()
            if w == name and (ns is None or n == ns)
        ) + sorted(
            f"svc/{s.key}"
            for s in self.analysis.cluster.services
            if s.name == name and (ns is None or s.namespace == ns)
        )
        near = exact + [n for n in near if n not in exact]
        if not near:
            return ""
        return f"; did you mean {', '.join(near[:5])}{', …' if len(near) > 5 else ''}?"

    def _ip_holders(self) -> dict[netaddr.IPAddress, tuple[int, ...]]:
        cached = self.__dict__.get("_holders")
        if cached is None:
            by_ip: dict[netaddr.IPAddress, list[int]] = {}
            for i, p in enumerate(self.r.pods):
                for ip in p.pod_ips:
                    by_ip.setdefault(netaddr.IPAddress(ip), []).append(i)
            cached = self.__dict__["_holders"] = {ip: tuple(ids) for ip, ids in by_ip.items()}
        return cached

    def _pod_range_of(self, ip: netaddr.IPAddress) -> str | None:
        """Which pod range holds `ip`: a node's spec.podCIDR, or the cluster CIDR IPAM hands out from."""
        nodes = self.analysis.cluster.nodes
        for n in sorted(nodes, key=lambda n: n.name):
            for cidr in n.pod_cidrs:
                if ip in netaddr.IPNetwork(cidr):
                    return f"node {n.name}'s pod range {cidr}"
        if not nodes or any(not n.pod_cidr for n in nodes):
            for cidr in self.cluster_cidr.split(","):  # a dual-stack --cluster-cidr: one range per family
                if ip in netaddr.IPNetwork(cidr):
                    return f"the cluster's pod range {cidr}"
        return None

    def _check_namespaces(self, namespaces: Iterable[str]) -> None:
        check_namespaces(self.analysis, namespaces)


def check_named_port(analysis: Analysis, probe: Probe | None, target: Target, option: str = "--port") -> None:
    """A named port must mean something on the destination: some pod of it (or its Service) names it."""
    if probe is None or probe.name is None:
        return
    if target.is_external:
        probe.as_set()  # raises: an address has no port names
    if target.service is not None:
        names = sorted({sp.name for sp in target.service.ports if sp.name and sp.protocol == probe.protocol})
        if probe.name not in names:
            raise UsageError(
                f"{option} {probe.name}/{probe.protocol}: Service {target.service.key} has no {probe.protocol} port of "
                f"that name (its port names: {listing(names) or 'none'})"
            )
        return
    pods = [analysis.reachability.pods[i] for i in target.pods] + list(target.pending)
    names = sorted({n for p in pods for n, proto, _ in p.named_ports() if proto == probe.protocol})
    if pods and probe.name not in names:
        raise UsageError(
            f"{option} {probe.name}/{probe.protocol}: no pod of {target.text} names a {probe.protocol} port so "
            f"(their port names: {listing(names) or 'none'}); give a number, or one of those names"
        )


def check_namespaces(analysis: Analysis, namespaces: Iterable[str]) -> None:
    """A usage error naming the known namespaces when one of `namespaces` is not in the cluster."""
    known = sorted({ns.name for ns in analysis.cluster.namespaces})
    for ns in namespaces:
        if ns not in known:
            raise UsageError(f"namespace {ns!r} not found{did_you_mean(ns, known)} (known: {listing(known)})")
