"""What a name stands for once resolved (`Target`), and how a Service maps its ports onto the pods it selects."""

from __future__ import annotations

from dataclasses import dataclass

from netpol.model.objects import Pod, Service, ServicePort
from netpol.ports import ConnectionSet
from netpol.targets.probe import Probe


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
