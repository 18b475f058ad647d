"""Workloads → pods (names, counts, owners, labels) and pod IPs (status.podIP, node ranges, hostNetwork).

Names follow the controllers (deterministic here, random upstream): Deployment pods
`<name>-<pod-template-hash:10>-<suffix:5>` owned by ReplicaSet `<name>-<hash>`; ReplicaSet pods
`<name>-<5>`; StatefulSet pods `<name>-0…`; Job pods `<job>-<5>`; hashes use apimachinery's
SafeEncodeString alphabet (no vowels, no confusable digits).
"""

from __future__ import annotations

import re

import netaddr
import yaml

from netpol.manifests import load_text
from netpol.pipeline import analyze
from tests.helpers import allowed, analyze_objects, pod, policy

SAFE = "[bcdfghjklmnpqrstvwxz2456789]"


def workload(kind: str, name: str, spec: dict | None = None, labels: dict | None = None, ns: str = "x") -> dict:
    labels = labels or {"app": name}
    api = "batch/v1" if kind in ("Job", "CronJob") else "apps/v1"
    template = {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "c", "image": "img"}]}}
    body: dict = {"selector": {"matchLabels": labels}, "template": template, **(spec or {})}
    if kind == "Job":
        body.pop("selector")
    if kind == "CronJob":
        body = {"schedule": "*/5 * * * *", "jobTemplate": {"spec": {"template": template, **(spec or {})}}}
    return {"apiVersion": api, "kind": kind, "metadata": {"name": name, "namespace": ns}, "spec": body}


def node(name: str, ip: str, pod_cidr: str | None = None) -> dict:
    spec = {"podCIDR": pod_cidr} if pod_cidr else {}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "spec": spec,
        "status": {"addresses": [{"type": "InternalIP", "address": ip}]},
    }


def pods_of(*objs: dict):
    return analyze_objects(*objs).cluster.pods


# ---------------------------------------------------------------------------------------------- Deployments


def test_deployment_creates_replicas_pods_named_like_kubectl_shows_them() -> None:
    pods = pods_of(workload("Deployment", "web", {"replicas": 3}))
    assert len(pods) == 3
    for p in pods:
        assert re.fullmatch(rf"web-{SAFE}{{10}}-{SAFE}{{5}}", p.name), p.name
    hashes = {p.name.split("-")[1] for p in pods}
    assert len(hashes) == 1  # one ReplicaSet, one pod-template-hash
    assert len({p.name for p in pods}) == 3


def test_deployment_pods_record_their_replicaset_owner_and_template_hash_label() -> None:
    pods = pods_of(workload("Deployment", "web", {"replicas": 2}))
    h = pods[0].labels["pod-template-hash"]
    for p in pods:
        assert p.owner is not None and p.owner.kind == "ReplicaSet" and p.owner.name == f"web-{h}"
        assert p.labels["app"] == "web"
        assert p.name.startswith(f"web-{h}-")


def test_workload_pod_names_are_deterministic_across_runs() -> None:
    objs = [workload("Deployment", "web", {"replicas": 3}), workload("StatefulSet", "db", {"replicas": 2})]
    first = [p.key for p in pods_of(*objs)]
    second = [p.key for p in pods_of(*objs)]
    assert first == second


def test_different_deployments_get_different_hashes() -> None:
    pods = pods_of(workload("Deployment", "web"), workload("Deployment", "api"))
    assert len({p.labels["pod-template-hash"] for p in pods}) == 2


def test_replicas_default_to_one_and_zero_means_none() -> None:
    assert len(pods_of(workload("Deployment", "one"))) == 1
    assert pods_of(workload("Deployment", "none", {"replicas": 0})) == ()


def test_replicaset_pods_are_named_after_the_replicaset() -> None:
    pods = pods_of(workload("ReplicaSet", "rs", {"replicas": 2}))
    assert len(pods) == 2
    for p in pods:
        assert re.fullmatch(rf"rs-{SAFE}{{5}}", p.name)
        assert (p.owner.kind, p.owner.name) == ("ReplicaSet", "rs")


