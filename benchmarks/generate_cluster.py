#!/usr/bin/env python3
"""Seeded generator of realistic synthetic clusters for benchmarking `netpol matrix`.

The cluster looks like a multi-team microservice platform:

- system namespaces: `kube-system` (CoreDNS as `kube-dns`, metrics-server), `ingress-nginx` (the ingress
  controller) and `monitoring` (Prometheus as a StatefulSet);
- N application namespaces `<team>-<env>` labelled `team`, `env`, `kubernetes.io/metadata.name` (and a few
  `istio-injection` / pod-security labels), each holding Deployments (with replicas) and StatefulSets
  (databases, queues, some caches), their pods labelled `app`, `tier`, `team`, `version`, with named
  container ports (`http` resolves to 8080, 80 or 3000 depending on the image, `metrics`, `grpc`,
  `postgres`, `redis`, `kafka`, a UDP `statsd` …) and canary Deployments that share an `app` label;
- NetworkPolicies in the shapes found in real clusters (kubernetes-network-policy-recipes, vendor docs):
  per-namespace default-deny (ingress, egress, or both), DNS egress to kube-system/kube-dns (UDP+TCP 53,
  namespaceSelector AND podSelector), allow-from-ingress-controller, Prometheus scraping on a named port,
  pod-to-pod allows on named and numeric ports (and the matching egress allows in egress-isolated
  namespaces), same-namespace allows, cross-namespace allows by team label or by `env In/NotIn`
  expressions, ipBlock with except (internet minus RFC 1918, office VPN, database subnets) and endPort
  ranges (NodePort-style callbacks, media UDP ranges, API port ranges).

Pods come as Deployments/StatefulSets (netpol's workload expander makes the pods) unless `bare_pods`;
Node objects only when asked (`nodes=K`). Output is a pure function of the arguments: the same seed gives
byte-identical YAML.

    python benchmarks/generate_cluster.py --pods 10000 --policies 2000 --seed 1 -o /tmp/c10k.yaml

    from generate_cluster import generate_objects, generate_yaml   # (with benchmarks/ on sys.path)
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import yaml

try:
    _Dumper: type = yaml.CSafeDumper
except AttributeError:  # pragma: no cover - libyaml missing
    _Dumper = yaml.SafeDumper

NS_LABEL = "kubernetes.io/metadata.name"
ALPHABET = "bcdfghjklmnpqrstvwxz2456789"  # the controllers' name alphabet (no vowels)
PRIVATE_RANGES = ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"]

TEAMS = [
    "payments", "checkout", "search", "identity", "catalog", "platform", "data", "growth", "ads", "billing",
    "media", "notify", "risk", "logistics", "support", "analytics", "orders", "pricing", "reviews", "maps",
]  # fmt: skip
ENVS = ["prod", "staging", "dev"]
ENV_WEIGHTS = [5, 3, 2]
WORDS = [
    "gateway", "profile", "ledger", "cart", "inventory", "session", "quote", "render", "index", "feed",
    "token", "audit", "export", "import", "report", "ranker", "router", "store", "mailer", "webhook",
    "scheduler", "resolver", "tracker", "pricer", "matcher", "builder", "reader", "writer", "syncer", "proxy",
]  # fmt: skip

# tier → (weight, kind chooser); StatefulSets for databases and queues, half of the caches.
TIERS = ["web", "api", "worker", "cache", "db", "queue"]
TIER_WEIGHTS = [15, 40, 20, 8, 10, 7]
DEPLOY_REPLICAS = [1, 2, 3, 5, 10, 20]
DEPLOY_REPLICA_WEIGHTS = [20, 25, 25, 15, 10, 5]

# Backend images: (app suffix, port name, number).
DB_IMAGES = [("postgres", "postgres", 5432, "postgres:16"), ("mysql", "mysql", 3306, "mysql:8"),
             ("mongo", "mongodb", 27017, "mongo:7")]  # fmt: skip
CACHE_IMAGES = [("redis", "redis", 6379, "redis:7"), ("memcached", "memcache", 11211, "memcached:1.6")]
QUEUE_IMAGES = [("kafka", "kafka", 9092, "bitnami/kafka:3.7"), ("rabbitmq", "amqp", 5672, "rabbitmq:3.13")]
HTTP_PORTS = [(8080, 6), (80, 2), (3000, 2)]  # the same port name "http" resolves to different numbers

# Extra numeric ports some APIs expose (and some policies open): a realistic spread of port atoms.
EXTRA_API_PORTS = [8081, 8443, 8888, 9000, 9443, 5000, 4000, 7000, 50051]

# Address ranges the ipBlocks use (external peers).
OFFICE_VPN = ("172.16.0.0/12", ["172.16.99.0/24", "172.20.0.0/16"])
PARTNERS = ["203.0.113.0/24", "198.51.100.0/24", "192.0.2.0/24"]
DB_SUBNETS = [f"192.168.{k}.0/24" for k in range(0, 32, 4)]
METADATA_IP = "169.254.169.254/32"


@dataclass
class Workload:
    namespace: str
    kind: str  # Deployment | StatefulSet
    name: str
    app: str
    tier: str
    team: str
    version: str
    replicas: int
    ports: list[dict[str, Any]]
    image: str
    extra_labels: dict[str, str] = field(default_factory=dict)

    @property
    def labels(self) -> dict[str, str]:
        return {"app": self.app, "tier": self.tier, "team": self.team, "version": self.version, **self.extra_labels}

    def port(self, *names: str) -> dict[str, Any] | None:
        for p in self.ports:
            if p["name"] in names:
                return p
        return None

    @property
    def service_port(self) -> dict[str, Any]:
        """The port clients talk to: the first one that is not metrics/statsd/management."""
        for p in self.ports:
            if p["name"] not in ("metrics", "statsd", "management"):
                return p
        return self.ports[0]


@dataclass
class AppNamespace:
    name: str
    team: str
    env: str
    labels: dict[str, str]
    workloads: list[Workload] = field(default_factory=list)
    deny: str = "none"  # ingress | egress | both | none

    def by_tier(self, *tiers: str) -> list[Workload]:
        return [w for w in self.workloads if w.tier in tiers]


@dataclass
class Stats:
    namespaces: int = 0
    workloads: Counter = field(default_factory=Counter)
    pods: int = 0
    policies: Counter = field(default_factory=Counter)
    nodes: int = 0

    def render(self) -> str:
        shapes = ", ".join(f"{k}={v}" for k, v in sorted(self.policies.items()))
        kinds = ", ".join(f"{k}={v}" for k, v in sorted(self.workloads.items()))
        return (
            f"{self.namespaces} namespaces, {self.pods} pods ({kinds}), {sum(self.policies.values())} policies "
            f"[{shapes}], {self.nodes} nodes"
        )


def _rand_id(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(n))


def _split(total: int, parts: int, rng: random.Random, skew: float = 0.6) -> list[int]:
    """`total` split into `parts` positive-ish integers with a log-normal skew (some namespaces are big)."""
    if parts <= 0:
        return []
    weights = [rng.lognormvariate(0, skew) for _ in range(parts)]
    s = sum(weights)
    out = [int(total * w / s) for w in weights]
    for i in range(total - sum(out)):
        out[i % parts] += 1
    return out


def _selector(**labels: str) -> dict[str, Any]:
    return {"matchLabels": dict(labels)}


def _ns_selector(name: str) -> dict[str, Any]:
    return {"matchLabels": {NS_LABEL: name}}


def _policy(ns: str, name: str, spec: dict[str, Any], shape: str) -> tuple[str, dict[str, Any]]:
    return shape, {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": name, "namespace": ns, "labels": {"generated-shape": shape}},
        "spec": spec,
    }


def _port_ref(p: dict[str, Any], named: bool) -> dict[str, Any]:
    return {"protocol": p.get("protocol", "TCP"), "port": p["name"] if named else p["containerPort"]}


class Generator:
    def __init__(
        self,
        pods: int,
        policies: int,
        seed: int = 1,
        *,
        namespaces: int | None = None,
        bare_pods: bool = False,
        nodes: int = 0,
        no_deny_share: float = 0.10,
    ) -> None:
        if pods < 10:
            raise ValueError("pods must be at least 10 (the system namespaces need a few)")
        if policies < 0 or nodes < 0:
            raise ValueError("policies and nodes must be >= 0")
        self.rng = random.Random(seed)
        self.pods = pods
        self.policies = policies
        self.n_namespaces = namespaces or max(2, pods // 50)
        self.bare_pods = bare_pods
        self.nodes = nodes
        self.no_deny_share = no_deny_share
        self.stats = Stats()
        self.objects: list[dict[str, Any]] = []

    # ------------------------------------------------------------------------------------------ workloads

    def _system_workloads(self) -> list[Workload]:
        ingress_replicas = 2 if self.pods < 5000 else 3
        return [
            Workload("kube-system", "Deployment", "coredns", "kube-dns", "system", "platform", "v1.11.1", 2,
                     [{"name": "dns", "containerPort": 53, "protocol": "UDP"},
                      {"name": "dns-tcp", "containerPort": 53, "protocol": "TCP"},
                      {"name": "metrics", "containerPort": 9153, "protocol": "TCP"}],
                     "registry.k8s.io/coredns/coredns:v1.11.1", {"k8s-app": "kube-dns"}),
            Workload("kube-system", "Deployment", "metrics-server", "metrics-server", "system", "platform", "v0.7.1",
                     1, [{"name": "https", "containerPort": 10250, "protocol": "TCP"}],
                     "registry.k8s.io/metrics-server/metrics-server:v0.7.1", {"k8s-app": "metrics-server"}),
            Workload("ingress-nginx", "Deployment", "ingress-nginx-controller", "ingress-nginx", "edge", "platform",
                     "v1.10.1", ingress_replicas,
                     [{"name": "http", "containerPort": 80, "protocol": "TCP"},
                      {"name": "https", "containerPort": 443, "protocol": "TCP"},
                      {"name": "metrics", "containerPort": 10254, "protocol": "TCP"}],
                     "registry.k8s.io/ingress-nginx/controller:v1.10.1",
                     {"app.kubernetes.io/name": "ingress-nginx", "app.kubernetes.io/component": "controller"}),
            Workload("monitoring", "StatefulSet", "prometheus", "prometheus", "monitoring", "platform", "v2.52.0", 2,
                     [{"name": "web", "containerPort": 9090, "protocol": "TCP"}],
                     "quay.io/prometheus/prometheus:v2.52.0", {"app.kubernetes.io/name": "prometheus"}),
        ]  # fmt: skip

    def _app_workload(self, ns: AppNamespace, budget: int, used: set[str]) -> Workload:
        rng = self.rng
        tier = rng.choices(TIERS, TIER_WEIGHTS)[0]
        version = rng.choice(["v1", "v1", "v2", "v3"])
        ports: list[dict[str, Any]] = []
        kind = "Deployment"
        if tier in ("web", "api"):
            http = rng.choices([p for p, _ in HTTP_PORTS], [w for _, w in HTTP_PORTS])[0]
            ports.append({"name": "http", "containerPort": http, "protocol": "TCP"})
            if tier == "api" and rng.random() < 0.35:
                ports.append({"name": "grpc", "containerPort": 9090, "protocol": "TCP"})
            if tier == "api" and rng.random() < 0.25:
                ports.append({"name": "admin", "containerPort": rng.choice(EXTRA_API_PORTS), "protocol": "TCP"})
            base = rng.choice(WORDS)
            image = f"registry.example.com/{ns.team}/{base}:{version}"
        elif tier == "worker":
            base = rng.choice(WORDS) + "-worker"
            image = f"registry.example.com/{ns.team}/{base}:{version}"
            if rng.random() < 0.3:
                ports.append({"name": "statsd", "containerPort": 8125, "protocol": "UDP"})
        else:
            pool = {"db": DB_IMAGES, "cache": CACHE_IMAGES, "queue": QUEUE_IMAGES}[tier]
            base, pname, pnum, image = rng.choice(pool)
            ports.append({"name": pname, "containerPort": pnum, "protocol": "TCP"})
            if base == "rabbitmq":
                ports.append({"name": "management", "containerPort": 15672, "protocol": "TCP"})
            kind = "StatefulSet" if tier in ("db", "queue") or rng.random() < 0.5 else "Deployment"
        ports.append({"name": "metrics", "containerPort": 9102, "protocol": "TCP"})
        if kind == "StatefulSet":
            replicas = rng.choice([1, 3, 3]) if tier != "cache" else rng.choice([1, 3])
        else:
            replicas = rng.choices(DEPLOY_REPLICAS, DEPLOY_REPLICA_WEIGHTS)[0]
        replicas = max(1, min(replicas, budget))
        name = base
        k = 2
        while name in used:
            name = f"{base}-{k}"
            k += 1
        used.add(name)
        return Workload(ns.name, kind, name, name, tier, ns.team, version, replicas, ports, image)

    def _fill_namespace(self, ns: AppNamespace, budget: int) -> None:
        used: set[str] = set()
        while budget > 0:
            w = self._app_workload(ns, budget, used)
            ns.workloads.append(w)
            budget -= w.replicas
            # canaries: a second Deployment with the same app label and another version
            if w.kind == "Deployment" and w.tier in ("web", "api") and budget > 0 and self.rng.random() < 0.15:
                c = Workload(ns.name, "Deployment", f"{w.name}-canary", w.app, w.tier, w.team, "canary", 1,
                             [dict(p) for p in w.ports], w.image.rsplit(":", 1)[0] + ":canary", {"track": "canary"})  # fmt: skip
                used.add(c.name)
                ns.workloads.append(c)
                budget -= 1

    def _app_namespaces(self, app_pods: int) -> list[AppNamespace]:
        rng = self.rng
        n = self.n_namespaces
        out: list[AppNamespace] = []
        seen: Counter = Counter()
        for i in range(n):
            team = TEAMS[i % len(TEAMS)] if i < len(TEAMS) else rng.choice(TEAMS)
            env = rng.choices(ENVS, ENV_WEIGHTS)[0]
            base = f"{team}-{env}"
            seen[base] += 1
            name = base if seen[base] == 1 else f"{team}-{seen[base]}-{env}"
            labels = {NS_LABEL: name, "team": team, "env": env}
            if rng.random() < 0.3:
                labels["istio-injection"] = "enabled"
            if env == "prod" and rng.random() < 0.5:
                labels["pod-security.kubernetes.io/enforce"] = "restricted"
            deny = rng.choices(["ingress", "both", "egress", "none"],
                               [0.45, 0.40, 0.05, self.no_deny_share])[0]  # fmt: skip
            out.append(AppNamespace(name, team, env, labels, deny=deny))
        for ns, budget in zip(out, _split(app_pods, n, rng), strict=True):
            if budget > 0:
                self._fill_namespace(ns, budget)
        return out

    # ------------------------------------------------------------------------------------------ objects

    def _namespace_obj(self, name: str, labels: dict[str, str]) -> dict[str, Any]:
        self.stats.namespaces += 1
        return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": dict(labels)}}

    def _pod_spec(self, w: Workload) -> dict[str, Any]:
        container = {
            "name": w.app if len(w.app) < 50 else "app",
            "image": w.image,
            "ports": [dict(p) for p in w.ports],
            "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"memory": "256Mi"}},
        }
        return {"containers": [container]}

    def _workload_objs(self, w: Workload) -> list[dict[str, Any]]:
        self.stats.workloads[w.kind] += 1
        self.stats.pods += w.replicas
        selector = {"app": w.app, "version": w.version, **({"track": "canary"} if "track" in w.extra_labels else {})}
        if not self.bare_pods:
            spec: dict[str, Any] = {
                "replicas": w.replicas,
                "selector": {"matchLabels": selector},
                "template": {"metadata": {"labels": w.labels}, "spec": self._pod_spec(w)},
            }
            if w.kind == "StatefulSet":
                spec["serviceName"] = w.name
            api = "apps/v1"
            return [{"apiVersion": api, "kind": w.kind, "metadata": {"name": w.name, "namespace": w.namespace,
                                                                     "labels": {"app": w.app}}, "spec": spec}]  # fmt: skip
        pods = []
        h = _rand_id(self.rng, 10)
        for i in range(w.replicas):
            if w.kind == "StatefulSet":
                name = f"{w.name}-{i}"
                extra = {"controller-revision-hash": f"{w.name}-{h}", "statefulset.kubernetes.io/pod-name": name,
                         "apps.kubernetes.io/pod-index": str(i)}  # fmt: skip
                owner = {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": w.name}
            else:
                name = f"{w.name}-{h}-{_rand_id(self.rng, 5)}"
                extra = {"pod-template-hash": h}
                owner = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": f"{w.name}-{h}"}
            pods.append({
                "apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": name, "namespace": w.namespace, "labels": {**w.labels, **extra},
                             "ownerReferences": [{**owner, "controller": True}]},
                "spec": self._pod_spec(w),
            })  # fmt: skip
        return pods

    def _node_objs(self) -> list[dict[str, Any]]:
        out = []
        zones = ["a", "b", "c"]
        for i in range(self.nodes):
            name = f"node-{i:04d}"
            out.append({
                "apiVersion": "v1", "kind": "Node",
                "metadata": {"name": name, "labels": {
                    "kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
                    "topology.kubernetes.io/zone": f"eu-west-1{zones[i % 3]}",
                    "node.kubernetes.io/instance-type": "m6i.4xlarge"}},
                "spec": {},  # no podCIDR: ipam hands each node the next /24 of the cluster CIDR
                "status": {
                    "addresses": [{"type": "InternalIP", "address": f"10.0.{i // 250}.{i % 250 + 4}"},
                                  {"type": "Hostname", "address": name}],
                    "capacity": {"cpu": "16", "memory": "64Gi", "pods": "250"},
                    "allocatable": {"cpu": "15890m", "memory": "62Gi", "pods": "250"},
                },
            })  # fmt: skip
        self.stats.nodes = self.nodes
        return out

    # ------------------------------------------------------------------------------------------ policies

    def _system_policies(self) -> list[tuple[str, dict[str, Any]]]:
        return [
            _policy("kube-system", "allow-dns-from-cluster", {
                "podSelector": _selector(**{"k8s-app": "kube-dns"}),
                "policyTypes": ["Ingress"],
                "ingress": [{"from": [{"namespaceSelector": {}}],
                             "ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}]}],
            }, "system"),
            _policy("ingress-nginx", "allow-web-from-internet", {
                "podSelector": _selector(**{"app.kubernetes.io/name": "ingress-nginx"}),
                "policyTypes": ["Ingress"],
                "ingress": [{"from": [{"ipBlock": {"cidr": "0.0.0.0/0"}}],
                             "ports": [{"port": 80}, {"port": 443}]}],
            }, "system"),
            _policy("monitoring", "prometheus-scrape-egress", {
                "podSelector": _selector(**{"app.kubernetes.io/name": "prometheus"}),
                "policyTypes": ["Egress"],
                "egress": [{"to": [{"namespaceSelector": {}}]},
                           {"to": [{"namespaceSelector": _ns_selector("kube-system"),
                                    "podSelector": _selector(**{"k8s-app": "kube-dns"})}],
                            "ports": [{"protocol": "UDP", "port": 53}]}],
            }, "system"),
            _policy("kube-system", "default-deny-ingress", {"podSelector": {}, "policyTypes": ["Ingress"]},
                    "default-deny-ingress"),
            _policy("monitoring", "allow-grafana-from-office", {
                "podSelector": _selector(**{"app.kubernetes.io/name": "prometheus"}),
                "ingress": [{"from": [{"ipBlock": {"cidr": OFFICE_VPN[0], "except": OFFICE_VPN[1]}}],
                             "ports": [{"port": "web"}]}],
            }, "ipblock-except"),
        ]  # fmt: skip

    def _namespace_policies(self, ns: AppNamespace, quota: int) -> list[tuple[str, dict[str, Any]]]:
        """Up to `quota` policies for one namespace, most common shapes first."""
        rng = self.rng
        n = ns.name
        out: list[tuple[str, dict[str, Any]]] = []
        names: set[str] = set()

        def add(name: str, spec: dict[str, Any], shape: str) -> bool:
            if len(out) >= quota:
                return False
            base, k = name, 2
            while name in names:
                name = f"{base}-{k}"
                k += 1
            names.add(name)
            out.append(_policy(n, name, spec, shape))
            return len(out) < quota

        egress_isolated = ns.deny in ("egress", "both")
        # 1. default deny
        if ns.deny == "ingress":
            add("default-deny-ingress", {"podSelector": {}, "policyTypes": ["Ingress"]}, "default-deny-ingress")
        elif ns.deny == "egress":
            add("default-deny-egress", {"podSelector": {}, "policyTypes": ["Egress"]}, "default-deny-egress")
        elif ns.deny == "both":
            add("default-deny-all", {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]}, "default-deny-both")
        # 2. DNS egress (AND peer: namespace kube-system AND pods k8s-app=kube-dns), UDP+TCP 53
        if egress_isolated:
            add("allow-dns-egress", {
                "podSelector": {}, "policyTypes": ["Egress"],
                "egress": [{"to": [{"namespaceSelector": _ns_selector("kube-system"),
                                    "podSelector": _selector(**{"k8s-app": "kube-dns"})}],
                            "ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}]}],
            }, "dns-egress")  # fmt: skip
        webs = ns.by_tier("web")
        # 3. allow from the ingress controller's namespace (and pods) on the named http port
        if webs:
            add("allow-from-ingress-controller", {
                "podSelector": _selector(tier="web"), "policyTypes": ["Ingress"],
                "ingress": [{"from": [{"namespaceSelector": _ns_selector("ingress-nginx"),
                                       "podSelector": _selector(**{"app.kubernetes.io/name": "ingress-nginx"})}],
                             "ports": [{"protocol": "TCP", "port": "http"}]}],
            }, "from-ingress-controller")  # fmt: skip
        # 4. Prometheus scraping on the named metrics port (namespaceSelector only)
        if ns.deny in ("ingress", "both"):
            add("allow-prometheus-scrape", {
                "podSelector": {"matchExpressions": [{"key": "app", "operator": "Exists"}]},
                "policyTypes": ["Ingress"],
                "ingress": [{"from": [{"namespaceSelector": {"matchLabels": {NS_LABEL: "monitoring"}}}],
                             "ports": [{"port": "metrics"}]}],
            }, "namespace-selector")  # fmt: skip
        # 5. egress to the internet (minus private ranges and the metadata service) on 443
        if egress_isolated:
            add("allow-egress-https-internet", {
                "podSelector": _selector(tier=rng.choice(["api", "worker"])), "policyTypes": ["Egress"],
                "egress": [{"to": [{"ipBlock": {"cidr": "0.0.0.0/0", "except": [*PRIVATE_RANGES, METADATA_IP]}}],
                            "ports": [{"protocol": "TCP", "port": 443}]}],
            }, "ipblock-except")  # fmt: skip

        # 6. the per-service mix, in a random but seeded order, cycled until the quota is met
        def pod_to_pod(client: Workload, server: Workload, named: bool) -> None:
            p = server.service_port
            ports = [_port_ref(p, named)]
            if server.port("grpc") and rng.random() < 0.5:
                ports.append(_port_ref(server.port("grpc") or p, not named))
            sel = _selector(app=server.app)
            if rng.random() < 0.2 and server.version != "canary":
                sel = {"matchLabels": {"app": server.app},
                       "matchExpressions": [{"key": "track", "operator": "DoesNotExist"}]}  # fmt: skip
            peer: dict[str, Any] = {"podSelector": _selector(app=client.app)}
            if rng.random() < 0.2:
                peer = {"podSelector": {"matchExpressions": [{"key": "tier", "operator": "In",
                                                              "values": [client.tier, "web"]}]}}  # fmt: skip
            add(
                f"allow-{client.app}-to-{server.app}",
                {
                    "podSelector": sel,
                    "policyTypes": ["Ingress"],
                    "ingress": [{"from": [peer], "ports": ports}],
                },
                "pod-to-pod-named" if named else "pod-to-pod-numeric",
            )
            if egress_isolated:
                add(f"allow-{client.app}-egress-{server.app}", {
                    "podSelector": _selector(app=client.app), "policyTypes": ["Egress"],
                    "egress": [{"to": [{"podSelector": _selector(app=server.app)}],
                                "ports": [_port_ref(p, rng.random() < 0.3)]}],
                }, "pod-to-pod-egress")  # fmt: skip

        def cross_team(server: Workload) -> None:
            shape = rng.random()
            if shape < 0.4:  # same team's other namespaces, any pod
                peer = {"namespaceSelector": _selector(team=ns.team)}
                kind = "namespace-selector"
            elif shape < 0.75:  # AND peer with expressions
                peer = {
                    "namespaceSelector": {"matchExpressions": [{"key": "env", "operator": "In",
                                                                "values": ["prod", "staging"]}]},
                    "podSelector": {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["web", "api"]}]},
                }  # fmt: skip
                kind = "and-peer"
            else:  # NotIn: every namespace that is not dev (and namespaces without an env label)
                peer = {"namespaceSelector": {"matchExpressions": [{"key": "env", "operator": "NotIn",
                                                                    "values": ["dev"]}]},
                        "podSelector": _selector(tier="api")}  # fmt: skip
                kind = "and-peer"
            add(f"allow-{server.app}-cross-namespace", {
                "podSelector": _selector(app=server.app),
                "ingress": [{"from": [peer], "ports": [_port_ref(server.service_port, rng.random() < 0.5)]}],
            }, kind)  # fmt: skip

        def ipblocks(w: Workload) -> None:
            shape = rng.random()
            if shape < 0.3:
                add(f"allow-{w.app}-from-office", {
                    "podSelector": _selector(app=w.app), "policyTypes": ["Ingress"],
                    "ingress": [{"from": [{"ipBlock": {"cidr": OFFICE_VPN[0], "except": list(OFFICE_VPN[1])}}],
                                 "ports": [_port_ref(w.service_port, False)]}],
                }, "ipblock-except")  # fmt: skip
            elif shape < 0.55:
                partner = rng.choice(PARTNERS)
                base = partner.rsplit(".", 1)[0]
                add(f"allow-{w.app}-from-partner", {
                    "podSelector": _selector(app=w.app),
                    "ingress": [{"from": [{"ipBlock": {"cidr": partner, "except": [f"{base}.128/25"]}}],
                                 "ports": [{"protocol": "TCP", "port": 30000, "endPort": 32767}]}],
                }, "endport")  # fmt: skip
            elif shape < 0.8:
                add(f"allow-{w.app}-egress-db-subnet", {
                    "podSelector": _selector(app=w.app), "policyTypes": ["Egress"],
                    "egress": [{"to": [{"ipBlock": {"cidr": rng.choice(DB_SUBNETS)}}],
                                "ports": [{"protocol": "TCP", "port": rng.choice([5432, 3306, 1521])}]}],
                }, "ipblock")  # fmt: skip
            else:
                add(f"allow-{w.app}-media-udp", {
                    "podSelector": _selector(app=w.app), "policyTypes": ["Ingress", "Egress"],
                    "ingress": [{"ports": [{"protocol": "UDP", "port": 10000, "endPort": 20000}]}],
                    "egress": [{"to": [{"ipBlock": {"cidr": "0.0.0.0/0", "except": PRIVATE_RANGES}}],
                                "ports": [{"protocol": "UDP", "port": 10000, "endPort": 20000}]}],
                }, "endport")  # fmt: skip

        def same_namespace() -> None:
            add("allow-same-namespace", {
                "podSelector": {}, "policyTypes": ["Ingress"],
                "ingress": [{"from": [{"podSelector": {}}]}],
            }, "same-namespace")  # fmt: skip

        def api_range(w: Workload) -> None:
            add(f"allow-{w.app}-port-range", {
                "podSelector": _selector(app=w.app, version=w.version),
                "ingress": [{"from": [{"podSelector": _selector(team=ns.team)}],
                             "ports": [{"protocol": "TCP", "port": 8000, "endPort": 8100}, {"port": "http"}]}],
            }, "endport")  # fmt: skip

        servers = ns.by_tier("api", "db", "cache", "queue")
        clients_of = {
            "api": ns.by_tier("web", "api"),
            "db": ns.by_tier("api", "worker"),
            "cache": ns.by_tier("api", "web"),
            "queue": ns.by_tier("api", "worker"),
        }
        actions: list[Any] = []
        for s in servers:
            for c in rng.sample(clients_of[s.tier], min(2, len(clients_of[s.tier]))):
                if c is not s:
                    actions.append(lambda c=c, s=s: pod_to_pod(c, s, rng.random() < 0.5))
        for w in ns.by_tier("api", "web"):
            if rng.random() < 0.35:
                actions.append(lambda w=w: cross_team(w))
            if rng.random() < 0.25:
                actions.append(lambda w=w: ipblocks(w))
            if rng.random() < 0.1:
                actions.append(lambda w=w: api_range(w))
        if rng.random() < 0.3:
            actions.append(same_namespace)
        rng.shuffle(actions)
        for act in actions:
            if len(out) >= quota:
                break
            act()
        # Still under quota (a large policy budget for a small namespace): variants per workload, as teams
        # write them (one policy per version, per extra port …).
        i = 0
        pool = ns.workloads or []
        while len(out) < quota and pool:
            w = pool[i % len(pool)]
            i += 1
            choice = rng.random()
            if choice < 0.4 and servers:
                s = rng.choice(servers)
                cl = rng.choice(pool)
                pod_to_pod(cl, s, rng.random() < 0.5)
            elif choice < 0.6:
                cross_team(w)
            elif choice < 0.8:
                ipblocks(w)
            elif w.port("http"):
                api_range(w)
            else:
                ipblocks(w)
        return out

    # ------------------------------------------------------------------------------------------ assemble

    def objects_(self) -> list[dict[str, Any]]:
        rng = self.rng
        objs: list[dict[str, Any]] = []
        if self.nodes:
            objs.extend(self._node_objs())
        system = self._system_workloads()
        system_pods = sum(w.replicas for w in system)
        app_pods = self.pods - system_pods
        for name in ("kube-system", "ingress-nginx", "monitoring"):
            objs.append(self._namespace_obj(name, {NS_LABEL: name, "purpose": "system"}))
        namespaces = self._app_namespaces(app_pods)
        for ns in namespaces:
            objs.append(self._namespace_obj(ns.name, ns.labels))
        for w in system:
            objs.extend(self._workload_objs(w))
        for ns in namespaces:
            for w in ns.workloads:
                objs.extend(self._workload_objs(w))
        # policies: the system ones first (at most a handful), the rest spread over application namespaces
        sys_pols = self._system_policies()[: min(5, self.policies // 20 if self.policies >= 20 else 0)]
        budget = self.policies - len(sys_pols)
        # (namespaces with workloads always meet their quota: the filler cycles over their workloads)
        populated = [ns for ns in namespaces if ns.workloads]
        quotas = _split(budget, len(populated), rng, skew=0.4)
        pols = list(sys_pols)
        for ns, q in zip(populated, quotas, strict=True):
            pols.extend(self._namespace_policies(ns, q))
        for shape, obj in pols:
            self.stats.policies[shape] += 1
            objs.append(obj)
        return objs


def generate_objects(
    pods: int,
    policies: int,
    seed: int = 1,
    *,
    namespaces: int | None = None,
    bare_pods: bool = False,
    nodes: int = 0,
    no_deny_share: float = 0.10,
) -> tuple[list[dict[str, Any]], Stats]:
    """The cluster's objects (plain dicts, as a manifest would hold them) and a summary."""
    g = Generator(
        pods, policies, seed, namespaces=namespaces, bare_pods=bare_pods, nodes=nodes, no_deny_share=no_deny_share
    )
    objs = g.objects_()
    return objs, g.stats


