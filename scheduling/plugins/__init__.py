"""kube-scheduler's default plugins, one module each, with upstream names, reason strings and weights."""

from scheduling.plugins.balanced_allocation import BalancedAllocation
from scheduling.plugins.image_locality import ImageLocality
from scheduling.plugins.inter_pod_affinity import InterPodAffinity
from scheduling.plugins.node_affinity import NodeAffinity
from scheduling.plugins.node_name import NodeName
from scheduling.plugins.node_ports import NodePorts
from scheduling.plugins.node_resources_fit import NodeResourcesFit
from scheduling.plugins.node_unschedulable import NodeUnschedulable
from scheduling.plugins.pod_topology_spread import PodTopologySpread
from scheduling.plugins.taint_toleration import TaintToleration

__all__ = [
    "BalancedAllocation",
    "ImageLocality",
    "InterPodAffinity",
    "NodeAffinity",
    "NodeName",
    "NodePorts",
    "NodeResourcesFit",
    "NodeUnschedulable",
    "PodTopologySpread",
    "TaintToleration",
]
