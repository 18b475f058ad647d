"""Issue 16: unknown fields in every nested type netpol reads, as kubectl's strict field validation reports them.

The field names are facts from the upstream Go types (k8s.io/api core/v1, apps/v1, batch/v1, networking/v1,
policy/v1, scheduling/v1 types.go; apimachinery meta/v1 types.go), kept in netpol/loading/apitypes.py, one
struct a line. Each parametrised case below is named after the upstream type it checks (`core/v1.Probe`):
every type is reachable from a kind netpol reads, its known fields pass, and a stray key in it is reported
with its full field path. Outside the parts that decide reachability the finding is a warning, and
`--strict` makes it an error (kubectl: strict field validation, KEP-2885).
"""

from __future__ import annotations

from collections import deque
from typing import Any

import pytest
import yaml

from netpol.errors import InputError, SourceRef
from netpol.loading import schema
from netpol.loading import typed as t
from netpol.manifests import load_text
from tests.helpers import run_cli

SAMPLE = {
    "": "x",
    "i": 1,
    "b": True,
    "t": "2026-01-01T00:00:00Z",
    "q": "1",
    "n": 80,
    "r": {"cpu": "1"},
    "m": {"a": "b"},
    "S": ["x"],
    "I": [1],
    "*": {},
}


def _paths() -> dict[str, tuple[str, str]]:
    """For every type, the shortest route from a root kind: (root, dotted path with [0] for arrays)."""
    seen: dict[str, tuple[str, str]] = {}
    queue = deque((root, root, "") for root in schema.ROOTS)
    while queue:
        name, root, path = queue.popleft()
        if name in seen:
            continue
        seen[name] = (root, path)
        for key, code in schema.TYPES[name].fields.items():
            child = code.removeprefix("[]").removeprefix("{}")
            if child in schema.TYPES:
                step = {"[]": "[0]", "{}": "[k]"}.get(code[:2], "")
                queue.append((child, root, f"{path}.{key}{step}" if path else f"{key}{step}"))
    return seen


PATHS = _paths()


def _nest(path: str, leaf: dict[str, Any]) -> dict[str, Any]:
    """The object with `leaf` placed at `path` (`a.b[0].c[k]`)."""
    value: Any = leaf
    for part in reversed(path.split(".")) if path else ():
        name, _, rest = part.partition("[")
        if rest == "0]":
            value = [value]
        elif rest == "k]":
            value = {"k": value}
        value = {name: value}
    return value


def _sample(code: str) -> Any:
    if code in SAMPLE:
        return SAMPLE[code]
    if code.startswith("[]"):
        return [{}]
    if code.startswith("{}"):
        return {"k": {}}
    return {}


def _findings(obj: dict[str, Any], root: str) -> list[str]:
    found = t.Findings()
    schema.check(obj, root, SourceRef(), "", found)
    return [message for _, message, _ in found.items]


def test_every_type_is_reachable_from_a_kind_netpol_reads() -> None:
    assert set(PATHS) == set(schema.TYPES)


@pytest.mark.parametrize("name", sorted(schema.TYPES), ids=lambda n: f"{schema.TYPES[n].upstream}.{n}")
def test_known_fields_pass_and_a_stray_one_is_named_with_its_full_path(name: str) -> None:
    root, path = PATHS[name]
    every = {key: _sample(code) for key, code in schema.TYPES[name].fields.items()}
    assert _findings(_nest(path, every), root) == []
    stray = _findings(_nest(path, {"zzStray": 1}), root)
    full = f"{path}.zzStray" if path else "zzStray"
    assert stray == [f'unknown field "{full}"']


