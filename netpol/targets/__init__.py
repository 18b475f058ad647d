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

One job per module: `probe` (the port grammar), `grammar` (names as written), `target` (what a name stands
for), `resolver` (names looked up in an analysis), `suggest` (did-you-mean hints). Every name is re-exported
here, so callers import from `netpol.targets`.
"""

from __future__ import annotations

from netpol.targets.grammar import (
    POD_PREFIXES,
    SERVICE_PREFIXES,
    WORKLOAD_KINDS,
    EndpointKind,
    EndpointRef,
    is_endpoint_syntax,
    looks_like_address,
    parse_endpoint,
    resolve_pod_name,
    workload_label,
    workload_of,
)
from netpol.targets.probe import (
    PORT_NAME,
    Probe,
    parse_port,
    parse_probe,
)
from netpol.targets.resolver import (
    Resolver,
    check_named_port,
    check_namespaces,
)
from netpol.targets.suggest import (
    did_you_mean,
    listing,
    nearest,
)
from netpol.targets.target import (
    Target,
    resolve_target_port,
    service_selects,
    service_target_ports,
)

__all__ = [
    "EndpointKind",
    "EndpointRef",
    "POD_PREFIXES",
    "PORT_NAME",
    "Probe",
    "Resolver",
    "SERVICE_PREFIXES",
    "Target",
    "WORKLOAD_KINDS",
    "check_named_port",
    "check_namespaces",
    "did_you_mean",
    "is_endpoint_syntax",
    "listing",
    "looks_like_address",
    "nearest",
    "parse_endpoint",
    "parse_port",
    "parse_probe",
    "resolve_pod_name",
    "resolve_target_port",
    "service_selects",
    "service_target_ports",
    "workload_label",
    "workload_of",
]
