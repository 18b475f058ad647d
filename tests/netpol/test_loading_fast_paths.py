"""The shortcuts that make loading 100,000 pods fast give exactly what the plain code gave (issue 9).

Each fast path is checked against the slow one it replaces: `evolve` against `dataclasses.replace`, IPv4
host spelling against netaddr's `iter_hosts`, the typed accessors' fast paths against their general paths
(errors included), shared workload labels against one Labels per pod; and the paused garbage collector
is always restored.
"""

from __future__ import annotations

import dataclasses
import gc
import itertools

import netaddr
import pytest

from netpol.errors import InputError, SourceRef
from netpol.gcpause import gc_paused
from netpol.ipam import _host_strings
from netpol.loading import typed as t
from netpol.manifests import load_text
from netpol.model.evolve import evolve
from netpol.model.labels import Labels
from netpol.model.objects import OwnerRef, Pod
from netpol.workloads import expand_workloads

SRC = SourceRef("in.yaml", 0, "Pod", "a", "p")


def test_evolve_equals_dataclasses_replace_for_every_field_of_a_pod() -> None:
    base = Pod("a", "p", Labels({"x": "1"}), node_name="n1", priority=3, owner=OwnerRef("ReplicaSet", "r"))
    fresh = Pod("b", "q", Labels({"y": "2"}), host_network=True, phase="Running", order=7, mirror=True)
    for f in dataclasses.fields(Pod):
        value = getattr(fresh, f.name)
        got = evolve(base, **{f.name: value})
        assert got == dataclasses.replace(base, **{f.name: value})
        assert type(got) is Pod
    assert evolve(base) == base and evolve(base) is not base
    assert evolve(base, name="z", pod_ips=("10.0.0.2",)) == dataclasses.replace(base, name="z", pod_ips=("10.0.0.2",))


def test_evolve_refuses_what_replace_refuses_and_classes_it_cannot_copy_by_position() -> None:
    with pytest.raises(TypeError, match="no field 'nmae'"):
        evolve(Pod("a", "p"), nmae="x")

    @dataclasses.dataclass(frozen=True)
    class Derived:
        a: int
        b: int = dataclasses.field(init=False, default=0)

    with pytest.raises(TypeError, match="init fields only"):
        evolve(Derived(1), a=2)


@pytest.mark.parametrize(
    "cidr",
    ["10.244.0.0/24", "10.0.0.0/30", "10.0.0.0/31", "10.0.0.0/32", "10.1.2.3/30", "192.168.254.0/23", "0.0.0.0/28",
     "255.255.255.0/24", "fd00:10:244::/120", "::ffff:0:0/120", "fd00::/127"],
)  # fmt: skip
def test_ipv4_hosts_are_spelt_as_netaddr_spells_them(cidr: str) -> None:
    block = netaddr.IPNetwork(cidr)
    assert list(_host_strings(block)) == [str(ip) for ip in block.iter_hosts()]


def test_ipv4_hosts_of_a_large_range_start_and_end_where_netaddr_does() -> None:
    block = netaddr.IPNetwork("10.128.0.0/14")
    got = _host_strings(block)
    assert list(itertools.islice(got, 300)) == [str(ip) for ip in itertools.islice(block.iter_hosts(), 300)]
    assert list(_host_strings(block))[-1] == "10.131.255.254"


def test_the_garbage_collector_is_paused_inside_and_restored_after_even_on_error() -> None:
    assert gc.isenabled()

    @gc_paused()
    def inner() -> bool:
        with gc_paused():
            pass
        return gc.isenabled()

    assert inner() is False and gc.isenabled()
    with pytest.raises(ValueError), gc_paused():
        raise ValueError
    assert gc.isenabled()
    gc.disable()
    try:
        inner()
        assert not gc.isenabled()  # it was off: left off
    finally:
        gc.enable()


def test_string_map_fast_path_reads_as_the_general_one() -> None:
    assert t.string_map({"a": "1", "b": ""}, SRC, "metadata.labels") == {"a": "1", "b": ""}
    assert t.string_map({"a": None, "b": "x"}, SRC, "metadata.labels") == {"a": "", "b": "x"}
    assert t.string_map(Labels({"a": "1"}), SRC, "metadata.labels") == {"a": "1"}
    out_of = {"a": "1"}
    assert t.string_map(out_of, SRC, "m") is not out_of  # a copy, as before
    with pytest.raises(InputError, match=r"metadata.labels\[b\]: Invalid value: 1: must be a string, got integer"):
        t.string_map({"a": "1", "b": 1}, SRC, "metadata.labels")
    with pytest.raises(InputError, match="must be a string key, got integer"):
        t.string_map({1: "a"}, SRC, "metadata.labels")


def test_labels_remembered_as_valid_never_hide_an_invalid_one() -> None:
    good = {"app": "web", "tier": "front"}
    assert t.labels(good, SRC, "metadata.labels") == good
    assert t.labels(good, SRC, "metadata.labels") == good
    with pytest.raises(InputError, match=r"metadata.labels\[tier\]: Invalid value: \"-bad\""):
        t.labels({"app": "web", "tier": "-bad"}, SRC, "metadata.labels")
    with pytest.raises(InputError, match='metadata.labels: Invalid value: "a/b/c"'):
        t.labels({"app": "web", "a/b/c": "web"}, SRC, "metadata.labels")


def test_object_and_field_checks_read_as_before() -> None:
    assert t.obj(None, SRC, "spec") == {} and t.obj(Labels({"a": "b"}), SRC, "spec") == {"a": "b"}
    with pytest.raises(InputError, match="spec: Invalid value: an array: must be an object, got array"):
        t.obj([], SRC, "spec")
    assert t.objs([{"a": 1}, None], SRC, "items") == [({"a": 1}, "items[0]"), ({}, "items[1]")]
    with pytest.raises(InputError, match=r"items\[1\]: Invalid value: 3: must be an object, got integer"):
        t.objs([{}, 3], SRC, "items")
    t.check_fields({"a": 1}, frozenset({"a", "b"}), SRC, "spec")
    findings = t.Findings()
    t.check_fields({"a": 1, "c": 2}, frozenset({"a", "b"}), SRC, "spec", findings)
    assert [m for _, m, _ in findings.items] == ['unknown field "spec.c"']
    with pytest.raises(InputError, match='unknown field "spec.c"'):
        t.check_fields({"c": 2}, frozenset({"a", "b", "d"}), SRC, "spec")
    assert t.string("x", SRC, "f") == "x" and t.string(None, SRC, "f", "d") == "d"


def test_a_workloads_pods_share_one_labels_object_equal_to_their_own() -> None:
    text = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: a}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx}]}
"""
    pods = expand_workloads(load_text(text)).pods
    assert len(pods) == 3
    assert all(p.labels is pods[0].labels for p in pods)
    h = pods[0].labels["pod-template-hash"]
    assert pods[0].labels == Labels({"app": "web", "pod-template-hash": h})


def test_quantities_read_once_read_the_same_and_errors_are_never_remembered() -> None:
    from netpol.model.quantity import to_units

    for _ in range(2):
        assert to_units("cpu", "100m") == 100 and to_units("memory", "1Gi") == 2**30
        assert to_units("cpu", 1) == 1000 and to_units("cpu", 1.5) == 1500
        with pytest.raises(ValueError, match="got a boolean"):
            to_units("cpu", True)  # equal to 1 as a key, and still refused
        with pytest.raises(ValueError, match="greater than or equal to 0"):
            to_units("cpu", "-1")
    assert to_units("cpu", "1") == 1000 and to_units("memory", "1") == 1
