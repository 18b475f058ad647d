"""The lists a live read needs, fetched as the API server writes them: `kubectl get --raw PATH` with
`limit`/`continue` pages, the lists side by side, a refusal (Forbidden, NotFound) kept as an answer."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from threading import Event
from typing import Any, Literal
from urllib.parse import quote

from netpol.loading.documents import decode
from netpol.loading.kubectl import LiveError, LiveOptions, one_line_reason, start, wait
from netpol.loading.yamlread import ReadError, load_text

PAGE_LIMIT = 5000  # items per page (kubectl's own --chunk-size is 500: one kubectl process per page here)
PARALLEL = 8  # kubectl processes at once

ADMIN_GROUP = "policy.networking.k8s.io"
CILIUM_GROUP_VERSION = "cilium.io/v2"
METRICS_GROUP_VERSION = "metrics.k8s.io/v1beta1"

Need = Literal["required", "optional", "nodes", "namespaces"]


@dataclass(frozen=True, slots=True)
class Kind:
    """One resource listed: its REST path, whether it lives in namespaces, what a refusal costs."""

    plural: str
    group_version: str  # "v1" for the core group
    kind: str
    namespaced: bool
    need: Need

    def path(self, namespace: str | None) -> str:
        base = "/api/v1" if self.group_version == "v1" else f"/apis/{self.group_version}"
        return f"{base}/namespaces/{namespace}/{self.plural}" if namespace else f"{base}/{self.plural}"


NAMESPACES = Kind("namespaces", "v1", "Namespace", False, "namespaces")
NODES = Kind("nodes", "v1", "Node", False, "nodes")
PODS = Kind("pods", "v1", "Pod", True, "required")
POLICIES = Kind("networkpolicies", "networking.k8s.io/v1", "NetworkPolicy", True, "required")
SERVICES = Kind("services", "v1", "Service", True, "optional")
PDBS = Kind("poddisruptionbudgets", "policy/v1", "PodDisruptionBudget", True, "optional")
ANPS = Kind("adminnetworkpolicies", f"{ADMIN_GROUP}/v1alpha1", "AdminNetworkPolicy", False, "optional")
BANPS = Kind("baselineadminnetworkpolicies", f"{ADMIN_GROUP}/v1alpha1", "BaselineAdminNetworkPolicy", False, "optional")
CNPS = Kind("ciliumnetworkpolicies", CILIUM_GROUP_VERSION, "CiliumNetworkPolicy", True, "optional")
CCNPS = Kind(
    "ciliumclusterwidenetworkpolicies", CILIUM_GROUP_VERSION, "CiliumClusterwideNetworkPolicy", False, "optional"
)
CLUSTER_NPS = Kind("clusternetworkpolicies", f"{ADMIN_GROUP}/v1alpha2", "ClusterNetworkPolicy", False, "optional")
NODE_METRICS = Kind("nodes", METRICS_GROUP_VERSION, "NodeMetrics", False, "optional")
NAMESPACED = (PODS, POLICIES, SERVICES, PDBS)
# Calico's kinds (netpol/loading/calico.py), from its API server's group when served, else straight from its CRDs
CALICO_GROUP_VERSIONS = ("projectcalico.org/v3", "crd.projectcalico.org/v1")
CALICO_KINDS = (
    ("networkpolicies", "NetworkPolicy", True),
    ("globalnetworkpolicies", "GlobalNetworkPolicy", False),
    ("tiers", "Tier", False),
    ("networksets", "NetworkSet", True),
    ("globalnetworksets", "GlobalNetworkSet", False),
)
SERVICE_ACCOUNTS = Kind("serviceaccounts", "v1", "ServiceAccount", True, "optional")


def calico_kinds(served: set[str]) -> tuple[Kind, ...]:
    """The Calico kinds to list (and ServiceAccounts, whose labels its rules select), or () when not served."""
    gv = next((g for g in CALICO_GROUP_VERSIONS if g in served), None)
    if gv is None:
        return ()
    return (*(Kind(plural, gv, kind, namespaced, "optional") for plural, kind, namespaced in CALICO_KINDS),
            SERVICE_ACCOUNTS)

# The doors into the cluster (netpol exposure), each in the first version of its list the cluster serves:
# optional (without them what they expose is not analysed).
GATEWAY_GROUP = "gateway.networking.k8s.io"
DOOR_KINDS: tuple[tuple[Kind, ...], ...] = (
    (Kind("ingresses", "networking.k8s.io/v1", "Ingress", True, "optional"),),
    (Kind("ingressclasses", "networking.k8s.io/v1", "IngressClass", False, "optional"),),
    (Kind("routes", "route.openshift.io/v1", "Route", True, "optional"),),
    *(
        tuple(Kind(plural, f"{GATEWAY_GROUP}/{v}", kind, namespaced, "optional") for v in versions)
        for plural, kind, namespaced, versions in (
            ("gatewayclasses", "GatewayClass", False, ("v1", "v1beta1")),
            ("gateways", "Gateway", True, ("v1", "v1beta1")),
            ("httproutes", "HTTPRoute", True, ("v1", "v1beta1")),
            ("grpcroutes", "GRPCRoute", True, ("v1", "v1alpha2")),
            ("tlsroutes", "TLSRoute", True, ("v1alpha2", "v1alpha3", "v1")),
            ("tcproutes", "TCPRoute", True, ("v1alpha2", "v1")),
            ("udproutes", "UDPRoute", True, ("v1alpha2", "v1")),
            ("referencegrants", "ReferenceGrant", True, ("v1beta1", "v1", "v1alpha2")),
        )
    ),
)


def served_doors(served: set[str]) -> tuple[Kind, ...]:
    """Each door kind in the first of its versions the cluster serves (none: not listed)."""
    return tuple(
        next(k for k in choices if k.group_version in served)
        for choices in DOOR_KINDS
        if any(k.group_version in served for k in choices)
    )


_SERVER_ERROR = re.compile(r"^Error from server \((\w+)\): (.*)$")
_CONTINUE = re.compile(rb'"continue"\s*:\s*"([^"]*)"')


@dataclass(frozen=True, slots=True)
class Listed:
    kind: Kind
    namespace: str | None  # None: every namespace (or a cluster-scoped kind)
    items: tuple[Mapping[str, Any], ...] = ()
    pages: tuple[bytes, ...] = ()  # the raw answers, until parsed
    refused: str = ""  # the server's reason (Forbidden, NotFound) when it refused
    message: str = ""

    @property
    def where(self) -> str:
        if not self.kind.namespaced:
            return ""
        return f" in namespace {self.namespace}" if self.namespace else " in all namespaces"


def _page_token(body: bytes) -> str:
    """The list's `metadata.continue`: the API server writes ListMeta before the items, so the head of the
    page holds it; the whole page is parsed only if it does not."""
    head_end = body.find(b'"items"', 0, 65536)
    if head_end >= 0:
        m = _CONTINUE.search(body, 0, head_end)
        return m.group(1).decode() if m else ""
    try:
        doc = json.loads(body)
    except (ValueError, RecursionError):  # read (and refused) by the bounded reader afterwards
        return ""
    return str(((doc.get("metadata") or {}) if isinstance(doc, Mapping) else {}).get("continue") or "")


def fetch(options: LiveOptions, kind: Kind, namespace: str | None, deadline: float, cancel: Event) -> Listed:
    """Every page of one list, as the API server wrote it (`kubectl get --raw PATH?limit=…&continue=…`):
    kubectl's own `get -o json` decodes and re-encodes each object, 10 s for 10,000 pods instead of 2."""
    pages: list[bytes] = []
    token = ""
    while not cancel.is_set():
        query = f"?limit={PAGE_LIMIT}" + (f"&continue={quote(token, safe='')}" if token else "")
        call = start(options, ["get", "--raw", kind.path(namespace) + query])
        try:
            wait(call, deadline, options.timeout)
            if call.returncode != 0:
                reason = one_line_reason(call.stderr(), call.returncode)
                m = _SERVER_ERROR.match(reason)
                if m is None:
                    raise LiveError(f"kubectl: {reason}")
                return Listed(kind, namespace, refused=m.group(1), message=m.group(2))
            body = call.stdout()
        finally:
            call.close()
        pages.append(body)
        token = _page_token(body)
        if not token:
            break
    return Listed(kind, namespace, pages=tuple(pages))


