"""Loading: manifests (files, folders, stdin) → a validated Cluster, errors naming file, object and field."""

from netpol.loading.cluster import build_cluster, load_paths, load_text
from netpol.loading.fields import read_label_selector

__all__ = ["build_cluster", "load_paths", "load_text", "read_label_selector"]
