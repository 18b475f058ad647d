"""A stand-in Kubernetes API server for the real kubectl: standard library http.server on 127.0.0.1.

It serves what kubectl 1.32 asks for (seen by logging its requests): `/version`, aggregated discovery
(`/api` and `/apis` answered as `APIGroupDiscoveryList`, apidiscovery.k8s.io/v2, when kubectl's Accept
header asks for it; the legacy `APIVersions` / `APIGroupList` / `APIResourceList` otherwise), and the list
endpoints of every served resource with `limit`/`continue` pagination (kubectl's `--chunk-size` 500). Items
are held without `kind`/`apiVersion`, as a real list answer has them. Every request is recorded
(method, path, query) so a test can prove that only GETs reached the cluster.

Knobs: `forbid` (403 with the API server's Status text), `allowed_namespaces` (a namespace-scoped user:
cluster-wide lists and lists elsewhere are forbidden), `delay` (a slow answer), `drop_group` (the group
is absent: discovery omits it and its paths answer 404; `drop_version` the same for one group/version),
`fail_all` (every request answers 500).
Upstream: k8s.io/apiserver pkg/endpoints/discovery/aggregated, staging/src/k8s.io/api/apidiscovery/v2.
"""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

AGGREGATED = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"


@dataclass(frozen=True)
class Resource:
    group: str
    version: str
    plural: str
    kind: str
    namespaced: bool
    short: tuple[str, ...] = ()

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def list_kind(self) -> str:
        return self.kind + "List"


RESOURCES = (
    Resource("", "v1", "namespaces", "Namespace", False, ("ns",)),
    Resource("", "v1", "nodes", "Node", False, ("no",)),
    Resource("", "v1", "pods", "Pod", True, ("po",)),
    Resource("", "v1", "services", "Service", True, ("svc",)),
    Resource("networking.k8s.io", "v1", "networkpolicies", "NetworkPolicy", True, ("netpol",)),
    Resource("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", True, ("pdb",)),
    Resource("policy.networking.k8s.io", "v1alpha1", "adminnetworkpolicies", "AdminNetworkPolicy", False, ("anp",)),
    Resource(
        "policy.networking.k8s.io",
        "v1alpha1",
        "baselineadminnetworkpolicies",
        "BaselineAdminNetworkPolicy",
        False,
        ("banp",),
    ),
    Resource("cilium.io", "v2", "ciliumnetworkpolicies", "CiliumNetworkPolicy", True, ("cnp",)),
    Resource("cilium.io", "v2", "ciliumclusterwidenetworkpolicies", "CiliumClusterwideNetworkPolicy", False, ("ccnp",)),
    Resource(
        "policy.networking.k8s.io", "v1alpha2", "clusternetworkpolicies", "ClusterNetworkPolicy", False, ("cnp",)
    ),
    Resource("metrics.k8s.io", "v1beta1", "nodes", "NodeMetrics", False),
    Resource("metrics.k8s.io", "v1beta1", "pods", "PodMetrics", True),
    Resource("", "v1", "serviceaccounts", "ServiceAccount", True, ("sa",)),
    # Calico: served only when a test asks for it (`StandIn.calico`), from its API server's group or its CRDs'
    *(
        Resource(group, version, plural, kind, namespaced)
        for group, version in (("projectcalico.org", "v3"), ("crd.projectcalico.org", "v1"))
        for plural, kind, namespaced in (
            ("networkpolicies", "NetworkPolicy", True),
            ("globalnetworkpolicies", "GlobalNetworkPolicy", False),
            ("tiers", "Tier", False),
            ("networksets", "NetworkSet", True),
            ("globalnetworksets", "GlobalNetworkSet", False),
        )
    ),
    # the doors into the cluster (netpol exposure): Ingress, OpenShift's Route, the Gateway API as its CRDs serve it
    Resource("networking.k8s.io", "v1", "ingresses", "Ingress", True, ("ing",)),
    Resource("networking.k8s.io", "v1", "ingressclasses", "IngressClass", False),
    Resource("route.openshift.io", "v1", "routes", "Route", True),
    Resource("gateway.networking.k8s.io", "v1", "gatewayclasses", "GatewayClass", False, ("gc",)),
    Resource("gateway.networking.k8s.io", "v1", "gateways", "Gateway", True, ("gtw",)),
    Resource("gateway.networking.k8s.io", "v1", "httproutes", "HTTPRoute", True),
    Resource("gateway.networking.k8s.io", "v1", "grpcroutes", "GRPCRoute", True),
    Resource("gateway.networking.k8s.io", "v1alpha2", "tlsroutes", "TLSRoute", True),
    Resource("gateway.networking.k8s.io", "v1alpha2", "tcproutes", "TCPRoute", True),
    Resource("gateway.networking.k8s.io", "v1alpha2", "udproutes", "UDPRoute", True),
    Resource("gateway.networking.k8s.io", "v1beta1", "referencegrants", "ReferenceGrant", True),
)
KINDS = {r.kind: r for r in RESOURCES if "projectcalico" not in r.group}
BY_GROUP = {(r.group, r.kind): r for r in RESOURCES}
CALICO_GROUPS = frozenset({"projectcalico.org", "crd.projectcalico.org"})


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    query: Mapping[str, str]


