"""The one port grammar every option shares (`--port`, expectation files): `P`, `P/PROTO`, `LO-HI[/PROTO]`,
or a named port `NAME[/PROTO]`, read into a `Probe`."""

from __future__ import annotations

import re
from dataclasses import dataclass

from netpol.errors import UsageError
from netpol.model.objects import PROTOCOLS, Pod
from netpol.ports import ConnectionSet

PORT_NAME = re.compile(r"^[a-z0-9]([a-z0-9-]{0,13}[a-z0-9])?$")  # IANA_SVC_NAME, as containerPort names


@dataclass(frozen=True, slots=True)
class Probe:
    """The destination ports a question asks about, in the one port grammar every option shares:
    `P`, `P/PROTO`, `LO-HI[/PROTO]` or a named port `NAME[/PROTO]` (resolved on each destination pod, as
    NetworkPolicy resolves named ports; on a Service destination, the Service port of that name)."""

    protocol: str
    port: int  # the port, or the first of a range; 0 for a named port
    end: int | None = None  # last port of a range
    name: str | None = None  # a named port

    @property
    def single(self) -> bool:
        return self.name is None and self.end is None

    def render(self) -> str:
        if self.name is not None:
            return f"{self.protocol} {self.name}"
        if self.end is not None:
            return f"{self.protocol} {self.port}-{self.end}"
        return f"{self.protocol} {self.port}"

    def as_set(self) -> ConnectionSet:
        if self.name is not None:
            raise UsageError(
                f"port {self.name!r} is a named port: it means a number only on a destination pod that names it; "
                "here the destination is not one pod, give the number"
            )
        return ConnectionSet.of([(self.protocol, self.port, self.end or self.port)])

    def on(self, pod: Pod) -> ConnectionSet:
        """The ports this probe means on destination `pod` (a named port resolved on its containers)."""
        if self.name is None:
            return self.as_set()
        nums = [num for name, proto, num in pod.named_ports() if name == self.name and proto == self.protocol]
        return ConnectionSet.of([(self.protocol, n, n) for n in nums])


def _port_number(text: str, whole: str, option: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise UsageError(
            f"{option} {whole!r}: expected P, P/PROTO, LO-HI or a port name (e.g. 80, 53/UDP, 8000-8080, http)"
        ) from None
    if not 1 <= port <= 65535:
        raise UsageError(f"{option} {whole!r}: port must be in 1..65535")
    return port


def parse_port(text: str, option: str = "--port") -> Probe:
    """The one port grammar: `80`, `80/TCP`, `53/udp`, `8000-8080`, `8000-8080/UDP`, `http`, `dns/UDP`."""
    whole = str(text).strip()
    port_s, _, proto = whole.partition("/")
    proto = (proto or "TCP").upper()
    if proto not in PROTOCOLS:
        raise UsageError(f"{option} {whole!r}: protocol must be one of {', '.join(PROTOCOLS)}")
    port_s = port_s.strip()
    if port_s and not port_s[0].isdigit() and PORT_NAME.match(port_s) and not port_s.isdigit():
        return Probe(proto, 0, name=port_s)
    lo_s, dash, hi_s = port_s.partition("-")
    lo = _port_number(lo_s, whole, option)
    if not dash:
        return Probe(proto, lo)
    hi = _port_number(hi_s, whole, option)
    if hi < lo:
        raise UsageError(f"{option} {whole!r}: a range goes from low to high (LO-HI)")
    return Probe(proto, lo) if hi == lo else Probe(proto, lo, hi)


def parse_probe(text: str | Probe | None, option: str = "--port") -> Probe | None:
    """`parse_port`, with None staying None (the option was not given) and a Probe staying itself."""
    if text is None or isinstance(text, Probe):
        return text
    return parse_port(text, option)
