"""Issue 22 item 4: a connection Cilium allows only through a layer-7 filter is marked in every output, never
printed as a plain allow. Run through the real CLI, as users run it.

docs.cilium.io security/policy/layer7.rst ("Layer 7 Policies"): layer-7 rules are embedded in layer-4 rules; the
connection is allowed at layer 4 and the proxy passes only the requests the rules list; "If a layer 4 rule is
specified in the policy, and a similar layer 4 rule with layer 7 rules is also specified, then the layer 7
portions of the latter rule will have no effect"; rules of the same type on the same port and peers are
combined. The two clusters:

- Cilium's Star Wars demo, `l7` (tests/data/real-apps/cilium-starwars/l7, sw_l3_l4_l7_policy.yaml): ingress to
  `org: empire, class: deathstar` from `org: empire` on TCP 80 with the HTTP rule POST /v1/request-landing. The
  Death Star pods are isolated for ingress; TIE fighter and the other Death Star replica (both `org: empire`)
  get TCP 80 — the whole connection — through that filter; the X-wing gets nothing; no other pod is selected.
- tests/data/cilium-l7/shop.yaml (ours; its comments give each rule): api's ingress filters TCP 80 with
  GET /health for client, admin and viewer, allows TCP 80 plainly to admin, TCP 8080 plainly to client and
  viewer, TCP 80 from the world through GET /public, and a second policy adds POST /submit on TCP 80 for client;
  client's egress is DNS through a DNS rule (UDP 53 to kube-dns), the api on every port, and 203.0.113.0/24 on
  TCP 80 through GET /catalog.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
import yaml

from tests.conftest import REAL_APPS
from tests.helpers import grid_cells, run_cli

ROOT = Path(__file__).resolve().parents[2]
DEMO = REAL_APPS / "cilium-starwars"
SHOP = ROOT / "tests" / "data" / "cilium-l7" / "shop.yaml"
LANDING = "HTTP POST /v1/request-landing"
WORLD = ("0.0.0.0-203.0.112.255", "203.0.113.0-203.0.113.255", "203.0.114.0-255.255.255.255")


def _ok(*args: str) -> str:
    out = run_cli(*args)
    assert out.returncode == 0, out.stderr
    return out.stdout


def _lines(*args: str) -> dict[tuple[str, str], str]:
    """`src => dst : conn` lines by pair."""
    out = {}
    for line in _ok(*args).splitlines():
        pair, _, conn = line.partition(" : ")
        src, _, dst = pair.partition(" => ")
        out[(src, dst)] = conn
    return out


def _demo_pods() -> dict[str, dict[str, str]]:
    doc = json.loads(_ok("matrix", str(DEMO / "l7"), "-o", "json", "--no-external", "-q"))
    return {p["name"]: p["labels"] for p in doc["pods"]}


def _through_landing(src: dict[str, str], dst: dict[str, str]) -> bool:
    """The demo's filtered pairs: an `org: empire` source into a Death Star pod (module docstring)."""
    return src.get("org") == "empire" and dst.get("class") == "deathstar"


# ------------------------------------------------------------------------------------------ matrix, the demo


def test_matrix_lines_name_the_demo_http_filter() -> None:
    """txt: the pairs through the filter read `TCP 80 (L7 filter: HTTP POST /v1/request-landing)`; every other
    line is what the layer-3/4 policy gives, unmarked (its own run has no mark at all)."""
    pods = _demo_pods()
    lines = _lines("matrix", str(DEMO / "l7"), "--no-external", "-q")
    for s, s_labels in pods.items():
        for d, d_labels in pods.items():
            if s == d:
                continue
            if _through_landing(s_labels, d_labels):
                assert lines[(s, d)] == f"TCP 80 (L7 filter: {LANDING})"
            elif d_labels.get("class") == "deathstar":
                assert (s, d) not in lines  # the X-wing
            else:
                assert lines[(s, d)] == "All Connections"
    assert sum("(L7 filter" in c for c in lines.values()) == 4
    assert "L7" not in _ok("matrix", str(DEMO / "l3-l4"), "--no-external", "-q")


