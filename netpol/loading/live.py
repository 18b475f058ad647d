"""A live cluster, read through kubectl (the user's kubeconfig, contexts and credentials, unchanged).

Only GET requests reach the cluster: `kubectl api-versions` (discovery), then the lists as the API server
writes them (`kubectl get --raw`, `limit`/`continue` pages), the kinds side by side. Only what runs is read: Pods (bound, with their IPs and the scheduler's
PodScheduled condition), not the workloads that made them, so nothing is expanded twice.

What the user may not read decides what can be answered: without NetworkPolicies (or served
AdminNetworkPolicies) every answer would be wrong, so that is an error; without Nodes the pods still run
where the cluster put them (no scheduling questions); a user who may list only some namespaces (`-n`) gets
those namespaces and a note that answers across namespaces are limited. Messages are kubectl's own reason,
once, on one line (kubectl repeats discovery errors through klog several times).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from threading import Event
from typing import IO, Any, Literal
from urllib.parse import quote

from netpol.errors import SourceRef, UsageError
from netpol.loading.cluster import build_cluster
from netpol.loading.documents import Document, decode
from netpol.loading.yamlread import ReadError, load_text
from netpol.model.cluster import Cluster, Warning_
from netpol.model.quantity import to_units

DEFAULT_TIMEOUT = 60.0
STDERR_KEEP = 64 * 1024  # the tail of kubectl's stderr that is read: the reason is on its last lines
REASON_CHARS = 400
PAGE_LIMIT = 5000  # items per page (kubectl's own --chunk-size is 500: one kubectl process per page here)
PARALLEL = 8  # kubectl processes at once

ADMIN_GROUP = "policy.networking.k8s.io"
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
NODE_METRICS = Kind("nodes", METRICS_GROUP_VERSION, "NodeMetrics", False, "optional")
NAMESPACED = (PODS, POLICIES, SERVICES, PDBS)

WHY_OPTIONAL = {
    "services": "svc/… names cannot be resolved",
    "poddisruptionbudgets": "drains honour no PodDisruptionBudget",
    "adminnetworkpolicies": "none are applied, so answers may be wrong where one would decide",
    "baselineadminnetworkpolicies": "none is applied, so answers may be wrong where it would decide",
}

_KLOG = re.compile(r"^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ [^\]]+\] ")
_KLOG_ERR = re.compile(r'err="((?:[^"\\]|\\.)*)"')
_SERVER_ERROR = re.compile(r"^Error from server \((\w+)\): (.*)$")
_CONTINUE = re.compile(rb'"continue"\s*:\s*"([^"]*)"')


class LiveError(UsageError):
    """kubectl could not read what the answer needs (exit 2)."""


@dataclass(frozen=True, slots=True)
class LiveOptions:
    context: str | None = None
    kubeconfig: str | None = None
    kubectl: str = "kubectl"
    timeout: float = DEFAULT_TIMEOUT
    namespaces: tuple[str, ...] = ()  # -n: the namespaces to fall back to when cluster-wide lists are refused

    def flags(self) -> list[str]:
        out = []
        if self.context:
            out += ["--context", self.context]
        if self.kubeconfig:
            out += ["--kubeconfig", self.kubeconfig]
        return out


@dataclass(frozen=True, slots=True)
class NodeUsage:
    """What `kubectl top node` shows: CPU in millicores and memory in bytes, per node, from metrics.k8s.io."""

    cpu_millis: Mapping[str, int] = field(default_factory=dict)
    memory_bytes: Mapping[str, int] = field(default_factory=dict)
    unavailable: str = ""  # why not, when the cluster serves no metrics (or refuses them)

    @property
    def available(self) -> bool:
        return not self.unavailable


@dataclass(frozen=True, slots=True)
class LiveRead:
    cluster: Cluster
    notes: tuple[str, ...] = ()
    usage: NodeUsage = NodeUsage()
    namespaces: tuple[str, ...] = ()  # non-empty when only these namespaces could be read
    timings: Mapping[str, float] = field(default_factory=dict)  # seconds: kubectl, parse, build


# ------------------------------------------------------------------------------------------------ kubectl


def one_line_reason(stderr: str, returncode: int | None = None) -> str:
    """kubectl's reason on one line: its final `error: …` / `Error from server …` line, else the last klog
    error (kubectl 1.32 logs a failed discovery five times before saying it once)."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    plain = [line for line in lines if not _KLOG.match(line)]
    if plain:
        reason = plain[-1]
    elif lines:
        m = _KLOG_ERR.search(lines[-1])
        reason = m.group(1).replace('\\"', '"') if m else _KLOG.sub("", lines[-1])
    else:
        reason = f"kubectl exited with status {returncode}"
    reason = reason.removeprefix("error: ")
    return reason if len(reason) <= REASON_CHARS else reason[: REASON_CHARS - 1] + "…"


