"""The kinds netpol models, the ones it knowingly ignores, and the policies of other engines it cannot evaluate."""

from __future__ import annotations

WORKLOAD_KINDS = ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob")
POLICY_KINDS = frozenset({"NetworkPolicy", "AdminNetworkPolicy", "BaselineAdminNetworkPolicy"})


# Kinds that cannot change which pod reaches which: counted in one summary line, never fatal under --strict.
INERT_KINDS = frozenset(
    {
        "ServiceAccount",
        "ConfigMap",
        "Secret",
        "Role",
        "RoleBinding",
        "ClusterRole",
        "ClusterRoleBinding",
        "Endpoints",
        "EndpointSlice",
        "HorizontalPodAutoscaler",
        "VerticalPodAutoscaler",
        "PersistentVolumeClaim",
        "PersistentVolume",
        "StorageClass",
        "CustomResourceDefinition",
        "Event",
        "LimitRange",
        "ResourceQuota",
        "ControllerRevision",
        "Lease",
        "MutatingWebhookConfiguration",
        "ValidatingWebhookConfiguration",
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "APIService",
        "CSIDriver",
        "RuntimeClass",
        "ServiceMonitor",
        "PodMonitor",
        "PrometheusRule",
        "Certificate",
        "Issuer",
        "ClusterIssuer",
    }
)

# The doors into the cluster netpol models (exposure), by the API versions it reads them in: a kind of the same
# name from another API (Istio's networking.istio.io Gateway, extensions/v1beta1 Ingress) is not modelled.
DOOR_APIS: dict[str, tuple[str, ...]] = {
    "Ingress": ("networking.k8s.io/v1",),
    "IngressClass": ("networking.k8s.io/v1",),
    "Route": ("route.openshift.io/v1",),
    **{
        kind: ("gateway.networking.k8s.io/",)  # every served version: v1, v1beta1, v1alpha2, v1alpha3
        for kind in (
            "Gateway",
            "GatewayClass",
            "HTTPRoute",
            "GRPCRoute",
            "TLSRoute",
            "TCPRoute",
            "UDPRoute",
            "ReferenceGrant",
        )
    },
}


def door_api_ok(kind: str, api: str) -> bool:
    """Whether `api` is an apiVersion netpol reads `kind` (a door) in: exact, or a group prefix ending in /."""
    return any(api == a or (a.endswith("/") and api.startswith(a)) for a in DOOR_APIS[kind])


# Policies of other engines: the answer may be wrong without them, so they stay loud (and fail --strict).
UNEVALUATED_POLICY_KINDS = {
    "CiliumNetworkPolicy": "Cilium",
    "CiliumClusterwideNetworkPolicy": "Cilium",
    "GlobalNetworkPolicy": "Calico",
    "StagedNetworkPolicy": "Calico",
    "StagedGlobalNetworkPolicy": "Calico",
    "ClusterNetworkPolicy": "Antrea",
    "AuthorizationPolicy": "Istio",
    "EgressNetworkPolicy": "OpenShift",
    "EgressFirewall": "OVN-Kubernetes",
}
