"""Issue 22's "done when" on Cilium's own getting-started demo (tests/data/real-apps/cilium-starwars, a copy of
cilium/cilium examples/minikube, Apache-2.0; SOURCES.md names the files and commits).

docs.cilium.io "Getting Started with the Star Wars Demo": the Death Star (`org: empire, class: deathstar`,
two replicas) is reached by `tiefighter` (`org: empire`) and, under the policies, not by `xwing`
(`org: alliance`):
- l3-l4 (sw_l3_l4_policy.yaml): ingress to the Death Star from `org: empire` on TCP 80 only. Its pods are
  in default deny for ingress (the policy has an ingress section); tiefighter and the other Death Star
  replica (both `org: empire`) are admitted on TCP 80, xwing on nothing; other pods are not selected.
- l7 (sw_l3_l4_l7_policy.yaml): the same, with an HTTP rule (POST /v1/request-landing): TCP 80 through
  the HTTP filter.
- deny (sw_deny_policy.yaml): `ingress: [{}]` on `org: empire`: those pods are in default deny and admit
  no one; xwing (not selected) is still reachable.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from netpol.manifests import load_paths
from netpol.pipeline import prepare
from tests.conftest import REAL_APPS
from tests.helpers import run_cli
from tests.netpol.cilium_cases import check_engine, render, tiered
from tests.netpol.cilium_reference import CiliumReference

STARWARS = REAL_APPS / "cilium-starwars"
ALL = "All Connections"
NONE = "No Connections"

Conn = Callable[[str, str], str]


def expected(scenario: str, src_labels: dict[str, str], dst_labels: dict[str, str]) -> str:
    """The demo's answer for a pair, by the pods' labels (module docstring)."""
    dst_empire = dst_labels.get("org") == "empire"
    src_empire = src_labels.get("org") == "empire"
    if scenario in ("l3-l4", "l7"):
        if dst_labels.get("class") == "deathstar":
            return "TCP 80" if src_empire else NONE
        return ALL
    assert scenario == "deny"
    return NONE if dst_empire else ALL


def assert_demo(scenario: str, pods: dict[str, dict[str, str]], conn: Conn) -> None:
    assert sum(1 for lab in pods.values() if lab.get("class") == "deathstar") == 2
    for s, s_labels in pods.items():
        for d, d_labels in pods.items():
            if s != d:
                assert conn(s, d) == expected(scenario, s_labels, d_labels), f"{scenario}: {s} => {d}"


def raw_objects(folder: Path) -> list[dict]:
    """The demo's manifests for the reference: the Deployment's two replicas written out as Pods, every pod
    given an address (the reference reads `status.podIP`, it expands nothing)."""
    out: list[dict] = []
    for f in sorted(folder.glob("*.yaml")):
        for doc in yaml.safe_load_all(f.read_text()):
            if doc is None:
                continue
            if doc["kind"] == "Deployment":
                tmpl = doc["spec"]["template"]
                for i in range(doc["spec"]["replicas"]):
                    meta = {
                        "name": f"{doc['metadata']['name']}-{i}",
                        "namespace": "default",
                        "labels": tmpl["metadata"]["labels"],
                    }
                    out.append(
                        {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": tmpl["spec"], "status": {}}
                    )
            else:
                out.append(doc)
    pods = [o for o in out if o["kind"] == "Pod"]
    for i, p in enumerate(pods):
        p["status"] = {"podIP": f"10.0.0.{i + 1}"}
    return out


@pytest.mark.parametrize("scenario", ["l3-l4", "l7", "deny"])
def test_demo_against_the_reference(real_apps: Path, scenario: str) -> None:  # noqa: ARG001
    ref = CiliumReference(raw_objects(STARWARS / scenario))
    pods = {k: dict(p.labels) for k, p in ref.pods.items()}
    assert_demo(scenario, pods, lambda s, d: render(ref.connection(s, d)[0]))
    if scenario == "l7":
        for s, lab in pods.items():
            for d, dlab in pods.items():
                if s != d and dlab.get("class") == "deathstar" and lab.get("org") == "empire":
                    assert render(ref.connection(s, d)[1]) == "TCP 80"


@pytest.mark.parametrize("scenario", ["l3-l4", "l7", "deny"])
def test_demo_through_the_compiled_tiers(real_apps: Path, scenario: str) -> None:  # noqa: ARG001
    cluster, _ = prepare(load_paths([str(STARWARS / scenario)]))
    objs = raw_objects(STARWARS / scenario)
    t = tiered(objs)
    pods = {p.key: dict(p.labels) for p in t.universe.pods}
    assert_demo(scenario, pods, lambda s, d: t.connection(s, d).render())
    filters = {t.l7(s, d).pop() for s in pods for d in pods if s != d and t.l7(s, d)}
    assert filters == ({"HTTP POST /v1/request-landing"} if scenario == "l7" else set())
    assert len(cluster.cilium_policies) == 1


@pytest.mark.parametrize("scenario", ["l3-l4", "l7", "deny"])
def test_demo_through_the_pipeline(real_apps: Path, scenario: str) -> None:  # noqa: ARG001
    objs = raw_objects(STARWARS / scenario)
    ref = CiliumReference(objs)
    pairs = {(s, d): render(ref.connection(s, d)[0]) for s in ref.pods for d in ref.pods if s != d}
    l7 = {(s, d): render(ref.connection(s, d)[1]) for s in ref.pods for d in ref.pods if s != d}
    if scenario == "l7":  # the empire's TCP 80 into the Death Star goes through the HTTP filter
        assert sum(v == "TCP 80" for v in l7.values()) == 4
    check_engine(objs, pairs, l7=l7)


# ------------------------------------------------------------------------------------------ the CLI, as users run it


def _cli_connections(*args: str) -> dict[tuple[str, str], str]:
    out = run_cli("matrix", *args, "-o", "json", "--no-external")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    return {(c["src"], c["dst"]): c["text"] for c in data["connections"]}


def _labels_by_pod(*args: str) -> dict[str, dict[str, str]]:
    out = run_cli("matrix", *args, "-o", "json", "--no-external")
    return {p["name"]: p["labels"] for p in json.loads(out.stdout)["pods"]}


@pytest.mark.parametrize("scenario", ["l3-l4", "l7", "deny"])
def test_demo_through_the_cli(real_apps: Path, scenario: str) -> None:  # noqa: ARG001
    folder = str(STARWARS / scenario)
    conns = _cli_connections(folder)
    pods = _labels_by_pod(folder)
    assert_demo(scenario, pods, lambda s, d: _text(conns.get((s, d))))


def _text(conn: str | None) -> str:
    """A pair the JSON does not list has no connection."""
    return NONE if conn is None else conn


def test_explain_names_the_http_filter(real_apps: Path) -> None:  # noqa: ARG001
    out = run_cli("explain", "default/tiefighter", "deploy/default/deathstar", str(STARWARS / "l7"), "--port", "80")
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("ALLOWED  default/tiefighter => default/deathstar-") == 2
    assert "only through the layer-7 filter HTTP POST /v1/request-landing" in out.stdout
    denied = run_cli("explain", "default/xwing", "deploy/default/deathstar", str(STARWARS / "l7"), "--port", "80")
    assert denied.returncode == 1
    assert "fromEndpoints org=empire does not match default/xwing" in denied.stdout


def test_the_enforcement_mode_option(real_apps: Path) -> None:  # noqa: ARG001
    """intro.rst "Policy Enforcement Modes": `never` allows the X-wing into the Death Star; `always` isolates
    every pod both ways, and the demo allows no egress at all, so no pod reaches another."""
    folder = str(STARWARS / "l3-l4")
    never = _cli_connections(folder, "--cilium-enforcement", "never")
    pods = _labels_by_pod(folder)
    xwing = next(p for p, lab in pods.items() if lab["class"] == "xwing")
    deathstar = next(p for p, lab in pods.items() if lab["class"] == "deathstar")
    assert _text(never.get((xwing, deathstar))) == ALL
    # always: every pod is isolated both ways and no rule allows egress, so no pod reaches another
    assert _cli_connections(folder, "--cilium-enforcement", "always") == {}


def test_diff_from_the_l3_l4_policy_to_the_deny_policy(real_apps: Path) -> None:  # noqa: ARG001
    """`netpol diff` reads Cilium's policies through the matrix: replacing sw_l3_l4_policy.yaml by
    sw_deny_policy.yaml takes away every connection into an `org: empire` pod (TCP 80 into the Death Star
    from the empire; everything into the TIE fighter, the world's included) and adds none."""
    out = run_cli("diff", str(STARWARS / "l3-l4"), str(STARWARS / "deny"))
    assert out.returncode in (0, 1), out.stderr
    lines = [line for line in out.stdout.splitlines() if line.strip()]
    assert lines and all(line.startswith("- ") for line in lines), out.stdout
    removed = [line[2:].split(" : ")[0].split(" => ") for line in lines]
    assert all(dst.startswith(("default/deathstar-", "default/tiefighter")) for _, dst in removed)
    assert ["default/xwing", "default/tiefighter"] in removed
    assert sum(1 for _, dst in removed if dst.startswith("default/deathstar-")) == 4
