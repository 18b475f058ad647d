"""Names and label syntax as the API server validates them (apimachinery pkg/util/validation/validation.go).

Each returns None when valid, else the API's reason, so readers can say it the API's way.
"""

from __future__ import annotations

import re

_DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_QUALIFIED_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")


def dns1123_label(name: str) -> str | None:
    """None when valid, else the API's reason (namespaces, Service names: IsDNS1123Label)."""
    if len(name) > 63:
        return "must be no more than 63 characters"
    if not _DNS1123_LABEL.match(name):
        return (
            "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
            "start and end with an alphanumeric character"
        )
    return None


def dns1123_subdomain(name: str) -> str | None:
    """None when valid, else the API's reason (most object names: IsDNS1123Subdomain)."""
    if len(name) > 253:
        return "must be no more than 253 characters"
    if not _DNS1123_SUBDOMAIN.match(name):
        return (
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and "
            "must start and end with an alphanumeric character"
        )
    return None


def label_key(key: str) -> str | None:
    """IsQualifiedName: an optional DNS subdomain prefix and '/', then a name of at most 63 characters."""
    prefix, slash, name = key.rpartition("/")
    if slash:
        if not prefix:
            return "prefix part must be non-empty"
        reason = dns1123_subdomain(prefix)
        if reason:
            return f"prefix part {reason}"
    if not name:
        return "name part must be non-empty"
    if len(name) > 63:
        return "name part must be no more than 63 characters"
    if not _QUALIFIED_NAME.match(name):
        return (
            "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
            "alphanumeric character"
        )
    return None


def label_value(value: str) -> str | None:
    """IsValidLabelValue: empty, or at most 63 characters of alphanumerics, '-', '_', '.'."""
    if len(value) > 63:
        return "must be no more than 63 characters"
    if not _LABEL_VALUE.match(value):
        return (
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
            "must start and end with an alphanumeric character"
        )
    return None