# ---------------------------------------------------------------------------------------------- StatefulSets, Jobs


def test_statefulset_pods_have_ordinals_and_pod_name_labels() -> None:
    pods = pods_of(workload("StatefulSet", "db", {"replicas": 3}))
    assert [p.name for p in pods] == ["db-0", "db-1", "db-2"]
    for p in pods:
        assert (p.owner.kind, p.owner.name) == ("StatefulSet", "db")
        assert p.labels["statefulset.kubernetes.io/pod-name"] == p.name


def test_job_runs_min_of_parallelism_and_completions_pods_with_job_name_label() -> None:
    pods = pods_of(workload("Job", "migrate", {"parallelism": 3, "completions": 2}))
    assert len(pods) == 2
    for p in pods:
        assert re.fullmatch(rf"migrate-{SAFE}{{5}}", p.name)
        assert (p.owner.kind, p.owner.name) == ("Job", "migrate")
        assert p.labels["job-name"] == "migrate"


def test_job_parallelism_defaults_to_one() -> None:
    assert len(pods_of(workload("Job", "once"))) == 1


def test_cronjob_pods_belong_to_a_job_named_after_the_cronjob() -> None:
    pods = pods_of(workload("CronJob", "nightly"))
    assert len(pods) == 1
    assert pods[0].owner.kind == "Job" and pods[0].owner.name.startswith("nightly-")
    assert pods[0].labels["job-name"] == pods[0].owner.name


def test_workload_pods_are_selected_by_policies_through_template_labels() -> None:
    a = analyze_objects(
        workload("Deployment", "web", {"replicas": 2}),
        pod("x", "client", {"role": "client"}),
        policy("x", "p", {"podSelector": {"matchLabels": {"app": "web"}}, "ingress": []}),
    )
    webs = [p.key for p in a.pods if p.name.startswith("web-")]
    assert len(webs) == 2
    for w in webs:
        assert not allowed(a, "x/client", w, 80)
        assert allowed(a, w, "x/client", 80)


def test_bare_pod_with_the_same_name_as_a_workload_pod_wins_with_a_warning() -> None:
    a = analyze_objects(workload("StatefulSet", "db", {"replicas": 1}), pod("x", "db-0", {"bare": "yes"}))
    [p] = a.cluster.pods
    assert p.labels == {"bare": "yes"} and p.owner is None
    assert any(w.code == "duplicate" for w in a.warnings)


def test_daemonset_without_nodes_is_one_representative_pod_with_a_warning() -> None:
    a = analyze_objects(workload("DaemonSet", "agent"))
    assert [p.owner.kind for p in a.cluster.pods] == ["DaemonSet"]
    assert any(w.code == "daemonset-without-nodes" for w in a.warnings)


# ---------------------------------------------------------------------------------------------- phases


def test_succeeded_and_failed_pods_take_no_part() -> None:
    done = {**pod("x", "done"), "status": {"phase": "Succeeded"}}
    failed = {**pod("x", "failed"), "status": {"phase": "Failed"}}
    running = {**pod("x", "running"), "status": {"phase": "Running"}}
    a = analyze_objects(done, failed, running, pod("x", "plain"))
    assert [p.key for p in a.pods] == ["x/plain", "x/running"]
    assert {p.name: p.pod_ip for p in a.cluster.pods}["done"] == ""  # no IP handed out to a finished pod


# ---------------------------------------------------------------------------------------------- IPs


def test_status_pod_ip_is_kept_and_never_handed_out_again() -> None:
    given = {**pod("x", "given"), "status": {"podIP": "10.244.0.1"}}
    a = analyze_objects(pod("x", "a"), given, pod("x", "b"))
    ips = {p.name: p.pod_ip for p in a.pods}
    assert ips["given"] == "10.244.0.1"
    assert len(set(ips.values())) == 3


