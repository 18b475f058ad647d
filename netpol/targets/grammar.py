"""Endpoint names as written (`ns/pod`, `deploy/ns/name`, `svc/ns/name`, an address, …), parsed without a
cluster, and the workload a pod belongs to, named the way the outputs print it (`web/frontend[Deployment]`)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from netpol.errors import UsageError
from netpol.model.objects import Pod
from netpol.targets.suggest import did_you_mean, listing

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
# the form every output prints an external range in: FIRST-LAST (`0.0.0.0-9.255.255.255`, `fd00::-fd00::ff`)
_IP_RANGE = re.compile(r"^[0-9a-fA-F:.]+-[0-9a-fA-F:.]+$")
KIND_PREFIX = {
    "Deployment": "deploy",
    "StatefulSet": "sts",
    "DaemonSet": "ds",
    "ReplicaSet": "rs",
    "Job": "job",
    "CronJob": "cronjob",
}


def looks_like_address(text: str) -> bool:
    """An IP, a CIDR, or a range as the outputs print it (FIRST-LAST)."""
    return bool(_IP_LIKE.match(text) or _IP_RANGE.match(text)) and ("." in text or ":" in text)


def parse_endpoint(text: str, namespaces: Sequence[str] = ()) -> EndpointRef:
    """Read an endpoint name (see the module docstring); raises UsageError for text that is none."""
    text = text.strip()
    if not text:
        raise UsageError("empty endpoint name")
    if looks_like_address(text):
        return EndpointRef("address", text)
    m = _LABEL_FORM.match(text)  # the form the outputs print: web/frontend[Deployment], web/test[Pod]
    if m:
        kind = next((k for k in (*KIND_PREFIX, "Pod") if k.lower() == m["kind"].lower()), None)
        if kind is None:
            raise UsageError(f"{text!r}: unknown kind {m['kind']!r} (known: {', '.join([*KIND_PREFIX, 'Pod'])})")
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