@dataclass
class _Call:
    """One kubectl process: stdout spooled to a temporary file (a 10,000-pod list is ~50 MB), stderr's tail."""

    argv: list[str]
    proc: subprocess.Popen[bytes]
    out: IO[bytes]
    err: IO[bytes]
    returncode: int | None = None

    def stdout(self) -> bytes:
        self.out.seek(0)
        return self.out.read()

    def stderr(self) -> str:
        size = self.err.seek(0, os.SEEK_END)
        self.err.seek(max(0, size - STDERR_KEEP))
        return self.err.read().decode("utf-8", "replace")

    def close(self) -> None:
        self.out.close()
        self.err.close()


def _start(options: LiveOptions, args: Sequence[str]) -> _Call:
    argv = [options.kubectl, *args, *options.flags()]
    out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    try:
        # Its own process group: a timeout kills kubectl and anything it started (exec credential plugins).
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err, start_new_session=True)
    except FileNotFoundError:
        out.close()
        err.close()
        raise LiveError(f"--live needs {options.kubectl!r} on PATH (or --kubectl PATH)") from None
    except OSError as exc:  # not executable, a folder, a text file without #!: say why, never a traceback
        out.close()
        err.close()
        raise LiveError(f"--kubectl {options.kubectl!r} cannot be run: {exc.strerror or exc}") from None
    return _Call(argv, proc, out, err)


