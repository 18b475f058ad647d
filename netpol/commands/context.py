"""What every subcommand needs: the cluster read from the paths, analysed with the scheduler wired in."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TextIO

from netpol.cluster_dns import with_cluster_dns
from netpol.commands._types import cluster_cidr_arg, positive_int_arg, seed_arg
from netpol.engine import EngineOptions
from netpol.errors import InputError, UsageError
from netpol.ipam import DEFAULT_CLUSTER_CIDR, PodNetwork
from netpol.manifests import load_paths
from netpol.model.cluster import Cluster
from netpol.pipeline import Analysis, PlacementResult, Placer, analyze
from netpol.readout.textsafe import text_safe

SAMPLE_DIR = Path(__file__).resolve().parent.parent.parent / "samples" / "seed-lab"
# netpol.loading.kubectl.DEFAULT_TIMEOUT (a test keeps them equal), named here so that building the parser
# does not import kubectl and the live reader, which only --live needs
DEFAULT_TIMEOUT = 60.0
# netpol.loading.cluster.DEFAULT_MAX_PODS (a test keeps them equal): Kubernetes' envelope, 150,000 pods
DEFAULT_MAX_PODS = 150_000


def add_input_arguments(p: argparse.ArgumentParser, *, paths: bool = True) -> None:
    if paths:
        p.add_argument(
            "paths",
            nargs="*",
            metavar="PATH",
            help="manifest files or folders (recursive); - for stdin; default: the bundled seed-lab sample",
        )
    p.add_argument(
        "--strict",
        action="store_true",
        help="treat warnings (unknown fields and kinds, policies of other engines, implicit namespaces, unresolved "
        "named ports) as errors; kinds that cannot affect connectivity (ConfigMap, RBAC, …) stay a summary line",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="do not print warnings (--strict still applies)")
    p.add_argument(
        "--max-pods",
        type=positive_int_arg,
        default=DEFAULT_MAX_PODS,
        metavar="N",
        help="refuse inputs that hold or whose workloads expand to more than N pods (default %(default)s, "
        "Kubernetes' own envelope per cluster)",
    )
    p.add_argument(
        "--cluster-cidr",
        type=cluster_cidr_arg,
        default=DEFAULT_CLUSTER_CIDR,
        help="pod address range for nodes without spec.podCIDR (default %(default)s); dual-stack: an IPv4 and "
        "an IPv6 range, comma-separated",
    )
    p.add_argument(
        "--node-cidr-mask-size",
        type=int,
        default=None,
        metavar="BITS",
        help="prefix length of each node's pod range cut from a single-stack --cluster-cidr "
        "(default 24 for IPv4, 64 for IPv6)",
    )
    for v, default in ((4, 24), (6, 64)):  # kube-controller-manager's per-family masks (dual-stack)
        p.add_argument(
            f"--node-cidr-mask-size-ipv{v}",
            type=int,
            default=None,
            metavar="BITS",
            help=f"prefix length of each node's IPv{v} pod range (default {default})",
        )
    p.add_argument(
        "--ipblock-pods",
        choices=("match", "ignore"),
        default="match",
        help="whether ipBlock rules match pod IPs (upstream e2e: match; some CNIs: ignore)",
    )
    p.add_argument(
        "--cilium-enforcement",
        choices=("default", "always", "never"),
        default="default",
        help="Cilium's policyEnforcementMode: default (an endpoint is isolated once a policy selects it), always "
        "(every endpoint is isolated), never (no policy is enforced, NetworkPolicies included)",
    )
    p.add_argument(
        "--assume-dns",
        action="store_true",
        help="add the cluster DNS every cluster runs (kube-system, pods k8s-app=kube-dns, UDP/TCP 53, Service "
        "kube-dns) when the input has none, so DNS egress rules can be checked",
    )
    p.add_argument("--live", action="store_true", help="read the cluster kubectl points at (pods, nodes, policies, …)")
    p.add_argument("--context", help="with --live: the kubeconfig context")
    p.add_argument("--kubeconfig", help="with --live: the kubeconfig file")
    p.add_argument("--kubectl", default="kubectl", help="with --live: the kubectl binary (default: kubectl on PATH)")
    p.add_argument(
        "--kubectl-timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="S",
        help="with --live: seconds kubectl may take to read the cluster (default %(default)g)",
    )
    p.add_argument(
        "--seed", type=seed_arg, default=None, help="scheduler tie-breaking seed (default: deterministic by node name)"
    )


@dataclass
class Context:
    """Loads once, analyses once; commands ask for what they need."""

    args: argparse.Namespace
    out: TextIO = field(default_factory=lambda: sys.stdout)
    err: TextIO = field(default_factory=lambda: sys.stderr)
    _cluster: Cluster | None = None
    _analysis: Analysis | None = None
    settle_heap: bool = False  # the process's own run (netpol.gcpause.settle_heap), not a library call

    def paths(self, paths: list[str] | None = None) -> list[str]:
        chosen = list(paths if paths is not None else getattr(self.args, "paths", None) or [])
        if chosen:
            return chosen
        if not SAMPLE_DIR.is_dir():
            raise UsageError("no PATH given and the bundled sample is not installed; pass manifest files or folders")
        return [str(SAMPLE_DIR)]

    def input_paths(self) -> list[str]:
        """Every file or folder this run reads (manifests, --add, --expect, --kubeconfig): what an output must not
        replace (netpol.outputs.check_output). Not --baseline: `--baseline B --write-baseline B` updates it."""
        given = [] if self.live else self.paths()
        for name in ("add", "old", "new"):
            given += list(getattr(self.args, name, None) or [])
        given += [v for v in (getattr(self.args, n, None) for n in ("expect", "kubeconfig")) if isinstance(v, str)]
        return given

    @property
    def live(self) -> bool:
        return bool(getattr(self.args, "live", False))

    def load(self, paths: list[str] | None = None, *, stdin_text: str | None = None) -> Cluster:
        """`stdin_text`: what `-` reads, when stdin was read already (`netpol tui -` reads it once, then keys)."""
        if self.live:
            given = paths if paths is not None else getattr(self.args, "paths", None)
            if given:
                raise UsageError(
                    f"--live reads the cluster kubectl points at: give no PATH with it (got {' '.join(given)})"
                )
            return self.load_live()
        cluster = load_paths(
            self.paths(paths), stdin_text=stdin_text, max_pods=getattr(self.args, "max_pods", DEFAULT_MAX_PODS)
        )
        self.report_warnings(cluster)
        if getattr(self.args, "assume_dns", False):
            cluster = with_cluster_dns(cluster)
        return cluster

    def load_live(self) -> Cluster:
        """Read the cluster through kubectl; notes (what could not be read) go to stderr once."""
        from netpol.loading.live import LiveOptions, read_live_detailed  # kubectl, threads: only for --live

        timeout = getattr(self.args, "kubectl_timeout", DEFAULT_TIMEOUT)
        if timeout <= 0:
            raise UsageError(f"--kubectl-timeout must be positive, got {timeout:g}")
        options = LiveOptions(
            context=getattr(self.args, "context", None),
            kubeconfig=getattr(self.args, "kubeconfig", None),
            kubectl=getattr(self.args, "kubectl", "kubectl"),
            timeout=timeout,
            namespaces=tuple(getattr(self.args, "namespace", None) or ()),
        )
        read = read_live_detailed(options)
        for note in read.notes:
            print(f"note: {note}", file=self.err)
        self.report_warnings(read.cluster)
        return read.cluster

    def report_warnings(self, cluster: Cluster) -> None:
        for w in cluster.warnings:
            if getattr(self.args, "strict", False) and w.strict:
                raise InputError(f"{w.message} (--strict)", w.source)
            if not getattr(self.args, "quiet", False):
                print(f"warning: {text_safe(w.render())}", file=self.err)

    @property
    def cluster(self) -> Cluster:
        if self._cluster is None:
            self._cluster = self.load()
        return self._cluster

    def placer(self) -> Placer | None:
        from netpol.commands._whatif import placer_for  # the scheduler, with --seed/--cordon/--drain

        place = placer_for(self.args, self.err)
        if self.live:
            return lambda cluster: place_live(cluster, place)
        return place

    def options(self) -> EngineOptions:
        return EngineOptions(
            ipblock_matches_pods=getattr(self.args, "ipblock_pods", "match") == "match",
            cilium_enforcement=getattr(self.args, "cilium_enforcement", "default"),
        )

    def network(self) -> PodNetwork:
        """--cluster-cidr and the node mask sizes, validated (exit 2 naming the option)."""
        return PodNetwork.parse(
            getattr(self.args, "cluster_cidr", None) or DEFAULT_CLUSTER_CIDR,
            getattr(self.args, "node_cidr_mask_size", None),
            node_mask_ipv4=getattr(self.args, "node_cidr_mask_size_ipv4", None),
            node_mask_ipv6=getattr(self.args, "node_cidr_mask_size_ipv6", None),
        )

    def analyze(self, cluster: Cluster) -> Analysis:
        from netpol.commands._whatif import check_what_if

        check_what_if(self.args, cluster)
        analysis = analyze(cluster, self.placer(), self.options(), self.network())
        new = analysis.cluster.warnings[len(cluster.warnings) :]
        if new:
            self.report_warnings(Cluster(warnings=new))
        return analysis

    @property
    def analysis(self) -> Analysis:
        if self._analysis is None:
            self._analysis = self.analyze(self.cluster)
            if self.settle_heap:
                from netpol.gcpause import settle_heap

                settle_heap()
        return self._analysis


CLUSTER_PENDING = "Pending in the cluster; its scheduler has not said why yet"


def place_live(cluster: Cluster, place: Placer) -> PlacementResult:
    """A live cluster already decided: pods it left Pending stay Pending with its own PodScheduled message
    (the real FailedScheduling text), and only the bound pods go through the simulator (kept where they
    run). `netpol schedule --live` is the what-if that re-places them."""
    waiting = [p for p in cluster.pods if not p.node_name and p.phase == "Pending"]
    if not waiting:
        return place(cluster)
    keys = {p.key for p in waiting}
    result = place(replace(cluster, pods=tuple(p for p in cluster.pods if p.key not in keys)))
    pending = tuple(replace(p, reason=p.reason or CLUSTER_PENDING) for p in waiting)
    return replace(result, cluster=result.cluster.with_pods(result.cluster.pods + pending))  # type: ignore[type-var]
