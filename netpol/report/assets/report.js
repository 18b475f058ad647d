// netpol report: vanilla JavaScript, no library, no network. Reads the data embedded in this page.
// Verdicts are per equivalence class (pods no policy can tell apart); pod-level views expand them here.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const D = JSON.parse($("report-data").textContent);
  const P = D.pods;
  const C = D.C, E = D.atoms.length, N = D.ns.length, NP = P.name.length;
  const ALL = D.all_id;
  const isHost = new Uint8Array(NP);
  P.host.forEach((i) => { isHost[i] = 1; });
  const podKey = (i) => D.ns[P.ns[i]] + "/" + P.name[i];
  let CM, EIN, EOUT, EXC;
  const SIDE = { egress: {}, ingress: {} };  // per direction: owner group, peer group, reason table (blobs)

  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v; else if (k === "text") e.textContent = v; else e.setAttribute(k, v);
    }
    for (const k of kids) if (k !== null && k !== undefined) e.append(k);
    return e;
  }

  async function blob(name) {
    const tag = $("blob-" + name);
    const s = atob(tag.textContent.trim());
    const bytes = new Uint8Array(s.length);
    for (let i = 0; i < s.length; i++) bytes[i] = s.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    const buf = await new Response(stream).arrayBuffer();
    const T = { uint8: Uint8Array, uint16: Uint16Array, uint32: Uint32Array }[tag.dataset.dtype];
    return new T(buf);
  }

  // ------------------------------------------------------------------ verdicts
  // The pairs the engine answers before the policies (a pod and itself, node-local traffic), as it lists
  // them: source, destination, kind, connection id. Every other pair is its classes' cell of the matrix.
  const EXCEPT = new Map();
  function readExceptions() {
    for (let i = 0; i < EXC.length; i += 4) EXCEPT.set(EXC[i] * NP + EXC[i + 1], { kind: D.exceptions[EXC[i + 2]], id: EXC[i + 3] });
  }
  const exceptionAt = (s, d) => EXCEPT.get(s * NP + d);
  function podConn(s, d) {
    const x = exceptionAt(s, d);
    return x ? x.id : CM[P.cls[s] * C + P.cls[d]];
  }
  const connText = (id) => (id ? D.conns[id] : "denied");
  // connection ids some of whose ports go only through a layer-7 filter (Cilium's L7 rules): `f`
  const L7 = new Set(D.l7 || []);
  const glyph = (id) => (id === 0 ? "X" : L7.has(id) ? "f" : id === ALL ? "." : "~");

  // One side's reasons, the engine's words (as netpol who-can-reach words them), looked up: the owner's group
  // and the other end's group (a class, or an external range after the classes) index the embedded table.
  function sideWords(dir, sc, dc, atom) {
    const owner = dir === "egress" ? sc : dc;
    if (owner === null) return D.reasons.texts[D.reasons.external];
    const other = dir === "egress" ? dc : sc;
    const t = SIDE[dir];
    const peer = other === null ? C + atom : other;
    return D.reasons.texts[t.tab[t.og[owner] * D.reasons[dir].peer_groups + t.pg[peer]]];
  }
  // Both sides of a pod pair: the exception's words when the engine lists the pair, else the classes'.
  function pairWords(s, d) {
    const x = exceptionAt(s, d);
    if (x) return { egress: x.kind.egress, ingress: x.kind.ingress };
    return { egress: sideWords("egress", P.cls[s], P.cls[d], null), ingress: sideWords("ingress", P.cls[s], P.cls[d], null) };
  }

  // ------------------------------------------------------------------ pods a skipped policy may apply to
  const MAYBE_WRONG = new Map();
  for (const u of D.unevaluated) for (const i of u.pods) {
    if (!MAYBE_WRONG.has(i)) MAYBE_WRONG.set(i, []);
    MAYBE_WRONG.get(i).push(u.policy);
  }

  // ------------------------------------------------------------------ diff marks
  const CHANGES = new Map();
  if (D.diff) for (const c of D.diff.changes) CHANGES.set(c[1] + "\t" + c[2], c);
  const markClass = { a: "gain", r: "lost", c: "chg" };
  const markGlyph = { a: "+", r: "−", c: "±" };

  // ------------------------------------------------------------------ summary
  function summary() {
    const c = D.counts;
    const cards = $("cards");
    const card = (label, value) => cards.append(el("div", { class: "card" }, el("b", { text: String(value) }), label));
    card("namespaces", c.namespaces); card("pods", c.pods); card("policies", c.policies);
    // one card per other kind the engine evaluates (Calico's kinds are counted together in their own card)
    const calico = (kind) => kind === "GlobalNetworkPolicy" || kind.includes("(Calico)");
    for (const [kind, n] of Object.entries(c.kinds || {})) if (!calico(kind)) card(kind, n);
    if (c.calico_policies) card("Calico policies", c.calico_policies);
    card("nodes", c.nodes); card("Pending pods", c.pending);
    for (const s of ["high", "medium", "low", "info"]) card(s + " findings", c.findings[s] || 0);
    if (c.unevaluated) card("policies not evaluated", c.unevaluated);
    if (D.pending.length) {
      const ul = el("ul");
      for (const [name, reason] of D.pending) ul.append(el("li", {}, el("b", { text: name }), " Pending: " + reason));
      $("pending").append(el("h3", { text: "Pending pods (take no part in traffic)" }), ul);
    }
    if (D.unevaluated.length) {  // never silent about what was not evaluated (issue 25 item 4)
      const ul = el("ul", { id: "unevaluated" });
      for (const u of D.unevaluated) {
        const names = u.pods.map(podKey);
        ul.append(el("li", {}, el("b", { text: u.policy }), " " + u.what + "; " + u.selects + ".",
          el("div", { class: "mono" }, names.length ? objectList(names) : "no running pod")));
      }
      $("pending").append(el("h3", { class: "warn", text: "Policies not evaluated: the answers for these pods may be wrong" }), ul);
    }
    const tb = $("ns-table").querySelector("tbody");
    D.ns.forEach((name, i) => {
      const info = D.nsinfo[i];
      const yn = (ok, text) => el("span", { class: ok ? "yes" : "no", text: (ok ? "✔ " : "✘ ") + text });
      const dd = (list) => (list.length ? yn(true, list.join(", ")) : yn(false, "none"));
      const outside = info.from_outside.length
        ? info.from_outside.map(([f, t]) => f + " : " + t).join("\n") : "—";
      const sev = el("span");
      for (const s of ["high", "medium", "low", "info"]) {
        if (info.findings[s]) sev.append(el("span", { class: "sev " + s, text: SEVG[s] + " " + info.findings[s] + " " + s + " " }));
      }
      tb.append(el("tr", {},
        el("td", { text: name }), el("td", { text: String(info.pods) }),
        el("td", {}, yn(info.iso_in === info.pods, info.iso_in + "/" + info.pods)),
        el("td", {}, yn(info.iso_out === info.pods, info.iso_out + "/" + info.pods)),
        el("td", {}, dd(info.dd_in)), el("td", {}, dd(info.dd_out)),
        el("td", { class: "mono", text: outside }),
        el("td", { text: info.from_ns.length ? info.from_ns.map((x) => x[0]).join(", ") : "—" }),
        el("td", {}, sev)));
    });
  }
  const SEVG = { high: "▲", medium: "◆", low: "●", info: "○" };

  // ------------------------------------------------------------------ heatmap
  const HB = [[0, "h0", "none"], [0.25, "h1", "under a quarter"], [0.5, "h2", "under half"], [1, "h3", "half or more"], [1.01, "h4", "all"]];
  function heatBucket(share) {
    if (share === 0) return 0;
    if (share >= 1) return 4;
    if (share < 0.25) return 1;
    return share < 0.5 ? 2 : 3;
  }
  const HEAT_GLYPH = ["X", "▁", "▄", "▆", "█"];
  let heatPorts = null, heatDiff = null;
  function heatmap() {
    heatPorts = new Map();
    const hp = D.heat.ports;
    for (let i = 0; i < hp.length; i += 4) {
      const k = hp[i] * N + hp[i + 1];
      if (!heatPorts.has(k)) heatPorts.set(k, []);
      heatPorts.get(k).push([hp[i + 2], hp[i + 3]]);
    }
    if (D.diff) {
      heatDiff = new Map();
      const nsOf = new Map(D.ns.map((n, i) => [n, i]));
      for (const c of D.diff.changes) {
        const a = nsOf.get(c[1].split("/")[0]), b = nsOf.get(c[2].split("/")[0]);
        if (a === undefined || b === undefined || !c[1].includes("/") || !c[2].includes("/")) continue;
        const k = a * N + b;
        const v = heatDiff.get(k) || { a: 0, r: 0, c: 0 };
        v[c[0]]++;
        heatDiff.set(k, v);
      }
    }
    const dense = N > 30;
    if (N > CANVAS_FROM) heatCanvas(); else heatTable(dense);
    const lg = $("heat-legend");
    HB.forEach(([, cls, words], i) => lg.append(el("span", {}, el("span", { class: "sw " + cls, text: dense ? HEAT_GLYPH[i] : ["0", "1–24", "25–49", "50–99", "100"][i] }), " " + words)));
    lg.append(el("span", {}, el("span", { class: "sw hn", text: "–" }), " no pod pairs"));
    if (D.diff) lg.append(el("span", { text: "+ gained, − lost, ± changed connections (framed)" }));
  }
  // One cell of the heatmap: bucket (or -1: no pod pairs), label, tooltip, diff frame.
  function heatCell(a, b, dense) {
    const k = a * N + b;
    const total = D.heat.total[k], allowed = D.heat.allowed[k];
    if (!total) return { bucket: -1, label: dense ? "" : "–", tip: D.ns[a] + " → " + D.ns[b] + ": no pod pairs", frame: "" };
    const share = allowed / total;
    const bucket = heatBucket(share);
    let label = dense ? HEAT_GLYPH[bucket] : share > 0 && share < 0.01 ? "<1" : String(Math.round(share * 100));
    if (!dense && share < 1 && label === "100") label = "99";
    const tip = () => {
      const ports = (heatPorts.get(k) || []).slice().sort((x, y) => y[1] - x[1]);
      const lines = [D.ns[a] + " → " + D.ns[b] + ": " + allowed + " of " + total + " pod pairs allowed (" + (share * 100).toFixed(1) + "%)"];
      for (const [id, n] of ports.slice(0, 8)) lines.push("  " + D.conns[id] + ": " + n + " pairs");
      if (ports.length > 8) lines.push("  … " + (ports.length - 8) + " more port sets");
      const dv = heatDiff && heatDiff.get(k);
      if (dv) lines.push("changes: +" + dv.a + " gained, −" + dv.r + " lost, ±" + dv.c + " changed");
      return lines.join("\n");
    };
    let frame = "";
    const dv = heatDiff && heatDiff.get(k);
    if (dv) {
      label = label + (dv.a ? "+" : "") + (dv.r ? "−" : "") + (dv.c && !dv.a && !dv.r ? "±" : "");
      frame = dv.a && !dv.r ? "gain" : dv.r && !dv.a ? "lost" : "chg";
    }
    return { bucket, label, tip, frame };
  }
  function heatTable(dense) {
    const table = el("table", { class: "heat" + (dense ? " dense" : ""), id: "heat" });
    const head = el("tr", {}, el("th", { text: "from ↓ / to →" }));
    D.ns.forEach((n) => head.append(el("th", { text: n, title: n })));
    table.append(el("thead", {}, head));
    const body = el("tbody");
    for (let a = 0; a < N; a++) {
      const tr = el("tr", {}, el("th", { text: D.ns[a], title: D.ns[a] }));
      for (let b = 0; b < N; b++) {
        const c = heatCell(a, b, dense);
        const td = el("td", { "data-a": a, "data-b": b, class: c.bucket < 0 ? "hn" : HB[c.bucket][1], text: c.label });
        if (c.frame) td.classList.add(c.frame);
        td.title = typeof c.tip === "function" ? c.tip() : c.tip;
        tr.append(td);
      }
      body.append(tr);
    }
    table.append(body);
    table.addEventListener("click", (ev) => {
      const td = ev.target.closest("td");
      if (!td || td.dataset.a === undefined) return;
      table.querySelectorAll("td.sel").forEach((x) => x.classList.remove("sel"));
      td.classList.add("sel");
      podMatrix(+td.dataset.a, +td.dataset.b);
    });
    $("heat-box").append(table);
  }
  // Many namespaces: one canvas instead of tens of thousands of table cells (which take seconds to lay
  // out); the same glyphs, a tooltip on hover, a click opens the pod matrix.
  const CANVAS_FROM = 40, CELL = 14, MARGIN = 170;
  const FILL = { h0: "#f3d9d6", h1: "#f7e6c4", h2: "#e9efc6", h3: "#cfe8cf", h4: "#9fd29f", hn: "#fafafa" };
  const FRAME = { gain: "#2e7d32", lost: "#b3261e", chg: "#b7791f" };
  function heatCanvas() {
    const size = MARGIN + N * CELL;
    const ratio = window.devicePixelRatio || 1;
    const cv = el("canvas", { id: "heat-canvas", width: size * ratio, height: size * ratio, role: "img",
      "aria-label": "namespace heatmap: " + N + " × " + N + " namespaces; hover a cell for counts, click for its pods" });
    cv.style.width = size + "px"; cv.style.height = size + "px";
    const g = cv.getContext("2d");
    g.scale(ratio, ratio);
    g.fillStyle = "#ffffff"; g.fillRect(0, 0, size, size);
    g.font = "9px system-ui, sans-serif"; g.textAlign = "center"; g.textBaseline = "middle";
    for (let a = 0; a < N; a++) {
      for (let b = 0; b < N; b++) {
        const c = heatCell(a, b, true);
        const x = MARGIN + b * CELL, y = MARGIN + a * CELL;
        g.fillStyle = c.bucket < 0 ? FILL.hn : FILL[HB[c.bucket][1]];
        g.fillRect(x, y, CELL - 1, CELL - 1);
        if (c.frame) { g.strokeStyle = FRAME[c.frame]; g.lineWidth = 2; g.strokeRect(x + 1, y + 1, CELL - 3, CELL - 3); }
        g.fillStyle = "#1d2330";
        if (c.label) g.fillText(c.label, x + CELL / 2, y + CELL / 2);
      }
    }
    g.font = "10px system-ui, sans-serif"; g.textAlign = "right";
    for (let a = 0; a < N; a++) g.fillText(D.ns[a].slice(0, 28), MARGIN - 4, MARGIN + a * CELL + CELL / 2);
    g.save(); g.textAlign = "left";
    for (let b = 0; b < N; b++) {
      g.save(); g.translate(MARGIN + b * CELL + CELL / 2, MARGIN - 4); g.rotate(-Math.PI / 2); g.fillText(D.ns[b].slice(0, 28), 0, 0); g.restore();
    }
    g.restore();
    const tipBox = el("div", { id: "heat-tip", class: "tip", hidden: "" });
    const at = (ev) => {
      const r = cv.getBoundingClientRect();
      const b = Math.floor((ev.clientX - r.left - MARGIN) / CELL), a = Math.floor((ev.clientY - r.top - MARGIN) / CELL);
      return a >= 0 && b >= 0 && a < N && b < N ? [a, b] : null;
    };
    cv.addEventListener("mousemove", (ev) => {
      const hit = at(ev);
      if (!hit) { tipBox.hidden = true; return; }
      const c = heatCell(hit[0], hit[1], true);
      tipBox.textContent = typeof c.tip === "function" ? c.tip() : c.tip;
      tipBox.hidden = false;
      tipBox.style.left = ev.pageX + 14 + "px"; tipBox.style.top = ev.pageY + 14 + "px";
    });
    cv.addEventListener("mouseleave", () => { tipBox.hidden = true; });
    cv.addEventListener("click", (ev) => { const hit = at(ev); if (hit) podMatrix(hit[0], hit[1]); });
    $("heat-box").append(cv);
    document.body.append(tipBox);
  }

  // ------------------------------------------------------------------ pod matrix
  const POD_CAP = 150;
  const nsPods = [];
  for (let i = 0; i < N; i++) nsPods.push([]);
  for (let i = 0; i < NP; i++) nsPods[P.ns[i]].push(i);
  function podMatrix(a, b) {
    const box = $("pm-box");
    box.textContent = "";
    const rows = nsPods[a], cols = nsPods[b];
    const title = el("h3", { id: "pm-title", text: "Pods of " + D.ns[a] + " → pods of " + D.ns[b] });
    box.append(title);
    if (!rows.length || !cols.length) { box.append(el("p", { class: "muted", text: "No running pods on one side." })); return; }
    if (rows.length > POD_CAP || cols.length > POD_CAP) {
      box.append(el("p", { class: "muted", text: "Showing the first " + POD_CAP + " pods of each side (" + rows.length + " × " + cols.length + "); search a pod below for its full lists." }));
    }
    const r2 = rows.slice(0, POD_CAP), c2 = cols.slice(0, POD_CAP);
    const table = el("table", { class: "pm", id: "pm" });
    const head = el("tr", {}, el("th", { text: "from ↓ / to →" }));
    c2.forEach((d) => head.append(el("th", { text: P.name[d], title: podKey(d) })));
    table.append(el("thead", {}, head));
    const body = el("tbody");
    for (const s of r2) {
      const tr = el("tr", {}, el("th", { text: P.name[s], title: podKey(s) }));
      for (const d of c2) {
        const id = podConn(s, d);
        const x = exceptionAt(s, d);
        const td = el("td", { "data-s": s, "data-d": d });
        let g = glyph(id);
        td.className = x && x.kind.name === "loopback" ? "self" : id === 0 ? "none" : L7.has(id) ? "l7" : id === ALL ? "all" : "some";
        let tip = podKey(s) + " → " + podKey(d) + ": " + connText(id) + (x ? " (" + x.kind.ingress.join("; ") + ")" : "");
        const ch = CHANGES.get(podKey(s) + "\t" + podKey(d));
        if (ch) {
          g = markGlyph[ch[0]]; td.classList.add(markClass[ch[0]]);
          tip += "\nchange: " + (ch[3] || "denied") + " → " + (ch[4] || "denied");
        }
        td.textContent = g;
        td.title = tip;
        tr.append(td);
      }
      body.append(tr);
    }
    table.append(body);
    table.addEventListener("click", (ev) => {
      const td = ev.target.closest("td");
      if (!td || td.dataset.s === undefined) return;
      table.querySelectorAll("td.sel").forEach((x) => x.classList.remove("sel"));
      td.classList.add("sel");
      explain(+td.dataset.s, +td.dataset.d, $("pm-explain"));
    });
    box.append(el("div", { class: "scroll" }, table));
    box.append(el("p", { class: "legend" },
      el("span", {}, el("span", { class: "sw", text: "." }), " every port"),
      el("span", {}, el("span", { class: "sw", text: "~" }), " some ports"),
      el("span", {}, el("span", { class: "sw", text: "X" }), " denied"),
      L7.size ? el("span", {}, el("span", { class: "sw", text: "f" }), " through an L7 filter") : null,
      D.diff ? el("span", { text: "+ gained, − lost, ± changed" }) : null,
      el("span", { class: "muted", text: "click a cell to explain it" })));
    box.append(el("div", { id: "pm-explain" }));
    box.scrollIntoView({ block: "start" });
  }

  // ------------------------------------------------------------------ explain
  function explain(s, d, box) {
    box.textContent = "";
    const src = podKey(s), dst = podKey(d);
    box.append(el("h3", { text: "Explain " + src + " → " + dst }));
    let text;
    if (D.explain && !exceptionAt(s, d)) {
      const cs = P.cls[s], cd = P.cls[d];
      const k = D.explain.pairs[cs * C + cd];
      const rs = D.explain.rep[cs], rd = cs === cd ? D.explain.second[cd] : D.explain.rep[cd];
      text = k >= 0 ? D.explain.texts[k] : "";
      if (rs !== s || rd !== d) {
        text = "(reasons computed for " + podKey(rs) + " => " + podKey(rd) + ": the same equivalence classes, so the same verdict and rules)\n" + text;
      }
      if (k < 0 || exceptionAt(rs, rd)) text = structuredExplain(s, d);  // the representatives' pair is an exception
    } else {
      text = structuredExplain(s, d);
    }
    const ch = CHANGES.get(src + "\t" + dst);
    if (ch) text += "\n\nchange in this diff: " + (ch[3] || "denied") + " → " + (ch[4] || "denied");
    box.append(el("pre", { class: "explain", text }));
    box.append(el("p", { class: "muted" }, "The same from the command line: ", el("code", { text: "netpol explain " + src + " " + dst + " " + D.sources.join(" ") })));
  }
  // The verdict and each side's reasons as embedded (the engine's words), one line per side.
  function structuredExplain(s, d) {
    const src = podKey(s), dst = podKey(d), id = podConn(s, d);
    const out = [(id ? "ALLOWED  " : "DENIED   ") + src + " => " + dst + (id ? " : " + D.conns[id] : "")];
    const words = pairWords(s, d);
    out.push("  egress (" + src + "): " + words.egress.join("; "));
    out.push("  ingress (" + dst + "): " + words.ingress.join("; "));
    if (!exceptionAt(s, d)) {
      out.push("  (the report embeds each side's deciding rules; the command below also names each rule's peers and the nearest miss)");
    }
    return out.join("\n");
  }

  // ------------------------------------------------------------------ pods: search and reach lists
  const searchKeys = [];
  for (let i = 0; i < NP; i++) searchKeys.push((podKey(i) + " " + D.wl[P.wl[i]] + " " + P.ip[i]).toLowerCase());
  function search(q) {
    const res = $("pod-results");
    res.textContent = "";
    q = q.trim().toLowerCase();
    if (!q) return;
    const terms = q.split(/\s+/);
    let n = 0;
    for (let i = 0; i < NP && n < 60; i++) {
      if (terms.every((t) => searchKeys[i].includes(t))) {
        res.append(el("button", MAYBE_WRONG.has(i) ? { class: "pod maybe-wrong", "data-pod": i, text: podKey(i), title: "a policy netpol does not evaluate may apply to this pod" } : { class: "pod", "data-pod": i, text: podKey(i) }));
        n++;
      }
    }
    if (!n) res.append(el("span", { class: "muted", text: "no running pod matches " + q }));
  }
  function reachList(p, inbound) {
    const groups = new Map();
    for (let o = 0; o < NP; o++) {
      const s = inbound ? o : p, d = inbound ? p : o;
      const x = exceptionAt(s, d);
      if (x && x.kind.name === "loopback") continue;  // the pod itself, as the engine lists it: not in its own lists
      const id = podConn(s, d);
      if (!id) continue;
      const k = P.wl[o] + ":" + P.cls[o] + ":" + id + ":" + (x ? x.kind.name : "");
      if (!groups.has(k)) groups.set(k, { wl: P.wl[o], id, pods: [] });
      groups.get(k).pods.push(o);
    }
    const items = [];
    for (const g of groups.values()) {
      const o = g.pods[0];
      const words = inbound ? pairWords(o, p) : pairWords(p, o);  // the same for every pod of the group
      const who = g.pods.length <= 4 ? g.pods.map(podKey).join(", ") : D.wl[g.wl] + " (" + g.pods.length + " pods)";
      items.push([who, D.conns[g.id], "egress: " + words.egress.join("; ") + " · ingress: " + words.ingress.join("; "), o]);
    }
    items.sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));  // pods by name, then ranges in address order
    for (let a = 0; a < E; a++) {
      const id = inbound ? EIN[a * C + P.cls[p]] : EOUT[P.cls[p] * E + a];
      if (!id) continue;
      const sc = inbound ? null : P.cls[p], dc = inbound ? P.cls[p] : null;
      const rules = "egress: " + sideWords("egress", sc, dc, a).join("; ") + " · ingress: " + sideWords("ingress", sc, dc, a).join("; ");
      items.push([D.atoms[a], D.conns[id], rules, -1]);
    }
    return items;
  }
  function showPod(p) {
    const box = $("pod-detail");
    box.textContent = "";
    document.querySelectorAll("button.pod.sel").forEach((b) => b.classList.remove("sel"));
    const node = D.nodes[P.node[p]];
    box.append(el("h3", { id: "pod-title", text: podKey(p) }),
      el("p", { class: "muted", text: D.wl[P.wl[p]] + " · node " + (node || "not placed") + " · IP " + (P.ip[p] || "none") + (isHost[p] ? " · hostNetwork" : "") }));
    const skipped = MAYBE_WRONG.get(p);
    if (skipped) box.append(el("p", { class: "warn", id: "pod-maybe-wrong", text: "⚠ " + skipped.join(", ") + (skipped.length > 1 ? " are policies" : " is a policy") + " netpol does not evaluate that may apply to this pod: the answers below may be wrong." }));
    const grid = el("div", { class: "reach" });
    for (const inbound of [true, false]) {
      const items = reachList(p, inbound);
      const ul = el("ul", { id: inbound ? "reach-in" : "reach-out" });
      for (const [who, conn, rules, other] of items.slice(0, 400)) {
        const li = el("li", {}, el("b", { text: who }), " : ", el("span", { class: "mono", text: conn }), el("div", { class: "rules", text: rules }));
        if (other >= 0) {
          const btn = el("button", { class: "link", text: "explain" });
          btn.addEventListener("click", () => { inbound ? explainPods(other, p) : explainPods(p, other); });
          li.append(btn);
        }
        ul.append(li);
      }
      if (items.length > 400) ul.append(el("li", { class: "muted", text: "… and " + (items.length - 400) + " more" }));
      if (!items.length) ul.append(el("li", { class: "muted", text: inbound ? "nothing can reach this pod" : "this pod reaches nothing" }));
      grid.append(el("div", {}, el("h3", { text: inbound ? "Can reach this pod (" + items.length + ")" : "This pod can reach (" + items.length + ")" }), ul));
    }
    box.append(grid, el("div", { id: "pod-explain" }));
  }
  function explainPods(s, d) {
    const holder = $("pod-explain");
    explain(s, d, holder);
    holder.scrollIntoView({ block: "nearest" });
  }

  // ------------------------------------------------------------------ findings and diff
  // Long object lists (a namespace's unisolated pods) fold after a few names.
  function objectList(objects) {
    if (objects.length <= 6) return objects.join("\n");
    const more = el("details", {}, el("summary", { text: "… and " + (objects.length - 5) + " more" }), objects.slice(5).join("\n"));
    return el("span", {}, objects.slice(0, 5).join("\n") + "\n", more);
  }
  function findings() {
    const tb = $("findings").querySelector("tbody");
    for (const f of D.findings) {
      tb.append(el("tr", {},
        el("td", {}, el("span", { class: "sev " + f.severity, text: SEVG[f.severity] + " " + f.severity })),
        el("td", { class: "mono", text: f.id + " " + f.name }), el("td", { text: f.namespace || "—" }),
        el("td", { text: f.message }), el("td", { class: "mono" }, objectList(f.objects)),
        el("td", { text: f.fix + (f.file ? "\n(" + f.file + ")" : "") })));
    }
    if (!D.findings.length) tb.append(el("tr", {}, el("td", { colspan: 6, text: "no findings" })));
    for (const n of D.notes) $("findings-notes").append(el("li", { text: n }));
  }
  // The doors (netpol exposure): one row per path; allowed and restricted paths let the outside in.
  const VERDICT = { allowed: "sev high", restricted: "sev medium", blocked: "sev low", "not-routed": "sev info" };
  function hopText(h) {
    let state = h.allowed ? "allowed" : "blocked";
    if (h.allowed && h.admitted.length) state += " from " + h.admitted.join(", ") + (h.refused.length ? "; refused from " + h.refused.join(", ") : "");
    else if (!h.allowed && h.refused.length) state += " from " + h.refused.join(", ");
    const own = h.src === "internet" || h.src === "nodes" ? [] : ["egress: " + h.egress_rules.join("; ")];
    return [h.src + " => " + h.dst + " : " + h.port + " " + state, ...own, "ingress: " + h.ingress_rules.join("; ")].join("\n");
  }
  function doors() {
    const tb = $("doors-table").querySelector("tbody");
    for (const p of D.doors) {
      const d = p.door;
      const door = (d.object.startsWith("Service ") ? d.kind + " " + d.object.slice(8) : d.object) + " (" + d.entry + ")";
      const service = p.service ? p.service + (p.service_port ? ":" + p.service_port : "") : "—";
      const hops = p.problem ? "not routed: " + p.problem : p.hops.map(hopText).join("\n") + (p.source ? "\nsource: " + p.source : "");
      tb.append(el("tr", {},
        el("td", {}, el("span", { class: VERDICT[p.verdict], text: p.verdict })),
        el("td", { class: "mono", text: door }), el("td", { class: "mono", text: p.proxy || "—" }),
        el("td", { class: "mono", text: service }),
        el("td", { class: "mono", text: p.pod ? p.pod + (p.target ? " : " + p.target : "") : "—" }),
        el("td", { class: "mono", text: hops })));
    }
    if (!D.doors.length) tb.append(el("tr", {}, el("td", { colspan: 6, text: "no door: nothing leads into the cluster from outside" })));
  }
  function diffSection() {
    if (!D.diff) return;
    const sec = $("diff");
    sec.hidden = false;
    const k = D.diff.kinds;
    sec.append(el("p", { class: "diffbox", text: "Compared with " + D.diff.old.join(" ") + ": " + (k.added || 0) + " connections gained (+), " + (k.removed || 0) + " lost (−), " + (k.changed || 0) + " changed (±); pods added: " + (D.diff.pods_added.join(", ") || "none") + "; pods removed: " + (D.diff.pods_removed.join(", ") || "none") + "." }));
    const tb = el("tbody");
    for (const c of D.diff.changes.slice(0, 2000)) {
      tb.append(el("tr", {}, el("td", { class: "sev", text: markGlyph[c[0]] + " " + { a: "gained", r: "lost", c: "changed" }[c[0]] }),
        el("td", { class: "mono", text: c[1] }), el("td", { class: "mono", text: c[2] }),
        el("td", { class: "mono", text: c[3] || "—" }), el("td", { class: "mono", text: c[4] || "—" })));
    }
    if (!D.diff.changes.length) tb.append(el("tr", {}, el("td", { colspan: 5, text: "no difference in reachability" })));
    const t = el("table", { class: "list", id: "diff-table" }, el("thead", {}, el("tr", {}, ...["change", "from", "to", "before", "after"].map((h) => el("th", { text: h })))), tb);
    sec.append(el("div", { class: "scroll" }, t));
    if (D.diff.total > D.diff.changes.length) sec.append(el("p", { class: "muted", text: "(" + D.diff.total + " changes; the first " + D.diff.changes.length + " are embedded)" }));
  }

  async function main() {
    const t0 = performance.now();
    const timings = {};
    const lap = (name) => { timings[name] = Math.round(performance.now() - t0); };
    [CM, EIN, EOUT, EXC, SIDE.egress.og, SIDE.egress.pg, SIDE.egress.tab, SIDE.ingress.og, SIDE.ingress.pg, SIDE.ingress.tab] =
      await Promise.all(["cm", "ein", "eout", "exc", "egog", "egpg", "egtab", "inog", "inpg", "intab"].map(blob));
    readExceptions();
    lap("decoded");
    summary();
    lap("summary");
    heatmap();
    lap("heatmap");
    doors();
    findings();
    diffSection();
    lap("findings");
    window.reportTimings = timings;
    const g = D.graph;
    $("graph-note").textContent = g.nodes + " " + g.unit + "s, " + g.edges + (g.merged ? " namespace-to-namespace arrows (connections merged per namespace pair; hover for counts)" : " arrows (allowed connections; hover for the pair)") + "." + (g.dropped ? " The " + g.dropped + " namespace pairs with the fewest connections are left out of the drawing (the heatmap shows every pair)." : "");
    const input = $("pod-search");
    input.addEventListener("input", () => search(input.value));
    $("pod-results").addEventListener("click", (ev) => {
      const b = ev.target.closest("button.pod");
      if (b) { showPod(+b.dataset.pod); b.classList.add("sel"); }
    });
    $("loading").remove();
    document.body.dataset.ready = "1";
    requestAnimationFrame(() => requestAnimationFrame(() => { timings.painted = Math.round(performance.now() - t0); timings.start = Math.round(t0); }));
  }
  main().catch((e) => { $("loading").textContent = "could not read the embedded data: " + e; throw e; });
})();
