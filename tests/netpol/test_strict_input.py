"""Issue 16: every input answered with kubectl's strictness — never a traceback, a hang or a wrong answer.

Each wrong answer of the issue is pinned with the Kubernetes reading; each crash site and hang with its
input and the exact message. The readings come from the API server's own code:
- null is unset: encoding/json leaves a pointer field nil for `null` (networking/v1 NetworkPolicyPeer's
  selectors are pointers), and ValidateNetworkPolicyPeer counts only non-nil selectors ("must specify a peer");
- strict field validation (kubectl's default since 1.27, KEP-2885) reports `unknown field "…"` and
  `duplicate field "…"`;
- a quoted "false" cannot be unmarshalled into a Go bool, a YAML number not into a Go string
  (sigs.k8s.io/yaml converts YAML to JSON first: `1.10` becomes the JSON number 1.1);
- apimachinery validation: IsDNS1123Subdomain/Label for names, IsQualifiedName/IsValidLabelValue for
  labels, IsValidPortNum/IsValidPortName (IANA_SVC_NAME) for ports, int32 ranges.
"""

from __future__ import annotations

import json
import os
import socket
import stat
from pathlib import Path

import pytest
import yaml

from netpol.errors import InputError
from netpol.manifests import load_paths, load_text
from netpol.pipeline import analyze
from netpol.workloads import expand_workloads
from tests.helpers import allowed, analyze_objects, namespace, pod, policy, run_cli


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def error_of(text: str) -> str:
    with pytest.raises(InputError) as info:
        load_text(text, "in.yaml")
    return str(info.value)


def dump(*objs: dict) -> str:
    return yaml.safe_dump_all(list(objs))


# ------------------------------------------------------------------------------- the 8 wrong answers


def test_null_namespace_selector_is_unset_so_the_peer_is_the_policys_own_namespace() -> None:
    peer = {"podSelector": {"matchLabels": {"app": "cli"}}, "namespaceSelector": None}
    a = analyze_objects(
        namespace("a"),
        namespace("b"),
        pod("a", "srv", {"app": "srv"}),
        pod("a", "cli", {"app": "cli"}),
        pod("b", "cli", {"app": "cli"}),
        policy("a", "p", {"podSelector": {"matchLabels": {"app": "srv"}}, "ingress": [{"from": [peer]}]}),
    )
    assert allowed(a, "a/cli", "a/srv", 80)
    assert not allowed(a, "b/cli", "a/srv", 80)  # was allowed: null read as "every namespace"
    (pol,) = a.cluster.policies
    assert pol.ingress[0].peers[0].namespace_selector is None


def test_a_lone_null_pod_selector_peer_is_rejected_as_the_api_rejects_it() -> None:
    text = dump(policy("a", "p", {"podSelector": {}, "ingress": [{"from": [{"podSelector": None}]}]}))
    assert error_of(text) == (
        "in.yaml, document 1, NetworkPolicy a/p: spec.ingress[0].from[0]: Required value: must specify a peer"
    )


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        pytest.param(
            {"podSelector": {"matchLabel": {"app": "x"}}},
            "unknown field \"spec.podSelector.matchLabel\" (did you mean 'matchLabels'?)",
            id="matchLabel-selects-every-pod",
        ),
        pytest.param(
            {"podSelector": {}, "ingress": [{"form": [{"podSelector": {}}]}]},
            "unknown field \"spec.ingress[0].form\" (did you mean 'from'?)",
            id="form-allows-everyone",
        ),
        pytest.param(
            {"podSelector": {}, "ingres": [{}]},
            "unknown field \"spec.ingres\" (did you mean 'ingress'?)",
            id="ingres-leaves-a-default-deny",
        ),
        pytest.param(
            {"podSelector": {}, "egress": [{"to": [{"ipBlock": {"cidr": "10.0.0.0/8", "expect": []}}]}]},
            "unknown field \"spec.egress[0].to[0].ipBlock.expect\" (did you mean 'except'?)",
            id="ipBlock-expect",
        ),
        pytest.param(
            {"podSelector": {}, "ingress": [{"ports": [{"prot": 80}]}]},
            "unknown field \"spec.ingress[0].ports[0].prot\" (did you mean 'port'?)",
            id="ports-prot",
        ),
        pytest.param(
            {"podSelector": {"matchExpressions": [{"key": "a", "operator": "Exists", "value": ["x"]}]}},
            "unknown field \"spec.podSelector.matchExpressions[0].value\" (did you mean 'values'?)",
            id="expression-value",
        ),
    ],
)
def test_unknown_fields_in_a_policy_are_errors(spec: dict, message: str) -> None:
    assert error_of(dump(policy("a", "p", spec))) == f"in.yaml, document 1, NetworkPolicy a/p: {message}"


