"""The kinds netpol models, the ones it knowingly ignores, and the policies of other engines it cannot evaluate."""

from __future__ import annotations

WORKLOAD_KINDS = ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob")
POLICY_KINDS = frozenset({"NetworkPolicy", "AdminNetworkPolicy", "BaselineAdminNetworkPolicy"})
POLICY_KINDS |= {"GlobalNetworkPolicy", "Tier", "NetworkSet", "GlobalNetworkSet"}  # Calico (netpol.loading.calico)


# Kinds that cannot change which pod reaches which: counted in one summary line, never fatal under --strict.
INERT_KINDS = frozenset(
    {
        "ConfigMap",
        "Secret",
        "Role",
        "RoleBinding",
        "ClusterRole",
        "ClusterRoleBinding",
        "Route",
        "Ingress",
        "IngressClass",
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
        "Gateway",
        "GatewayClass",
        "HTTPRoute",
        "GRPCRoute",
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

# Policies of other engines: the answer may be wrong without them, so they stay loud (and fail --strict).
UNEVALUATED_POLICY_KINDS = {
    "CiliumNetworkPolicy": "Cilium",
    "CiliumClusterwideNetworkPolicy": "Cilium",
    "ClusterNetworkPolicy": "Antrea",
    "AuthorizationPolicy": "Istio",
    "EgressNetworkPolicy": "OpenShift",
    "EgressFirewall": "OVN-Kubernetes",
}
