"""NP060: policies that can be deleted, with what makes each one redundant.

Advice a reviewer can follow without harm:
- a policy that isolates without allowing, for some direction (a default-deny, or a deny for some pods), is
  never proposed: it is the safety net for pods that do not exist yet;
- nor a policy whose removal would raise another finding: pods left unisolated (NP003/NP004) or without DNS
  (NP030, judged on the rules when kube-dns is not in the input);
- the message names the policies that allow what it allows and isolate what it isolates;
- when several are flagged, those that can go together are checked together (greedily, in catalogue
  order); the others are said to be redundant only on their own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from netpol.audit._pods import network_policy
from netpol.audit.dns import DnsCheck
from netpol.audit.rules import Finding, finding
from netpol.engine import CompiledPolicy, EngineOptions, build_reachability
from netpol.ipam import DEFAULT_CLUSTER_CIDR
from netpol.model.objects import NetworkPolicy
from netpol.model.vocab import Direction
from netpol.pipeline import Analysis

REDUNDANCY_MAX_PODS = 2000
REDUNDANCY_MAX_POLICIES = 500
DIRECTIONS: tuple[Direction, ...] = ("ingress", "egress")


def redundancy_findings(
    analysis: Analysis,
    namespaces: Sequence[str] = (),
    *,
    max_pods: int = REDUNDANCY_MAX_PODS,
    max_policies: int = REDUNDANCY_MAX_POLICIES,
    pod_cidr: str = DEFAULT_CLUSTER_CIDR,
) -> tuple[list[Finding], list[str]]:
    """(NP060 findings, notes). Apart from `audit(redundancy=False)` because it recomputes reachability
    per policy: the UI shows the other findings first.

    Without admin tiers each check recomputes only what the policy selects (0.4 s for 2,000 policies at
    10,000 pods). AdminNetworkPolicies layer over whole tensors, so with them every check recomputes
    everything, and the limits apply."""
    r = analysis.reachability
    if r.layered and (len(r.pods) > max_pods or len(r.policies) > max_policies):
        return [], [
            f"redundant-policy check (NP060) skipped: {len(r.pods)} pods and {len(r.policies)} policies exceed "
            f"its limits with AdminNetworkPolicies ({max_pods} pods, {max_policies} policies); it recomputes "
            "the whole matrix per policy"
        ]
    in_scope = set(namespaces) or {ns.name for ns in analysis.cluster.namespaces}
    candidates = [
        cp
        for k, cp in enumerate(r.policies)
        if cp.kind == "NetworkPolicy"
        and cp.namespace in in_scope
        and not is_safety_net(network_policy(cp))
        and not r.changes_without(k)
    ]
    dns = DnsCheck(analysis, pod_cidr)
    alone = [cp for cp in candidates if not _raises_findings(analysis, [cp], dns)]
    together: list[CompiledPolicy] = []
    for cp in alone:
        trial = [*together, cp]
        # `together` was checked already: removing it changed nothing and raised nothing, so only what `cp`
        # shapes (its classes' ingress and egress, its namespace's findings) can differ when it joins.
        if len(trial) == 1 or (
            not _changes_without_all(analysis, trial, focus=cp) and not _raises_findings(analysis, trial, dns, focus=cp)
        ):
            together.append(cp)
    plugin_bound = _depends_on_ipblock_matching_pods(analysis, alone)
    return [_finding(analysis, cp, together if len(alone) > 1 else None, cp.key in plugin_bound) for cp in alone], []


def ipblock_setting(matches: bool) -> str:
    return f"--ipblock-pods {'match' if matches else 'ignore'}"


def _depends_on_ipblock_matching_pods(analysis: Analysis, flagged: Sequence[CompiledPolicy]) -> set[str]:
    """The flagged policies whose removal would change a connection under the other reading of ipBlock on pod
    addresses (`--ipblock-pods`): the upstream e2e suite matches pod IPs inside a cidr, some CNIs do not. A
    redundancy that holds only because an ipBlock covers pod addresses depends on the network plugin, as NP050
    says of the ipBlock itself. Compiled a second time (netpol.engine's build_reachability) only when some
    policy has an address peer."""
    c = analysis.cluster
    if not flagged or not (
        c.admin_policies
        or any(
            peer.ip_block is not None
            for pol in c.policies
            for rule in (*pol.ingress, *pol.egress)
            for peer in rule.peers
        )
    ):
        return set()
    options: EngineOptions = analysis.options
    other = build_reachability(c, replace(options, ipblock_matches_pods=not options.ipblock_matches_pods))
    index = {cp.key: k for k, cp in enumerate(other.policies) if cp.kind == "NetworkPolicy"}
    return {cp.key for cp in flagged if (k := index.get(cp.key)) is not None and other.changes_without(k)}


def is_safety_net(pol: NetworkPolicy) -> bool:
    """Isolates some direction without allowing anything in it: a default-deny (or a deny for some pods)."""
    return (pol.affects_ingress and not pol.ingress) or (pol.affects_egress and not pol.egress)


def _affects(pol: NetworkPolicy, direction: Direction) -> bool:
    return pol.affects_ingress if direction == "ingress" else pol.affects_egress


def _rules_of(pol: NetworkPolicy, direction: Direction) -> tuple:
    return pol.ingress if direction == "ingress" else pol.egress


def _changes_without_all(
    analysis: Analysis, removed: Sequence[CompiledPolicy], focus: CompiledPolicy | None = None
) -> bool:
    """Would removing all of `removed` at once change any connection? The engine's classes and atoms are a
    refinement valid for any subset of the policies, so its what-if blocks (`only`) answer, as for one
    policy in `Reachability.changes_without`: the columns and rows of the classes they select, or, with
    admin tiers (which layer over whole blocks), everything. `focus`: the others are known to change nothing
    when removed, so only the classes `focus` selects are compared (without admin tiers)."""
    r = analysis.reachability
    gone = {id(cp) for cp in removed}
    keep = np.array([id(cp) not in gone for cp in r.policies], dtype=bool)
    everyone = range(r.eid_count)
    if r.layered:
        step = r.block_rows(r.eid_count)
        for direction in DIRECTIONS:
            for lo in range(0, r.eid_count, step):
                rows = range(lo, min(r.eid_count, lo + step))
                if _differ(
                    r.family_sides(direction, rows, everyone), r.family_sides(direction, rows, everyone, only=keep)
                ):
                    return True
        return False
    chosen = np.zeros(r.C, dtype=bool)
    for cp in [focus] if focus is not None else removed:
        chosen |= cp.selected
    cols = np.flatnonzero(chosen)
    if not cols.size:
        return False
    # Only the policies selecting some of these classes shape their ingress and their egress.
    shaping = np.asarray(r.selection[:, cols].any(axis=1))
    kept = shaping & keep
    if _differ(
        r.family_sides("ingress", everyone, cols, only=shaping), r.family_sides("ingress", everyone, cols, only=kept)
    ):
        return True
    return _differ(
        r.family_sides("egress", cols, everyone, only=shaping), r.family_sides("egress", cols, everyone, only=kept)
    )


def _differ(a: list[np.ndarray], b: list[np.ndarray]) -> bool:
    """Per address family (a dual-stack cluster's ipBlocks may differ by family), any difference."""
    return any(not np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def _raises_findings(
    analysis: Analysis, removed: Sequence[CompiledPolicy], dns: DnsCheck, focus: CompiledPolicy | None = None
) -> bool:
    """Would removing `removed` (which changes no connection) raise another finding? Only two checks depend on
    other policies than the one they report: isolation (NP003/NP004) and DNS (NP030); the rest are per policy.
    `focus`: the others are known to raise nothing when removed, so only its classes and namespace are asked."""
    r = analysis.reachability
    gone = {id(cp) for cp in removed}
    keep = np.array([id(cp) not in gone for cp in r.policies], dtype=bool)
    where = focus.selected if focus is not None else np.ones(r.C, dtype=bool)
    for direction in DIRECTIONS:  # classes isolated by `removed` and by nothing kept
        if (r.isolation(direction, only=~keep) & ~r.isolation(direction, only=keep) & where).any():
            return True
    namespaces = sorted({cp.namespace for cp in ([focus] if focus is not None else removed)})
    before = _dns_gaps(dns.findings(namespaces))
    after = _dns_gaps(dns.findings(namespaces, only=keep))
    return not after <= before


def _dns_gaps(findings: list[Finding]) -> set[tuple[str, str]]:
    return {(f.detail, o) for f in findings for o in f.objects if o.startswith("Pod/")}


def _names(keys: Sequence[str], limit: int = 4) -> str:
    return ", ".join(keys[:limit]) + (f" and {len(keys) - limit} more" if len(keys) > limit else "")


def _witnesses(analysis: Analysis, cp: CompiledPolicy, allowing: list[CompiledPolicy]) -> list[str]:
    """Policies that together allow every connection `cp` allows: the ones it leans on (removing one of them
    with it would change a connection) when, checked, they suffice; else every other policy that allows for
    the same pods (also above the size limits, where this is not recomputed)."""
    everyone = [o.key for o in allowing]
    if len(analysis.reachability.pods) > REDUNDANCY_MAX_PODS or len(allowing) < 2:
        return everyone
    needed = [o for o in allowing if _changes_without_all(analysis, [cp, o])]
    spare = [o for o in allowing if all(o is not n for n in needed)]
    if needed and not _changes_without_all(analysis, [cp, *spare]):
        return [o.key for o in needed]
    return everyone


def _finding(
    analysis: Analysis, cp: CompiledPolicy, together: list[CompiledPolicy] | None, plugin_bound: bool = False
) -> Finding:
    r = analysis.reachability
    pol = network_policy(cp)
    why = []
    if not cp.selected.any():
        why.append("it selects no running pod")
    else:
        overlapping = np.asarray(r.selection[:, cp.selected].any(axis=1))  # policies sharing a class with it
        for direction in DIRECTIONS:
            if not _affects(pol, direction):
                continue
            hit = np.flatnonzero(overlapping & r.isolates_mask(direction)).tolist()
            others = [o for o in (r.policies[k] for k in hit) if o is not cp]
            with_rules = [o for o in others if o.rules(direction)]
            witnesses = _witnesses(analysis, cp, with_rules)
            allowed = f"is also allowed by {_names(witnesses)}" if witnesses else "is decided by other tiers"
            why.append(
                f"every {direction} connection it allows {allowed}, and its pods stay isolated for {direction} "
                f"by {_names([o.key for o in others])}"
            )
    message = f"policy {pol.key} is redundant: {'; '.join(why)}; removing it changes no connection and raises no other finding"
    if plugin_bound:
        matches = analysis.options.ipblock_matches_pods
        message += (
            f" (with ipBlock {'matching' if matches else 'not matching'} pod addresses, {ipblock_setting(matches)}); "
            f"with {ipblock_setting(not matches)} removing it would change connections: an ipBlock over pod "
            "addresses is what covers them, so whether it is redundant depends on the network plugin (CNI)"
        )
    if together is not None:
        if any(t is cp for t in together):
            message += (
                f" [together: removing it with the other {len(together) - 1} NP060 policies marked together "
                "changes nothing either]"
                if len(together) > 1
                else " [alone: redundant only on its own; remove it, then audit again]"
            )
        else:
            message += " [alone: redundant only on its own; remove it, then audit again]"
    fix = (
        "delete it (alone, or with the policies marked together), or fix it if it was meant to allow or "
        "isolate something"
    )
    if plugin_bound:
        fix = (
            "keep it unless your CNI matches ipBlock against pod addresses; better, allow those pods with "
            "podSelector/namespaceSelector and keep ipBlock for addresses outside the cluster"
        )
    return finding("NP060", pol.namespace, message, (f"NetworkPolicy/{pol.key}",), pol.source, fix=fix)