def test_unknown_fields_outside_the_deciding_parts_are_warnings_and_errors_under_strict(tmp_path: Path) -> None:
    p = pod("a", "x", {"app": "x"})
    p["spec"]["containers"][0]["imagee"] = "nginx"
    c = load_text(dump(p))
    assert [w.message for w in c.warnings if w.code == "unknown-field"] == [
        "unknown field \"spec.containers[0].imagee\" (did you mean 'image'?)"
    ]
    f = write(tmp_path / "p.yaml", dump(p))
    r = run_cli("matrix", str(f), "--strict")
    assert r.returncode == 2 and 'unknown field "spec.containers[0].imagee"' in r.stderr


def test_a_duplicated_spec_is_an_error_naming_the_field() -> None:
    text = "kind: NetworkPolicy\napiVersion: networking.k8s.io/v1\nmetadata: {name: p, namespace: a}\n"
    text += "spec: {podSelector: {}}\nspec: {podSelector: {}, ingress: [{}]}\n"
    assert error_of(text) == 'in.yaml, document 1, NetworkPolicy a/p: duplicate field "spec"'


def test_duplicated_labels_are_an_error_naming_the_field() -> None:
    text = "kind: Pod\napiVersion: v1\nmetadata:\n  name: x\n  labels: {app: a}\n  labels: {app: b}\n"
    assert error_of(text) == 'in.yaml, document 1, Pod x: duplicate field "metadata.labels"'
    text = "kind: Pod\napiVersion: v1\nmetadata:\n  name: x\n  labels:\n    app: a\n    app: b\n"
    assert error_of(text) == 'in.yaml, document 1, Pod x: duplicate field "metadata.labels.app"'


def test_every_duplicated_key_is_an_error_as_in_kubectl() -> None:
    """One rule for duplicate keys (issue 25): kubectl's strict field validation refuses any, so a Deployment's
    `spec.template.spec` written twice (where the second copy changed named port http from 8080 to 9090) is an
    error as the same duplicate in a Pod is, and so is a key that seems to decide nothing."""
    text = "kind: Pod\napiVersion: v1\nmetadata: {name: x}\nspec:\n  containers:\n  - name: c\n    image: a\n"
    text += "    image: b\n"
    assert error_of(text) == 'in.yaml, document 1, Pod x: duplicate field "spec.containers[0].image"'
    container = "containers: [{name: c, image: i, ports: [{name: http, containerPort: %d}]}]"
    deploy = (
        "kind: Deployment\napiVersion: apps/v1\nmetadata: {name: d, namespace: a}\nspec:\n"
        "  selector: {matchLabels: {app: d}}\n  template:\n    metadata: {labels: {app: d}}\n"
        f"    spec: {{{container % 8080}}}\n    spec: {{{container % 9090}}}\n"
    )
    assert error_of(deploy) == 'in.yaml, document 1, Deployment a/d: duplicate field "spec.template.spec"'


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        pytest.param(
            pod("a", "x", hostNetwork="false"),
            'Pod a/x: spec.hostNetwork: Invalid value: "false": must be a boolean, got string',
            id="hostNetwork",
        ),
        pytest.param(
            {"kind": "Node", "apiVersion": "v1", "metadata": {"name": "n"}, "spec": {"unschedulable": "false"}},
            'Node n: spec.unschedulable: Invalid value: "false": must be a boolean, got string',
            id="unschedulable",
        ),
    ],
)
def test_quoted_booleans_are_strings_and_rejected(obj: dict, message: str) -> None:
    sep = ": " if message.startswith("kind:") else ", "  # no object to name when its kind is not a string
    assert error_of(dump(obj)) == f"in.yaml, document 1{sep}{message}"


