"""Manifests in, Cluster out: the entry point kept for callers; the work is in `netpol.loading`."""

from netpol.loading import build_cluster, load_paths, load_text, read_label_selector
from netpol.loading.documents import MANIFEST_SUFFIXES, Document, iter_paths, read_documents

__all__ = [
    "MANIFEST_SUFFIXES",
    "Document",
    "build_cluster",
    "iter_paths",
    "load_paths",
    "load_text",
    "read_documents",
    "read_label_selector",
]
