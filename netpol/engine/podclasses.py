"""What code outside the engine may read of the pods' equivalence classes (issue 20: no reader reaches into the
engine's universe). `Reachability.pod_classes` is the compiled `Universe` seen through this Protocol, so the type
checker refuses any other member outside netpol/engine/."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

import numpy as np

if TYPE_CHECKING:
    from netpol.engine.compile.universe import PodClass
    from netpol.model.objects import Namespace


class PodClasses(Protocol):
    """Pods no rule can tell apart share a class; every block the engine answers is over classes."""

    @property
    def classes(self) -> tuple[PodClass, ...]:
        """Each class's namespace, labels, named ports and addresses' atoms."""

    @property
    def pod_class(self) -> np.ndarray:
        """The class of each pod (by index into `Reachability.pods`)."""

    @property
    def class_count(self) -> int: ...

    @property
    def class_ns(self) -> np.ndarray:
        """The namespace of each class, as an index into `namespaces`."""

    @property
    def ns_index(self) -> Mapping[str, int]: ...

    @property
    def namespaces(self) -> tuple[Namespace, ...]: ...

    @property
    def families(self) -> tuple[int, ...]:
        """The IP families present (4, 6), in the order the per-family arrays use."""

    @property
    def multi_family(self) -> bool: ...

    @property
    def selectable(self) -> np.ndarray:
        """Classes a pod selector can select (not hostNetwork)."""

    def in_namespace(self, ns: str) -> np.ndarray:
        """A read-only mask of the classes in namespace `ns`."""