def test_a_symlinked_folder_is_followed(tmp_path: Path) -> None:
    real = tmp_path / "real"
    write(real / "p.yaml", dump(pod("a", "x")))
    (tmp_path / "top").mkdir()
    (tmp_path / "top" / "policies").symlink_to(real, target_is_directory=True)
    assert [p.key for p in load_paths([str(tmp_path / "top")]).pods] == ["a/x"]


def test_a_symlink_loop_is_reported_not_walked_forever(tmp_path: Path) -> None:
    write(tmp_path / "top" / "p.yaml", dump(pod("a", "x")))
    (tmp_path / "top" / "again").symlink_to(tmp_path / "top", target_is_directory=True)
    c = load_paths([str(tmp_path / "top")])
    assert [p.key for p in c.pods] == ["a/x"]
    assert [w.message for w in c.warnings if w.code == "skipped-file"] == [
        f"{tmp_path / 'top' / 'again'}: a symlink to a folder already read (a loop?); not read"
    ]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every folder")
def test_an_unreadable_folder_is_an_error_naming_it(tmp_path: Path) -> None:
    locked = tmp_path / "top" / "locked"
    write(locked / "p.yaml", dump(pod("a", "x")))
    locked.chmod(0)
    try:
        r = run_cli("matrix", str(tmp_path / "top"))
    finally:
        locked.chmod(stat.S_IRWXU)
    assert r.returncode == 2 and f"cannot read folder {locked}: Permission denied" in r.stderr


def test_an_unreadable_file_is_an_error_naming_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f = write(tmp_path / "top" / "p.yaml", dump(pod("a", "x")))

    def refuse(path, *args, **kwargs):  # root reads a chmod-0 file, so the refusal is simulated
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr("builtins.open", refuse)
    with pytest.raises(InputError) as info:
        load_paths([str(tmp_path / "top")])
    assert str(info.value) == f"{f}: cannot read: Permission denied"


def test_fifos_and_sockets_in_a_folder_are_skipped_with_a_warning_never_opened(tmp_path: Path) -> None:
    write(tmp_path / "top" / "p.yaml", dump(pod("a", "x")))
    os.mkfifo(tmp_path / "top" / "pipe.yaml")  # opening it would block forever
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "top" / "s.sock"))
    try:
        r = run_cli("matrix", str(tmp_path / "top"), "-o", "json")
    finally:
        sock.close()
    assert r.returncode == 0, r.stderr
    assert f"warning: {tmp_path / 'top' / 'pipe.yaml'}: a FIFO, not a regular file; not read" in r.stderr
    assert f"warning: {tmp_path / 'top' / 's.sock'}: a socket, not a regular file; not read" in r.stderr


# ------------------------------------------------------------------------------------------- crash sites


def deployment(spec_extra: dict | None = None, tpl_spec: dict | None = None) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "d", "namespace": "a"},
        "spec": {
            "selector": {"matchLabels": {"app": "d"}},
            "template": {
                "metadata": {"labels": {"app": "d"}},
                "spec": {"containers": [{"name": "c", "image": "i"}], **(tpl_spec or {})},
            },
            **(spec_extra or {}),
        },
    }


def service(ports: object) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "s", "namespace": "a"},
        "spec": {"ports": ports},
    }


def node(spec: object = None, status: object = None) -> dict:
    obj = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}}
    if spec is not None:
        obj["spec"] = spec
    if status is not None:
        obj["status"] = status
    return obj


def anp(spec: dict) -> dict:
    return {
        "apiVersion": "policy.networking.k8s.io/v1alpha1",
        "kind": "AdminNetworkPolicy",
        "metadata": {"name": "p"},
        "spec": {"priority": 1, "subject": {"namespaces": {}}, **spec},
    }


CPU = "spec.template.spec.containers[0].resources.requests"
QUANTITY_RE = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"

