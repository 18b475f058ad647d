"""Accepting a finding on one object, with a reason, as kube-linter does with `ignore-check.kube-linter.io/<check>`.

An annotation `kube-reach.io/accept.<rule>: "<reason>"` (rule id `NP020` or name `rule-allows-all-peers`) on a
NetworkPolicy (or on a policy of a kind netpol does not evaluate, for NP080) accepts that rule's findings about
the policy; on a door (a Service, an Ingress, a Gateway API route, an OpenShift Route), that rule's findings about
the door (a deliberately public storefront, NP090); on a Namespace, that rule's findings in the namespace. Accepted findings stay in the report, marked accepted with the reason, and `--fail-on` does not
count them. Acceptance lives next to the object it excuses, so the next accidental `ingress: [{}]` elsewhere
still fails.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from netpol.audit.rules import RULES, Acceptance, Finding
from netpol.model.cluster import Cluster

ACCEPT_PREFIX = "kube-reach.io/accept."
_BY_NAME = {r.name: r.id for r in RULES.values()}


def _accepted_rules(kind: str, key: str, annotations: Mapping[str, str], notes: list[str]) -> dict[str, Acceptance]:
    out: dict[str, Acceptance] = {}
    for k, reason in sorted(annotations.items()):
        if k == ACCEPT_PREFIX.rstrip("."):  # the bare key names no rule: say how to write it
            notes.append(
                f"{kind}/{key}: annotation {k} names no rule; write {ACCEPT_PREFIX}<rule id or name>: <reason> "
                "(one annotation per rule); it accepts nothing"
            )
            continue
        if not k.startswith(ACCEPT_PREFIX):
            continue
        what = k[len(ACCEPT_PREFIX) :]
        rule = what if what in RULES else _BY_NAME.get(what)
        if rule is None:
            notes.append(f"{kind}/{key}: annotation {k} names no rule (known: {', '.join(RULES)}); it accepts nothing")
        elif not reason.strip():
            notes.append(f"{kind}/{key}: annotation {k} gives no reason; it accepts nothing until it says why")
        else:
            out[rule] = Acceptance(f"{kind}/{key}", reason.strip())
    return out


def apply_acceptance(findings: Iterable[Finding], cluster: Cluster) -> tuple[list[Finding], list[str]]:
    """(findings, with `accepted` set where an annotation accepts them; notes on annotations that accept nothing)."""
    notes: list[str] = []
    by_policy = {
        f"NetworkPolicy/{p.key}": acc
        for p in cluster.policies
        if (acc := _accepted_rules("NetworkPolicy", p.key, p.annotations, notes))
    }
    for u in cluster.unevaluated:
        kind, _, key = u.key.partition("/")
        if acc := _accepted_rules(kind, key, u.annotations, notes):
            by_policy[u.key] = acc
    doors: list[tuple[str, str, Mapping[str, str]]] = [
        *(("Service", s.key, s.annotations) for s in cluster.services),
        *(("Ingress", i.key, i.annotations) for i in cluster.ingresses),
        *((r.kind, r.key, r.annotations) for r in cluster.gateway_routes),
        *(("Route", r.key, r.annotations) for r in cluster.routes),
    ]
    by_policy.update(
        {f"{kind}/{key}": acc for kind, key, notes_of in doors if (acc := _accepted_rules(kind, key, notes_of, notes))}
    )
    by_namespace = {
        ns.name: acc
        for ns in cluster.namespaces
        if (acc := _accepted_rules("Namespace", ns.name, ns.annotations, notes))
    }
    out = []
    for f in findings:
        accepted = next((by_policy[o][f.rule] for o in f.objects if f.rule in by_policy.get(o, {})), None)
        if accepted is None:
            accepted = by_namespace.get(f.namespace, {}).get(f.rule)
        out.append(replace(f, accepted=accepted) if accepted else f)
    return out, notes
