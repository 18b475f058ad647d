"""The engine from a model: every policy kind's compiler over the running pods."""

from __future__ import annotations

from collections.abc import Collection

from netpol.engine.compile import compilers_for
from netpol.engine.options import EngineOptions
from netpol.engine.reachability import Reachability
from netpol.model.cluster import Cluster


def build_reachability(
    cluster: Cluster, options: EngineOptions | None = None, exclude: Collection[str] = ()
) -> Reachability:
    """The compiled cluster: its running pods, namespaces, nodes and Services, and every policy of every kind but
    the compiled policies keyed in `exclude`."""
    return Reachability(
        cluster.running_pods,
        cluster.namespaces,
        compilers_for(cluster, options),
        options,
        cluster.nodes,
        cluster.services,
        exclude,
    )
