"""The closed vocabularies netpol speaks: policy directions, query directions, admin actions, verdicts, severities.

Each is a `Literal` of the exact words the Kubernetes API, our input files and our output use, not a StrEnum:
the words are the wire format (YAML in, JSON/SARIF/text out, messages), and a Literal is a plain `str` at run
time, so nothing converts at the edges while mypy still rejects a misspelt word and `match` over one can be
checked exhaustively with `assert_never`. The tuples are the same words in their canonical order.
"""

from __future__ import annotations

from typing import Literal, get_args

Direction = Literal["ingress", "egress"]
"""A policy side: ingress is decided at the destination, egress at the source; a connection needs both."""
DIRECTIONS: tuple[Direction, ...] = get_args(Direction)

QueryDirection = Literal["in", "out"]
"""A reach query's side: `in` asks who can reach the anchor (who-can-reach), `out` whom it reaches (can-reach)."""

AdminAction = Literal["Allow", "Deny", "Pass"]
"""An (Baseline)AdminNetworkPolicy rule's action; Pass exists in AdminNetworkPolicy only."""
ADMIN_ACTIONS: tuple[AdminAction, ...] = get_args(AdminAction)
BASELINE_ACTIONS: tuple[AdminAction, ...] = ("Allow", "Deny")

AdminPeerKind = Literal["namespaces", "pods", "nodes", "networks", "domainNames"]
"""The key an admin rule's peer is read from: AdminNetworkPolicy (v1alpha1) and ClusterNetworkPolicy (v1alpha2)
egress rules take every kind, the BaselineAdminNetworkPolicy's egress rules all but domainNames, ingress rules
the first two."""
ADMIN_PEER_KINDS: tuple[AdminPeerKind, ...] = get_args(AdminPeerKind)
BASELINE_EGRESS_PEER_KINDS: tuple[AdminPeerKind, ...] = ("namespaces", "pods", "nodes", "networks")
INGRESS_PEER_KINDS: tuple[AdminPeerKind, ...] = ("namespaces", "pods")

Expectation = Literal["allow", "deny"]
"""The verdict an expectation file (`netpol check`) asks of a pair."""
EXPECTATIONS: tuple[Expectation, ...] = get_args(Expectation)

Severity = Literal["info", "low", "medium", "high"]
"""An audit finding's severity, lowest first (SARIF levels and `--fail-on` are derived from it)."""
SEVERITIES: tuple[Severity, ...] = get_args(Severity)

ChangeKind = Literal["added", "removed", "changed"]
"""How a pair's allowed connections differ between two analyses (`netpol diff`)."""

Protocol = Literal["TCP", "UDP", "SCTP"]
"""The protocols a NetworkPolicy port or a container port names."""
PROTOCOLS: tuple[Protocol, ...] = get_args(Protocol)