def test_matrix_json_has_an_l7_field_on_filtered_connections_only() -> None:
    pods = _demo_pods()
    doc = json.loads(_ok("matrix", str(DEMO / "l7"), "-o", "json", "-q"))
    tcp80 = [{"protocol": "TCP", "ports": [[80, 80]]}]
    seen = 0
    for c in doc["connections"]:
        src, dst = pods.get(c["src"]), pods.get(c["dst"])
        if src is not None and dst is not None and _through_landing(src, dst):
            seen += 1
            assert c["text"] == "TCP 80"  # the ports, as for any connection; the filter is its own field
            assert c["l7"] == {
                "conn": tcp80,
                "text": "TCP 80",
                "filters": [{"filter": LANDING, "conn": tcp80, "text": "TCP 80"}],
            }
        else:
            assert "l7" not in c, c
    assert seen == 4


def test_csv_and_md_carry_the_mark_in_the_conn_column() -> None:
    folder = str(DEMO / "l7")
    rows = list(csv.reader(io.StringIO(_ok("matrix", folder, "-o", "csv", "--no-external", "-q"))))
    assert rows[0] == ["src", "dst", "conn"]
    marked = [r for r in rows[1:] if r[2] == f"TCP 80 (L7 filter: {LANDING})"]
    assert len(marked) == 4 and all(r[1].startswith("default/deathstar-") for r in marked)
    md = _ok("matrix", folder, "-o", "md", "--no-external", "-q").splitlines()
    assert sum(line.endswith(f"| TCP 80 (L7 filter: {LANDING}) |") for line in md) == 4


def test_grid_marks_filtered_pairs_f_and_says_so_in_its_legend() -> None:
    """The grid's legend gains `f through an L7 filter` only when some policy has a layer-7 rule; the cells of
    the four filtered pairs read `f`, the diagonal stays `.` (a pod reaching itself: no policy decides)."""
    pods = _demo_pods()
    text = _ok("matrix", str(DEMO / "l7"), "-o", "grid", "--no-external", "-q")
    assert text.splitlines()[0] == "# . every port   ~ some ports   X denied   f through an L7 filter"
    for (s, d), glyph in grid_cells(text).items():
        want = "." if s == d else "f" if _through_landing(pods[s], pods[d]) else None
        if want is not None:
            assert glyph == want, (s, d)
        else:
            assert glyph in ".X", (s, d)
    plain = _ok("matrix", str(DEMO / "l3-l4"), "-o", "grid", "--no-external", "-q")
    assert plain.splitlines()[0] == "# . every port   ~ some ports   X denied"
    assert "f" not in set(grid_cells(plain).values())


def test_by_workload_marks_the_workload_pair() -> None:
    """Replicas grouped: the TIE fighter into the Death Star Deployment, and the Death Star into itself (its
    two replicas reach each other through the filter)."""
    lines = _lines("matrix", str(DEMO / "l7"), "--no-external", "--by", "workload", "-q")
    assert lines[("default/tiefighter[Pod]", "default/deathstar[Deployment]")] == f"TCP 80 (L7 filter: {LANDING})"
    assert lines[("default/deathstar[Deployment]", "default/deathstar[Deployment]")] == (
        f"TCP 80 (L7 filter: {LANDING})"
    )
    assert ("default/xwing[Pod]", "default/deathstar[Deployment]") not in lines


# ------------------------------------------------------------------------------------------ the hand-made case


def test_a_plain_allow_of_the_same_port_wins_over_the_filter() -> None:
    """layer7.rst: beside a rule allowing TCP 80 without a filter, the layer-7 part of a rule for the same
    port and peer "will have no effect": admin reaches the api on TCP 80, unmarked."""
    assert _lines("matrix", str(SHOP), "-q")[("shop/admin", "shop/api")] == "TCP 80"


def test_only_the_filtered_ports_are_named() -> None:
    """viewer: TCP 80 through GET /health, TCP 8080 plainly (rules #1 and #3 of api-ingress)."""
    line = _lines("matrix", str(SHOP), "-q")[("shop/viewer", "shop/api")]
    assert line == "TCP 80,8080 (L7 filter on TCP 80: HTTP GET /health)"


