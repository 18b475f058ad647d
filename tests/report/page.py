"""Reading a written report back: its embedded JSON and its gzip+base64 arrays, as the page's script does."""

from __future__ import annotations

import base64
import gzip
import json
import re
from dataclasses import dataclass

import numpy as np


@dataclass
class Page:
    html: str
    data: dict
    arrays: dict[str, np.ndarray]

    def conn(self, s: int, d: int) -> str:
        """The connection text the page shows for pod indexes s → d (the script's podConn)."""
        P, C = self.data["pods"], self.data["C"]
        if s == d:
            return self.data["conns"][self.data["all_id"]]
        if any((h == s and d in ds) or (h == d and s in ds) for h, ds in P["local"]):
            return self.data["conns"][self.data["all_id"]]
        cid = int(self.arrays["cm"][P["cls"][s] * C + P["cls"][d]])
        return self.data["conns"][cid] if cid else ""

    def pod_keys(self) -> list[str]:
        P = self.data["pods"]
        return [f"{self.data['ns'][n]}/{name}" for n, name in zip(P["ns"], P["name"], strict=True)]


def read_page(html: str) -> Page:
    m = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', html, re.S)
    assert m, "no embedded data"
    data = json.loads(m.group(1))
    arrays = {}
    for name, dtype, b64 in re.findall(
        r'<script type="application/octet-stream" id="blob-([a-z]+)" data-dtype="([a-z0-9]+)">(.*?)</script>',
        html,
        re.S,
    ):
        arrays[name] = np.frombuffer(gzip.decompress(base64.b64decode(b64)), dtype=dtype)
    return Page(html, data, arrays)
