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

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import netaddr

from netpol.errors import UsageError
from netpol.model.labels import LabelSelector, parse_selector_string
from netpol.model.objects import PROTOCOLS, Pod, Service
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


@dataclass(frozen=True, slots=True)
class Probe:
    """One port of one protocol, as given by `--port P[/PROTO]`."""

    protocol: str
    port: int

    def render(self) -> str:
        return f"{self.protocol} {self.port}"

    def as_set(self) -> ConnectionSet:
        return ConnectionSet.of([(self.protocol, self.port, self.port)])


def parse_probe(text: str | None) -> Probe | None:
    """`80`, `80/TCP`, `53/udp` → Probe; None stays None."""
    if text is None:
        return None
    port_s, _, proto = str(text).partition("/")
    proto = (proto or "TCP").upper()
    if proto not in PROTOCOLS:
        raise UsageError(f"--port {text!r}: protocol must be one of {', '.join(PROTOCOLS)}")
    try:
        port = int(port_s)
    except ValueError:
        raise UsageError(f"--port {text!r}: expected PORT or PORT/PROTOCOL, e.g. 80 or 53/UDP") from None
    if not 1 <= port <= 65535:
        raise UsageError(f"--port {text!r}: port must be in 1..65535")
    return Probe(proto, port)


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
            return probe.as_set() if probe else None
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
        if probe is not None and (sp.port != probe.port or sp.protocol != probe.protocol):
            continue
        num = resolve_target_port(pod, sp.target_port, sp.protocol)
        if num is not None:
            items.append((sp.protocol, num, num))
    return ConnectionSet.of(items)


def service_selects(svc: Service, pod: Pod) -> bool:
    if svc.selector is None or pod.namespace != svc.namespace:
        return False
    return all(pod.labels.get(k) == v for k, v in svc.selector.items())


class Resolver:
    """Resolves endpoint names against one Analysis."""

    def __init__(self, analysis: Analysis) -> None:
        self.analysis = analysis
        self.r = analysis.reachability
        self.not_running = tuple(
            sorted((p for p in analysis.cluster.pods if p.key not in self.r.pod_index), key=lambda p: p.key)
        )

    # -------------------------------------------------------------------------------------- public

    def resolve(self, text: str, namespaces: Sequence[str] = ()) -> Target:
        text = text.strip()
        if not text:
            raise UsageError("empty endpoint name")
        ext = self._external(text)
        if ext is not None:
            return ext
        parts = text.split("/")
        head = parts[0].lower()
        if len(parts) in (2, 3) and head in WORKLOAD_KINDS:
            ns, name = self._ns_name(text, parts[1:], namespaces)
            return self.workload(WORKLOAD_KINDS[head], ns, name, text)
        if len(parts) in (2, 3) and head in SERVICE_PREFIXES:
            ns, name = self._ns_name(text, parts[1:], namespaces)
            return self.service(ns, name, text)
        if len(parts) == 3 and head in POD_PREFIXES:
            parts = parts[1:]
        if len(parts) == 2:
            return self.pod(parts[0], parts[1], text)
        if len(parts) == 1:
            return self.bare(text, namespaces)
        raise UsageError(
            f"cannot read endpoint {text!r}: expected ns/pod, pod, deploy/ns/name, sts/…, ds/…, svc/ns/name, "
            "an IP address or a CIDR"
        )

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
        close = [p.key for p in self.r.pods if p.name == name or p.namespace == ns][:10]
        hint = f" (pods with that name or namespace: {', '.join(close)})" if close else ""
        raise UsageError(f"pod {key} not found{hint}")

    def bare(self, name: str, namespaces: Sequence[str] = ()) -> Target:
        every = [*self.r.pods, *self.not_running]
        hits = sorted(
            {p.key for p in every if p.name == name and (not namespaces or p.namespace in namespaces)},
        )
        if not hits:
            raise UsageError(
                f"no pod named {name!r}{' in ' + ', '.join(namespaces) if namespaces else ''}; "
                "name it as ns/pod, deploy/ns/name, svc/ns/name, or give an IP/CIDR"
            )
        if len(hits) > 1:
            raise UsageError(f"{name!r} is ambiguous: {', '.join(hits)}; say which, e.g. {hits[0]}")
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
        if not t.pods and not t.pending:
            known = sorted({workload_label(p) for p in [*self.r.pods, *self.not_running] if p.owner})
            raise UsageError(
                f"{kind} {ns}/{name} has no pods" + (f" (workloads: {', '.join(known[:10])})" if known else "")
            )
        return t

    def service(self, ns: str, name: str, text: str = "") -> Target:
        svc = next((s for s in self.analysis.cluster.services if s.namespace == ns and s.name == name), None)
        if svc is None:
            known = sorted(s.key for s in self.analysis.cluster.services)
            raise UsageError(f"Service {ns}/{name} not found" + (f" (services: {', '.join(known)})" if known else ""))
        if svc.selector is None:
            raise UsageError(f"Service {ns}/{name} has no selector: its endpoints are not known from the manifests")
        pods = tuple(i for i, p in enumerate(self.r.pods) if service_selects(svc, p))
        t = Target(
            text or f"svc/{ns}/{name}",
            pods,
            tuple(p for p in self.not_running if service_selects(svc, p)),
            service=svc,
        )
        return t

    # -------------------------------------------------------------------------------------- helpers

    def _external(self, text: str) -> Target | None:
        if not re.fullmatch(r"[0-9a-fA-F:.]+(/\d{1,3})?", text) or ("." not in text and ":" not in text):
            return None
        try:
            net = netaddr.IPNetwork(text)
        except (netaddr.AddrFormatError, ValueError, TypeError):
            raise UsageError(f"{text!r} is not a valid IP address or CIDR") from None
        space = self.r.ipspace
        if net.version not in space._starts:  # noqa: SLF001 - IPv6 peer in a space built without IPv6
            raise UsageError(f"{text}: no pod or policy of this cluster uses IPv{net.version}")
        lo = space.atom_index(netaddr.IPAddress(net.first, net.version))
        hi = space.atom_index(netaddr.IPAddress(net.last, net.version))
        return Target(text, atoms=tuple(range(lo, hi + 1)), cidr=str(net.cidr) if "/" in text else str(net.ip))

    def _ns_name(self, text: str, rest: list[str], namespaces: Sequence[str]) -> tuple[str, str]:
        if len(rest) == 2:
            return rest[0], rest[1]
        if len(namespaces) == 1:
            return namespaces[0], rest[0]
        raise UsageError(f"{text!r}: give the namespace, e.g. {text.split('/')[0]}/NAMESPACE/{rest[0]} (or -n NS)")

    def _check_namespaces(self, namespaces: Iterable[str]) -> None:
        check_namespaces(self.analysis, namespaces)


def check_namespaces(analysis: Analysis, namespaces: Iterable[str]) -> None:
    """A usage error naming the known namespaces when one of `namespaces` is not in the cluster."""
    known = {ns.name for ns in analysis.cluster.namespaces}
    for ns in namespaces:
        if ns not in known:
            raise UsageError(f"namespace {ns!r} not found (known: {', '.join(sorted(known))})")


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