CRASH_SITES = [
    (
        "containers-string",
        pod("a", "x", containers="nginx"),
        'Pod a/x: spec.containers: Invalid value: "nginx": must be an array, got string',
    ),
    (
        "ports-number",
        {**pod("a", "x"), "spec": {"containers": [{"name": "c", "ports": [80]}]}},
        "Pod a/x: spec.containers[0].ports[0]: Invalid value: 80: must be an object, got integer",
    ),
    (
        "tolerations-string",
        pod("a", "x", tolerations="all"),
        'Pod a/x: spec.tolerations: Invalid value: "all": must be an array, got string',
    ),
    (
        "affinity-none",
        pod("a", "x", affinity="none"),
        'Pod a/x: spec.affinity: Invalid value: "none": must be an object, got string',
    ),
    (
        "spread-string",
        pod("a", "x", topologySpreadConstraints=["zone"]),
        'Pod a/x: spec.topologySpreadConstraints[0]: Invalid value: "zone": must be an object, got string',
    ),
    (
        "ownerReferences-number",
        {**pod("a", "x"), "metadata": {"name": "x", "namespace": "a", "ownerReferences": 1}},
        "Pod a/x: metadata.ownerReferences: Invalid value: 1: must be an array, got integer",
    ),
    ("node-spec-list", node(spec=[1]), "Node n: spec: Invalid value: an array: must be an object, got array"),
    (
        "pod-status-string",
        {**pod("a", "x"), "status": "Running"},
        'Pod a/x: status: Invalid value: "Running": must be an object, got string',
    ),
    (
        "service-port-string",
        service(["80"]),
        'Service a/s: spec.ports[0]: Invalid value: "80": must be an object, got string',
    ),
    (
        "node-image-size-quantity",
        node(status={"images": [{"names": ["i"], "sizeBytes": "1Gi"}]}),
        'Node n: status.images[0].sizeBytes: Invalid value: "1Gi": must be an integer',
    ),
    (
        "anp-port-number",
        anp({"ingress": [{"action": "Allow", "from": [{"namespaces": {}}], "ports": [{"portNumber": 80}]}]}),
        "AdminNetworkPolicy p: spec.ingress[0].ports[0].portNumber: Invalid value: 80: must be an object, got integer",
    ),
    (
        "anp-pods-true",
        anp({"ingress": [{"action": "Allow", "from": [{"pods": True}]}]}),
        "AdminNetworkPolicy p: spec.ingress[0].from[0].pods: Invalid value: true: must be an object, got boolean",
    ),
    (
        "policyTypes-number",
        policy("a", "p", {"podSelector": {}, "policyTypes": 5}),
        "NetworkPolicy a/p: spec.policyTypes: Invalid value: 5: must be an array, got integer",
    ),
    (
        "values-number",
        policy("a", "p", {"podSelector": {"matchExpressions": [{"key": "k", "operator": "In", "values": 5}]}}),
        "NetworkPolicy a/p: spec.podSelector.matchExpressions[0].values: Invalid value: 5: must be an array, got integer",
    ),
    (
        "replicas-string",
        deployment({"replicas": "three"}),
        'Deployment a/d: spec.replicas: Invalid value: "three": must be an integer',
    ),
    (
        "replicas-beyond-int32",
        deployment({"replicas": 10**18}),
        "Deployment a/d: spec.replicas: Invalid value: 1000000000000000000: must be between 0 and 2147483647, inclusive",
    ),
    (
        "memory-nan",
        deployment(tpl_spec={"containers": [{"name": "c", "resources": {"requests": {"memory": float("nan")}}}]}),
        f"Deployment a/d: {CPU}[memory]: Invalid value: nan: must be a finite quantity",
    ),
    (
        "memory-word",
        deployment(tpl_spec={"containers": [{"name": "c", "resources": {"requests": {"memory": "lots"}}}]}),
        f'Deployment a/d: {CPU}[memory]: Invalid value: "lots": {QUANTITY_RE}',
    ),
    (
        "service-port-65536",
        service([{"port": 65536}]),
        "Service a/s: spec.ports[0].port: Invalid value: 65536: must be between 1 and 65535, inclusive",
    ),
    (
        "target-port-negative",
        service([{"port": 80, "targetPort": -1}]),
        "Service a/s: spec.ports[0].targetPort: Invalid value: -1: must be between 1 and 65535, inclusive",
    ),
    (
        "host-port-70000",
        {**pod("a", "x"), "spec": {"containers": [{"name": "c", "ports": [{"containerPort": 80, "hostPort": 70000}]}]}},
        "Pod a/x: spec.containers[0].ports[0].hostPort: Invalid value: 70000: must be between 0 and 65535, inclusive",
    ),
    (
        "policy-port-quoted-number",
        policy("a", "p", {"podSelector": {}, "ingress": [{"ports": [{"port": "80"}]}]}),
        'NetworkPolicy a/p: spec.ingress[0].ports[0].port: Invalid value: "80": must contain at least one letter (a-z)',
    ),
    (
        "label-value-number",
        pod("a", "x", {"version": 1.10}),
        "Pod a/x: metadata.labels[version]: Invalid value: 1.1: must be a string, got number",
    ),
    (
        "label-value-octal",
        pod("a", "x", {"mode": 0o777}),
        "Pod a/x: metadata.labels[mode]: Invalid value: 511: must be a string, got integer",
    ),
    (
        "pod-name-with-slash",
        pod("a", "x/y"),
        "Pod a/x/y: metadata.name: Invalid value: \"x/y\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
    ),
    (
        "namespace-with-slash",
        pod("a/x", "y"),
        "Pod a/x/y: metadata.namespace: Invalid value: \"a/x\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
    ),
    (
        "kind-number",
        {"kind": 5, "metadata": {"name": "x"}},
        "kind: Invalid value: 5: must be a non-empty string, got integer",
    ),
]


