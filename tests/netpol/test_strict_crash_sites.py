"""Issue 16's crash sites and hangs that tests/netpol/test_strict_input.py does not pin: each with its input and
the exact message, through the CLI as a user meets it (subprocess, real files, a stand-in kubectl).

- quantities: resource.Quantity has no infinity or NaN (apimachinery pkg/api/resource/quantity.go parses a
  number, never `inf`); values beyond int64 are capped at 2^63-1 here, and the scheduler's int64 sums of
  them saturate instead of wrapping (kube-scheduler keeps requests and allocatable in int64,
  pkg/scheduler/framework/types.go Resource);
- names: metadata.name is a DNS-1123 subdomain (apimachinery validation.IsDNS1123Subdomain), so a NUL is
  refused at reading, and a control character never reaches a terminal raw;
- bounded reading: the same reader (alias, depth, size, UTF-8 limits) for manifests, --expect files and
  kubectl's output.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from netpol.errors import InputError
from netpol.manifests import load_text
from tests.helpers import run_cli

DNS1123 = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character"
)


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def error_of(text: str) -> str:
    with pytest.raises(InputError) as info:
        load_text(text, "in.yaml")
    return str(info.value)


# --------------------------------------------------------------------------------------------- quantities


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (".inf", "Invalid value: inf: must be a finite quantity"),
        (
            "inf",
            "Invalid value: \"inf\": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        ),
    ],
    ids=["yaml-infinity", "word-inf"],
)
def test_an_infinite_quantity_is_refused_naming_the_field(value: str, message: str) -> None:
    text = f"kind: Pod\nmetadata: {{name: x}}\nspec: {{containers: [{{name: c, resources: {{requests: {{memory: {value}}}}}}}]}}\n"
    assert error_of(text) == f"in.yaml, document 1, Pod x: spec.containers[0].resources.requests[memory]: {message}"


def test_a_quantity_beyond_int64_is_capped() -> None:
    text = 'kind: Node\nmetadata: {name: n}\nstatus: {allocatable: {memory: "9223372036854775808", cpu: 1e999999}}\n'
    (node,) = load_text(text).nodes
    assert dict(node.allocatable) == {"memory": 2**63 - 1, "cpu": 2**63 - 1}


NODE_HUGE = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {"name": "huge", "labels": {"kubernetes.io/hostname": "huge"}},
    "status": {
        "allocatable": {"cpu": "1e999999", "memory": "1e999999", "pods": "110"},
        "images": [{"names": ["img:latest"], "sizeBytes": 2**63 - 1}],
    },
}
NODE_SMALL = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {"name": "small", "labels": {"kubernetes.io/hostname": "small"}},
    "status": {
        "allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
        "images": [
            {"names": ["img:latest"], "sizeBytes": 2**63 - 1},
            {"names": ["two:latest"], "sizeBytes": 2**63 - 1},
        ],
    },
}


def pod(name: str, requests: list[dict], node: str = "", running: bool = False, images: tuple = ("img",)) -> dict:
    spec: dict = {
        "containers": [
            {"name": f"c{i}", "image": images[i % len(images)], "resources": {"requests": r}}
            for i, r in enumerate(requests)
        ]
    }
    if node:
        spec["nodeName"] = node
    obj = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": spec}
    if running:
        obj["status"] = {"phase": "Running"}
    return obj


def test_running_pods_whose_requests_sum_beyond_int64_do_not_overflow_the_scheduler(tmp_path: Path) -> None:
    """Was `OverflowError: Python int too large to convert to C long` in scheduling/snapshot.py bind: two
    capped containers sum to 2^64-2. The sums saturate at 2^63-1, so the node is full and says so."""
    huge = {"memory": "1e999999"}
    f = write(
        tmp_path / "c.yaml",
        yaml.safe_dump_all(
            [
                NODE_HUGE,
                pod("run1", [huge, huge], node="huge", running=True),
                pod("run2", [huge], node="huge", running=True),
                pod("late", [{"memory": "1Mi"}]),
            ]
        ),
    )
    r = run_cli("schedule", str(f))
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    (late,) = [line for line in r.stdout.splitlines() if line.startswith("default     late")]
    assert late.split(None, 5)[5] == (
        "0/1 nodes are available: 1 Insufficient memory. preemption: 0/1 nodes are available: "
        "1 No preemption victims found for incoming pod."
    )


def test_an_infinite_allocatable_scores_as_the_freest_node_not_an_overflow(tmp_path: Path) -> None:
    """NodeResourcesFit's LeastAllocated score, (allocatable - requested) * 100 / allocatable
    (noderesources/least_allocated.go), on a 2^63-1 allocatable was -1 (int64 overflow); it is 99 (all but
    the pod's share free). ImageLocality with 2^63-1-byte images reaches its threshold: 100
    (imagelocality/image_locality.go calculatePriority clamps the sum), where the overflow gave 0 or a crash."""
    f = write(
        tmp_path / "c.yaml",
        yaml.safe_dump_all(
            [NODE_HUGE, NODE_SMALL, pod("p", [{"cpu": "100m", "memory": "1Mi"}, {}], images=("img", "two"))]
        ),
    )
    r = run_cli("schedule", "--explain", "default/p", str(f))
    assert r.returncode == 0, r.stderr
    scores: dict[str, dict[str, str]] = {}
    node = ""
    for line in r.stdout.splitlines():
        words = line.split()
        if len(words) >= 3 and words[1] == "total":
            node = words[0]
            scores[node] = {}
        elif node and len(words) >= 2 and words[0][:1].isupper():
            scores[node][words[0]] = words[1]
    assert scores["huge"]["NodeResourcesFit"] == "99" and scores["huge"]["ImageLocality"] == "100"
    assert scores["small"]["ImageLocality"] == "100"


# ------------------------------------------------------------------------------------------------ names


def test_a_pod_named_with_a_nul_is_refused_and_the_message_escapes_it(tmp_path: Path) -> None:
    f = write(tmp_path / "nul.yaml", 'kind: Pod\nmetadata: {name: "a\\0b"}\n')
    r = run_cli("matrix", str(f))
    assert r.returncode == 2
    assert r.stderr == f'error: {f}, document 1, Pod a\\x00b: metadata.name: Invalid value: "a\\u0000b": {DNS1123}\n'


def test_an_escape_sequence_in_a_warning_never_reaches_the_terminal_raw(tmp_path: Path) -> None:
    f = write(
        tmp_path / "p.yaml",
        'kind: Pod\nmetadata: {name: p, namespace: default, annotations: {a: b}}\nspec: {containers: [{name: c, "\\e]52;x": 1}]}\n',
    )
    r = run_cli("matrix", str(f))
    assert r.returncode == 0
    assert f'warning: {f}, document 1, Pod default/p: unknown field "spec.containers[0].\\x1b]52;x"\n' in r.stderr
    assert "\x1b" not in r.stderr


def test_a_pdb_whose_spec_is_a_list_names_the_field() -> None:
    text = "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: b}\nspec: [1]\n"
    assert error_of(text) == (
        "in.yaml, document 1, PodDisruptionBudget b: spec: Invalid value: an array: must be an object, got array"
    )


def test_an_integer_of_more_than_4300_digits_names_the_line(tmp_path: Path) -> None:
    f = write(tmp_path / "big.yaml", "kind: Pod\nmetadata: {name: x}\nspec: {priority: " + "9" * 5000 + "}\n")
    r = run_cli("matrix", str(f))
    assert r.returncode == 2
    assert r.stderr == f"error: {f}: invalid YAML: line 3, column 18: integer 99999999999999999999… is too large\n"


# ----------------------------------------------------------------------------------------------- kubectl


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("not-executable", "Permission denied"),
        ("no-interpreter-line", "Exec format error"),
        ("folder", "Permission denied"),
    ],
)
def test_a_kubectl_that_cannot_be_run_is_one_line_naming_why(tmp_path: Path, mode: str, reason: str) -> None:
    """Was a PermissionError/OSError traceback (the issue's `--kubectl` crash site)."""
    target = tmp_path / "kubectl"
    if mode == "folder":
        target.mkdir()
    else:
        write(target, "plain text, not a program\n")
        target.chmod(0o644 if mode == "not-executable" else 0o755)
    r = run_cli("matrix", "--live", "--kubectl", str(target))
    assert r.returncode == 2
    assert r.stderr == f"error: --kubectl '{target}' cannot be run: {reason}\n"


def _fake_kubectl(tmp_path: Path, body: bytes) -> Path:
    """A kubectl that serves networking.k8s.io/v1 and answers every `get --raw` with `body`."""
    fake = write(
        tmp_path / "kubectl",
        f"#!{sys.executable}\nimport sys\nif 'api-versions' in sys.argv:\n"
        "    print('v1')\n    print('networking.k8s.io/v1')\n    sys.exit(0)\n"
        f"sys.stdout.buffer.write({body!r})\n",
    )
    fake.chmod(0o755)
    return fake


def test_non_utf8_bytes_in_kubectls_output_are_named_like_a_files(tmp_path: Path) -> None:
    fake = _fake_kubectl(tmp_path, b'{"kind":"List","items":[{"metadata":{"name":"\xff"}}]}')
    r = run_cli("matrix", "--live", "--kubectl", str(fake))
    assert r.returncode == 2
    assert r.stderr == (
        "error: <kubectl get --raw /api/v1/namespaces>: not UTF-8 text (byte 0xff at offset 45); "
        "Kubernetes manifests are UTF-8\n"
    )


def test_kubectls_output_nested_too_deep_is_the_readers_limit(tmp_path: Path) -> None:
    fake = _fake_kubectl(tmp_path, b'{"items": ' + b"[" * 5000 + b"]" * 5000 + b"}")
    r = run_cli("matrix", "--live", "--kubectl", str(fake))
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert r.stderr.startswith("error: kubectl get --raw /api/v1/namespaces: invalid JSON: ")
    assert r.stderr.rstrip().endswith("nesting deeper than 200 levels")


# -------------------------------------------------------------------------------------------------- --expect

BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
    for p, c in zip("abcdefgh", "bcdefghi", strict=True)
)
SEED = str(Path(__file__).resolve().parents[2] / "samples" / "seed-lab")


def test_non_utf8_bytes_in_an_expectations_file_are_named(tmp_path: Path) -> None:
    f = write(tmp_path / "e.yaml", b'expectations:\n  - {from: web/test, to: web/web1, expect: allow, name: "\xff"}\n')
    r = run_cli("check", "--expect", str(f), SEED)
    assert r.returncode == 2
    assert r.stderr == f"error: {f}: not UTF-8 text (byte 0xff at offset 71); Kubernetes manifests are UTF-8\n"


def test_an_alias_bomb_in_an_expectations_files_ports_is_refused_before_expanding(tmp_path: Path) -> None:
    f = write(
        tmp_path / "e.yaml",
        BOMB + "expectations:\n  - {from: web/test, to: web/web1, expect: allow, ports: *i}\n",
    )
    r = run_cli("check", "--expect", str(f), SEED)
    assert r.returncode == 2
    assert r.stderr == (
        f"error: {f}: invalid YAML: line 5, column 4: aliases expand to more than 100000 nodes (a YAML alias bomb?)\n"
    )


def test_a_port_that_is_not_a_number_or_a_name_in_an_expectations_file_names_it(tmp_path: Path) -> None:
    f = write(tmp_path / "e.yaml", "expectations:\n  - {from: web/test, to: web/web1, expect: allow, ports: [[80]]}\n")
    r = run_cli("check", "--expect", str(f), SEED)
    assert r.returncode == 2
    assert r.stderr == (
        f"error: {f}, document 1: expectations[0].ports[0]: a port is 80, 80/TCP, a name or {{port: 53, protocol: UDP}}; got array\n"
    )


def test_a_duplicated_key_in_an_expectations_file_is_an_error(tmp_path: Path) -> None:
    f = write(tmp_path / "e.yaml", "expectations:\n  - {from: web/test, to: web/web1, expect: allow, expect: deny}\n")
    r = run_cli("check", "--expect", str(f), SEED)
    assert r.returncode == 2
    assert r.stderr == f'error: {f}, document 1: duplicate field "expectations[0].expect"\n'


# ------------------------------------------------------------------------------------------------- hangs


@pytest.mark.parametrize(
    "where",
    ["spec: {containers: [{name: c, image: *i}]}", "spec: {nodeName: *i, containers: [{name: c}]}"],
    ids=["image", "nodeName"],
)
def test_an_alias_bomb_in_a_field_read_as_text_is_refused_before_expanding(tmp_path: Path, where: str) -> None:
    """The issue's hang: `image: *k` and `nodeName: *k` grew memory without limit through str()."""
    f = write(tmp_path / "bomb.yaml", BOMB + f"kind: Pod\nmetadata: {{name: p}}\n{where}\n")
    r = subprocess.run(
        [sys.executable, "-m", "netpol.cli", "matrix", str(f)], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 2
    assert r.stderr == (
        f"error: {f}: invalid YAML: line 5, column 4: aliases expand to more than 100000 nodes (a YAML alias bomb?)\n"
    )


def test_a_node_address_without_its_address_is_a_required_value() -> None:
    """Full fuzz run (seed 1, index 16570 on e0b21a6's corpus): the missing address was named as an invalid ""."""
    text = "kind: Node\nmetadata: {name: n1}\nstatus: {addresses: [{type: InternalIP}]}\n"
    assert error_of(text) == "in.yaml, document 1, Node n1: status.addresses[0].address: Required value"
