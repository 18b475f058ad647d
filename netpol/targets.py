"""Naming endpoints on the command line and in expectation files.

Accepted forms (kubectl-like):
- `ns/name` — a pod; a bare `name` is looked up in every namespace (ambiguous → an error listing the
  candidates);
- `deploy/ns/name`, `sts/…`, `ds/…`, `rs/…`, `job/…`, `cronjob/…` — the pods of a workload;
- `svc/ns/name` — the pods backing a Service; its ports map Service port → targetPort (a named targetPort is
  resolved on each backing pod, as kube-proxy does: policies see the port after DNAT);
- a label selector (`-l app=web` with `-n NS`, every namespace without `-n`);
- an IPv4/IPv6 address or CIDR — an external peer, i.e. the IP atoms it overlaps.

Pods that match but do not run (Pending, Succeeded, Failed) are kept aside in `Target.pending`, so the
questions can say why they take no part.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, assert_never

import netaddr

from netpol.errors import UsageError
from netpol.ipam import DEFAULT_CLUSTER_CIDR
from netpol.model.labels import LabelSelector, parse_selector_string
from netpol.model.objects import PROTOCOLS, Pod, Service, ServicePort
from netpol.pipeline import Analysis
from netpol.ports import ConnectionSet

WORKLOAD_KINDS = {
    "deploy": "Deployment",
    "deployment": "Deployment",
    "deployments": "Deployment",
    "sts": "StatefulSet",
    "statefulset": "StatefulSet",
    "statefulsets": "StatefulSet",
    "ds": "DaemonSet",
    "daemonset": "DaemonSet",
    "daemonsets": "DaemonSet",
    "rs": "ReplicaSet",
    "replicaset": "ReplicaSet",
    "replicasets": "ReplicaSet",
    "job": "Job",
    "jobs": "Job",
    "cj": "CronJob",
    "cronjob": "CronJob",
    "cronjobs": "CronJob",
}
SERVICE_PREFIXES = ("svc", "service", "services")
POD_PREFIXES = ("po", "pod", "pods")

_CRONJOB_JOB = re.compile(r"^(?P<base>.+)-\d{8}$")


PORT_NAME = re.compile(r"^[a-z0-9]([a-z0-9-]{0,13}[a-z0-9])?$")  # IANA_SVC_NAME, as containerPort names


@dataclass(frozen=True, slots=True)
class Probe:
    """The destination ports a question asks about, in the one port grammar every option shares:
    `P`, `P/PROTO`, `LO-HI[/PROTO]` or a named port `NAME[/PROTO]` (resolved on each destination pod, as
    NetworkPolicy resolves named ports; on a Service destination, the Service port of that name)."""

    protocol: str
    port: int  # the port, or the first of a range; 0 for a named port
    end: int | None = None  # last port of a range
    name: str | None = None  # a named port

    @property
    def single(self) -> bool:
        return self.name is None and self.end is None

    def render(self) -> str:
        if self.name is not None:
            return f"{self.protocol} {self.name}"
        if self.end is not None:
            return f"{self.protocol} {self.port}-{self.end}"
        return f"{self.protocol} {self.port}"

    def as_set(self) -> ConnectionSet:
        if self.name is not None:
            raise UsageError(
                f"port {self.name!r} is a named port: it means a number only on a destination pod that names it; "
                "here the destination is not one pod, give the number"
            )
        return ConnectionSet.of([(self.protocol, self.port, self.end or self.port)])

    def on(self, pod: Pod) -> ConnectionSet:
        """The ports this probe means on destination `pod` (a named port resolved on its containers)."""
        if self.name is None:
            return self.as_set()
        nums = [num for name, proto, num in pod.named_ports() if name == self.name and proto == self.protocol]
        return ConnectionSet.of([(self.protocol, n, n) for n in nums])


def _port_number(text: str, whole: str, option: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise UsageError(
            f"{option} {whole!r}: expected P, P/PROTO, LO-HI or a port name (e.g. 80, 53/UDP, 8000-8080, http)"
        ) from None
    if not 1 <= port <= 65535:
        raise UsageError(f"{option} {whole!r}: port must be in 1..65535")
    return port


def parse_port(text: str, option: str = "--port") -> Probe:
    """The one port grammar: `80`, `80/TCP`, `53/udp`, `8000-8080`, `8000-8080/UDP`, `http`, `dns/UDP`."""
    whole = str(text).strip()
    port_s, _, proto = whole.partition("/")
    proto = (proto or "TCP").upper()
    if proto not in PROTOCOLS:
        raise UsageError(f"{option} {whole!r}: protocol must be one of {', '.join(PROTOCOLS)}")
    port_s = port_s.strip()
    if port_s and not port_s[0].isdigit() and PORT_NAME.match(port_s) and not port_s.isdigit():
        return Probe(proto, 0, name=port_s)
    lo_s, dash, hi_s = port_s.partition("-")
    lo = _port_number(lo_s, whole, option)
    if not dash:
        return Probe(proto, lo)
    hi = _port_number(hi_s, whole, option)
    if hi < lo:
        raise UsageError(f"{option} {whole!r}: a range goes from low to high (LO-HI)")
    return Probe(proto, lo) if hi == lo else Probe(proto, lo, hi)


def parse_probe(text: str | Probe | None, option: str = "--port") -> Probe | None:
    """`parse_port`, with None staying None (the option was not given) and a Probe staying itself."""
    if text is None or isinstance(text, Probe):
        return text
    return parse_port(text, option)


# ------------------------------------------------------------------------------------------ suggestions


def listing(items: Sequence[str], limit: int = 10) -> str:
    """`a, b, c`, or the first `limit` items and `… and N more`: a list that was cut says so."""
    shown = ", ".join(items[:limit])
    return shown + (f", … and {len(items) - limit} more" if len(items) > limit else "")


def nearest(word: str, candidates: Iterable[str], n: int = 5, key=None) -> list[str]:  # noqa: ANN001
    """The candidates closest to `word` (difflib's ratio, then those containing it or contained in it)."""
    cands = sorted(set(candidates))
    keyed = {c: (key(c) if key else c) for c in cands}
    by_key: dict[str, list[str]] = {}
    for c, k in keyed.items():
        by_key.setdefault(k, []).append(c)
    w = word.lower()
    close = difflib.get_close_matches(w, [k.lower() for k in by_key], n=n, cutoff=0.6)
    lower = {k.lower(): k for k in by_key}
    out: list[str] = []
    for k in close:
        out += by_key[lower[k]]
    out += [c for c, k in keyed.items() if c not in out and len(w) >= 3 and (w in k.lower() or k.lower() in w)]
    return out[:n]


def did_you_mean(word: str, candidates: Iterable[str], key=None) -> str:  # noqa: ANN001
    near = nearest(word, candidates, key=key)
    return (
        f"; did you mean {' or '.join(near) if len(near) <= 2 else ', '.join(near[:-1]) + ' or ' + near[-1]}?"
        if near
        else ""
    )


# ------------------------------------------------------------------------------------------ the grammar

EndpointKind = Literal["pod", "bare", "workload", "service", "address"]


@dataclass(frozen=True, slots=True)
class EndpointRef:
    """An endpoint name as written, parsed but not yet looked up in a cluster."""

    kind: EndpointKind
    text: str
    namespace: str | None = None  # None: not given (a bare name, or `deploy/NAME` with -n)
    name: str = ""
    workload_kind: str | None = None  # Deployment, … for kind == "workload"


_LABEL_FORM = re.compile(r"^(?P<ns>[^/\[\]]+)/(?P<name>[^/\[\]]+)\[(?P<kind>[A-Za-z]+)\]$")
_IP_LIKE = re.compile(r"^[0-9a-fA-F:.]+(/\d{1,3})?$")
_KIND_PREFIX = {
    "Deployment": "deploy",
    "StatefulSet": "sts",
    "DaemonSet": "ds",
    "ReplicaSet": "rs",
    "Job": "job",
    "CronJob": "cronjob",
}


def looks_like_address(text: str) -> bool:
    return bool(_IP_LIKE.match(text)) and ("." in text or ":" in text)


def parse_endpoint(text: str, namespaces: Sequence[str] = ()) -> EndpointRef:
    """Read an endpoint name (see the module docstring); raises UsageError for text that is none."""
    text = text.strip()
    if not text:
        raise UsageError("empty endpoint name")
    if looks_like_address(text):
        return EndpointRef("address", text)
    m = _LABEL_FORM.match(text)  # the form the outputs print: web/frontend[Deployment], web/test[Pod]
    if m:
        kind = next((k for k in (*_KIND_PREFIX, "Pod") if k.lower() == m["kind"].lower()), None)
        if kind is None:
            raise UsageError(f"{text!r}: unknown kind {m['kind']!r} (known: {', '.join([*_KIND_PREFIX, 'Pod'])})")
        if kind == "Pod":
            return EndpointRef("pod", text, m["ns"], m["name"])
        return EndpointRef("workload", text, m["ns"], m["name"], kind)
    parts = text.split("/")
    head = parts[0].lower()
    if any(not p for p in parts):
        raise UsageError(f"cannot read endpoint {text!r}: an empty part between slashes")
    if len(parts) in (2, 3) and (head in WORKLOAD_KINDS or head in SERVICE_PREFIXES):
        if len(parts) == 3:
            ns, name = parts[1], parts[2]
        elif len(namespaces) == 1:
            ns, name = namespaces[0], parts[1]
        else:
            raise UsageError(f"{text!r}: give the namespace, e.g. {parts[0]}/NAMESPACE/{parts[1]} (or -n NS)")
        if head in SERVICE_PREFIXES:
            return EndpointRef("service", text, ns, name)
        return EndpointRef("workload", text, ns, name, WORKLOAD_KINDS[head])
    if len(parts) == 3 and head in POD_PREFIXES:
        parts = parts[1:]
    if len(parts) == 2:
        return EndpointRef("pod", text, parts[0], parts[1])
    if len(parts) == 1:
        return EndpointRef("bare", text, None, text)
    raise UsageError(
        f"cannot read endpoint {text!r}: expected ns/pod, pod, deploy/ns/name, sts/…, ds/…, svc/ns/name, "
        "an IP address or a CIDR"
    )


def is_endpoint_syntax(text: str) -> bool:
    try:
        parse_endpoint(text)
    except UsageError:
        return False
    return True


def resolve_pod_name(text: str, keys: Iterable[str], namespaces: Sequence[str] = ()) -> str:
    """One pod's key (`ns/name`) from `ns/name`, `pod/ns/name`, `ns/name[Pod]` or a bare name, among `keys`:
    for options that name exactly one pod (`netpol schedule --explain`, the UI's `:pod`)."""
    ref = parse_endpoint(text, namespaces)
    known = sorted(set(keys))
    if ref.kind == "pod":
        key = f"{ref.namespace}/{ref.name}"
        if key in known:
            return key
        raise UsageError(f'pods "{key}" not found{did_you_mean(key, known)}')  # kubectl's wording
    if ref.kind == "bare":
        hits = [
            k
            for k in known
            if k.partition("/")[2] == ref.name and (not namespaces or k.partition("/")[0] in namespaces)
        ]
        if len(hits) == 1:
            return hits[0]
        if hits:
            raise UsageError(f"{ref.name!r} is ambiguous: {listing(hits)}; say which, e.g. {hits[0]}")
        where = f" in {', '.join(namespaces)}" if namespaces else ""
        hint = did_you_mean(ref.name, known, key=lambda k: k.partition("/")[2])
        raise UsageError(f"no pod named {ref.name!r}{where}{hint}")
    raise UsageError(f"{text!r} names a {ref.kind}, not one pod: give ns/pod or a pod name")


def workload_of(pod: Pod) -> tuple[str, str]:
    """(kind, name) of the controller a pod belongs to; ("Pod", name) for a bare pod.

    A ReplicaSet owning pods with a `pod-template-hash` label named `<name>-<hash>` is a Deployment's; a Job
    named `<name>-<8 digits>` is a CronJob's (the controllers' own naming).
    """
    o = pod.owner
    if o is None:
        return "Pod", pod.name
    if o.kind == "ReplicaSet":
        h = pod.labels.get("pod-template-hash")
        if h and o.name.endswith("-" + h):
            return "Deployment", o.name[: -len(h) - 1]
    if o.kind == "Job":
        m = _CRONJOB_JOB.match(o.name)
        if m:
            return "CronJob", m.group("base")
    return o.kind, o.name


def workload_label(pod: Pod) -> str:
    """`web/frontend[Deployment]`, `web/test[Pod]`."""
    kind, name = workload_of(pod)
    return f"{pod.namespace}/{name}[{kind}]"


@dataclass(frozen=True)
class Target:
    """What a name on the command line stands for: running pods or external IP atoms."""

    text: str
    pods: tuple[int, ...] = ()  # indexes into Reachability.pods
    pending: tuple[Pod, ...] = ()  # matching pods that take no part in traffic
    atoms: tuple[int, ...] = ()  # external IP atoms (for IP / CIDR targets)
    cidr: str | None = None
    service: Service | None = None
    notes: tuple[str, ...] = ()  # how the name was read, when that is not obvious (an IP that is a pod's)

    @property
    def is_external(self) -> bool:
        return self.cidr is not None

    def empty(self) -> bool:
        return not self.pods and not self.atoms

    def dst_ports(self, pod: Pod, probe: Probe | None) -> ConnectionSet | None:
        """The destination ports that matter on `pod`, when it is reached as this target (None: every port).

        A Service target maps a probe's Service port to that pod's targetPort; without a probe, every
        targetPort of the Service.
        """
        if self.service is None:
            return probe.on(pod) if probe else None
        return service_target_ports(self.service, pod, probe)


def resolve_target_port(pod: Pod, target: int | str, protocol: str) -> int | None:
    """A Service targetPort on one backing pod: a number as is, a name looked up in its container ports."""
    if isinstance(target, int):
        return target
    for name, proto, num in pod.named_ports():
        if name == target and proto == protocol:
            return num
    return None


def service_target_ports(svc: Service, pod: Pod, probe: Probe | None = None) -> ConnectionSet:
    """Ports on `pod` that `svc` forwards to (only for the Service port of `probe`, when given)."""
    items = []
    for sp in svc.ports:
        if probe is not None and not _service_port_matches(sp, probe):
            continue
        num = resolve_target_port(pod, sp.target_port, sp.protocol)
        if num is not None:
            items.append((sp.protocol, num, num))
    return ConnectionSet.of(items)


def _service_port_matches(sp: ServicePort, probe: Probe) -> bool:
    if sp.protocol != probe.protocol:
        return False
    if probe.name is not None:
        return sp.name == probe.name
    return probe.port <= sp.port <= (probe.end or probe.port)


def service_selects(svc: Service, pod: Pod) -> bool:
    if svc.selector is None or pod.namespace != svc.namespace:
        return False
    return all(pod.labels.get(k) == v for k, v in svc.selector.items())


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
        prefix = _KIND_PREFIX.get(kind, kind.lower())
        known = self._workloads()
        if (kind, ns, name) in known:
            raise UsageError(f"{kind} {ns}/{name} has no pods (no replicas, or none of its pods is in the input)")
        same_kind = sorted(f"{prefix}/{n}/{w}" for k, n, w in known if k == kind)
        others = sorted(f"{_KIND_PREFIX.get(k, k.lower())}/{n}/{w}" for k, n, w in known if k != kind and w == name)
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
        """An IP or CIDR. A single address that is a running pod's is that pod (said in a note); one inside a
        pod range that no pod holds is answered as an external address, after a note saying so."""
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
        space = self.r.ipspace
        try:
            lo = space.atom_index(netaddr.IPAddress(net.first, net.version))
            hi = space.atom_index(netaddr.IPAddress(net.last, net.version))
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
            f"{_KIND_PREFIX.get(k, k.lower())}/{n}/{w}"
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
                for ip in getattr(p, "pod_ips", None) or ((p.pod_ip,) if p.pod_ip else ()):
                    by_ip.setdefault(netaddr.IPAddress(ip), []).append(i)
            cached = self.__dict__["_holders"] = {ip: tuple(ids) for ip, ids in by_ip.items()}
        return cached

    def _pod_range_of(self, ip: netaddr.IPAddress) -> str | None:
        """Which pod range holds `ip`: a node's spec.podCIDR, or the cluster CIDR IPAM hands out from."""
        nodes = self.analysis.cluster.nodes
        for n in sorted(nodes, key=lambda n: n.name):
            for cidr in getattr(n, "pod_cidrs", None) or ((n.pod_cidr,) if n.pod_cidr else ()):
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


def resolve_endpoint(
    analysis: Analysis,
    text: str | None,
    *,
    selector: str | None = None,
    namespaces: Sequence[str] = (),
    resolver: Resolver | None = None,
) -> Target:
    """The CLI's entry point: a positional name, or `-l SELECTOR` (with `-n`)."""
    res = resolver or Resolver(analysis)
    if selector is not None:
        if text:
            raise UsageError("give either an endpoint name or -l SELECTOR, not both")
        return res.selector(selector, namespaces)
    if not text:
        raise UsageError("an endpoint is required (ns/pod, pod, deploy/ns/name, svc/ns/name, IP/CIDR, or -l)")
    return res.resolve(text, namespaces)
