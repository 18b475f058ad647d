"""The scheduling framework's contracts: status codes, per-cycle state, PreFilter results, plugin protocols, profiles.

Shape follows kube-scheduler's pkg/scheduler/framework (interface.go, cycle_state.go), but every plugin judges
*all nodes at once*: a Filter returns a boolean mask plus a reason per failing node, a Score returns one
integer per feasible node. What a pod brings is in `podinfo`, what the nodes hold in `snapshot`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

import numpy as np

from scheduling.podinfo import PodInfo
from scheduling.snapshot import Snapshot

MAX_NODE_SCORE = 100  # framework.MaxNodeScore
T = TypeVar("T")


class Code(enum.IntEnum):
    """framework.Code: what a plugin's verdict means for the pod."""

    SUCCESS = 0
    ERROR = 1
    UNSCHEDULABLE = 2
    UNSCHEDULABLE_AND_UNRESOLVABLE = 3
    WAIT = 4
    SKIP = 5

    @property
    def label(self) -> str:
        return {
            Code.SUCCESS: "Success",
            Code.ERROR: "Error",
            Code.UNSCHEDULABLE: "Unschedulable",
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE: "UnschedulableAndUnresolvable",
            Code.WAIT: "Wait",
            Code.SKIP: "Skip",
        }[self]


@dataclass(frozen=True, slots=True)
class Status:
    """framework.Status: a code, the reasons shown to users, and the plugin that said it."""

    code: Code = Code.SUCCESS
    reasons: tuple[str, ...] = ()
    plugin: str = ""

    @property
    def is_success(self) -> bool:
        return self.code == Code.SUCCESS

    def message(self) -> str:
        return ", ".join(self.reasons)


SUCCESS = Status()


@dataclass(frozen=True, slots=True)
class NodeVerdicts:
    """A Filter plugin's verdict on every node at once.

    `ok[i]` says node i passes. A failing node's reasons are `reasons[reason[i]]` (or `reasons[0]` when
    `reason` is None); `codes` runs parallel to `reasons`.
    """

    ok: np.ndarray
    reasons: tuple[tuple[str, ...], ...] = ()
    codes: tuple[Code, ...] = ()
    reason: np.ndarray | None = None

    def status_of(self, i: int, plugin: str) -> Status:
        if self.ok[i]:
            return Status(plugin=plugin)
        r = 0 if self.reason is None else int(self.reason[i])
        return Status(self.codes[r], self.reasons[r], plugin)


def uniform_verdicts(ok: np.ndarray, reason: str, code: Code) -> NodeVerdicts:
    return NodeVerdicts(ok, ((reason,),), (code,))


class StateKey(Generic[T]):
    """A typed CycleState key: what a plugin writes under it is what readers get back (framework.StateKey)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"StateKey({self.name!r})"


class CycleState:
    """framework.CycleState: per-pod scratch space that PreFilter/PreScore write and Filter/Score read.

    Access is by typed key (`read`/`write`), so a plugin cannot read another's data under the wrong type."""

    __slots__ = ("_data",)

    def __init__(self) -> None:
        self._data: dict[StateKey[Any], Any] = {}

    def has(self, key: StateKey[Any]) -> bool:
        return key in self._data

    def read(self, key: StateKey[T]) -> T:
        """The value written under `key`; KeyError when nothing was (upstream: ErrNotFound)."""
        value: T = self._data[key]
        return value

    def write(self, key: StateKey[T], value: T) -> None:
        self._data[key] = value


@dataclass(frozen=True, slots=True)
class PreFilterResult:
    """What a PreFilter plugin returns: upstream's (*PreFilterResult, *Status) pair.

    `nodes` is a bool mask of the nodes the cycle is restricted to (None: every node, AllNodes()); a
    non-success `status` rejects the pod for every node at once.
    """

    status: Status = SUCCESS
    nodes: np.ndarray | None = None


ALL_NODES = PreFilterResult()


class PreFilterPlugin(Protocol):
    name: str

    def pre_filter(self, state: CycleState, pod: PodInfo, snap: Snapshot) -> PreFilterResult: ...


class FilterPlugin(Protocol):
    name: str

    def filter(self, state: CycleState, pod: PodInfo, snap: Snapshot) -> NodeVerdicts | None:
        """None means every node passes (upstream: Skip or Success everywhere)."""


class ScorePlugin(Protocol):
    name: str
    weight: int

    def score(self, state: CycleState, pod: PodInfo, snap: Snapshot, nodes: np.ndarray) -> np.ndarray | None:
        """Raw scores for the feasible node indexes `nodes`; None means Skip (all zero after weighting)."""

    def normalize(self, state: CycleState, raw: np.ndarray) -> np.ndarray:
        """NormalizeScore; identity for plugins without ScoreExtensions."""


@dataclass(frozen=True, slots=True)
class Profile:
    """A scheduler profile: the default plugin set in upstream's order (apis/config/v1/default_plugins.go)."""

    pre_filter: tuple[PreFilterPlugin, ...]
    filter: tuple[FilterPlugin, ...]
    score: tuple[ScorePlugin, ...]
