"""The kinds netpol models, the ones it knowingly ignores, and the policies of other engines it cannot evaluate."""

from __future__ import annotations

WORKLOAD_KINDS = ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob")
POLICY_KINDS = frozenset({"NetworkPolicy", "AdminNetworkPolicy", "BaselineAdminNetworkPolicy", "ClusterNetworkPolicy"})
# The group/version netpol reads ClusterNetworkPolicy in: Antrea's crd.antrea.io kind of the same name is another
# engine's policy (network-policy-api, apis/v1alpha2/clusternetworkpolicy_types.go).
CNP_API_VERSION = "policy.networking.k8s.io/v1alpha2"


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
    "GlobalNetworkPolicy": "Calico",
    "StagedNetworkPolicy": "Calico",
    "StagedGlobalNetworkPolicy": "Calico",
    "AuthorizationPolicy": "Istio",
    "EgressNetworkPolicy": "OpenShift",
    "EgressFirewall": "OVN-Kubernetes",
}

# Engines by the API group of their policies: a kind netpol evaluates may come from another group (Antrea's
# crd.antrea.io ClusterNetworkPolicy and NetworkPolicy), and the warning names that engine.
ENGINE_OF_GROUP = {"crd.antrea.io": "Antrea"}
