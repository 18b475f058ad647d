"""The exposure options shared by `netpol exposure` and `who-can-reach --from internet`, and their edge checks."""

from __future__ import annotations

import argparse
import re

from netpol.commands.context import Context
from netpol.errors import UsageError
from netpol.exposure import SOURCE_ADDRESSES, Exposure, ExposureOptions, Path, analyze_exposure, find_doors
from netpol.model.labels import parse_selector_string
from netpol.targets import Resolver, service_selects

PROXY_KEY = re.compile(r"^(ingressclass/[^/=]+|gateway/[^/=]+/[^/=]+|openshift-router)$")


def proxy_pods_arg(text: str) -> str:
    key, sep, spec = text.partition("=")
    if not sep or not spec or not PROXY_KEY.match(key):
        raise argparse.ArgumentTypeError(
            f"{text!r}: expected DOOR=PODS, DOOR one of ingressclass/NAME, gateway/NS/NAME, openshift-router, PODS "
            "an endpoint (deploy/ns/name, ns/pod, svc/ns/name) or NAMESPACE:SELECTOR "
            "(e.g. ingressclass/nginx=ingress-nginx:app.kubernetes.io/name=ingress-nginx)"
        )
    return text


def add_exposure_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--cluster-traffic-source",
        choices=SOURCE_ADDRESSES,
        default="node",
        help="what a pod behind a Service with externalTrafficPolicy Cluster sees as the source: the forwarding "
        "node's address (default: kube-proxy masquerades the client) or the client's (a CNI that keeps it)",
    )
    p.add_argument(
        "--proxy-pods",
        type=proxy_pods_arg,
        action="append",
        default=[],
        metavar="DOOR=PODS",
        help="the pods of a proxy when its project's labels do not find them: ingressclass/NAME, gateway/NS/NAME or "
        "openshift-router = an endpoint (deploy/ns/name, ns/pod, svc/ns/name) or NAMESPACE:SELECTOR (repeatable)",
    )


def exposure_of(args: argparse.Namespace, ctx: Context) -> Exposure:
    return analyze_exposure(ctx.analysis, exposure_options(args, ctx))


def exposure_options(args: argparse.Namespace, ctx: Context) -> ExposureOptions:
    """--cluster-traffic-source and --proxy-pods, each proxy named by a door of the input and resolved to pods."""
    analysis = ctx.analysis
    named: dict[str, tuple[str, ...]] = {}
    if args.proxy_pods:
        known = sorted({d.proxy.key for d in find_doors(analysis.cluster) if d.proxy is not None})
        res = Resolver(analysis, getattr(args, "cluster_cidr", None))
        for text in args.proxy_pods:
            key, _, spec = text.partition("=")
            if key not in known:
                raise UsageError(
                    f"--proxy-pods {key}: no door forwards through it (the proxies of this input: {', '.join(known) or 'none'})"
                )
            ns, colon, sel = spec.partition(":")
            if colon and "/" not in ns:
                try:
                    target = res.selector(parse_selector_string(sel), [ns] if ns else [], text=spec)
                except ValueError as exc:
                    raise UsageError(f"--proxy-pods {text}: {exc}") from None
            else:
                target = res.resolve(spec)
            pods = tuple(analysis.reachability.pods[i].key for i in target.pods)
            if not pods:
                raise UsageError(f"--proxy-pods {text}: no running pod matches {spec}")
            named[key] = named.get(key, ()) + pods
    return ExposureOptions(args.cluster_traffic_source, named)


def keep_paths(exposure: Exposure, pods: set[str] | None, namespaces: list[str]) -> tuple[Path, ...]:
    """The paths to `pods` (None: every pod) in `namespaces` (empty: all); a backend routed to no pod is kept
    when its Service selects one of the pods wanted, a door forwarding nothing when it is in those namespaces."""
    services = {s.key: s for s in exposure.cluster.services}
    candidates = [p for p in exposure.cluster.pods if p.key in exposure.real]

    def wanted(key: str) -> bool:
        return (pods is None or key in pods) and (not namespaces or key.split("/", 1)[0] in namespaces)

    out = []
    for path in exposure.paths:
        svc = services.get(path.backend.service) if path.backend is not None else None
        if path.pod:
            keep = wanted(path.pod)
        elif svc is not None:
            keep = any(wanted(p.key) and service_selects(svc, p) for p in candidates)
        else:
            keep = pods is None and (not namespaces or path.door.namespace in namespaces)
        if keep:
            out.append(path)
    return tuple(out)