@pytest.mark.parametrize(
    ("code", "value", "expected"),
    [
        ("i", "ten", 'Invalid value: "ten": must be an integer, got string'),
        ("b", "false", 'Invalid value: "false": must be a boolean, got string'),
        ("", 1, "Invalid value: 1: must be a string, got integer"),
        ("S", "x", 'Invalid value: "x": must be an array, got string'),
        ("m", [], "Invalid value: an array: must be an object, got array"),
    ],
)
def test_a_wrongly_typed_value_is_named_as_the_decoder_would(code: str, value: Any, expected: str) -> None:
    """A JSON value that encoding/json cannot unmarshal into the Go field (kubectl refuses the object)."""
    key = {
        "i": "initialDelaySeconds",
        "b": "privileged",
        "": "image",
        "S": "command",
        "m": "nodeSelector",
    }[code]
    if code == "b":
        obj = {"spec": {"containers": [{"securityContext": {key: value}}]}}
        path = "spec.containers[0].securityContext." + key
    elif code == "m":
        obj, path = {"spec": {key: value}}, "spec." + key
    elif code == "i":
        obj = {"spec": {"containers": [{"livenessProbe": {key: value}}]}}
        path = "spec.containers[0].livenessProbe." + key
    else:
        obj, path = {"spec": {"containers": [{key: value}]}}, f"spec.containers[0].{key}"
    assert _findings(obj, "Pod") == [f"{path}: {expected}"]


def test_the_upstream_facts_the_table_holds() -> None:
    """Spot checks against core/v1 types.go: VolumeSource's 30 sources, Probe's handler inlined, the odd
    capitalised `Port` of DaemonEndpoint, Container and EphemeralContainer (its extra targetContainerName)."""
    volume = schema.fields("Volume") - {"name"}
    assert volume == {
        "hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "secret", "nfs", "iscsi",
        "glusterfs", "persistentVolumeClaim", "rbd", "flexVolume", "cinder", "cephfs", "flocker", "downwardAPI",
        "fc", "azureFile", "configMap", "vsphereVolume", "quobyte", "azureDisk", "photonPersistentDisk",
        "projected", "portworxVolume", "scaleIO", "storageos", "csi", "ephemeral", "image",
    }  # fmt: skip
    assert {"exec", "httpGet", "tcpSocket", "grpc", "terminationGracePeriodSeconds"} <= schema.fields("Probe")
    assert schema.fields("DaemonEndpoint") == {"Port"}
    assert schema.fields("EphemeralContainer") - schema.fields("Container") == {"targetContainerName"}
    assert schema.fields("LifecycleHandler") == {"exec", "httpGet", "tcpSocket", "sleep"}


POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"}}
NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}
DEPLOY = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "d", "namespace": "default"},
    "spec": {
        "selector": {"matchLabels": {"app": "d"}},
        "template": {"metadata": {"labels": {"app": "d"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}},
    },
}


def _pod(**spec: Any) -> dict[str, Any]:
    base = {"containers": [{"name": "c", "image": "i"}]}
    base.update(spec)
    return {**POD, "spec": base}


def _container(**fields: Any) -> dict[str, Any]:
    return _pod(containers=[{"name": "c", "image": "i", **fields}])


def _with(obj: dict[str, Any], path: tuple[str, ...], value: Any) -> dict[str, Any]:
    import copy

    out = copy.deepcopy(obj)
    cur = out
    for key in path[:-1]:
        cur = cur.setdefault(key, {})
    cur[path[-1]] = value
    return out


