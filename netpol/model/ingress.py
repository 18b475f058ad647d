"""networking.k8s.io/v1 Ingress and IngressClass as frozen values: which Service ports an ingress controller
forwards to, and which controller does it (concepts/services-networking/ingress, ingress-controllers)."""

from __future__ import annotations

from dataclasses import dataclass

from netpol.errors import SourceRef
from netpol.model.labels import EMPTY_LABELS, FrozenMap

# The annotation that marks the cluster's default IngressClass, used by Ingresses naming none
# (concepts/services-networking/ingress, "Default IngressClass").
DEFAULT_CLASS_ANNOTATION = "ingressclass.kubernetes.io/is-default-class"
# The annotation Ingresses used before spec.ingressClassName (deprecated, still read by controllers).
CLASS_ANNOTATION = "kubernetes.io/ingress.class"


@dataclass(frozen=True, slots=True)
class ServiceBackend:
    """IngressServiceBackend: a Service of the Ingress's namespace and one of its ports, by name or number."""

    name: str
    port_name: str = ""
    port_number: int | None = None

    def render_port(self) -> str:
        return self.port_name or str(self.port_number)


@dataclass(frozen=True, slots=True)
class IngressBackend:
    """IngressBackend: a Service, or a resource of another API (`Kind/name`, forwarded by the controller
    itself: no pod behind it here)."""

    service: ServiceBackend | None = None
    resource: str = ""


@dataclass(frozen=True, slots=True)
class IngressPath:
    path: str
    path_type: str
    backend: IngressBackend


@dataclass(frozen=True, slots=True)
class IngressRule:
    host: str  # "" matches every host
    paths: tuple[IngressPath, ...] = ()


@dataclass(frozen=True, slots=True)
class Ingress:
    namespace: str
    name: str
    class_name: str | None  # spec.ingressClassName, else the deprecated annotation; None: the default class
    default_backend: IngressBackend | None = None
    rules: tuple[IngressRule, ...] = ()
    tls_hosts: tuple[str, ...] = ()  # hosts named under spec.tls (HTTPS on the controller)
    tls: bool = False  # spec.tls present: the controller serves HTTPS (443) for those hosts
    source: SourceRef = SourceRef()
    annotations: FrozenMap[str] = EMPTY_LABELS  # read for the audit's per-object acceptance

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def backends(self) -> tuple[tuple[str, IngressBackend], ...]:
        """(where, backend) for the default backend and every rule path, in spec order."""
        out: list[tuple[str, IngressBackend]] = []
        if self.default_backend is not None:
            out.append(("defaultBackend", self.default_backend))
        for rule in self.rules:
            for p in rule.paths:
                out.append((f"{rule.host or '*'}{p.path or '/'}", p.backend))
        return tuple(out)


@dataclass(frozen=True, slots=True)
class IngressClass:
    name: str
    controller: str  # e.g. k8s.io/ingress-nginx
    default: bool = False  # annotated as the cluster's default class
    source: SourceRef = SourceRef()