@dataclass
class StandIn:
    """The server's state; tests change it between commands (the handler reads it under a lock)."""

    objects: dict[tuple[str, str], list[dict[str, Any]]] = field(default_factory=dict)  # (group, plural) → items
    forbid: set[tuple[str, str | None]] = field(default_factory=set)  # (plural, namespace or None = cluster scope)
    allowed_namespaces: set[str] | None = None
    delay: dict[str, float] = field(default_factory=dict)  # plural → seconds before answering
    drop_group: set[str] = field(default_factory=set)
    calico: str = ""  # the Calico group served ("projectcalico.org" or "crd.projectcalico.org"; "" none)
    drop_version: set[str] = field(default_factory=set)  # group/versions absent (e.g. only v1alpha2 of a group)
    fail_all: bool = False
    user: str = "jane"
    requests: list[Request] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    stopping: threading.Event = field(default_factory=threading.Event)
    server: ThreadingHTTPServer | None = None
    resource_version: int = 1000

    # ---------------------------------------------------------------- content

    def load(self, items: Iterable[Mapping[str, Any]]) -> None:
        """Add objects as `kubectl get -o json` prints them (kind/apiVersion are dropped, as lists hold them)."""
        with self.lock:
            for obj in items:
                group = obj.get("apiVersion", "").rpartition("/")[0]
                r = BY_GROUP.get((group, obj["kind"])) or KINDS[obj["kind"]]
                body = {k: v for k, v in obj.items() if k not in ("kind", "apiVersion")}
                self.objects.setdefault((r.group, r.plural), []).append(body)
            self.resource_version += 1

    def replace(self, items: Iterable[Mapping[str, Any]]) -> None:
        with self.lock:
            self.objects = {}
        self.load(items)

    def served(self) -> list[Resource]:
        return [
            r
            for r in RESOURCES
            if r.group not in self.drop_group
            and r.group_version not in self.drop_version
            and (r.group not in CALICO_GROUPS or r.group == self.calico)
        ]

    # ---------------------------------------------------------------- lifecycle

    def start(self) -> StandIn:
        state = self

        class Handler(_Handler):
            standin = state

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, name="standin", daemon=True).start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()

    @property
    def url(self) -> str:
        assert self.server is not None
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def kubeconfig(self, path: Path, *, namespace: str | None = None, context: str = "standin") -> Path:
        ctx: dict[str, Any] = {"cluster": "standin", "user": self.user}
        if namespace:
            ctx["namespace"] = namespace
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "standin", "cluster": {"server": self.url}}],
            "users": [{"name": self.user, "user": {"token": "stand-in-token"}}],
            "contexts": [{"name": context, "context": ctx}],
            "current-context": context,
        }
        path.write_text(json.dumps(config))
        return path

    def methods(self) -> set[str]:
        with self.lock:
            return {r.method for r in self.requests}

    def paths(self) -> list[str]:
        with self.lock:
            return [r.path for r in self.requests]

    # ---------------------------------------------------------------- answers

    def discovery(self, core: bool) -> dict[str, Any]:
        groups: dict[str, dict[str, list[Resource]]] = {}
        for r in self.served():
            if (r.group == "") == core:
                groups.setdefault(r.group, {}).setdefault(r.version, []).append(r)
        return {
            "kind": "APIGroupDiscoveryList",
            "apiVersion": "apidiscovery.k8s.io/v2",
            "metadata": {},
            "items": [
                {
                    "metadata": {"name": g},
                    "versions": [
                        {
                            "version": v,
                            "resources": [
                                {
                                    "resource": r.plural,
                                    "responseKind": {"group": r.group, "version": r.version, "kind": r.kind},
                                    "scope": "Namespaced" if r.namespaced else "Cluster",
                                    "singularResource": r.kind.lower(),
                                    "verbs": ["get", "list", "watch"],
                                    **({"shortNames": list(r.short)} if r.short else {}),
                                }
                                for r in rs
                            ],
                            "freshness": "Current",
                        }
                        for v, rs in versions.items()
                    ],
                }
                for g, versions in groups.items()
            ],
        }

    def legacy_groups(self) -> dict[str, Any]:
        groups: dict[str, list[str]] = {}
        for r in self.served():
            if r.group and r.version not in groups.setdefault(r.group, []):
                groups[r.group].append(r.version)
        return {
            "kind": "APIGroupList",
            "apiVersion": "v1",
            "groups": [
                {
                    "name": g,
                    "versions": [{"groupVersion": f"{g}/{v}", "version": v} for v in vs],
                    "preferredVersion": {"groupVersion": f"{g}/{vs[0]}", "version": vs[0]},
                }
                for g, vs in groups.items()
            ],
        }

    def resource_list(self, group: str, version: str) -> dict[str, Any] | None:
        rs = [r for r in self.served() if r.group == group and r.version == version]
        if not rs:
            return None
        return {
            "kind": "APIResourceList",
            "apiVersion": "v1",
            "groupVersion": rs[0].group_version,
            "resources": [
                {
                    "name": r.plural,
                    "singularName": r.kind.lower(),
                    "namespaced": r.namespaced,
                    "kind": r.kind,
                    "verbs": ["get", "list", "watch"],
                    **({"shortNames": list(r.short)} if r.short else {}),
                }
                for r in rs
            ],
        }

    def forbidden_message(self, r: Resource, namespace: str | None) -> str | None:
        scope = f'in the namespace "{namespace}"' if namespace else "at the cluster scope"
        denied = (r.plural, namespace) in self.forbid or (r.plural, None) in self.forbid and namespace is None
        if self.allowed_namespaces is not None and (namespace is None or namespace not in self.allowed_namespaces):
            denied = True
        if not denied:
            return None
        return (
            f'{r.plural}{"." + r.group if r.group else ""} is forbidden: User "{self.user}" cannot list resource'
            f' "{r.plural}" in API group "{r.group}" {scope}'
        )

    def list_answer(self, r: Resource, namespace: str | None, query: Mapping[str, str]) -> dict[str, Any]:
        with self.lock:
            items = list(self.objects.get((r.group, r.plural), []))
            rv = str(self.resource_version)
        if namespace is not None:
            items = [i for i in items if (i.get("metadata") or {}).get("namespace") == namespace]
        start = int(base64.b64decode(query["continue"]).decode()) if query.get("continue") else 0
        limit = int(query.get("limit") or 0)
        end = start + limit if limit else len(items)
        meta: dict[str, Any] = {"resourceVersion": rv}
        if end < len(items):
            meta["continue"] = base64.b64encode(str(end).encode()).decode()
            meta["remainingItemCount"] = len(items) - end
        return {"kind": r.list_kind, "apiVersion": r.group_version, "metadata": meta, "items": items[start:end]}