# (what, object, the unknown field's full path): the places issue 16 lists as unchecked, each with a stray key.
PLACES = [
    ("probe httpGet", _container(readinessProbe={"httpGet": {"port": 80, "pth": "/"}}), "readinessProbe.httpGet.pth"),
    ("probe tcpSocket", _container(livenessProbe={"tcpSocket": {"prot": 80}}), "livenessProbe.tcpSocket.prot"),
    ("probe grpc", _container(startupProbe={"grpc": {"port": 9, "srvice": "x"}}), "startupProbe.grpc.srvice"),
    ("probe exec", _container(livenessProbe={"exec": {"cmd": ["true"]}}), "livenessProbe.exec.cmd"),
    ("env", _container(env=[{"name": "A", "vaule": "1"}]), "env[0].vaule"),
    ("envFrom", _container(envFrom=[{"configMapRef": {"nme": "c"}}]), "envFrom[0].configMapRef.nme"),
    (
        "valueFrom",
        _container(env=[{"name": "A", "valueFrom": {"fieldRef": {"fieldpath": "x"}}}]),
        "env[0].valueFrom.fieldRef.fieldpath",
    ),
    ("capabilities", _container(securityContext={"capabilities": {"ad": ["X"]}}), "securityContext.capabilities.ad"),
    (
        "seLinuxOptions",
        _container(securityContext={"seLinuxOptions": {"usr": "u"}}),
        "securityContext.seLinuxOptions.usr",
    ),
    ("lifecycle", _container(lifecycle={"preStop": {"sleep": {"second": 1}}}), "lifecycle.preStop.sleep.second"),
    ("volumeMounts", _container(volumeMounts=[{"name": "v", "mountpath": "/"}]), "volumeMounts[0].mountpath"),
    ("volumeDevices", _container(volumeDevices=[{"name": "v", "devicepath": "/"}]), "volumeDevices[0].devicepath"),
    ("resources.claims", _container(resources={"claims": [{"nam": "gpu"}]}), "resources.claims[0].nam"),
]
PLACES = [(what, obj, "spec.containers[0]." + path) for what, obj, path in PLACES] + [
    ("initContainers", _pod(initContainers=[{"name": "i", "imag": "x"}]), "spec.initContainers[0].imag"),
    ("ephemeralContainers", _pod(ephemeralContainers=[{"name": "e", "tty": True, "stdn": True}]), "spec.ephemeralContainers[0].stdn"),
    ("volume emptyDir", _pod(volumes=[{"name": "v", "emptyDir": {"sizeLimt": "1Gi"}}]), "spec.volumes[0].emptyDir.sizeLimt"),
    ("volume projected", _pod(volumes=[{"name": "v", "projected": {"sources": [{"secret": {"nam": "s"}}]}}]), "spec.volumes[0].projected.sources[0].secret.nam"),
    ("volume csi", _pod(volumes=[{"name": "v", "csi": {"drivr": "d"}}]), "spec.volumes[0].csi.drivr"),
    ("volume kind", _pod(volumes=[{"name": "v", "emptydir": {}}]), "spec.volumes[0].emptydir"),
    ("pod securityContext seccomp", _pod(securityContext={"seccompProfile": {"typ": "RuntimeDefault"}}), "spec.securityContext.seccompProfile.typ"),
    ("pod securityContext appArmor", _pod(securityContext={"appArmorProfile": {"typ": "Unconfined"}}), "spec.securityContext.appArmorProfile.typ"),
    ("deployment strategy", _with(DEPLOY, ("spec", "strategy"), {"rollingUpdate": {"maxSurg": 1}}), "spec.strategy.rollingUpdate.maxSurg"),
    ("statefulset updateStrategy", {**_with(DEPLOY, ("spec", "updateStrategy"), {"tpe": "OnDelete"}), "kind": "StatefulSet"}, "spec.updateStrategy.tpe"),
    ("volumeClaimTemplates", {**_with(DEPLOY, ("spec", "volumeClaimTemplates"), [{"spec": {"acessModes": []}}]), "kind": "StatefulSet"}, "spec.volumeClaimTemplates[0].spec.acessModes"),
    ("daemonset updateStrategy", {**_with(DEPLOY, ("spec", "updateStrategy"), {"rollingUpdate": {"maxUnavailabe": 1}}), "kind": "DaemonSet"}, "spec.updateStrategy.rollingUpdate.maxUnavailabe"),
    ("job spec", {**_with(DEPLOY, ("spec", "backofLimit"), 3), "kind": "Job", "apiVersion": "batch/v1"}, "spec.backofLimit"),
    ("job podFailurePolicy", {**_with(DEPLOY, ("spec", "podFailurePolicy"), {"rules": [{"actoin": "Ignore"}]}), "kind": "Job", "apiVersion": "batch/v1"}, "spec.podFailurePolicy.rules[0].actoin"),
    ("cronjob spec", {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "c", "namespace": "default"}, "spec": {"shedule": "* * * * *", "jobTemplate": {"spec": DEPLOY["spec"]}}}, "spec.shedule"),
    ("node addresses", _with(NODE, ("status", "addresses"), [{"type": "InternalIP", "address": "10.0.0.1", "adress": "x"}]), "status.addresses[0].adress"),
    ("node allocatable", _with(NODE, ("status", "allocatble"), {"cpu": "1"}), "status.allocatble"),
    ("node conditions", _with(NODE, ("status", "conditions"), [{"type": "Ready", "status": "True", "reson": "x"}]), "status.conditions[0].reson"),
    ("node images", _with(NODE, ("status", "images"), [{"names": ["i"], "sizebytes": 1}]), "status.images[0].sizebytes"),
    ("service status", {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s", "namespace": "default"}, "spec": {"ports": [{"port": 80}]}, "status": {"loadBalancer": {"ingres": []}}}, "status.loadBalancer.ingres"),
    ("priorityclass", {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "hi"}, "value": 10, "descripton": "x"}, "descripton"),
    ("namespace", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}, "spec": {"finalisers": []}}, "spec.finalisers"),
    ("pdb", {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "b", "namespace": "default"}, "spec": {"minAvailable": 1, "unhealthyPodEvictionPolicies": "x"}}, "spec.unhealthyPodEvictionPolicies"),
]  # fmt: skip


