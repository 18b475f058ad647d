"""Builders for Calico test clusters: pods with fixed addresses, Calico objects as users write them."""

from __future__ import annotations

from typing import Any

V3 = "projectcalico.org/v3"


def ns(name: str, labels: dict[str, str] | None = None) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": name, "labels": {"kubernetes.io/metadata.name": name, **(labels or {})}},
    }


def pod(
    namespace: str,
    name: str,
    ip: str,
    labels: dict[str, str] | None = None,
    ports: list[dict] | None = None,
    sa: str | None = None,
) -> dict:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "nginx", "ports": ports or []}]}
    if sa:
        spec["serviceAccountName"] = sa
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "labels": labels or {}},
        "spec": spec,
        "status": {"phase": "Running", "podIP": ip, "podIPs": [{"ip": ip}]},
    }


def cnp(namespace: str, name: str, spec: dict, api: str = V3) -> dict:
    return {
        "apiVersion": api,
        "kind": "NetworkPolicy",
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }


def gnp(name: str, spec: dict, api: str = V3) -> dict:
    return {"apiVersion": api, "kind": "GlobalNetworkPolicy", "metadata": {"name": name}, "spec": spec}


def tier(name: str, order: float | None = None, default_action: str | None = None) -> dict:
    spec: dict[str, Any] = {}
    if order is not None:
        spec["order"] = order
    if default_action is not None:
        spec["defaultAction"] = default_action
    return {"apiVersion": V3, "kind": "Tier", "metadata": {"name": name}, "spec": spec}


def knp(namespace: str, name: str, spec: dict) -> dict:
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }


def netset(name: str, nets: list[str], labels: dict[str, str], namespace: str | None = None) -> dict:
    meta: dict[str, Any] = {"name": name, "labels": labels}
    if namespace:
        meta["namespace"] = namespace
    return {
        "apiVersion": V3,
        "kind": "NetworkSet" if namespace else "GlobalNetworkSet",
        "metadata": meta,
        "spec": {"nets": nets},
    }


def service_account(namespace: str, name: str, labels: dict[str, str]) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {"name": name, "namespace": namespace, "labels": labels},
    }


def service(namespace: str, name: str, selector: dict[str, str], ports: list[dict]) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"selector": selector, "ports": ports},
    }


def base() -> list[dict]:
    """Two namespaces, three pods: a/web (app=web, port http=8080), a/db (app=db), b/client (app=client)."""
    return [
        ns("a", {"team": "alpha"}),
        ns("b", {"team": "beta"}),
        pod(
            "a",
            "web",
            "10.0.1.10",
            {"app": "web", "tier": "frontend"},
            [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
        ),
        pod("a", "db", "10.0.1.20", {"app": "db", "tier": "backend"}),
        pod("b", "client", "10.0.2.30", {"app": "client"}),
    ]
