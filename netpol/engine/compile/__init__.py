"""One compiler per policy kind, each turning its model objects into the tiered form (netpol/engine/tiers.py).

Adding a policy kind: a reader (netpol/loading/), a model (netpol/model/), a compiler here, and one line in
`compilers_for`. The evaluation does not change.
"""

from __future__ import annotations

from netpol.engine.compile.admin import AdminCompiler
from netpol.engine.compile.networkpolicy import NetworkPolicyCompiler
from netpol.engine.options import EngineOptions
from netpol.engine.tiers import PolicyCompiler
from netpol.model.cluster import Cluster


def compilers_for(cluster: Cluster, options: EngineOptions | None = None) -> list[PolicyCompiler]:
    """The compilers of every policy kind the cluster holds (the order does not matter: the engine sorts the
    compiled policies by tier and precedence). A kind the input lacks compiles to nothing, so its compiler (and
    its model) is not even imported: most inputs hold NetworkPolicies only, and every command pays its imports.
    Cilium's is there without policies when its enforcement mode is not `default` (it isolates or opens every
    endpoint by itself)."""
    out: list[PolicyCompiler] = [NetworkPolicyCompiler(cluster.policies), AdminCompiler(cluster.admin_policies)]
    if cluster.cilium_policies or (options is not None and options.cilium_enforcement != "default"):
        from netpol.engine.compile.cilium import CiliumCompiler

        out.append(CiliumCompiler(cluster.cilium_policies, cluster.services))
    if cluster.calico.policies:
        from netpol.engine.compile.calico import CalicoCompiler

        out.append(CalicoCompiler(cluster.calico, cluster.services))
    if cluster.cluster_network_policies:
        from netpol.engine.compile.cnp import ClusterNetworkPolicyCompiler

        out.append(ClusterNetworkPolicyCompiler(cluster.cluster_network_policies))
    return out
