"""Loading manifests: formats, folders, stdin, API defaults, warnings and every malformed-policy error.

Errors (issue 2, item 9) go through the real command: exit code 2, a message naming the file, the object
and the field, and never a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from netpol.cli import main
from netpol.manifests import load_paths, load_text
from netpol.model.objects import NAMESPACE_NAME_LABEL
from tests.helpers import allowed, analyze_objects, namespace, pod, policy, run_cli

POD_A = pod("x", "a", {"app": "a"})
POD_B = pod("x", "b", {"app": "b"})


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """The command in-process (fast); an escaping exception would fail the test like a traceback would."""
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def keys(cluster) -> list[str]:
    return sorted(p.key for p in cluster.pods)


# ---------------------------------------------------------------------------------------------- formats


def test_multi_document_yaml_reads_every_document() -> None:
    text = yaml.safe_dump_all([namespace("x"), POD_A, POD_B, policy("x", "p", {"podSelector": {}})])
    c = load_text(text)
    assert keys(c) == ["x/a", "x/b"]
    assert [p.key for p in c.policies] == ["x/p"]


def test_empty_documents_are_ignored() -> None:
    text = "---\n" + yaml.safe_dump(POD_A) + "---\n---\n"
    assert keys(load_text(text)) == ["x/a"]


def test_json_file_with_one_object(tmp_path: Path) -> None:
    f = write(tmp_path / "pod.json", json.dumps(POD_A))
    assert keys(load_paths([str(f)])) == ["x/a"]


def test_json_list_as_kubectl_prints_it(tmp_path: Path) -> None:
    doc = {"apiVersion": "v1", "kind": "List", "items": [namespace("x"), POD_A, POD_B], "metadata": {}}
    f = write(tmp_path / "all.json", json.dumps(doc, indent=2))
    c = load_paths([str(f)])
    assert keys(c) == ["x/a", "x/b"]
    assert "x" in {ns.name for ns in c.namespaces}


def test_typed_list_items_without_kind_take_the_list_kind() -> None:
    items = [{k: v for k, v in p.items() if k not in ("kind", "apiVersion")} for p in (POD_A, POD_B)]
    text = yaml.safe_dump({"apiVersion": "v1", "kind": "PodList", "items": items})
    assert keys(load_text(text)) == ["x/a", "x/b"]


def test_network_policy_list_items_without_kind() -> None:
    item = policy("x", "deny", {"podSelector": {}})
    del item["kind"]
    text = yaml.safe_dump_all(
        [POD_A, POD_B, {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicyList", "items": [item]}]
    )
    c = load_text(text)
    assert [p.key for p in c.policies] == ["x/deny"]


def test_nested_list_in_a_list_is_flattened() -> None:
    inner = {"apiVersion": "v1", "kind": "List", "items": [POD_B]}
    text = yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [POD_A, inner]})
    assert keys(load_text(text)) == ["x/a", "x/b"]


def test_folders_are_read_recursively_and_only_manifest_suffixes(tmp_path: Path) -> None:
    write(tmp_path / "top.yaml", yaml.safe_dump(POD_A))
    write(tmp_path / "deep" / "er" / "b.yml", yaml.safe_dump(POD_B))
    write(tmp_path / "deep" / "c.json", json.dumps(pod("y", "c")))
    write(tmp_path / "deep" / "README.md", "kind: Pod\nnot: yaml: at: all")
    write(tmp_path / "deep" / "notes.txt", "{{ not a manifest }}")
    assert keys(load_paths([str(tmp_path)])) == ["x/a", "x/b", "y/c"]


def test_several_paths_are_merged(tmp_path: Path) -> None:
    a = write(tmp_path / "a.yaml", yaml.safe_dump(POD_A))
    b = write(tmp_path / "sub" / "b.yaml", yaml.safe_dump(POD_B))
    assert keys(load_paths([str(a), str(b.parent)])) == ["x/a", "x/b"]


def test_missing_path_is_an_input_error() -> None:
    r = run_cli("matrix", "/nonexistent/cluster.yaml")
    assert r.returncode == 2
    assert "/nonexistent/cluster.yaml" in r.stderr
    assert "Traceback" not in r.stderr


def test_stdin_dash_reads_a_pipe() -> None:
    text = yaml.safe_dump_all([POD_A, POD_B, policy("x", "p", {"podSelector": {"matchLabels": {"app": "a"}}})])
    r = run_cli("matrix", "-", "--port", "80", "-o", "json", stdin=text)
    assert r.returncode == 0, r.stderr
    pairs = {tuple(p) for p in json.loads(r.stdout)["allowed"]}
    assert pairs == {("x/a", "x/b")}  # x/a isolated for ingress; self pairs are not listed


def test_stdin_and_files_together(tmp_path: Path) -> None:
    f = write(tmp_path / "b.yaml", yaml.safe_dump(POD_B))
    r = run_cli("matrix", str(f), "-", "-o", "json", "--no-external", stdin=yaml.safe_dump(POD_A))
    assert r.returncode == 0, r.stderr
    assert sorted(p["name"] for p in json.loads(r.stdout)["pods"]) == ["x/a", "x/b"]


# ---------------------------------------------------------------------------------------------- warnings


UNKNOWN = yaml.safe_dump_all(
    [
        POD_A,
        {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "x"}},
    ]
)


def test_unknown_kinds_are_reported_as_skipped_not_dropped_silently() -> None:
    c = load_text(UNKNOWN)
    skipped = [w for w in c.warnings if w.code == "skipped-kind"]
    assert {w.source.kind for w in skipped} == {"Widget"}
    (summary,) = [w for w in c.warnings if w.code == "ignored-kinds"]  # inert kinds: one line, counted
    assert summary.message == "ignored: 1 object of kinds that do not affect connectivity (ConfigMap ×1)"
    assert not summary.strict
    assert keys(c) == ["x/a"]


def test_unknown_kind_warning_goes_to_stderr_and_exit_is_zero(tmp_path: Path) -> None:
    f = write(tmp_path / "mixed.yaml", UNKNOWN)
    r = run_cli("matrix", str(f))
    assert r.returncode == 0
    assert "warning" in r.stderr and "Widget" in r.stderr and "mixed.yaml" in r.stderr
    assert "Widget" not in r.stdout


def test_strict_turns_warnings_into_exit_2(tmp_path: Path) -> None:
    f = write(tmp_path / "mixed.yaml", UNKNOWN)
    r = run_cli("matrix", "--strict", str(f))
    assert r.returncode == 2
    assert "Widget" in r.stderr and "mixed.yaml" in r.stderr
    assert "Traceback" not in r.stderr
    assert r.stdout == ""


def test_used_but_undeclared_namespace_exists_implicitly_with_a_warning() -> None:
    c = load_text(yaml.safe_dump(pod("ghost", "a")))
    ns = c.namespace("ghost")
    assert ns is not None and ns.implicit
    assert ns.labels[NAMESPACE_NAME_LABEL] == "ghost"
    assert any(w.code == "implicit-namespace" for w in c.warnings)


def test_implicit_namespace_is_selectable_by_its_name_label() -> None:
    a = analyze_objects(
        pod("x", "target", {"app": "t"}),
        pod("ghost", "client"),
        pod("other", "client"),
        policy(
            "x",
            "p",
            {
                "podSelector": {"matchLabels": {"app": "t"}},
                "ingress": [{"from": [{"namespaceSelector": {"matchLabels": {NAMESPACE_NAME_LABEL: "ghost"}}}]}],
            },
        ),
    )
    assert allowed(a, "ghost/client", "x/target", 80)
    assert not allowed(a, "other/client", "x/target", 80)


def test_implicit_namespace_warning_is_fatal_under_strict(tmp_path: Path) -> None:
    f = write(tmp_path / "p.yaml", yaml.safe_dump(pod("ghost", "a")))
    assert run_cli("matrix", str(f)).returncode == 0
    r = run_cli("matrix", "--strict", str(f))
    assert r.returncode == 2 and "ghost" in r.stderr


def test_default_namespace_needs_no_declaration_and_no_warning() -> None:
    p = pod("x", "a")
    del p["metadata"]["namespace"]
    c = load_text(yaml.safe_dump(p))
    assert keys(c) == ["default/a"]
    assert not [w for w in c.warnings if w.code == "implicit-namespace"]


# ---------------------------------------------------------------------------------------------- defaults


def test_declared_namespace_always_carries_its_name_label() -> None:
    c = load_text(yaml.safe_dump(namespace("web", {"team": "a", NAMESPACE_NAME_LABEL: "spoofed"})))
    labels = c.namespace("web").labels
    assert labels[NAMESPACE_NAME_LABEL] == "web"  # the API server owns this label
    assert labels["team"] == "a"


def test_policy_port_protocol_defaults_to_tcp() -> None:
    c = load_text(yaml.safe_dump(policy("x", "p", {"podSelector": {}, "ingress": [{"ports": [{"port": 80}]}]})))
    assert c.policies[0].ingress[0].ports[0].protocol == "TCP"


def test_container_port_protocol_defaults_to_tcp() -> None:
    c = load_text(yaml.safe_dump(pod("x", "a", ports=[{"containerPort": 8080, "name": "http"}])))
    assert c.pods[0].named_ports() == (("http", "TCP", 8080),)


@pytest.mark.parametrize(
    ("spec", "types"),
    [
        ({"podSelector": {}}, ("Ingress",)),
        ({"podSelector": {}, "ingress": [{}]}, ("Ingress",)),
        ({"podSelector": {}, "egress": []}, ("Ingress",)),  # empty egress list: Ingress only
        ({"podSelector": {}, "egress": [{}]}, ("Ingress", "Egress")),
        ({"podSelector": {}, "policyTypes": ["Egress"]}, ("Egress",)),
        ({"podSelector": {}, "policyTypes": ["Egress", "Ingress"]}, ("Ingress", "Egress")),
    ],
    ids=["nothing", "ingress-rules", "empty-egress", "egress-rules", "explicit-egress", "explicit-both"],
)
def test_policy_types_defaulting(spec: dict, types: tuple[str, ...]) -> None:
    c = load_text(yaml.safe_dump(policy("x", "p", spec)))
    assert c.policies[0].policy_types == types


def test_policy_without_namespace_lands_in_default() -> None:
    p = policy("x", "p", {"podSelector": {}})
    del p["metadata"]["namespace"]
    assert [q.key for q in load_text(yaml.safe_dump(p)).policies] == ["default/p"]


def test_duplicate_object_warns_and_the_later_definition_wins() -> None:
    text = yaml.safe_dump_all([namespace("x", {"v": "1"}), namespace("x", {"v": "2"})])
    c = load_text(text)
    assert c.namespace("x").labels["v"] == "2"
    assert any(w.code == "duplicate" for w in c.warnings)


# ---------------------------------------------------------------------------------------------- errors


def bad_policy(spec_extra: dict) -> str:
    return yaml.safe_dump(policy("x", "bad", {"podSelector": {}, **spec_extra}))


def from_selector(req: dict) -> dict:
    return {"ingress": [{"from": [{"podSelector": {"matchExpressions": [req]}}]}]}


MALFORMED = [
    (
        "bad-cidr",
        {"ingress": [{"from": [{"ipBlock": {"cidr": "10.0.0.0/33"}}]}]},
        "spec.ingress[0].from[0].ipBlock.cidr",
    ),
    ("cidr-not-a-cidr", {"egress": [{"to": [{"ipBlock": {"cidr": "banana"}}]}]}, "spec.egress[0].to[0].ipBlock.cidr"),
    (
        "except-outside-cidr",
        {"ingress": [{"from": [{"ipBlock": {"cidr": "10.0.0.0/16", "except": ["10.1.0.0/24"]}}]}]},
        "spec.ingress[0].from[0].ipBlock.except[0]",
    ),
    (
        "in-without-values",
        from_selector({"key": "a", "operator": "In"}),
        "spec.ingress[0].from[0].podSelector.matchExpressions[0].values",
    ),
    (
        "notin-without-values",
        from_selector({"key": "a", "operator": "NotIn", "values": []}),
        "spec.ingress[0].from[0].podSelector.matchExpressions[0].values",
    ),
    (
        "exists-with-values",
        from_selector({"key": "a", "operator": "Exists", "values": ["x"]}),
        "spec.ingress[0].from[0].podSelector.matchExpressions[0].values",
    ),
    (
        "unknown-operator",
        from_selector({"key": "a", "operator": "Gt", "values": ["1"]}),
        "spec.ingress[0].from[0].podSelector.matchExpressions[0].operator",
    ),
    (
        "end-port-below-port",
        {"ingress": [{"ports": [{"port": 90, "endPort": 80}]}]},
        "spec.ingress[0].ports[0].endPort",
    ),
    (
        "end-port-with-named-port",
        {"ingress": [{"ports": [{"port": "http", "endPort": 80}]}]},
        "spec.ingress[0].ports[0].endPort",
    ),
    (
        "unknown-protocol",
        {"egress": [{"ports": [{"port": 80, "protocol": "ICMP"}]}]},
        "spec.egress[0].ports[0].protocol",
    ),
    (
        "unknown-operator-in-policy-pod-selector",
        {"podSelector": {"matchExpressions": [{"key": "a", "operator": "Maybe"}]}},
        "spec.podSelector.matchExpressions[0].operator",
    ),
]


@pytest.mark.parametrize(("spec", "field"), [(s, f) for _, s, f in MALFORMED], ids=[i for i, _, _ in MALFORMED])
def test_malformed_policy_exits_2_naming_file_object_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], spec: dict, field: str
) -> None:
    f = write(tmp_path / "policies" / "bad.yaml", bad_policy(spec))
    code, out, err = cli(capsys, "matrix", str(tmp_path))
    assert code == 2
    assert str(f) in err  # the file
    assert "NetworkPolicy x/bad" in err  # the object
    assert field in err  # the field
    assert out == ""


def test_malformed_policy_through_the_real_command_has_no_traceback(tmp_path: Path) -> None:
    f = write(tmp_path / "bad.yaml", bad_policy({"ingress": [{"ports": [{"port": 90, "endPort": 80}]}]}))
    r = run_cli("matrix", str(f))
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert "bad.yaml" in r.stderr and "NetworkPolicy x/bad" in r.stderr and "endPort" in r.stderr


def test_invalid_yaml_names_file_and_line(tmp_path: Path) -> None:
    good = yaml.safe_dump(POD_A)
    f = write(tmp_path / "broken.yaml", good + "---\nkind: Pod\nmetadata: {name: [unclosed\nspec: {}\n")
    r = run_cli("matrix", str(f))
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert "broken.yaml" in r.stderr
    assert "line " in r.stderr
    bad_line = good.count("\n") + 4  # the line after the unclosed flow sequence
    assert f"line {bad_line}" in r.stderr or f"line {bad_line - 1}" in r.stderr


def test_invalid_json_names_file_and_line(tmp_path: Path) -> None:
    f = write(tmp_path / "broken.json", '{\n  "kind": "Pod",\n  "metadata": {"name": "a",,}\n}\n')
    r = run_cli("matrix", str(f))
    assert r.returncode == 2
    assert "broken.json" in r.stderr and "line 3" in r.stderr
    assert "Traceback" not in r.stderr


def test_error_in_second_document_names_that_document(tmp_path: Path) -> None:
    text = yaml.safe_dump_all(
        [POD_A, policy("x", "bad", {"podSelector": {}, "ingress": [{"ports": [{"port": 80, "protocol": "ICMP"}]}]})]
    )
    f = write(tmp_path / "two.yaml", text)
    r = run_cli("matrix", str(f))
    assert r.returncode == 2
    assert "document 2" in r.stderr


def test_unknown_protocol_flag_is_a_usage_error() -> None:
    r = run_cli("matrix", "--port", "80", "--protocol", "ICMP")
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
