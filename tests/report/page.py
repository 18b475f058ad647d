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

    def exceptions(self) -> dict[tuple[int, int], tuple[str, int]]:
        """The pod pairs the engine answers before the policies: (source, destination) → (kind, connection id)."""
        rows = self.arrays["exc"].reshape(-1, 4).tolist()
        return {(s, d): (self.data["exceptions"][k]["name"], c) for s, d, k, c in rows}

    def conn(self, s: int, d: int) -> str:
        """The connection text the page shows for pod indexes s → d (the script's podConn)."""
        P, C = self.data["pods"], self.data["C"]
        x = self.exceptions().get((s, d))
        cid = x[1] if x is not None else int(self.arrays["cm"][P["cls"][s] * C + P["cls"][d]])
        return self.data["conns"][cid] if cid else ""

    def side_words(self, direction: str, src: int | None, dst: int | None, atom: int | None = None) -> list[str]:
        """One side's reasons for classes src → dst (None: the external range `atom`), read as the script's
        sideWords reads them: owner group and peer group index the embedded table."""
        reasons = self.data["reasons"]
        owner, other = (src, dst) if direction == "egress" else (dst, src)
        if owner is None:
            return reasons["texts"][reasons["external"]]
        prefix = direction[:2]
        peer = self.data["C"] + atom if other is None else other
        og = int(self.arrays[f"{prefix}og"][owner])
        pg = int(self.arrays[f"{prefix}pg"][peer])
        return reasons["texts"][int(self.arrays[f"{prefix}tab"][og * reasons[direction]["peer_groups"] + pg])]

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
