"""Policy objects of kinds netpol does not evaluate, kept as read so that every artifact can name them and the
pods their answers may be wrong for (netpol.unevaluated computes which, best effort)."""

from __future__ import annotations

from dataclasses import dataclass

from netpol.errors import SourceRef
from netpol.model.labels import FrozenMap, LabelSelector


@dataclass(frozen=True, slots=True)
class UnevaluatedPolicy:
    """One policy object netpol skipped. `namespace` is "" for a cluster-scoped kind; `selector` is the standard
    label selector found at `selector_field` (spec.podSelector, spec.selector or spec.endpointSelector), or None
    when the object has none netpol can read (another selector language, appliedTo, targetRefs, …); `wide` is
    set when a namespaced object applies beyond its namespace (Istio's root namespace)."""

    kind: str
    api_version: str
    engine: str
    namespace: str
    name: str
    source: SourceRef
    selector: LabelSelector | None = None
    selector_field: str = ""
    wide: bool = False
    annotations: FrozenMap[str] = FrozenMap()  # where `kube-reach.io/accept.NP080` accepts its finding

    @property
    def key(self) -> str:
        """Kind/ns/name (Kind/name when cluster-scoped), the audit's object form."""
        return f"{self.kind}/{self.namespace}/{self.name}" if self.namespace else f"{self.kind}/{self.name}"
