"""What reaches a pod from outside the cluster, through which door, and why (issue 24).

`analyze_exposure(analysis)` finds the doors (LoadBalancer and NodePort Services, externalIPs, Ingresses,
Gateway API routes, OpenShift Routes: `doors`), the proxies behind them (`proxies`, `conventions`), every
path `internet → door → (proxy pod →) Service port → pod:targetPort` with the engine's verdict and rules
for each hop (`paths`, `verdicts`), and, per pod, what its own policies admit or reach among pods the input
does not contain (`beyond`), all over one second engine with stand-ins for what is not in the input
(`standins`). `render` words it. Only `verdicts` reads the engine's provenance.
"""

from netpol.exposure.analysis import (
    Beyond,
    Doors,
    Exposure,
    ExposureOptions,
    analyze_beyond,
    analyze_doors,
    analyze_exposure,
)
from netpol.exposure.beyond import Admission, PodBeyond
from netpol.exposure.doors import DOOR_KINDS, Backend, Door, DoorKind, ProxyRef, find_doors
from netpol.exposure.paths import SOURCE_ADDRESSES, VERDICTS, Hop, Path, SourceAddress, Verdict
from netpol.exposure.proxies import ProxyPods
from netpol.exposure.render import (
    ExposureReport,
    admission_json,
    admission_line,
    beyond_lines,
    door_words,
    path_head,
    path_lines,
)
from netpol.exposure.standins import EVERYWHERE, StandIn

__all__ = [
    "DOOR_KINDS",
    "EVERYWHERE",
    "SOURCE_ADDRESSES",
    "VERDICTS",
    "Admission",
    "Backend",
    "Beyond",
    "Door",
    "Doors",
    "DoorKind",
    "Exposure",
    "ExposureOptions",
    "ExposureReport",
    "Hop",
    "Path",
    "PodBeyond",
    "ProxyPods",
    "ProxyRef",
    "SourceAddress",
    "StandIn",
    "Verdict",
    "admission_json",
    "admission_line",
    "analyze_beyond",
    "analyze_doors",
    "analyze_exposure",
    "beyond_lines",
    "door_words",
    "find_doors",
    "path_head",
    "path_lines",
]
