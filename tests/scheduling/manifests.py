"""Manifest builders (plain dicts) for subprocess tests of `netpol schedule`."""

from __future__ import annotations

from pathlib import Path

import yaml


def node_doc(name: str, ip: str = "", pod_cidr: str = "", cpu: str = "4", taints: list | None = None) -> dict:
    spec: dict = {}
    if pod_cidr:
        spec["podCIDR"] = pod_cidr
    if taints:
        spec["taints"] = taints
    status: dict = {"allocatable": {"cpu": cpu, "memory": "32Gi", "pods": "110"}}
    if ip:
        status["addresses"] = [{"type": "InternalIP", "address": ip}]
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "spec": spec,
        "status": status,
    }


def pod_doc(
    name: str,
    *,
    ns: str = "default",
    node: str = "",
    cpu: str = "100m",
    owner: tuple[str, str] | None = None,
    annotations: dict | None = None,
    deleting: bool = False,
    phase: str = "",
    priority_class: str = "",
    preemption_policy: str = "",
    labels: dict | None = None,
    host_network: bool = False,
) -> dict:
    meta: dict = {"name": name, "namespace": ns, "labels": labels or {"app": name}}
    if owner:
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": owner[0], "name": owner[1], "controller": True}]
    if annotations:
        meta["annotations"] = annotations
    if deleting:
        meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    spec: dict = {"containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": cpu}}}]}
    if node:
        spec["nodeName"] = node
    if priority_class:
        spec["priorityClassName"] = priority_class
    if preemption_policy:
        spec["preemptionPolicy"] = preemption_policy
    if host_network:
        spec["hostNetwork"] = True
    doc = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
    if phase:
        doc["status"] = {"phase": phase}
    return doc


def deployment_doc(name: str, replicas: int, *, cpu: str = "100m", ns: str = "default", **spec: object) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": ns},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {
                    "containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": cpu}}}],
                    **spec,
                },
            },
        },
    }


def write(path: Path, *docs: dict) -> str:
    path.write_text(yaml.safe_dump_all(list(docs)))
    return str(path)