def status(code: int, reason: str, message: str) -> dict[str, Any]:
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    }


class _Handler(BaseHTTPRequestHandler):
    standin: StandIn
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass

    def _record(self) -> tuple[list[str], dict[str, str]]:
        parts = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        with self.standin.lock:
            self.standin.requests.append(Request(self.command, parts.path, query))
        return [p for p in parts.path.split("/") if p], query

    def _send(self, code: int, body: Mapping[str, Any], content_type: str = "application/json") -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _refuse(self) -> None:
        self._record()
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        self._send(405, status(405, "MethodNotAllowed", "the stand-in API server is read-only"))

    do_POST = do_PUT = do_PATCH = do_DELETE = _refuse

    def do_GET(self) -> None:  # noqa: C901 - one dispatch over the API's path shapes
        parts, query = self._record()
        s = self.standin
        if s.fail_all:
            self._send(500, status(500, "InternalError", "the stand-in is failing on purpose"))
            return
        aggregated = "as=APIGroupDiscoveryList" in (self.headers.get("Accept") or "")
        match parts:
            case ["version"]:
                self._send(200, {"major": "1", "minor": "32", "gitVersion": "v1.32.0-standin", "platform": "linux"})
            case ["api"]:
                if aggregated:
                    self._send(200, s.discovery(core=True), AGGREGATED)
                else:
                    self._send(200, {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []})
            case ["apis"]:
                if aggregated:
                    self._send(200, s.discovery(core=False), AGGREGATED)
                else:
                    self._send(200, s.legacy_groups())
            case ["api", "v1"]:
                self._send(200, s.resource_list("", "v1") or {})
            case ["apis", group, version]:
                answer = s.resource_list(group, version)
                if answer is None:
                    self._send(404, status(404, "NotFound", "the server could not find the requested resource"))
                else:
                    self._send(200, answer)
            case ["api", "v1", plural] | ["api", "v1", "namespaces", _, plural]:
                self._list("", "v1", plural, parts[3] if len(parts) == 5 else None, query)
            case ["apis", group, version, plural] | ["apis", group, version, "namespaces", _, plural]:
                self._list(group, version, plural, parts[4] if len(parts) == 6 else None, query)
            case _:
                self._send(404, status(404, "NotFound", "the server could not find the requested resource"))

    def _list(self, group: str, version: str, plural: str, namespace: str | None, query: Mapping[str, str]) -> None:
        s = self.standin
        found = [r for r in s.served() if (r.group, r.version, r.plural) == (group, version, plural)]
        if not found:
            self._send(404, status(404, "NotFound", "the server could not find the requested resource"))
            return
        r = found[0]
        delay = s.delay.get(plural, 0.0)
        if delay:
            s.stopping.wait(delay)
        message = s.forbidden_message(r, namespace)
        if message:
            self._send(403, {**status(403, "Forbidden", message), "details": {"kind": plural, "group": group}})
            return
        self._send(200, s.list_answer(r, namespace, query))
