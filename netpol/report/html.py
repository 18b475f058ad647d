"""One self-contained HTML page: styles, script, data and drawing inline; nothing fetched when opened.

Large arrays (the class matrix, rule bitsets) are gzip-compressed and base64-encoded; the page inflates
them with the browser's own DecompressionStream, so no library is needed and the file stays small.
"""

from __future__ import annotations

import base64
import json
import zlib
from html import escape
from importlib import resources

from netpol.english import plural
from netpol.report.data import Blobs

_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<title>{title}</title>
<style>{css}</style>
</head>
<body>
<header><h1>{title}</h1><div class="sub">{subtitle}</div></header>
<nav><a href="#summary">Summary</a><a href="#heatmap">Namespaces × namespaces</a><a href="#pods">Pods</a>
<a href="#doors">Doors</a><a href="#findings-section">Findings</a><a href="#graph">Graph</a>{diff_link}</nav>
<main>
<div id="loading">Reading the embedded data…</div>
<section id="diff" hidden><h2>What changed</h2></section>
<section id="summary"><h2>Summary</h2><div class="cards" id="cards"></div><div id="pending"></div>
<h3>Namespaces</h3>
<div class="scroll"><table class="list" id="ns-table"><thead><tr><th>namespace</th><th>pods</th>
<th>isolated in</th><th>isolated out</th><th>default-deny ingress</th><th>default-deny egress</th>
<th>reachable from outside</th><th>reachable from namespaces</th><th>findings</th></tr></thead><tbody></tbody></table></div>
</section>
<section id="heatmap"><h2>Namespaces × namespaces</h2>
<p class="muted">Each cell: the share of pod pairs (source namespace row, destination namespace column) with some
allowed connection, in percent. Hover for counts and ports; click for the pod × pod matrix.</p>
<div class="legend" id="heat-legend"></div>
<div class="scroll" id="heat-box"></div>
<div id="pm-box"></div>
</section>
<section id="pods"><h2>Pods</h2>
<input id="pod-search" type="search" placeholder="search pods: web1, web/, an IP, a workload" aria-label="search pods">
<div id="pod-results"></div><div id="pod-detail"></div>
</section>
<section id="doors"><h2>Doors</h2>
<p class="muted">Every path from outside the cluster to a pod (netpol exposure): a LoadBalancer or NodePort Service,
externalIPs, an Ingress, a Gateway API route or an OpenShift Route, through its proxy when it has one, to the
Service port and the pod's port; its verdict and the rules deciding each hop.</p>
<div class="scroll"><table class="list" id="doors-table"><thead><tr><th>verdict</th><th>door</th><th>proxy</th>
<th>Service port</th><th>pod</th><th>hops (deciding rules)</th></tr></thead><tbody></tbody></table></div>
</section>
<section id="findings-section"><h2>Findings</h2>
<div class="scroll"><table class="list" id="findings"><thead><tr><th>severity</th><th>id</th><th>namespace</th>
<th>finding</th><th>objects</th><th>fix</th></tr></thead><tbody></tbody></table></div>
<ul id="findings-notes" class="muted"></ul>
</section>
<section id="graph"><h2>Graph</h2><p class="muted" id="graph-note"></p><div id="graph-box">{svg}</div></section>
</main>
<script type="application/json" id="report-data">{data}</script>
{blobs}
<script>{js}</script>
</body>
</html>
"""


def _asset(name: str) -> str:
    return resources.files("netpol.report").joinpath("assets", name).read_text(encoding="utf-8")


def _blob_tag(name: str, arr) -> str:
    # zlib with a gzip header (wbits 31) and no timestamp: byte-for-byte repeatable output
    comp = zlib.compressobj(6, zlib.DEFLATED, 31)
    packed = comp.compress(arr.tobytes()) + comp.flush()
    return (
        f'<script type="application/octet-stream" id="blob-{name}" data-dtype="{arr.dtype.name}">'
        f"{base64.b64encode(packed).decode('ascii')}</script>"
    )


def render(data: dict[str, object], blobs: Blobs) -> str:
    payload = json.dumps(data, separators=(",", ":"), ensure_ascii=False).replace("<", "\\u003c")
    title = str(data["title"])
    counts = data["counts"]
    sources = data["sources"]
    assert isinstance(counts, dict) and isinstance(sources, list)
    subtitle = (
        f"{' '.join(map(str, sources))} · {plural(counts['pods'], 'pod')}, "
        f"{plural(counts['namespaces'], 'namespace')}, {plural(counts['policies'], 'policy')} · written by netpol report"
    )
    return _TEMPLATE.format(
        title=escape(title),
        subtitle=escape(subtitle),
        css=_asset("report.css"),
        js=_asset("report.js").replace("</", "<\\/"),
        data=payload,
        blobs="\n".join(_blob_tag(name, arr) for name, arr in blobs.arrays.items()),
        svg=blobs.svg,
        diff_link='<a href="#diff">What changed</a>' if data.get("diff") else "",
    )
