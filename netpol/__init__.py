"""kube-reach: Kubernetes NetworkPolicy and connectivity analysis."""

__version__ = "0.1.0"