def list_all(
    options: LiveOptions, wanted: Sequence[tuple[Kind, str | None]], timings: dict[str, float]
) -> list[Listed]:
    """Every (kind, namespace) list, fetched side by side (pages of one list in order), then parsed."""
    start = time.perf_counter()
    deadline = time.monotonic() + options.timeout
    cancel = Event()
    with ThreadPoolExecutor(max_workers=min(PARALLEL, len(wanted)) or 1) as pool:
        futures = [pool.submit(fetch, options, kind, ns, deadline, cancel) for kind, ns in wanted]
        try:
            fetched = [f.result() for f in futures]
        except BaseException:
            cancel.set()  # the other lists stop after their current page
            raise
    timings["kubectl"] = timings.get("kubectl", 0.0) + time.perf_counter() - start
    start = time.perf_counter()
    out = []
    for listed in fetched:
        items: list[Mapping[str, Any]] = []
        for page in listed.pages:
            where = f"kubectl get --raw {listed.kind.path(listed.namespace)}"
            try:  # the manifests' bounded reader: same UTF-8, depth, size and number limits and messages
                parsed = load_text(decode(page, f"<{where}>"), json_hint=True)
            except ReadError as exc:
                raise LiveError(f"{where}: invalid JSON: {exc}") from None
            doc = parsed[0].value if len(parsed) == 1 else None
            got = doc.get("items") if isinstance(doc, Mapping) else None
            items += got if isinstance(got, list) else ()
        out.append(replace(listed, items=tuple(items), pages=()))
    timings["parse"] = timings.get("parse", 0.0) + time.perf_counter() - start
    return out