@pytest.mark.parametrize(("obj", "path"), [(o, p) for _, o, p in PLACES], ids=[w for w, _, _ in PLACES])
def test_a_stray_key_in_every_nested_type_is_a_warning_naming_its_path(obj: dict[str, Any], path: str) -> None:
    cluster = load_text(yaml.safe_dump(obj), "in.yaml")
    unknown = [w.message for w in cluster.warnings if w.code == "unknown-field"]
    assert len(unknown) == 1 and unknown[0].startswith(f'unknown field "{path}"'), unknown


def test_strict_makes_a_nested_unknown_field_an_error(tmp_path: Any) -> None:
    path = tmp_path / "pod.yaml"
    path.write_text(yaml.safe_dump(_container(readinessProbe={"httpGet": {"port": 80, "pth": "/"}})))
    warned = run_cli("matrix", str(path))
    assert warned.returncode == 0
    message = "unknown field \"spec.containers[0].readinessProbe.httpGet.pth\" (did you mean 'path'?)"
    assert f"warning: {path}, document 1, Pod default/p: {message}" in warned.stderr
    strict = run_cli("matrix", "--strict", str(path))
    assert strict.returncode == 2
    assert strict.stderr.strip() == f"error: {path}, document 1, Pod default/p: {message} (--strict)"