def test_several_filters_are_counted_in_lines_and_listed_in_json() -> None:
    """client: TCP 80 through GET /health (api-ingress #1) and POST /submit (api-submit #1), combined by the proxy;
    TCP 8080 plainly. Its own egress allows the api on every port without a filter."""
    assert _lines("matrix", str(SHOP), "-q")[("shop/client", "shop/api")] == "TCP 80,8080 (2 L7 filters on TCP 80)"
    doc = json.loads(_ok("matrix", str(SHOP), "-o", "json", "-q"))
    (c,) = [c for c in doc["connections"] if (c["src"], c["dst"]) == ("shop/client", "shop/api")]
    assert c["text"] == "TCP 80,8080"
    assert c["l7"]["text"] == "TCP 80"
    assert [(f["filter"], f["text"]) for f in c["l7"]["filters"]] == [
        ("HTTP GET /health", "TCP 80"),
        ("HTTP POST /submit", "TCP 80"),
    ]


def test_egress_filters_and_external_ends_are_marked() -> None:
    """client's egress: UDP 53 to kube-dns through the DNS rule (Cilium's DNS proxy), 203.0.113.0/24 on TCP 80
    through GET /catalog; the world into the api on TCP 80 through GET /public (fromEntities world holds every
    address outside the cluster: each external range the input cuts)."""
    lines = _lines("matrix", str(SHOP), "-q")
    assert lines[("shop/client", "kube-system/coredns")] == "UDP 53 (L7 filter: DNS matchPattern *)"
    assert lines[("shop/client", "203.0.113.0-203.0.113.255")] == "TCP 80 (L7 filter: HTTP GET /catalog)"
    for rng in WORLD:
        assert lines[(rng, "shop/api")] == "TCP 80 (L7 filter: HTTP GET /public)"
    # nothing the policies leave alone is marked: the api's egress, kube-dns's, the world into anyone else
    assert all("L7" not in conn for (src, dst), conn in lines.items() if dst != "shop/api" and src != "shop/client")


# ------------------------------------------------------------------------------------------ --port


def test_a_probed_port_through_a_filter_is_marked_in_every_probe_format() -> None:
    pods = _demo_pods()
    folder = str(DEMO / "l7")
    lines = _lines("matrix", folder, "--port", "80", "--no-external", "-q")
    for (s, d), conn in lines.items():
        want = f"TCP 80 (L7 filter: {LANDING})" if _through_landing(pods[s], pods[d]) else "TCP 80"
        assert conn == want, (s, d)
    doc = json.loads(_ok("matrix", folder, "--port", "80", "-o", "json", "--no-external", "-q"))
    assert sorted((x["src"], x["dst"]) for x in doc["l7"]) == sorted(
        (s, d) for s in pods for d in pods if s != d and _through_landing(pods[s], pods[d])
    )
    assert all(x["filters"] == [LANDING] for x in doc["l7"])
    rows = list(csv.reader(io.StringIO(_ok("matrix", folder, "--port", "80", "-o", "csv", "--no-external", "-q"))))
    assert rows[0] == ["src", "dst", "l7"]
    assert sum(r[2] == LANDING for r in rows[1:]) == 4 and all(r[2] in ("", LANDING) for r in rows[1:])
    grid = grid_cells(_ok("matrix", folder, "--port", "80", "-o", "grid", "--no-external", "-q"))
    assert sorted(k for k, g in grid.items() if g == "f") == sorted(
        (s, d) for s in pods for d in pods if s != d and _through_landing(pods[s], pods[d])
    )
    # a port no filter touches: no mark, and the probe document has no `l7` list
    assert "L7" not in _ok("matrix", folder, "--port", "81", "--no-external", "-q")
    assert "l7" not in json.loads(_ok("matrix", folder, "--port", "8080", "-o", "json", "--no-external", "-q"))


def test_a_range_probe_keeps_the_mark_of_its_filtered_part() -> None:
    """--port 8000-8090 holds TCP 8080 only: viewer's part of it is plain; --port 79-81 holds the filtered 80."""
    lines = _lines("matrix", str(SHOP), "--port", "8000-8090", "-q")
    assert lines[("shop/viewer", "shop/api")] == "TCP 8080"
    lines = _lines("matrix", str(SHOP), "--port", "79-81", "-q")
    assert lines[("shop/viewer", "shop/api")] == "TCP 80 (L7 filter: HTTP GET /health)"
    assert lines[("shop/admin", "shop/api")] == "TCP 80"


# ------------------------------------------------------------------------------------------ diff