@pytest.mark.parametrize(("obj", "message"), [(o, m) for _, o, m in CRASH_SITES], ids=[i for i, _, _ in CRASH_SITES])
def test_each_crash_site_is_an_error_naming_the_field(obj: dict, message: str) -> None:
    sep = ": " if message.startswith("kind:") else ", "  # no object to name when its kind is not a string
    assert error_of(dump(obj)) == f"in.yaml, document 1{sep}{message}"


def test_a_list_whose_items_are_not_objects() -> None:
    text = dump({"apiVersion": "v1", "kind": "List", "items": [1]})
    assert error_of(text) == "in.yaml, document 1: items[0]: expected a Kubernetes object (a mapping), got integer"


def test_a_huge_quantity_is_capped_like_resource_quantity_and_costs_nothing() -> None:
    c = load_text(
        dump(
            deployment(
                tpl_spec={
                    "containers": [
                        {"name": "c", "resources": {"requests": {"memory": "1e999999", "cpu": "9223372036854775808"}}}
                    ]
                }
            )
        )
    )
    (wl,) = c.workloads
    assert dict(wl.template.containers[0].requests) == {"memory": 2**63 - 1, "cpu": 2**63 - 1}


def test_json_nested_deeper_than_the_limit_is_an_error(tmp_path: Path) -> None:
    f = write(tmp_path / "deep.json", "[" * 1001 + "]" * 1001)
    r = run_cli("matrix", str(f))
    assert r.returncode == 2
    assert r.stderr == f"error: {f}: invalid JSON/YAML: nesting deeper than 200 levels\n"


def test_yaml_nested_a_hundred_thousand_deep_is_an_error_not_a_crash(tmp_path: Path) -> None:
    f = write(tmp_path / "deep.yaml", "a: " + "[" * 100_000 + "]" * 100_000 + "\n")
    r = run_cli("matrix", str(f))
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr
    # PyYAML >= 6.0.4 bundles a libyaml that stops at 1,000 levels while parsing, before our own limit is
    # reached in composition: either way one line naming the file and the position.
    assert (
        f"{f}: invalid YAML: line 1, column 203: nesting deeper than 200 levels" in r.stderr
        or f"{f}: invalid YAML: line 1, column 1003: exceeded maximum nesting depth" in r.stderr
    ), r.stderr


def test_yaml_nested_deeper_than_the_limit_names_the_limit(tmp_path: Path) -> None:
    f = write(tmp_path / "deep.yaml", "a: " + "[" * 500 + "]" * 500 + "\n")
    r = run_cli("matrix", str(f))
    assert r.returncode == 2, r.stderr
    assert f"{f}: invalid YAML: line 1, column 203: nesting deeper than 200 levels" in r.stderr


def test_an_integer_of_more_than_4300_digits_is_an_error() -> None:
    message = error_of("kind: Pod\nmetadata: {name: x}\nspec: {priority: " + "9" * 5000 + "}\n")
    assert message == "in.yaml: invalid YAML: line 3, column 18: integer 99999999999999999999… is too large"


def test_non_utf8_stdin_is_an_error_not_a_traceback() -> None:
    import subprocess
    import sys

    r = subprocess.run(
        [sys.executable, "-m", "netpol.cli", "matrix", "-"],
        input=b"kind: Pod\nmetadata: {name: \xff}\n",
        capture_output=True,
        timeout=120,
    )
    assert r.returncode == 2
    assert r.stderr == b"error: <stdin>: not UTF-8 text (byte 0xff at offset 27); Kubernetes manifests are UTF-8\n"