def _kill(call: _Call) -> None:
    try:
        os.killpg(call.proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    call.proc.wait()


def _wait(call: _Call, deadline: float, timeout: float) -> None:
    """Wait for kubectl until the read's deadline; past it, kill its process group."""
    try:
        call.returncode = call.proc.wait(timeout=max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        _kill(call)
        raise LiveError(
            f"kubectl did not answer within {timeout:g} s (--kubectl-timeout); is the cluster reachable?"
        ) from None


def run_kubectl(options: LiveOptions, args: Sequence[str]) -> str:
    """One kubectl command's stdout; its one-line reason as a LiveError when it fails."""
    call = _start(options, args)
    try:
        _wait(call, time.monotonic() + options.timeout, options.timeout)
        if call.returncode != 0:
            raise LiveError(f"kubectl: {one_line_reason(call.stderr(), call.returncode)}")
        return call.stdout().decode("utf-8", "replace")
    finally:
        call.close()


# ------------------------------------------------------------------------------------------------ reading


@dataclass(frozen=True, slots=True)
class _Listed:
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


def _fetch(options: LiveOptions, kind: Kind, namespace: str | None, deadline: float, cancel: Event) -> _Listed:
    """Every page of one list, as the API server wrote it (`kubectl get --raw PATH?limit=…&continue=…`):
    kubectl's own `get -o json` decodes and re-encodes each object, 10 s for 10,000 pods instead of 2."""
    pages: list[bytes] = []
    token = ""
    while not cancel.is_set():
        query = f"?limit={PAGE_LIMIT}" + (f"&continue={quote(token, safe='')}" if token else "")
        call = _start(options, ["get", "--raw", kind.path(namespace) + query])
        try:
            _wait(call, deadline, options.timeout)
            if call.returncode != 0:
                reason = one_line_reason(call.stderr(), call.returncode)
                m = _SERVER_ERROR.match(reason)
                if m is None:
                    raise LiveError(f"kubectl: {reason}")
                return _Listed(kind, namespace, refused=m.group(1), message=m.group(2))
            body = call.stdout()
        finally:
            call.close()
        pages.append(body)
        token = _page_token(body)
        if not token:
            break
    return _Listed(kind, namespace, pages=tuple(pages))


def _list_all(
    options: LiveOptions, wanted: Sequence[tuple[Kind, str | None]], timings: dict[str, float]
) -> list[_Listed]:
    """Every (kind, namespace) list, fetched side by side (pages of one list in order), then parsed."""
    start = time.perf_counter()
    deadline = time.monotonic() + options.timeout
    cancel = Event()
    with ThreadPoolExecutor(max_workers=min(PARALLEL, len(wanted)) or 1) as pool:
        futures = [pool.submit(_fetch, options, kind, ns, deadline, cancel) for kind, ns in wanted]
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


def _served(options: LiveOptions) -> set[str]:
    """The group/versions the API server serves (`kubectl api-versions`): also proves the context works."""
    return {line.strip() for line in run_kubectl(options, ["api-versions"]).splitlines() if line.strip()}


def _fatal(listed: _Listed, hint: str = "") -> LiveError:
    """Without this kind every answer would be wrong: say what could not be read, and where."""
    return LiveError(
        f"cannot list {listed.kind.plural}{listed.where}: {listed.refused.lower()}; the answer would be wrong{hint}"
    )


def read_live_detailed(options: LiveOptions) -> LiveRead:
    """Read the cluster kubectl points at: notes for what could not be read, node usage when served."""
    timings: dict[str, float] = {}
    start = time.perf_counter()
    served = _served(options)
    timings["kubectl"] = time.perf_counter() - start
    admin = any(gv.startswith(ADMIN_GROUP + "/") for gv in served)
    metrics = METRICS_GROUP_VERSION in served
    if POLICIES.group_version not in served:
        raise LiveError(f"the cluster serves no {POLICIES.group_version} API: NetworkPolicies cannot be read")
    namespaced = tuple(k for k in NAMESPACED if k.group_version in served)
    wanted: list[tuple[Kind, str | None]] = [(NAMESPACES, None), (NODES, None)]
    wanted += [(k, None) for k in namespaced]
    if admin:
        wanted += [(ANPS, None), (BANPS, None)]
    if metrics:
        wanted.append((NODE_METRICS, None))
    listed = _list_all(options, wanted, timings)

    notes: list[str] = []
    scoped: tuple[str, ...] = ()
    refused = [x for x in listed if x.kind.namespaced and x.refused == "Forbidden" and x.kind.need == "required"]
    if refused and options.namespaces:
        # A namespace-scoped user: read only the namespaces asked for, kind by kind.
        scoped = tuple(dict.fromkeys(options.namespaces))
        listed = [x for x in listed if not x.kind.namespaced]
        listed += _list_all(options, [(k, ns) for k in namespaced for ns in scoped], timings)
        notes.append(
            f"you may not list {refused[0].kind.plural} in all namespaces; read only namespace"
            f"{'s' if len(scoped) > 1 else ''} {', '.join(scoped)}: pods elsewhere are unknown, so answers"
            " across namespaces are limited"
        )
    elif refused:
        raise _fatal(refused[0], " (give -n NAMESPACE to read only namespaces you may list)")

    start = time.perf_counter()
    docs: list[Document] = []
    warnings: list[Warning_] = []
    usage: NodeUsage | None = None
    namespaces_read = False
    for x in listed:
        if x.kind is NODE_METRICS:
            usage = (
                NodeUsage(unavailable=f"cannot list nodes.metrics.k8s.io: {x.message}")
                if x.refused
                else _usage(x.items)
            )
            continue
        if x.refused:
            match x.kind.need:
                case "required":
                    raise _fatal(x)
                case "nodes":
                    warnings.append(
                        Warning_(
                            "live-forbidden",
                            "cannot list nodes: forbidden; reachability without scheduling (pods run where the"
                            " cluster put them; node addresses and Pending reasons per node are unknown)",
                            SourceRef("<kubectl get nodes>"),
                        )
                    )
                case "namespaces":
                    warnings.append(
                        Warning_(
                            "live-forbidden",
                            "cannot list namespaces: forbidden; namespace labels other than"
                            " kubernetes.io/metadata.name are unknown, so namespaceSelectors on them match nothing",
                            SourceRef("<kubectl get namespaces>"),
                        )
                    )
                case _:
                    warnings.append(
                        Warning_(
                            "live-forbidden",
                            f"cannot list {x.kind.plural}{x.where}: {x.refused.lower()};"
                            f" {WHY_OPTIONAL.get(x.kind.plural, 'they are left out')}",
                            SourceRef(f"<kubectl get {x.kind.plural}>"),
                        )
                    )
            continue
        namespaces_read |= x.kind is NAMESPACES
        docs += _documents(x)
    if not admin:
        notes.append("the cluster serves no AdminNetworkPolicy API (policy.networking.k8s.io): NetworkPolicies only")
    if usage is None:
        usage = NodeUsage(unavailable="the cluster serves no metrics.k8s.io API (metrics-server)")
    if not namespaces_read:
        docs += _namespace_stubs(docs, scoped)
    cluster = build_cluster(docs)
    cluster = replace(cluster, warnings=cluster.warnings + tuple(warnings))
    cluster.raw["node_usage"] = usage
    timings["build"] = time.perf_counter() - start
    return LiveRead(cluster, tuple(notes), usage, scoped, timings)


def read_live(
    context: str | None = None,
    kubeconfig: str | None = None,
    kubectl: str = "kubectl",
    timeout: float = DEFAULT_TIMEOUT,
    namespaces: Iterable[str] = (),
) -> Cluster:
    return read_live_detailed(LiveOptions(context, kubeconfig, kubectl, timeout, tuple(namespaces))).cluster


def node_usage(cluster: Cluster) -> NodeUsage | None:
    """The metrics.k8s.io usage a live read attached to its cluster (None: not live, or not served)."""
    usage = cluster.raw.get("node_usage")
    return usage if isinstance(usage, NodeUsage) else None


def _documents(listed: _Listed) -> list[Document]:
    label = f"<kubectl get {listed.kind.plural}>"
    out = []
    for i, item in enumerate(listed.items):
        if not isinstance(item, Mapping):
            continue
        if "kind" not in item:
            item = {**item, "kind": listed.kind.kind}
        meta = item.get("metadata") or {}
        out.append(
            Document(
                item,
                SourceRef(label, i, listed.kind.kind, str(meta.get("namespace") or ""), str(meta.get("name") or "")),
            )
        )
    return out


def _namespace_stubs(docs: Sequence[Document], scoped: Sequence[str]) -> list[Document]:
    """Namespaces as far as they are known without listing them: every namespace carries its name label."""
    names = sorted({d.source.namespace for d in docs if d.source.namespace} | set(scoped))
    return [
        Document(
            {
                "apiVersion": "v1",
                "kind": "Namespace",
                "metadata": {"name": n, "labels": {"kubernetes.io/metadata.name": n}},
            },
            SourceRef("<kubectl: namespace not listed>", 0, "Namespace", "", n),
        )
        for n in names
    ]


def _usage(items: Iterable[Mapping[str, Any]]) -> NodeUsage:
    cpu: dict[str, int] = {}
    mem: dict[str, int] = {}
    for item in items:
        name = str((item.get("metadata") or {}).get("name") or "")
        u = item.get("usage") or {}
        try:
            cpu[name] = to_units("cpu", u.get("cpu", "0"))
            mem[name] = to_units("memory", u.get("memory", "0"))
        except ValueError:
            continue
    return NodeUsage(cpu, mem)
