"""`--assume-dns`: the cluster DNS every Kubernetes cluster runs, added to manifests that leave it out.

kubeadm (and most distributions) deploy CoreDNS in `kube-system` with the pod label `k8s-app: kube-dns`
and container ports `dns` UDP 53, `dns-tcp` TCP 53 and `metrics` TCP 9153, behind the Service
`kube-system/kube-dns` (ClusterIP 10.96.0.10 with kubeadm's default service range). One application's
manifests rarely include it, so rules allowing DNS egress to it match nothing and DNS cannot be checked;
with this option they match a pod that stands for it, and `who-can-reach`, `explain` and the audit's
NP030 answer for it. Nothing is added when the input already has such pods (a live cluster does).
"""

from __future__ import annotations

from dataclasses import replace

from netpol.errors import SourceRef
from netpol.model.cluster import Cluster
from netpol.model.labels import Labels
from netpol.model.objects import NAMESPACE_NAME_LABEL, Container, ContainerPort, Namespace, Pod, Service, ServicePort

ASSUMED_FILE = "<assumed by --assume-dns>"
DNS_NAMESPACE = "kube-system"
DNS_POD_LABELS = Labels({"k8s-app": "kube-dns"})
DNS_POD_NAME = "coredns-assumed"
DNS_SERVICE_IP = "10.96.0.10"


def has_cluster_dns(cluster: Cluster) -> bool:
    pods = (*cluster.pods, *(w.template for w in cluster.workloads if w.replicas > 0))
    return any(p.namespace == DNS_NAMESPACE and p.labels.get("k8s-app") == "kube-dns" for p in pods)


def is_assumed(source: SourceRef) -> bool:
    return source.file == ASSUMED_FILE


def with_cluster_dns(cluster: Cluster) -> Cluster:
    """The cluster with kube-system (when absent), a CoreDNS pod and the kube-dns Service, unless it has them.
    The pod is bound to the first node by name, as a running pod is: the scheduler does not move it."""
    if has_cluster_dns(cluster):
        return cluster
    namespaces = cluster.namespaces
    if cluster.namespace(DNS_NAMESPACE) is None:
        ns_src = SourceRef(ASSUMED_FILE, 0, "Namespace", "", DNS_NAMESPACE)
        namespaces += (Namespace(DNS_NAMESPACE, Labels({NAMESPACE_NAME_LABEL: DNS_NAMESPACE}), source=ns_src),)
    ports = (
        ContainerPort(53, "UDP", "dns"),
        ContainerPort(53, "TCP", "dns-tcp"),
        ContainerPort(9153, "TCP", "metrics"),
    )
    node = min((n.name for n in cluster.nodes), default="")
    pod = Pod(
        DNS_NAMESPACE,
        DNS_POD_NAME,
        DNS_POD_LABELS,
        containers=(Container("coredns", ports=ports),),
        node_name=node,
        phase="Running",
        order=len(cluster.pods),
        source=SourceRef(ASSUMED_FILE, 0, "Pod", DNS_NAMESPACE, DNS_POD_NAME),
    )
    service = Service(
        DNS_NAMESPACE,
        "kube-dns",
        DNS_POD_LABELS,
        (ServicePort(53, "dns", "UDP", "dns"), ServicePort(53, "dns-tcp", "TCP", "dns-tcp")),
        cluster_ip=DNS_SERVICE_IP,
        source=SourceRef(ASSUMED_FILE, 0, "Service", DNS_NAMESPACE, "kube-dns"),
    )
    services = cluster.services
    if not any(s.key == service.key for s in services):
        services += (service,)
    return replace(cluster, namespaces=namespaces, pods=(*cluster.pods, pod), services=services)
