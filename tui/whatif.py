"""What-if editing: policies disabled or added in the UI, never on disk, and the analysis they give.

An edit list is applied to the loaded analysis's placed cluster (same pods, nodes, IPs) and reachability is
computed again for the edited policy set; the UI shows that analysis and marks what changed against the
loaded one (`netpol.diff`, the same comparison as `netpol diff`). Pure: no Textual, no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

import yaml

from netpol.engine import Reachability
from netpol.model.labels import LabelSelector
from netpol.model.objects import NetworkPolicy
from netpol.pipeline import Analysis
from tui.model import plain_data

Direction = Literal["ingress", "egress", "both"]
TYPES: dict[str, tuple[str, ...]] = {"ingress": ("Ingress",), "egress": ("Egress",), "both": ("Ingress", "Egress")}


@dataclass(frozen=True, slots=True)
class DisablePolicy:
    """Take one NetworkPolicy (ns/name) out of the cluster."""

    key: str

    def describe(self) -> str:
        return f"disable {self.key}"


@dataclass(frozen=True, slots=True)
class AddDefaultDeny:
    """Add a default-deny policy (empty podSelector, no rules) for a direction to a namespace."""

    namespace: str
    direction: Direction

    @property
    def name(self) -> str:
        return f"whatif-default-deny-{self.direction}"

    def describe(self) -> str:
        return f"default-deny {self.direction} in {self.namespace}"

    def policy(self) -> NetworkPolicy:
        types = TYPES[self.direction]
        raw = {
            "apiVersion": "networking.k8s.io/v1",
            "kind": "NetworkPolicy",
            "metadata": {"name": self.name, "namespace": self.namespace},
            "spec": {"podSelector": {}, "policyTypes": list(types)},
        }
        return NetworkPolicy(self.namespace, self.name, LabelSelector(), types, raw=raw)


Edit = DisablePolicy | AddDefaultDeny


def edited_policies(base: Analysis, edits: Sequence[Edit]) -> tuple[NetworkPolicy, ...]:
    off = {e.key for e in edits if isinstance(e, DisablePolicy)}
    added = [e.policy() for e in edits if isinstance(e, AddDefaultDeny)]
    return tuple(p for p in base.cluster.policies if p.key not in off) + tuple(added)


def apply_edits(base: Analysis, edits: Sequence[Edit]) -> Analysis:
    """The analysis of `base`'s cluster with `edits` applied (the loaded analysis itself when there are none)."""
    if not edits:
        return base
    cluster = replace(base.cluster, policies=edited_policies(base, edits))
    reach = Reachability(
        cluster.running_pods, cluster.namespaces, cluster.policies, base.options, cluster.admin_policies, cluster.nodes
    )
    return replace(base, cluster=cluster, reachability=reach)


def policies_yaml(base: Analysis, edits: Sequence[Edit]) -> str:
    """Every NetworkPolicy of the edited cluster as YAML documents: the kept ones as written, the added ones;
    used in place of the input's policies it gives the cluster the UI shows (`netpol diff` confirms)."""
    docs = []
    for policy in edited_policies(base, edits):
        raw = policy.raw or None
        if raw is None:
            docs.append(f"# {policy.key}: its manifest was not kept; write it back by hand\n")
            continue
        docs.append(yaml.safe_dump(plain_data(raw), sort_keys=False, default_flow_style=False))
    head = "# netpol tui what-if: " + ("; ".join(e.describe() for e in edits) or "no edits") + "\n"
    return head + "---\n".join(docs)


def toggle(edits: Sequence[Edit], edit: Edit) -> tuple[Edit, ...]:
    """`edits` with `edit` added, or removed when it is there already (space on a disabled policy enables it)."""
    return tuple(e for e in edits if e != edit) if edit in edits else (*edits, edit)