# ------------------------------------------------------------------------------------------------- hangs


BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
    for p, c in zip("abcdefgh", "bcdefghi", strict=True)
)


@pytest.mark.parametrize("field", ["namespace: *i", "annotations: {x: *i}"])
def test_an_alias_bomb_is_an_error_before_any_memory_is_spent(field: str) -> None:
    text = BOMB + f"kind: Pod\nmetadata:\n  name: p\n  {field}\n"
    assert error_of(text) == (
        "in.yaml: invalid YAML: line 5, column 4: aliases expand to more than 100000 nodes (a YAML alias bomb?)"
    )


def test_an_object_given_twice_compares_by_fingerprint() -> None:
    big = {f"k{i}": "v" * 100 for i in range(2000)}
    p = {**pod("a", "x"), "metadata": {"name": "x", "namespace": "a", "annotations": big}}
    c = load_text(dump(p, p))
    assert not [w for w in c.warnings if w.code == "duplicate"]
    q = {**p, "metadata": {**p["metadata"], "annotations": {**big, "k0": "w"}}}
    c = load_text(dump(p, q))
    assert [w.code for w in c.warnings if w.code == "duplicate"] == ["duplicate"]


def test_a_runaway_expansion_is_an_error_naming_the_cap() -> None:
    text = dump(deployment({"replicas": 2_000_000_000}))
    assert error_of(text) == (
        "in.yaml, document 1, Deployment a/d: spec.replicas: the workloads expand to more than 150,000 pods: "
        "Kubernetes' own envelope is 150,000 pods per cluster, and placing and analysing more takes minutes; "
        "--max-pods N lifts this bound"
    )
    with pytest.raises(InputError, match="more than 10 pods"):
        load_text(dump(deployment({"replicas": 11})), max_pods=10)


def test_ten_thousand_replicas_give_ten_thousand_distinct_pods() -> None:
    c = expand_workloads(load_text(dump(deployment({"replicas": 10_000}))))
    assert len({p.key for p in c.pods}) == 10_000
    assert not [w for w in c.warnings if w.code == "duplicate"]


def test_generated_names_avoid_names_already_taken() -> None:
    c = expand_workloads(load_text(dump(deployment({"replicas": 3}))))
    taken = c.pods[0].name
    c2 = expand_workloads(load_text(dump(pod("a", taken), deployment({"replicas": 3}))))
    assert len({p.key for p in c2.pods}) == 4 and not [w for w in c2.warnings if w.code == "duplicate"]


# ------------------------------------------------------------------------------ issue 10 items 4 and 5


def test_empty_stdin_is_exit_2_no_kubernetes_objects() -> None:
    r = run_cli("matrix", "-", stdin="")
    assert r.returncode == 2
    assert r.stderr == "error: no Kubernetes objects read from <stdin>\n"


def test_an_empty_folder_and_a_folder_of_unrelated_files_are_exit_2(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    write(tmp_path / "docs" / "README.md", "# not a manifest\n")
    for folder in ("empty", "docs"):
        r = run_cli("audit", str(tmp_path / folder))
        assert r.returncode == 2
        assert r.stderr == f"error: no Kubernetes objects read from {tmp_path / folder}\n"


def test_strict_does_not_fail_on_inert_kinds_but_does_on_unevaluated_policies(tmp_path: Path) -> None:
    inert = [
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "s", "namespace": "a"}},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "a"}},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "d", "namespace": "a"}},
    ]
    f = write(tmp_path / "app" / "a.yaml", dump(namespace("a"), pod("a", "x"), *inert))
    r = run_cli("matrix", "--strict", str(f))
    assert r.returncode == 0, r.stderr
    assert r.stderr == (
        # ServiceAccounts are read (Calico's serviceAccounts.selector selects on their labels), not ignored
        "warning: ignored: 2 objects of kinds that do not affect connectivity (ConfigMap ×2)\n"
    )
    istio = {
        "apiVersion": "security.istio.io/v1",
        "kind": "AuthorizationPolicy",
        "metadata": {"name": "c", "namespace": "a"},
    }
    g = write(tmp_path / "app" / "istio.yaml", dump(istio))
    r = run_cli("matrix", str(f), str(g))
    assert r.returncode == 0
    assert "AuthorizationPolicy (security.istio.io/v1) is an Istio policy, which netpol does not evaluate" in r.stderr
    r = run_cli("matrix", "--strict", str(f), str(g))
    assert r.returncode == 2 and "AuthorizationPolicy" in r.stderr