def test_pods_without_nodes_take_addresses_from_the_cluster_cidr() -> None:
    a = analyze(load_text(yaml.safe_dump_all([pod("x", "a"), pod("y", "b")])), cluster_cidr="10.9.0.0/16")
    for p in a.pods:
        assert netaddr.IPAddress(p.pod_ip) in netaddr.IPNetwork("10.9.0.0/16")


def test_bound_pods_take_addresses_from_their_nodes_pod_cidr() -> None:
    objs = [
        node("n1", "10.1.8.31", "10.224.1.0/24"),
        node("n2", "10.1.8.32", "10.224.2.0/24"),
        pod("x", "a", nodeName="n1"),
        pod("x", "b", nodeName="n2"),
        pod("x", "c", nodeName="n1"),
    ]
    a = analyze(load_text(yaml.safe_dump_all(objs)))  # no placer: pods run where spec.nodeName binds them
    ips = {p.name: netaddr.IPAddress(p.pod_ip) for p in a.pods}
    assert ips["a"] in netaddr.IPNetwork("10.224.1.0/24") and ips["c"] in netaddr.IPNetwork("10.224.1.0/24")
    assert ips["b"] in netaddr.IPNetwork("10.224.2.0/24")
    assert ips["a"] != ips["c"]


def test_nodes_without_pod_cidr_get_a_free_slice_of_the_cluster_cidr() -> None:
    objs = [node("n1", "10.1.8.31", "10.244.0.0/24"), node("n2", "10.1.8.32"), pod("x", "b", nodeName="n2")]
    a = analyze(load_text(yaml.safe_dump_all(objs)))
    ip = netaddr.IPAddress(a.pods[0].pod_ip)
    assert ip in netaddr.IPNetwork("10.244.0.0/16") and ip not in netaddr.IPNetwork("10.244.0.0/24")


def test_host_network_pod_gets_its_nodes_internal_ip() -> None:
    objs = [node("n1", "10.1.8.31", "10.224.1.0/24"), pod("x", "agent", nodeName="n1", hostNetwork=True)]
    a = analyze(load_text(yaml.safe_dump_all(objs)))
    assert a.pods[0].pod_ip == "10.1.8.31"


def test_host_network_pod_is_not_selected_and_reaches_pods_on_its_own_node() -> None:
    objs = [
        node("n1", "10.1.8.31", "10.224.1.0/24"),
        node("n2", "10.1.8.32", "10.224.2.0/24"),
        pod("x", "agent", {"app": "a"}, nodeName="n1", hostNetwork=True),
        pod("x", "local", {"app": "a"}, nodeName="n1"),
        pod("x", "remote", {"app": "a"}, nodeName="n2"),
        policy("x", "deny", {"podSelector": {}, "policyTypes": ["Ingress"]}),
    ]
    a = analyze(load_text(yaml.safe_dump_all(objs)))
    assert allowed(a, "x/local", "x/agent", 80)  # hostNetwork pods are not selected by policies
    assert allowed(a, "x/agent", "x/local", 80)  # traffic from a pod's own node is always allowed
    assert not allowed(a, "x/agent", "x/remote", 80)  # from another node: the deny applies


def test_workloads_whose_children_are_given_are_not_expanded_again() -> None:
    """`kubectl get all -o yaml`: a Deployment, its ReplicaSet and their Pods are one set of pods."""
    from pathlib import Path

    from netpol.manifests import load_paths
    from netpol.workloads import expand_workloads

    dump = Path(__file__).parent / "data" / "kubectl-get-all.yaml"
    cluster = expand_workloads(load_paths([str(dump)]))
    assert sorted(p.name for p in cluster.pods) == ["web-5d4f-aaaaa", "web-5d4f-bbbbb"]
    assert cluster.workloads == ()