def test_match_expression_values_are_label_values() -> None:
    """metav1validation.ValidateLabelSelectorRequirement checks each value with IsValidLabelValue."""
    text = yaml.safe_dump(
        {
            "apiVersion": "networking.k8s.io/v1",
            "kind": "NetworkPolicy",
            "metadata": {"name": "p", "namespace": "a"},
            "spec": {"podSelector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["ok", "a b"]}]}},
        }
    )
    with pytest.raises(InputError) as info:
        load_text(text, "in.yaml")
    assert str(info.value) == (
        'in.yaml, document 1, NetworkPolicy a/p: spec.podSelector.matchExpressions[0].values[1]: Invalid value: "a b": '
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
        "start and end with an alphanumeric character"
    )


# ---------------------------------------------------------------------------------------------------------------
# The walk's fast paths (a value of an exact type its code always accepts, maps and arrays of strings checked in
# C) report exactly what the type codes define. The reference below is that definition written plainly, one
# value at a time (netpol/loading/schema.py's module docstring: none = string, `i` integer (an integral float
# too: encoding/json decodes 3.0 into an int), `b` boolean, `t` timestamp (a string or a YAML date), `q`
# quantity (string or number), `n` int-or-string, `m` map of strings, `r` map of quantities, `S`/`I` arrays of
# strings/integers, `*` anything, `X`/`[]X`/`{}X` an object, an array, a map of X; null is unset everywhere).


def _expected(code: str) -> str | None:
    """What a scalar code wants, worded as the decoder words it (None: not a scalar code)."""
    return {
        "": "a string",
        "i": "an integer",
        "b": "a boolean",
        "t": "a timestamp",
        "q": "a quantity",
        "n": "an integer or a string",
    }.get(code)


def _scalar_ok(code: str, v: Any) -> bool:
    import datetime

    is_int = isinstance(v, int) and not isinstance(v, bool)
    if code == "":
        return isinstance(v, str)
    if code == "i":
        return is_int or (isinstance(v, float) and v.is_integer())
    if code == "b":
        return isinstance(v, bool)
    if code == "t":
        return isinstance(v, str | datetime.date)
    if code == "q":
        return isinstance(v, str | float) or is_int
    assert code == "n"
    return isinstance(v, str) or is_int


def _reference(value: Any, code: str, path: str, out: list[str]) -> None:
    if value is None or code == "*":
        return
    if _expected(code) is not None:
        if not _scalar_ok(code, value):
            out.append(f"{path}: Invalid value: {t.show(value)}: must be {_expected(code)}, got {t.type_name(value)}")
        return
    element = {"S": "", "I": "i", "m": "", "r": "q"}.get(code)
    if code.startswith("[]") or code in ("S", "I"):
        if not isinstance(value, list):
            out.append(f"{path}: Invalid value: {t.show(value)}: must be an array, got {t.type_name(value)}")
            return
        for i, item in enumerate(value):
            _reference(item, element if element is not None else code[2:], f"{path}[{i}]", out)
        return
    if code.startswith("{}") or code in ("m", "r"):
        if not isinstance(value, dict):
            out.append(f"{path}: Invalid value: {t.show(value)}: must be an object, got {t.type_name(value)}")
            return
        for k, item in value.items():
            _reference(item, element if element is not None else code[2:], f"{path}[{k}]", out)
        return
    if not isinstance(value, dict):
        out.append(f"{path}: Invalid value: {t.show(value)}: must be an object, got {t.type_name(value)}")
        return
    fields_ = schema.TYPES[code].fields
    for key, v in value.items():
        full = f"{path}.{key}" if path else str(key)
        if not isinstance(key, str) or key not in fields_:
            out.append(f'unknown field "{full}"')  # the walk adds a "did you mean" hint: compared by prefix
            continue
        _reference(v, fields_[key], full, out)


ODD_VALUES: list[Any] = [None, "x", "", 0, 7, -1, True, False, 1.0, 2.5, [], ["x"], [1], [None], {}, {"a": "b"},
                         {"a": 1}, {"a": None}]  # fmt: skip


def _random_object(rng: Any, code: str, depth: int) -> Any:
    """A value for a field of `code`: mostly of the right shape, sometimes an odd one, now and then a stray key."""
    import datetime

    if rng.random() < 0.15 or depth > 6:
        return rng.choice([*ODD_VALUES, datetime.date(2026, 1, 1)])
    if code in SAMPLE and code not in ("S", "I", "m", "r"):
        return rng.choice([SAMPLE[code], "s", 3, 3.0])
    if code in ("S", "I", "m", "r"):
        items = [rng.choice(["a", "b", 1, 2.0, None, True]) for _ in range(rng.randint(0, 3))]
        return items if code in ("S", "I") else {f"k{i}": v for i, v in enumerate(items)}
    if code == "*":
        return rng.choice(ODD_VALUES)
    inner = code.removeprefix("[]").removeprefix("{}")
    if code.startswith("[]"):
        return [_random_object(rng, inner, depth + 1) for _ in range(rng.randint(0, 2))]
    if code.startswith("{}"):
        return {f"k{i}": _random_object(rng, inner, depth + 1) for i in range(rng.randint(0, 2))}
    fields_ = schema.TYPES[code].fields
    keys = rng.sample(sorted(fields_), min(len(fields_), rng.randint(0, 6)))
    out: dict[Any, Any] = {k: _random_object(rng, fields_[k], depth + 1) for k in keys}
    if rng.random() < 0.1:
        out[rng.choice(["zzStray", 1, True])] = "x"
    return out


def test_the_walk_reports_what_the_type_codes_define_on_random_objects() -> None:
    import random

    rng = random.Random(16)
    checked = found = 0
    for _ in range(3000):
        root = rng.choice(schema.ROOTS)
        obj = _random_object(rng, root, 0)
        want: list[str] = []
        _reference(obj, root, "", want)
        got = _findings(obj, root) if isinstance(obj, dict) else None
        if got is None:
            continue
        assert len(got) == len(want), (obj, got, want)
        for g, w in zip(got, want, strict=True):
            assert g == w or (w.startswith("unknown field") and g.startswith(w)), (obj, got, want)
        checked += 1
        found += len(want)
    assert checked > 1000 and found > 1000  # the random objects do exercise the findings
