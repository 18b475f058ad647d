"""Reusable widgets: a virtual (Line API) table and the reachability grid."""
