"""argparse `type=` callables: every option with a value is checked at the edge, so a bad value exits 2 with
argparse's `argument --OPTION: …` message before anything is loaded, never with a traceback."""

from __future__ import annotations

import argparse
import os
import re

import netaddr

from netpol.errors import UsageError
from netpol.model.labels import parse_selector_string
from netpol.model.objects import PROTOCOLS
from netpol.targets import parse_endpoint, parse_port

# RFC 1123 label: what a namespace name (and a node name's parts) must be
_DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
_DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def _bad(message: str) -> argparse.ArgumentTypeError:
    return argparse.ArgumentTypeError(message)


def port_arg(text: str) -> str:
    """`--port`: P, P/PROTO, LO-HI or a port name (checked here, read with netpol.targets.parse_port)."""
    try:
        parse_port(text, "")
    except UsageError as exc:
        raise _bad(str(exc).strip()) from None
    return text


def protocol_arg(text: str) -> str:
    proto = text.strip().upper()
    if proto not in PROTOCOLS:
        raise _bad(f"{text!r} is not a protocol (one of {', '.join(PROTOCOLS)})")
    return proto


def cidr_arg(text: str) -> str:
    """A CIDR such as 10.244.0.0/16 (a range, not a single address)."""
    if "/" not in text:
        raise _bad(f"{text!r} is not a CIDR (e.g. 10.244.0.0/16)")
    try:
        net = netaddr.IPNetwork(text.strip())
    except (netaddr.AddrFormatError, ValueError, TypeError):
        raise _bad(f"{text!r} is not a CIDR (e.g. 10.244.0.0/16)") from None
    if net.size < 4:
        raise _bad(f"{text!r} is too small to hold pod addresses")
    return str(net.cidr)


def cluster_cidr_arg(text: str) -> str:
    """--cluster-cidr: one CIDR, or a dual-stack pair "10.244.0.0/16,fd00:10:244::/56" (kube-controller-manager's
    form; the families are checked with the node masks, netpol.ipam.PodNetwork.parse)."""
    return ",".join(cidr_arg(part) for part in text.split(","))


def seed_arg(text: str) -> int:
    try:
        seed = int(text)
    except ValueError:
        raise _bad(f"{text!r} is not a whole number") from None
    if seed < 0:
        raise _bad(f"{text!r}: a seed is 0 or more")
    return seed


def namespace_arg(text: str) -> str:
    if not _DNS1123_LABEL.match(text):
        raise _bad(f"{text!r} is not a namespace name (lowercase letters, digits and '-', at most 63)")
    return text


def node_arg(text: str) -> str:
    if len(text) > 253 or not _DNS1123_SUBDOMAIN.match(text):
        raise _bad(f"{text!r} is not a node name (a DNS subdomain: lowercase letters, digits, '-' and '.')")
    return text


def selector_arg(text: str) -> str:
    try:
        parse_selector_string(text)
    except ValueError as exc:
        raise _bad(str(exc)) from None
    return text


def endpoint_arg(text: str) -> str:
    """An endpoint name (see docs/endpoints.md); checked for its form here, looked up later."""
    try:
        parse_endpoint(text)
    except UsageError as exc:
        raise _bad(str(exc)) from None
    return text


def existing_path_arg(text: str) -> str:
    """A file or folder that exists, or - (stdin)."""
    if text != "-" and not os.path.exists(text):
        raise _bad(f"no such file or directory: {text}")
    return text


def readable_file_arg(text: str) -> str:
    if not os.path.isfile(text):
        raise _bad(f"no such file: {text}")
    return text


def writable_file_arg(text: str) -> str:
    folder = os.path.dirname(os.path.abspath(text))
    if os.path.isdir(text) or not os.path.isdir(folder):
        raise _bad(f"cannot write {text}: {'a folder' if os.path.isdir(text) else 'no folder ' + folder}")
    return text


def positive_int_arg(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise _bad(f"{text!r} is not a whole number") from None
    if value < 1:
        raise _bad(f"{text!r}: must be 1 or more")
    return value