def test_diff_a_filter_that_appears_is_a_change() -> None:
    """sw_l3_l4_policy → sw_l3_l4_l7_policy: the same ports, now through the HTTP filter — four changes (the
    filtered pairs), nothing added or removed."""
    out = run_cli("diff", str(DEMO / "l3-l4"), str(DEMO / "l7"), "-q", "--exit-code")
    assert out.returncode == 1, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 4
    for line in lines:
        assert line.startswith("~ ") and line.endswith(f" : TCP 80 -> TCP 80 (L7 filter: {LANDING})"), line
    doc = json.loads(_ok("diff", str(DEMO / "l7"), str(DEMO / "l3-l4"), "-o", "json", "-q"))
    assert len(doc["connections"]) == 4
    for c in doc["connections"]:
        assert c["change"] == "changed" and c["old_text"] == c["new_text"] == "TCP 80"
        assert [f["filter"] for f in c["old_l7"]["filters"]] == [LANDING] and "new_l7" not in c


def test_diff_a_filter_taken_away_changes_the_mark(tmp_path: Path) -> None:
    """Without api-submit, client's TCP 80 goes through GET /health alone; nothing else changes."""
    docs = [d for d in yaml.safe_load_all(SHOP.read_text()) if d["metadata"]["name"] != "api-submit"]
    fewer = tmp_path / "shop.yaml"
    fewer.write_text(yaml.safe_dump_all(docs))
    out = run_cli("diff", str(SHOP), str(fewer), "-q", "--exit-code")
    assert out.returncode == 1, out.stderr
    assert out.stdout.splitlines() == [
        "~ shop/client => shop/api : TCP 80,8080 (2 L7 filters on TCP 80) -> "
        "TCP 80,8080 (L7 filter on TCP 80: HTTP GET /health)"
    ]


# ------------------------------------------------------------------------------------------ who-can-reach, explain


def test_who_can_reach_names_the_filter_on_the_rule_line() -> None:
    out = _ok("who-can-reach", "deploy/default/deathstar", str(DEMO / "l7"), "-q")
    rule = f"ingress: cnp default/rule1 ingress rule #1 (Allow) (TCP 80) through the L7 filter {LANDING}"
    lines = out.splitlines()
    heads = [k for k, line in enumerate(lines) if " => " in line]
    assert len(heads) == 4  # TIE fighter into both replicas, each replica into the other
    for k in heads:
        assert lines[k].endswith(f" : TCP 80 (L7 filter: {LANDING})")
        assert lines[k + 2].strip() == rule
    doc = json.loads(_ok("who-can-reach", "deploy/default/deathstar", str(DEMO / "l7"), "-o", "json", "-q"))
    assert all(c["l7"]["filters"][0]["filter"] == LANDING for c in doc["connections"])


def test_who_can_reach_says_when_a_filter_has_no_effect() -> None:
    """admin: api-ingress rule #1 holds it with GET /health, rule #2 allows TCP 80 plainly (layer7.rst: the
    filter then has no effect); viewer: rule #1's filter applies."""
    out = _ok("who-can-reach", "shop/api", str(SHOP), "-q").splitlines()
    admin = out[out.index("shop/admin => shop/api : TCP 80") + 2].strip()
    assert admin == (
        "ingress: cnp shop/api-ingress ingress rule #1 (Allow) (TCP 80) (its L7 filter HTTP GET /health has no "
        "effect: a rule allows the same port without one); cnp shop/api-ingress ingress rule #2 (Allow) (TCP 80)"
    )
    viewer = out[out.index("shop/viewer => shop/api : TCP 80,8080 (L7 filter on TCP 80: HTTP GET /health)") + 2]
    assert "ingress rule #1 (Allow) (TCP 80) through the L7 filter HTTP GET /health" in viewer


@pytest.mark.parametrize(
    ("src", "port", "head"),
    [
        ("shop/client", None, "ALLOWED  shop/client => shop/api : TCP 80,8080 (2 L7 filters on TCP 80)"),
        ("shop/viewer", "8080", "ALLOWED  shop/viewer => shop/api : TCP 8080"),
        ("shop/admin", None, "ALLOWED  shop/admin => shop/api : TCP 80"),
    ],
)
def test_explain_marks_its_verdict_line(src: str, port: str | None, head: str) -> None:
    args = ["--port", port] if port else []
    out = _ok("explain", src, "shop/api", str(SHOP), *args, "-q")
    assert out.splitlines()[0] == head
    if src == "shop/admin":
        assert "its layer-7 filter HTTP GET /health has no effect here" in out
