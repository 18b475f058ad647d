"""The `/` filter's grammar over pods (pure; every list view that filters pods uses it)."""

from __future__ import annotations

from dataclasses import dataclass

from netpol.model.objects import Pod


@dataclass(frozen=True, slots=True)
class PodFilter:
    """`/` filter: space-separated terms, all must match. `ns/` namespace, `ns/name`, `key=value`, substring."""

    text: str = ""

    def terms(self) -> list[str]:
        return self.text.split()

    def matches(self, pod: Pod) -> bool:
        for term in self.terms():
            if "=" in term and "/" not in term:
                k, _, v = term.partition("=")
                if pod.labels.get(k) != v:
                    return False
            elif "/" in term:
                ns, _, name = term.partition("/")
                if ns and pod.namespace != ns:
                    return False
                if name and name.lower() not in pod.name.lower():
                    return False
            elif term.lower() not in pod.key.lower():
                return False
        return True
