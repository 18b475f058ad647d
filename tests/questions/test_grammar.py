"""One endpoint grammar and one port grammar for every command (issue 13, items 1 and 3).

Each test pins a behaviour the issue's "Why" lists as broken, run the way a user runs it: the CLI as a
subprocess on the bundled seed lab (web/test, web/web1, web/web2, cyh/test on three nodes; web1 is
10.224.1.2 on worker31, whose spec.podCIDR is 10.224.1.0/24) or on a real app.
"""

from __future__ import annotations

import json

import pytest

from netpol.errors import UsageError
from netpol.targets import Probe, listing, parse_endpoint, parse_port, resolve_pod_name
from tests.conftest import REAL_APPS
from tests.helpers import run_cli

# ------------------------------------------------------------------------------------------ endpoints


def test_matrix_focus_takes_a_bare_pod_name_like_every_command() -> None:
    bare = run_cli("matrix", "--focus", "web1")
    full = run_cli("matrix", "--focus", "web/web1")
    assert bare.returncode == 0, bare.stderr
    assert bare.stdout == full.stdout and "web/test => web/web1 : TCP 80" in bare.stdout


def test_matrix_focus_takes_a_workload_and_the_label_form_the_output_prints(real_apps) -> None:
    app = str(real_apps / "online-boutique")
    by_ref = run_cli("matrix", app, "--focus", "deploy/default/redis-cart", "--direction", "ingress")
    by_label = run_cli("matrix", app, "--focus", "default/redis-cart[Deployment]", "--direction", "ingress")
    assert by_ref.returncode == 0, by_ref.stderr
    assert by_ref.stdout == by_label.stdout
    lines = by_ref.stdout.splitlines()
    assert lines and all(line.split(" => ")[1].startswith("default/redis-cart-") for line in lines)
    assert any(line.startswith("default/cartservice-") for line in lines)


def test_schedule_explain_takes_a_bare_pod_name() -> None:
    out = run_cli("schedule", "--explain", "web2")
    assert out.returncode == 0, out.stderr
    assert "web/web2" in out.stdout and "not found" not in out.stderr


def test_schedule_explain_of_an_unknown_pod_suggests_the_nearest() -> None:
    out = run_cli("schedule", "--explain", "web3")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "no pod named 'web3'; did you mean web/web2 or web/web1?" in out.stderr


def test_a_pods_own_ip_is_that_pod_and_the_answer_says_so() -> None:
    by_ip = run_cli("who-can-reach", "10.224.1.2")
    by_name = run_cli("who-can-reach", "web/web1")
    assert by_ip.returncode == 0, by_ip.stderr
    assert "note: 10.224.1.2 is the address of pod web/web1; answering for the pod" in by_ip.stdout
    assert by_ip.stdout.replace("note: 10.224.1.2 is the address of pod web/web1; answering for the pod\n", "") == (
        by_name.stdout
    )
    assert "0.0.0.0-255.255.255.255 =>" not in by_ip.stdout  # not answered for the whole world


def test_an_unheld_address_in_a_pod_range_is_said_to_be_no_pods_before_answering_as_external() -> None:
    out = run_cli("who-can-reach", "10.224.1.77", "-o", "json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["notes"][0] == (
        "no pod has the address 10.224.1.77 (inside node worker31.cyh.cloud's pod range 10.224.1.0/24); "
        "answering for it as an external address"
    )
    assert all(c["dst"] == "0.0.0.0-255.255.255.255" for c in doc["connections"])


def test_explain_by_pod_ip_names_the_pod() -> None:
    out = run_cli("explain", "10.224.1.3", "10.224.1.2", "--port", "80")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("ALLOWED  web/test => web/web1 : TCP 80")
    assert "10.224.1.3 is the address of pod web/test" in out.stderr


def test_explain_with_the_path_first_says_paths_come_last() -> None:
    out = run_cli("explain", "samples/seed-lab", "web/test", "web/web1")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "no such file or directory: web/web1; it looks like an endpoint (samples/seed-lab is a path)" in out.stderr
    assert "the endpoints come first, the cluster PATHs last: netpol explain SRC DST [PATH...]" in out.stderr


def test_a_path_given_as_the_endpoint_says_endpoints_come_first() -> None:
    out = run_cli("who-can-reach", "samples/seed-lab")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "hint: samples/seed-lab is a file or folder: the endpoints come first" in out.stderr


def test_matrix_given_an_endpoint_as_a_path_points_to_focus() -> None:
    out = run_cli("matrix", "web/web1")
    assert out.returncode == 2
    assert "it looks like an endpoint" in out.stderr and "--focus" in out.stderr


@pytest.fixture(scope="module")
def boutique_expectations(tmp_path_factory):  # noqa: ANN001, ANN201
    path = tmp_path_factory.mktemp("exp") / "exp.yaml"
    path.write_text(
        "expectations:\n"
        "  - {from: deploy/default/frontend, to: deploy/default/redis, expect: deny}\n"
        "  - {from: frontend, to: deploy/default/cartservice, expect: allow}\n"
    )
    return run_cli("check", str(REAL_APPS / "online-boutique"), "--expect", str(path), "-o", "json")


def test_check_with_an_unknown_deployment_says_it_does_not_exist_and_suggests_the_nearest(
    boutique_expectations,  # noqa: ANN001
) -> None:
    detail = json.loads(boutique_expectations.stdout)["results"][0]["detail"]
    assert "Deployment default/redis does not exist; did you mean deploy/default/redis-cart?" in detail
    assert "has no pods" not in detail
    assert detail.endswith(", … and 2 more)")  # the cut list of the namespace's Deployments says so