def test_quiet_silences_warnings(tmp_path: Path) -> None:
    f = write(
        tmp_path / "a.yaml", dump(pod("a", "x"), {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}})
    )
    r = run_cli("matrix", "-q", str(f))
    assert r.returncode == 0 and r.stderr == ""


def test_json_input_reads_like_yaml_and_reports_duplicate_keys(tmp_path: Path) -> None:
    f = write(tmp_path / "p.json", json.dumps(pod("a", "x", {"app": "x"})))
    assert [p.key for p in load_paths([str(f)]).pods] == ["a/x"]
    g = write(tmp_path / "q.json", '{"kind": "Pod", "metadata": {"name": "x", "name": "y"}}')
    with pytest.raises(InputError, match='duplicate field "metadata.name"'):
        load_paths([str(g)])


def test_analysis_of_a_clean_input_is_unchanged_by_strict_reading() -> None:
    a = analyze(load_text(dump(namespace("a"), pod("a", "x", {"app": "x"}))), None)
    assert [p.key for p in a.cluster.pods] == ["a/x"]


def test_an_input_of_only_unrelated_kinds_is_exit_2_for_audit_and_matrix(tmp_path: Path) -> None:
    """Issue 25 item 13: only ConfigMaps (or Namespaces, Services) is no cluster to answer about. Like empty
    input it must not pass a CI gate with "no findings": exit 2 naming the path and what was read."""
    f = write(
        tmp_path / "cm.yaml",
        dump(
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "a"}},
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "d", "namespace": "a"}},
            namespace("a"),
        ),
    )
    for command in (["audit", "--fail-on", "low"], ["matrix"]):
        r = run_cli(*command, str(f))
        assert r.returncode == 2, r.stdout
        assert (
            f"error: no pods, workloads, policies or nodes read from {f} (only ConfigMap ×2, Namespace ×1): "
            "nothing to analyse"
        ) in r.stderr
        assert "no findings" not in r.stdout


def test_policies_without_pods_still_audit(tmp_path: Path) -> None:
    """A folder of policies alone is something to audit (NP010: a policy that selects no pod)."""
    pol = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": "p", "namespace": "a"},
        "spec": {"podSelector": {}},
    }
    r = run_cli("audit", write(tmp_path / "p.yaml", dump(namespace("a"), pol)))
    assert r.returncode == 0 and "NP010" in r.stdout


# ------------------------------------------------------------------------------ issue 25, bad input


def test_a_million_replicas_on_three_nodes_is_refused_up_front_naming_the_option(tmp_path: Path) -> None:
    """`replicas: 1000000` with 3 Nodes took `schedule` over 60 s and 1.4 GiB: the default bound is Kubernetes'
    envelope (150,000 pods per cluster, kubernetes.io/docs/setup/best-practices/cluster-large/), checked before
    any pod is made, and the error names the option that lifts it."""
    nodes = [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}"}, "status": {"allocatable": {"pods": "110"}}}
        for i in range(3)
    ]
    f = write(tmp_path / "big.yaml", dump(*nodes, deployment({"replicas": 1_000_000})))
    r = run_cli("schedule", str(f))
    assert r.returncode == 2
    assert "Deployment a/d: spec.replicas: the workloads expand to more than 150,000 pods" in r.stderr
    assert "--max-pods N lifts this bound" in r.stderr


def test_explicit_pods_over_the_bound_are_refused_too(tmp_path: Path) -> None:
    """The bound counted only workload expansions: 600k Pod objects went through. Counted as they are read."""
    f = write(tmp_path / "pods.yaml", dump(*(pod("a", f"p{i}") for i in range(6))))
    r = run_cli("matrix", str(f), "--max-pods", "5")
    assert r.returncode == 2
    assert f"{f}, document 6, Pod a/p5: the input holds more than 5 pods" in r.stderr
    assert run_cli("matrix", str(f), "--max-pods", "6").returncode == 0


