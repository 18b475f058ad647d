"""Alias amplification by bytes (issue 25, bad input): a small file whose YAML aliases repeat a large value
stands for an object the API server would refuse, and handing it on (orjson.dumps in the duplicate
fingerprint) took 4 GiB and a segfault. The reader bounds what an object expands to, as the API server bounds
what it accepts: 3 MiB per object (k8s.io/apiserver pkg/server/config.go MaxRequestBodyBytes) and 256 KiB of
annotations (apimachinery pkg/api/validation/objectmeta.go TotalAnnotationSizeLimitB). Exit 2 naming the file,
the object and the field; never a traceback, never gigabytes.

The CLI runs as a subprocess under an address-space limit of 2 GiB, so the unbounded reader fails these tests
(MemoryError or a crash) instead of taking the machine's memory."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import yaml

from tests.helpers import run_cli

MB = 1024 * 1024
AS_LIMIT = 2 * 1024 * MB


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (AS_LIMIT, AS_LIMIT))


def run_bounded(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "netpol.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_limited,  # noqa: PLW1509 - only the child, before exec
    )


def test_one_megabyte_annotation_aliased_5000_times_is_exit_2_naming_the_field(tmp_path: Path) -> None:
    """The issue's file: one 1 MB annotation value and 5,000 aliases of it (about 5 GB expanded)."""
    value = "x" * MB
    lines = ["apiVersion: v1", "kind: Pod", "metadata:", "  name: p", "  namespace: default", "  annotations:"]
    lines += [f"    a: &v {value}", *(f"    b{i}: *v" for i in range(5000))]
    lines += ["spec:", "  containers: [{name: c, image: nginx}]"]
    path = tmp_path / "bomb.yaml"
    path.write_text("\n".join(lines) + "\n")
    r = run_bounded("matrix", str(path))
    assert r.returncode == 2, (r.returncode, r.stderr[-500:])
    assert r.stderr.startswith(f"error: {path}, document 1, Pod default/p: metadata.annotations: expands to about ")
    assert "the API server refuses an object over 3 MiB" in r.stderr and "Traceback" not in r.stderr


def test_aliases_in_a_workloads_container_args_name_that_field(tmp_path: Path) -> None:
    """5,000 aliases of a 100 KB string in a Deployment's args: about 500 MB, under no annotation rule."""
    big = "y" * (100 * 1024)
    args = "[" + ", ".join(["&s " + big] + ["*s"] * 5000) + "]"
    text = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  replicas: 1\n"
        "  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n"
        f"      containers: [{{name: c, image: nginx, args: {args}}}]\n"
    )
    path = tmp_path / "deploy.yaml"
    path.write_text(text)
    r = run_bounded("schedule", str(path))
    assert r.returncode == 2, (r.returncode, r.stderr[-500:])
    assert f"{path}, document 1, Deployment shop/web: spec.template.spec.containers[0].args: expands to" in r.stderr


def test_annotations_over_256_kib_are_refused_without_aliases_too(tmp_path: Path) -> None:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "default", "annotations": {"a": "z" * (200 * 1024), "b": "z" * 70_000}},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
    }
    path = tmp_path / "pod.yaml"
    path.write_text(yaml.safe_dump(pod, width=10**9))
    r = run_cli("matrix", str(path))
    assert r.returncode == 2
    assert f"{path}, document 1, Pod default/p: metadata.annotations: annotations total more than " in r.stderr
    assert "the API server allows 262,144 (256 KiB) in all" in r.stderr


def test_an_object_over_the_request_limit_is_refused_without_aliases(tmp_path: Path) -> None:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "default"},
        "spec": {"containers": [{"name": "c", "image": "nginx", "args": ["w" * (3 * MB + 10)]}]},
    }
    path = tmp_path / "pod.yaml"
    path.write_text(yaml.safe_dump(pod, width=10**9))
    r = run_cli("matrix", str(path))
    assert r.returncode == 2
    assert f"{path}, document 1, Pod default/p: is 3.0 MiB as JSON; the API server refuses an object over 3 MiB" in (
        r.stderr
    )


def test_a_few_aliases_of_a_small_value_are_fine(tmp_path: Path) -> None:
    lines = ["apiVersion: v1", "kind: Pod", "metadata:", "  name: p", "  namespace: default", "  annotations:"]
    lines += [f"    a: &v {'q' * 1000}", *(f"    b{i}: *v" for i in range(100))]
    lines += ["spec:", "  containers: [{name: c, image: nginx}]"]
    path = tmp_path / "ok.yaml"
    path.write_text("\n".join(lines) + "\n")
    r = run_cli("matrix", str(path))
    assert r.returncode == 0, r.stderr