def test_a_bare_workload_name_suggests_the_workload_and_the_service(boutique_expectations) -> None:  # noqa: ANN001
    detail = json.loads(boutique_expectations.stdout)["results"][1]["detail"]
    assert "no pod named 'frontend'; did you mean deploy/default/frontend, svc/default/frontend" in detail


def test_ambiguous_bare_names_list_every_candidate_cut_with_a_count() -> None:
    keys = [f"ns{i}/web" for i in range(14)]
    with pytest.raises(UsageError, match=r"'web' is ambiguous: ns0/web, .*, … and 4 more; say which"):
        resolve_pod_name("web", keys)


def test_listing_says_how_many_were_left_out() -> None:
    assert listing(["a", "b", "c"], 2) == "a, b, … and 1 more"
    assert listing(["a", "b"], 2) == "a, b"


@pytest.mark.parametrize(
    ("text", "kind", "ns", "name"),
    [
        ("web/web1", "pod", "web", "web1"),
        ("pod/web/web1", "pod", "web", "web1"),
        ("web1", "bare", None, "web1"),
        ("deploy/web/front", "workload", "web", "front"),
        ("web/front[Deployment]", "workload", "web", "front"),
        ("web/test[Pod]", "pod", "web", "test"),
        ("svc/web/front", "service", "web", "front"),
        ("10.0.0.1", "address", None, ""),
        ("10.0.0.0/8", "address", None, ""),
        ("fd00::1", "address", None, ""),
    ],
)
def test_the_endpoint_grammar(text: str, kind: str, ns: str | None, name: str) -> None:
    ref = parse_endpoint(text)
    assert (ref.kind, ref.namespace, ref.name) == (kind, ns, name)


# ------------------------------------------------------------------------------------------ ports


@pytest.mark.parametrize(
    ("text", "probe"),
    [
        ("80", Probe("TCP", 80)),
        ("80/TCP", Probe("TCP", 80)),
        ("53/udp", Probe("UDP", 53)),
        ("8000-8080", Probe("TCP", 8000, 8080)),
        ("8000-8080/SCTP", Probe("SCTP", 8000, 8080)),
        ("http", Probe("TCP", 0, name="http")),
        ("dns/UDP", Probe("UDP", 0, name="dns")),
    ],
)
def test_the_port_grammar(text: str, probe: Probe) -> None:
    assert parse_port(text) == probe


def test_matrix_port_accepts_port_slash_protocol_like_every_command() -> None:
    slash = run_cli("matrix", "--port", "80/TCP")
    plain = run_cli("matrix", "--port", "80")
    assert slash.returncode == 0, slash.stderr
    assert slash.stdout == plain.stdout and "web/test => web/web1 : TCP 80" in slash.stdout
    udp = run_cli("matrix", "--port", "53/UDP")
    assert udp.stdout == run_cli("matrix", "--port", "53", "--protocol", "udp").stdout


def test_matrix_port_with_a_contradicting_protocol_is_refused() -> None:
    out = run_cli("matrix", "--port", "53/UDP", "--protocol", "TCP")
    assert out.returncode == 2 and "--port says UDP and --protocol says TCP" in out.stderr


def test_a_port_range_restricts_the_answer_to_the_range() -> None:
    inside = run_cli("who-can-reach", "web/web1", "--port", "70-90", "-o", "json")
    outside = run_cli("who-can-reach", "web/web1", "--port", "81-90")
    assert [c["text"] for c in json.loads(inside.stdout)["connections"]] == ["TCP 80"]
    assert outside.returncode == 1


def test_a_named_port_is_resolved_on_the_destination_pod(tmp_path) -> None:
    import yaml

    from tests.helpers import namespace, pod, policy

    (tmp_path / "c.yaml").write_text(
        yaml.safe_dump_all(
            [
                namespace("x"),
                pod("x", "web", {"app": "web"}, [{"containerPort": 8080, "name": "http"}]),
                pod("x", "client", {"app": "client"}),
                policy(
                    "x",
                    "web",
                    {"podSelector": {"matchLabels": {"app": "web"}}, "ingress": [{"ports": [{"port": 8080}]}]},
                ),
            ]
        )
    )
    ok = run_cli("explain", "x/client", "x/web", "--port", "http", str(tmp_path))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert ok.stdout.startswith("ALLOWED  x/client => x/web : TCP http")
    assert "ports TCP 8080 → TCP 8080" in ok.stdout  # http is 8080 on x/web
    unknown = run_cli("who-can-reach", "x/web", "--port", "grpc", str(tmp_path))
    assert unknown.returncode == 2 and "no pod of x/web names a TCP port so (their port names: http)" in unknown.stderr


def test_an_owner_reference_without_kind_is_an_input_error_naming_the_field(tmp_path) -> None:
    """OwnerReference's kind and name are required (k8s.io/apimachinery metav1.OwnerReference; the API server
    rejects one without them): it used to show as `None/foo` and `default/foo[None]`."""
    (tmp_path / "p.yaml").write_text(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p1\n  namespace: default\n"
        "  ownerReferences: [{name: foo, apiVersion: apps/v1}]\nspec: {containers: [{name: c, image: x}]}\n"
    )
    out = run_cli("matrix", str(tmp_path), "--by", "workload")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "Pod default/p1: metadata.ownerReferences[0].kind: an ownerReference needs kind" in out.stderr
    assert "[None]" not in out.stdout