def test_the_cli_default_bound_is_the_loaders() -> None:
    from netpol.commands.context import DEFAULT_MAX_PODS as CLI
    from netpol.loading.cluster import DEFAULT_MAX_PODS as LOADER

    assert CLI == LOADER == 150_000


def test_pods_without_an_address_are_one_warning_with_the_count(tmp_path: Path) -> None:
    """10^5 replicas without Nodes printed 34,467 identical "no free pod IP" lines. By hand: --cluster-cidr
    10.9.0.0/24 holds 256 addresses; without the network and broadcast addresses 254 hosts, and host-local IPAM
    keeps the first for the node's bridge, so 253 pods get one; of 300 replicas 47 get none."""
    f = write(tmp_path / "d.yaml", dump(deployment({"replicas": 300})))
    r = run_cli("matrix", str(f), "--cluster-cidr", "10.9.0.0/24", "--node-cidr-mask-size", "24", "-o", "json")
    lines = [line for line in r.stderr.splitlines() if "no free pod IP" in line]
    assert len(lines) == 1, r.stderr
    assert "no free pod IP for 47 pods (a/d-" in lines[0]
    assert lines[0].endswith(
        "and 44 more): the cluster's pod range (--cluster-cidr) 10.9.0.0/24 is full; they have no address"
    )


def test_a_file_over_the_size_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    """A 300 MB file was read whole (256 MiB) before the limit refused it: the size is checked first. A sparse
    file costs no disk; the child's own count of bytes read (/proc/self/io `rchar`, at exit) shows whether it
    was read: its modules are a few MB, a read of the file 256 MiB."""
    import subprocess
    import sys

    big = tmp_path / "big.yaml"
    with big.open("wb") as fh:
        fh.truncate(300_000_000)
    driver = (
        "import atexit, sys\n"
        "atexit.register(lambda: sys.stdout.write(open('/proc/self/io').read()))\n"
        "from netpol.cli import main\n"
        f"sys.exit(main(['matrix', {str(big)!r}]))\n"
    )
    r = subprocess.run([sys.executable, "-c", driver], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2
    assert f"error: {big}: 300,000,000 bytes, larger than 268,435,456; not read" in r.stderr
    io = dict(line.split(": ") for line in r.stdout.splitlines())
    assert int(io["rchar"]) < 64 * 2**20, io["rchar"]


def test_a_million_digit_quantity_is_said_to_be_too_long(tmp_path: Path) -> None:
    """It matches the quantity pattern; what is wrong is its length (a Quantity holds at most 2^63-1)."""
    f = write(
        tmp_path / "q.yaml",
        dump(pod("a", "x", containers=[{"name": "c", "resources": {"requests": {"cpu": "9" * 10**6}}}])),
    )
    r = run_cli("matrix", str(f))
    assert r.returncode == 2
    assert "spec.containers[0].resources.requests[cpu]: Invalid value: " in r.stderr
    assert "a quantity of 1,000,000 characters is too long (at most 64" in r.stderr
    assert "regular expression" not in r.stderr and len(r.stderr) < 1000  # the value itself is not echoed whole


def test_an_uppercase_manifest_suffix_in_a_folder_is_skipped_with_a_warning(tmp_path: Path) -> None:
    """`kubectl apply -f FOLDER` compares the extension exactly (cli-runtime pkg/resource/visitor.go ignoreFile:
    `.json`, `.yaml`, `.yml`), so web.YAML is not applied and is not read here either; it was skipped in silence.
    Named on the command line it is read, as kubectl reads a file given by name."""
    write(tmp_path / "app" / "a.yaml", dump(namespace("a"), pod("a", "x")))
    write(tmp_path / "app" / "B.YAML", dump(pod("a", "y")))
    write(tmp_path / "app" / "c.Yml", dump(pod("a", "z")))
    r = run_cli("matrix", str(tmp_path / "app"))
    assert r.returncode == 0 and "a/y" not in r.stdout
    for name in ("B.YAML", "c.Yml"):
        assert f"warning: {tmp_path / 'app' / name}: its suffix is not .yaml, .yml or .json in lowercase" in r.stderr
    named = run_cli("matrix", str(tmp_path / "app" / "a.yaml"), str(tmp_path / "app" / "B.YAML"))
    assert named.returncode == 0 and "a/y" in named.stdout
