"""who-can-reach, can-reach and explain: verdicts from the engine, reasons from the policies."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

from netpol.explain import EP, can_reach, explain_pair, explain_targets, who_can_reach
from netpol.model.cluster import Cluster
from netpol.targets import Probe, Resolver
from tests.helpers import analyze_objects, namespace, pod, policy, run_cli

HTTP = [{"containerPort": 80, "name": "http"}]


def _ep(a, key: str) -> EP:
    return EP(pod=a.reachability.pod_index[key])


# ---------------------------------------------------------------------------- the seed lab


def test_seed_lab_who_can_reach_web1_is_exactly_web_test_on_tcp_80(seed) -> None:
    # web1 is isolated for ingress by web1-allow-test, whose one rule admits podSelector run=test of namespace
    # web (a podSelector alone = the policy's namespace) on TCP 80: so web/test only, not cyh/test, not web2,
    # and no external range (the rule has no ipBlock). Traffic from web1's own node is always allowed: a note.
    report = who_can_reach(seed, Resolver(seed).resolve("web1"))
    assert [(e.src, e.dst, e.conn.render()) for e in report.entries] == [("web/test", "web/web1", "TCP 80")]
    [e] = report.entries
    assert e.egress == ["not isolated"]
    assert e.ingress == ["web/web1-allow-test ingress rule #1 (TCP 80)"]
    assert any("own node" in n for n in report.notes)


def test_seed_lab_who_can_reach_web2_is_everyone(seed) -> None:
    report = who_can_reach(seed, Resolver(seed).resolve("web/web2"))
    assert {e.src for e in report.entries} == {"0.0.0.0-255.255.255.255", "cyh/test", "web/test", "web/web1"}
    assert all(e.conn.is_all and e.ingress == ["not isolated"] for e in report.entries)


def test_seed_lab_explain_allowed_names_the_rule(seed) -> None:
    [x] = explain_targets(
        seed, Resolver(seed).resolve("web/test"), Resolver(seed).resolve("web/web1"), Probe("TCP", 80)
    )
    assert x.allowed
    text = "\n".join(x.lines())
    assert "egress (web/test): not isolated" in text
    assert "isolated by web/web1-allow-test" in text
    assert "allowed by web/web1-allow-test ingress rule #1: peer podSelector run=test matches web/test" in text


def test_seed_lab_explain_port_miss(seed) -> None:
    x = explain_pair(seed, _ep(seed, "web/test"), _ep(seed, "web/web1"), Probe("TCP", 8080))
    assert not x.allowed
    [miss] = x.ingress.misses
    assert miss.render() == (
        "web/web1-allow-test ingress rule #1: peer matches but port TCP 8080 is not in [TCP 80] (rule ports: TCP 80)"
    )


def test_seed_lab_explain_other_namespace_says_podselector_alone_means_own_namespace(seed) -> None:
    x = explain_pair(seed, _ep(seed, "cyh/test"), _ep(seed, "web/web1"), Probe("TCP", 80))
    assert not x.allowed
    assert "alone selects pods of the policy's namespace web only; cyh/test is in cyh" in x.ingress.misses[0].render()


def test_seed_lab_who_can_reach_service_maps_the_port(seed) -> None:
    report = who_can_reach(seed, Resolver(seed).resolve("svc/web/web1"), Probe("TCP", 80))
    assert [(e.src, e.conn.render()) for e in report.entries] == [("web/test", "TCP 80")]


def test_seed_lab_can_reach_from_web_test(seed) -> None:
    report = can_reach(seed, Resolver(seed).resolve("web/test"), Probe("TCP", 80))
    assert {e.dst for e in report.entries} == {"0.0.0.0-255.255.255.255", "cyh/test", "web/web1", "web/web2"}
    report = can_reach(seed, Resolver(seed).resolve("cyh/test"), Probe("TCP", 80))
    assert "web/web1" not in {e.dst for e in report.entries}


# ---------------------------------------------------------------------------- nearest misses


def test_and_peer_miss_says_which_half_failed() -> None:
    a = analyze_objects(
        namespace("x"),
        namespace("y", {"team": "other"}),
        pod("x", "db", {"app": "db"}, HTTP),
        pod("y", "api", {"app": "api"}),
        policy(
            "x",
            "db",
            {
                "podSelector": {"matchLabels": {"app": "db"}},
                "ingress": [
                    {
                        "from": [
                            {
                                "namespaceSelector": {"matchLabels": {"team": "core"}},
                                "podSelector": {"matchLabels": {"app": "api"}},
                            }
                        ]
                    }
                ],
            },
        ),
    )
    x = explain_pair(a, _ep(a, "y/api"), _ep(a, "x/db"))
    assert not x.allowed
    assert "namespaceSelector and podSelector are in the same peer (AND): pod matches, namespace does not" in (
        x.ingress.misses[0].render()
    )


def test_egress_side_explained_and_named_port_on_destination() -> None:
    a = analyze_objects(
        pod("x", "a", {"app": "a"}),
        pod("x", "b", {"app": "b"}, [{"containerPort": 8080, "name": "http"}]),
        policy(
            "x",
            "a-out",
            {
                "podSelector": {"matchLabels": {"app": "a"}},
                "policyTypes": ["Egress"],
                "egress": [{"to": [{"podSelector": {"matchLabels": {"app": "b"}}}], "ports": [{"port": "http"}]}],
            },
        ),
    )
    ok = explain_pair(a, _ep(a, "x/a"), _ep(a, "x/b"), Probe("TCP", 8080))
    assert ok.allowed and ok.egress.allows[0].label == "x/a-out egress rule #1"
    miss = explain_pair(a, _ep(a, "x/a"), _ep(a, "x/b"), Probe("TCP", 80))
    assert not miss.allowed and "peer matches but port TCP 80 is not in [TCP 8080]" in miss.egress.misses[0].render()
    assert miss.ingress.isolated is False


def test_no_common_port_between_sides_is_noted() -> None:
    a = analyze_objects(
        pod("x", "a", {"app": "a"}),
        pod("x", "b", {"app": "b"}),
        policy(
            "x",
            "out",
            {
                "podSelector": {"matchLabels": {"app": "a"}},
                "policyTypes": ["Egress"],
                "egress": [{"ports": [{"port": 443}]}],
            },
        ),
        policy("x", "in", {"podSelector": {"matchLabels": {"app": "b"}}, "ingress": [{"ports": [{"port": 80}]}]}),
    )
    x = explain_pair(a, _ep(a, "x/a"), _ep(a, "x/b"))
    assert not x.allowed
    assert any("no port in common" in n for n in x.notes)


def test_self_traffic_note() -> None:
    a = analyze_objects(pod("x", "a"), policy("x", "deny", {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]}))
    x = explain_pair(a, _ep(a, "x/a"), _ep(a, "x/a"), Probe("TCP", 80))
    assert x.allowed and "always allowed" in x.notes[0]


def test_host_network_pod_on_same_node_note() -> None:
    a = analyze_objects(
        pod("x", "agent", {"app": "agent"}, hostNetwork=True, nodeName="n1"),
        pod("x", "web", {"app": "web"}, nodeName="n1"),
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": "n1"},
            "spec": {"podCIDR": "10.244.0.0/24"},
            "status": {"addresses": [{"type": "InternalIP", "address": "192.168.0.1"}]},
        },
        policy("x", "deny", {"podSelector": {}, "policyTypes": ["Ingress"]}),
    )
    x = explain_pair(a, _ep(a, "x/agent"), _ep(a, "x/web"), Probe("TCP", 80))
    assert x.allowed
    assert any("own node" in n for n in x.notes)


@dataclass
class _Placed:
    cluster: Cluster


def test_pending_pod_explained_with_scheduler_reason() -> None:
    reason = "0/1 nodes are available: 1 Insufficient cpu."

    def placer(cluster: Cluster) -> _Placed:
        pods = tuple(
            replace(p, phase="Pending", reason=reason) if p.name == "big" else replace(p, node_name="n1")
            for p in cluster.pods
        )
        return _Placed(replace(cluster, pods=pods))

    a = analyze_objects(
        pod("x", "big"),
        pod("x", "a"),
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}, "spec": {"podCIDR": "10.244.0.0/24"}},
        placer=placer,
    )
    res = Resolver(a)
    [x] = explain_targets(a, res.resolve("x/a"), res.resolve("big"))
    assert not x.allowed and x.notes == (f"x/big does not run (Pending: {reason}), so it takes part in no traffic",)


# ---------------------------------------------------------------------------- CLI


def test_cli_who_can_reach_seed_lab(samples) -> None:
    out = run_cli("who-can-reach", "web1", str(samples / "seed-lab"))
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0] == "web/test => web/web1 : TCP 80"
    assert [line for line in out.stdout.splitlines() if "=>" in line and not line.startswith("note")] == [
        "web/test => web/web1 : TCP 80"
    ]


def test_cli_who_can_reach_json_and_md(samples) -> None:
    out = run_cli("who-can-reach", "web/web1", "--port", "80/TCP", "-o", "json")
    data = json.loads(out.stdout)
    assert [c["src"] for c in data["connections"]] == ["web/test"]
    assert data["port"] == {"port": 80, "protocol": "TCP"}
    md = run_cli("who-can-reach", "web/web1", "-o", "md").stdout
    assert "| web/test | web/web1 | TCP 80 |" in md


def test_cli_who_can_reach_selector_and_by_workload() -> None:
    out = run_cli("can-reach", "-l", "run=test", "-n", "web", "--by", "workload", "--port", "80")
    assert out.returncode == 0, out.stderr
    assert "web/test[Pod] => web/web1[Pod] : TCP 80" in out.stdout


def test_cli_explain_seed_lab() -> None:
    out = run_cli("explain", "web/web2", "web/web1", "--port", "80")
    assert out.returncode == 1, out.stderr  # a denied verdict is a negative answer (issue 4, exit codes)
    assert out.stdout.startswith("DENIED   web/web2 => web/web1 : TCP 80")
    assert "podSelector run=test does not match web/web2" in out.stdout
    allowed = run_cli("explain", "web/test", "web/web1", "--port", "80", "-o", "json")
    assert allowed.returncode == 0
    assert json.loads(allowed.stdout)["explanations"][0]["allowed"] is True


def test_cli_errors_exit_2_without_traceback() -> None:
    for args in (
        ("explain", "test", "web1"),
        ("who-can-reach", "nope/x"),
        ("explain", "1.2.3.4", "5.6.7.8"),
        ("who-can-reach", "web1", "--port", "x"),
    ):
        out = run_cli(*args)
        assert out.returncode == 2, (args, out.stdout)
        assert "Traceback" not in out.stderr and out.stderr.startswith("error:")
    assert "ambiguous: cyh/test, web/test" in run_cli("explain", "test", "web1").stderr


def test_cli_who_can_reach_exits_1_when_nobody_can() -> None:
    seed = Path(__file__).resolve().parents[2] / "samples"
    lab = [str(seed / "seed-lab" / "cluster.yaml"), str(seed / "seed-lab-variants" / "10-default-deny-ingress")]
    nobody = run_cli("who-can-reach", "web/web1", *lab)
    assert nobody.returncode == 1, nobody.stderr
    assert "(nothing reaches web/web1)" in nobody.stdout
    somebody = run_cli("can-reach", "web/web1", *lab)  # egress is not isolated: it reaches the others
    assert somebody.returncode == 0 and "web/web1 => cyh/test" in somebody.stdout