def dump_yaml(objs: list[dict[str, Any]]) -> str:
    return yaml.dump_all(objs, Dumper=_Dumper, sort_keys=False, default_flow_style=False, width=120)


def generate_yaml(pods: int, policies: int, seed: int = 1, **kw: Any) -> str:
    """Multi-document YAML text of the generated cluster."""
    objs, _ = generate_objects(pods, policies, seed, **kw)
    return dump_yaml(objs)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pods", type=int, default=1000, help="total pods after workload expansion (default 1000)")
    ap.add_argument("--policies", type=int, default=200, help="total NetworkPolicies (default 200)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--namespaces", type=int, default=None, help="application namespaces (default pods/50)")
    ap.add_argument("--bare-pods", action="store_true", help="emit Pods instead of Deployments/StatefulSets")
    ap.add_argument("--nodes", type=int, default=0, help="add K Node objects (default none)")
    ap.add_argument(
        "--no-deny-share",
        type=float,
        default=0.10,
        help="share of application namespaces without any default-deny (default 0.10)",
    )
    ap.add_argument("-o", "--output", default="-", help="output file (default stdout)")
    ap.add_argument("-q", "--quiet", action="store_true", help="no summary on stderr")
    args = ap.parse_args(argv)
    try:
        objs, stats = generate_objects(
            args.pods,
            args.policies,
            args.seed,
            namespaces=args.namespaces,
            bare_pods=args.bare_pods,
            nodes=args.nodes,
            no_deny_share=args.no_deny_share,
        )
    except ValueError as exc:
        ap.error(str(exc))
    text = dump_yaml(objs)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(text)
    if not args.quiet:
        print(f"generated {stats.render()}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
