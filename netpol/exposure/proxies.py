"""The pods behind each proxied door: named by `--proxy-pods`, found in the input by their project's
convention, or else an unknown in-cluster proxy, asked about as a stand-in pod: with the convention's identity
when its controller has one, as a pod with no labels in a namespace the input lacks when not."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from netpol.exposure.doors import Door, ProxyRef
from netpol.exposure.standins import UNIVERSAL, StandIn, Want, find
from netpol.model.cluster import Cluster
from netpol.model.objects import Pod, Service
from netpol.targets import service_selects


@dataclass(frozen=True, slots=True)
class ProxyPods:
    ref: ProxyRef
    pods: tuple[str, ...]  # pod keys: input pods, or the one stand-in's
    stand_in: StandIn | None  # the pods are not in the input: what was asked about instead
    how: str  # how they were found, in words
    service: Service | None = None  # a Service of the input selecting them: their own door (port, addresses)

    @property
    def unknown(self) -> bool:
        """Its pods are not in the input: an unknown in-cluster proxy, a stand-in answers for it."""
        return self.stand_in is not None

    @property
    def label(self) -> str:
        """How paths name it: its pods' keys, or the unknown proxy it is."""
        return f"[{self.ref.what}: an unknown in-cluster proxy]" if self.unknown else ", ".join(self.pods)


@dataclass(frozen=True, slots=True)
class _Found:
    pods: tuple[str, ...]
    want: Want | None
    how: str


def _resolve(cluster: Cluster, running: Sequence[Pod], ref: ProxyRef, named: Mapping[str, tuple[str, ...]]) -> _Found:
    if ref.key in named:
        return _Found(tuple(sorted(named[ref.key])), None, f"--proxy-pods {ref.key}")
    conv = ref.convention
    if conv is None:
        return _Found((), UNIVERSAL, f"not in the input ({ref.why_unknown}): assumed to be {UNIVERSAL.describes}")
    namespace = conv.namespace_for(ref.namespace)
    labels = conv.labels_for(ref.name, ref.namespace)
    found = tuple(
        sorted(
            p.key for p in running if p.namespace == namespace and all(p.labels.get(k) == v for k, v in labels.items())
        )
    )
    where = f"pods labelled {labels.render()} in namespace {namespace}"
    if found:
        return _Found(found, None, f"{where} (the convention of {conv.name})")
    want = Want(namespace, conv.namespace_labels, labels, f"{ref.what}, not in the input")
    return _Found(
        (), want, f"not in the input: assumed to be {where} (the convention of {conv.name}: {conv.reference})"
    )


def proxy_wants(
    cluster: Cluster, running: Sequence[Pod], doors: Sequence[Door], named: Mapping[str, tuple[str, ...]]
) -> tuple[dict[str, _Found], list[Want]]:
    found = {}
    for door in doors:
        if door.proxy is not None and door.proxy.key not in found:
            found[door.proxy.key] = _resolve(cluster, running, door.proxy, named)
    return found, [f.want for f in found.values() if f.want is not None]


def proxy_pods(
    cluster: Cluster,
    running: Sequence[Pod],
    doors: Sequence[Door],
    found: Mapping[str, _Found],
    stand_ins: Sequence[StandIn],
) -> dict[str, ProxyPods]:
    out = {}
    for door in doors:
        ref = door.proxy
        if ref is None or ref.key in out:
            continue
        f = found[ref.key]
        if f.want is not None:
            s = find(stand_ins, f.want)
            out[ref.key] = ProxyPods(ref, (s.key,), s, f.how)
            continue
        pods = [p for p in running if p.key in set(f.pods)]
        out[ref.key] = ProxyPods(ref, f.pods, None, f.how, _own_service(cluster, pods))
    return out


def _own_service(cluster: Cluster, pods: Sequence[Pod]) -> Service | None:
    """The Service that brings outside traffic to the proxy pods (LoadBalancer, NodePort or externalIPs)."""
    for svc in cluster.services:
        if (svc.type in ("LoadBalancer", "NodePort") or svc.external_ips) and any(
            service_selects(svc, p) for p in pods
        ):
            return svc
    return None
