"""The kinds netpol models, the ones it knowingly ignores, and the policies of other engines it cannot evaluate."""

from __future__ import annotations

WORKLOAD_KINDS = ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob")
POLICY_KINDS = frozenset({"NetworkPolicy", "AdminNetworkPolicy", "BaselineAdminNetworkPolicy", "ClusterNetworkPolicy"})
POLICY_KINDS |= {"CiliumNetworkPolicy", "CiliumClusterwideNetworkPolicy"}  # Cilium (netpol.loading.cilium)
POLICY_KINDS |= {"GlobalNetworkPolicy", "Tier", "NetworkSet", "GlobalNetworkSet"}  # Calico (netpol.loading.calico)
# The group/version netpol reads ClusterNetworkPolicy in: Antrea's crd.antrea.io kind of the same name is another
# engine's policy (network-policy-api, apis/v1alpha2/clusternetworkpolicy_types.go).
CNP_API_VERSION = "policy.networking.k8s.io/v1alpha2"

# Calico's API groups (projectcalico.org/v3 through its API server, crd.projectcalico.org/v1 as CRDs): Calico's
# NetworkPolicy shares its kind with Kubernetes', so the group decides (netpol.loading.calico reads them).
CALICO_GROUPS = ("projectcalico.org", "crd.projectcalico.org")
# Kinds of Calico's that do not enforce, or that netpol does not model: named, never silently dropped.
STAGED_KINDS = frozenset({"StagedNetworkPolicy", "StagedGlobalNetworkPolicy", "StagedKubernetesNetworkPolicy"})
OUT_OF_SCOPE_KINDS = frozenset({"HostEndpoint"})


def api_group(api: str) -> str:
    return api.split("/", 1)[0] if "/" in api else ""


def is_calico(api: str) -> bool:
    return api_group(api) in CALICO_GROUPS


# Kinds that cannot change which pod reaches which: counted in one summary line, never fatal under --strict.
INERT_KINDS = frozenset(
    {
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
    "AuthorizationPolicy": "Istio",
    "EgressNetworkPolicy": "OpenShift",
    "EgressFirewall": "OVN-Kubernetes",
}

# Of those (and of AdminNetworkPolicy under another group), the cluster-scoped kinds: they may select a pod of
# any namespace. A kind not listed here is namespaced: it applies to pods of its own namespace.
CLUSTER_SCOPED_POLICY_KINDS = frozenset(
    {
        "CiliumClusterwideNetworkPolicy",
        "GlobalNetworkPolicy",
        "StagedGlobalNetworkPolicy",
        "ClusterNetworkPolicy",
        "AdminNetworkPolicy",
        "BaselineAdminNetworkPolicy",
    }
)

# Namespaced kinds whose objects in one namespace apply to every namespace. Istio's AuthorizationPolicy in the
# mesh's root namespace (istio-system unless meshConfig.rootNamespace says otherwise): "If the policy is in the
# root namespace, the policy applies to all namespaces in a mesh"
# (istio.io/latest/docs/reference/config/security/authorization-policy/).
MESH_WIDE_NAMESPACES = {"AuthorizationPolicy": "istio-system"}

# Where a policy of another engine keeps its subject as a standard metav1.LabelSelector, in the order looked at:
# NetworkPolicy-like spec.podSelector, Istio's spec.selector (matchLabels), Cilium's spec.endpointSelector.
# Anything else (Calico's selector expressions, Antrea's appliedTo, targetRefs) is read as "no selector".
SUBJECT_SELECTOR_FIELDS = ("podSelector", "selector", "endpointSelector")

# Engines by the API group of their policies: a kind netpol evaluates may come from another group (Antrea's
# crd.antrea.io ClusterNetworkPolicy and NetworkPolicy), and the warning names that engine.
ENGINE_OF_GROUP = {"crd.antrea.io": "Antrea"}
