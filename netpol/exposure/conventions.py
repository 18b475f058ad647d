"""Where the proxies behind a door run, when the input does not name them: each implementation's own manifests.

A proxied door (an Ingress, a Gateway's routes, an OpenShift Route) forwards through pods of its controller.
`--proxy-pods` names them; otherwise they are looked up in the input by the labels and namespace their
project deploys them with, and when the input does not contain them a stand-in pod with that identity is
asked about instead (its policies and the backends' are what decide). A controller without a known
convention is "an unknown in-cluster proxy": a pod with no labels in a namespace the input does not contain.
"""

from __future__ import annotations

from dataclasses import dataclass

from netpol.model.gateway import GATEWAY_NAME_LABEL
from netpol.model.labels import EMPTY_LABELS, Labels
from netpol.model.openshift import ROUTER_DEFAULT, ROUTER_LABEL, ROUTER_NAMESPACE


@dataclass(frozen=True, slots=True)
class Convention:
    """A proxy's pods: labels every one of them carries, in `namespace` ("" the door object's own namespace);
    the namespace's own labels when the input lacks it (OpenShift labels its router's namespace)."""

    name: str  # who deploys them this way, for messages
    namespace: str
    pod_labels: Labels
    namespace_labels: Labels = EMPTY_LABELS
    reference: str = ""  # where the convention is documented

    def labels_for(self, name: str, namespace: str) -> Labels:
        """The pod labels for one door object (values may name it: "{name}", "{namespace}")."""
        return Labels({k: v.format(name=name, namespace=namespace) for k, v in self.pod_labels.items()})

    def namespace_for(self, door_namespace: str) -> str:
        return self.namespace or door_namespace


# IngressClass.spec.controller → its controller's pods.
INGRESS_CONTROLLERS: dict[str, Convention] = {
    "k8s.io/ingress-nginx": Convention(
        "ingress-nginx",
        "ingress-nginx",
        Labels({"app.kubernetes.io/name": "ingress-nginx", "app.kubernetes.io/component": "controller"}),
        reference="kubernetes/ingress-nginx deploy/static/provider/*/deploy.yaml (the controller Deployment)",
    ),
}
# IngressClass names that ingress-nginx's own manifests create, taken as its class when the input names the
# class but does not contain the IngressClass object.
INGRESS_CLASS_NAMES: dict[str, str] = {"nginx": "k8s.io/ingress-nginx"}

# GatewayClass.spec.controllerName → the Gateway's proxy pods; any other controller: GEP-1762's label.
GATEWAY_CONTROLLERS: dict[str, Convention] = {
    "gateway.envoyproxy.io/gatewayclass-controller": Convention(
        "Envoy Gateway",
        "envoy-gateway-system",
        Labels(
            {
                "gateway.envoyproxy.io/owning-gateway-name": "{name}",
                "gateway.envoyproxy.io/owning-gateway-namespace": "{namespace}",
            }
        ),
        reference="gateway.envoyproxy.io (the proxy Deployment of each Gateway, controller-namespace mode)",
    ),
}
GEP_1762 = Convention(
    "GEP-1762, in-cluster Gateway deployments",
    "",
    Labels({GATEWAY_NAME_LABEL: "{name}"}),
    reference="gateway-api apis/v1 well_known_labels.go: every generated resource carries the Gateway's name",
)

# OpenShift's default IngressController: the router pods and the labels OpenShift puts on their namespace,
# which NetworkPolicies written for OpenShift select ("allow-from-openshift-ingress").
OPENSHIFT_ROUTER = Convention(
    "the OpenShift default router",
    ROUTER_NAMESPACE,
    Labels({ROUTER_LABEL: ROUTER_DEFAULT}),
    Labels({"network.openshift.io/policy-group": "ingress", "policy-group.network.openshift.io/ingress": ""}),
    reference="OpenShift Ingress Operator (router-default); OpenShift docs, 'About network policy'",
)
