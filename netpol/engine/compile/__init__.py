"""One compiler per policy kind, each turning its model objects into the tiered form (netpol/engine/tiers.py).

Adding a policy kind: a reader (netpol/loading/), a model (netpol/model/), a compiler here, and one line in
`compilers_for`. The evaluation does not change.
"""

from __future__ import annotations

from netpol.engine.compile.admin import AdminCompiler
from netpol.engine.compile.calico import CalicoCompiler
from netpol.engine.compile.cilium import CiliumCompiler
from netpol.engine.compile.cnp import ClusterNetworkPolicyCompiler
from netpol.engine.compile.networkpolicy import NetworkPolicyCompiler
from netpol.engine.tiers import PolicyCompiler
from netpol.model.cluster import Cluster


def compilers_for(cluster: Cluster) -> list[PolicyCompiler]:
    """The compilers of every policy kind the cluster holds (the order does not matter: the engine sorts the
    compiled policies by tier and precedence)."""
    return [
        NetworkPolicyCompiler(cluster.policies),
        AdminCompiler(cluster.admin_policies),
        CiliumCompiler(cluster.cilium_policies, cluster.services),
        CalicoCompiler(cluster.calico, cluster.services),
        ClusterNetworkPolicyCompiler(cluster.cluster_network_policies),
    ]
