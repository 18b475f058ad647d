"""Seed-lab variants: the lab's cluster plus one policy folder, through the real `netpol matrix` command.

Two kinds of test per variant (samples/seed-lab-variants/<NN-name>):
- the golden: stdout of `netpol matrix samples/seed-lab/cluster.yaml samples/seed-lab-variants/<NN-name>`
  equals expected.txt byte for byte (regenerate by hand: `python -m tests.netpol.regen_goldens`);
- the facts: what Kubernetes semantics say the variant must allow and deny, written down independently
  of the output so the golden is not self-fulfilling. Facts name pods and external ranges only, never
  pod IPs (which depend on scheduling).

The lab: namespaces web (web1 run=web1, web2 run=web2, test run=test) and cyh (test run=test); no
namespace labels but kubernetes.io/metadata.name; pod IPs come from 10.244.0.0/16 or the nodes' 10.224.x.0/24,
never from the lab network 10.1.8.0/24.
"""

from __future__ import annotations

import functools

import pytest

from tests.helpers import run_cli
from tests.netpol.regen_goldens import CLUSTER, ROOT, VARIANTS, variant_dirs

EVERYWHERE = "0.0.0.0-255.255.255.255"
PODS = ("cyh/test", "web/test", "web/web1", "web/web2")
ALL = "All Connections"


@functools.cache
def matrix(variant: str) -> tuple[int, str, str]:
    r = run_cli("matrix", str(CLUSTER), str(VARIANTS / variant), cwd=ROOT)
    return r.returncode, r.stdout, r.stderr


class Out:
    """The txt output as a map (src, dst) → connection text."""

    def __init__(self, variant: str) -> None:
        code, stdout, stderr = matrix(variant)
        assert code == 0, stderr
        self.conns: dict[tuple[str, str], str] = {}
        for line in stdout.splitlines():
            pair, conn = line.split(" : ", 1)
            src, dst = pair.split(" => ")
            self.conns[(src, dst)] = conn

    def conn(self, src: str, dst: str) -> str | None:
        """None when denied (not listed)."""
        return self.conns.get((src, dst))

    def sources_of(self, dst: str) -> set[str]:
        return {s for s, d in self.conns if d == dst}

    def destinations_of(self, src: str) -> set[str]:
        return {d for s, d in self.conns if s == src}

    def externals(self) -> set[str]:
        return {e for pair in self.conns for e in pair if "/" not in e}


def others(pod: str) -> set[str]:
    return set(PODS) - {pod}


VARIANT_NAMES = [p.name for p in variant_dirs()]


def test_every_variant_of_the_lab_is_present() -> None:
    assert [n[:2] for n in VARIANT_NAMES] == [f"{i:02d}" for i in range(1, 15)]
    for n in VARIANT_NAMES:
        assert (ROOT / VARIANTS / n / "policy.yaml").is_file()
        assert (ROOT / VARIANTS / n / "expected.txt").is_file()


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_variant_matrix_matches_golden(variant: str) -> None:
    code, stdout, stderr = matrix(variant)
    assert code == 0, stderr
    assert "Traceback" not in stderr
    assert stdout == (ROOT / VARIANTS / variant / "expected.txt").read_text()


# ---------------------------------------------------------------------------------------------- facts


def test_01_only_test_pods_of_web_reach_web1_on_tcp_80() -> None:
    o = Out("01-allow-from-test-pods")
    assert o.conn("web/test", "web/web1") == "TCP 80"
    assert o.conn("cyh/test", "web/web1") is None  # podSelector alone = the policy's namespace
    assert o.conn("web/web2", "web/web1") is None  # not run=test
    assert o.sources_of("web/web1") == {"web/test"}  # no ipBlock: nothing external either
    assert o.conn("web/web1", "web/web2") == ALL  # Ingress-only policy: web1's egress is open
    assert o.conn("cyh/test", "web/web2") == ALL  # web2 is not selected


def test_02_every_pod_of_web_reaches_web1_and_no_other_namespace() -> None:
    o = Out("02-allow-from-whole-namespace")
    assert o.conn("web/test", "web/web1") == "TCP 80"
    assert o.conn("web/web2", "web/web1") == "TCP 80"
    assert o.sources_of("web/web1") == {"web/test", "web/web2"}  # podSelector {} = own namespace only


def test_03_pods_of_the_labelled_namespace_reach_web1() -> None:
    code, _out, stderr = matrix("03-allow-from-labelled-namespace")
    assert code == 0
    assert "Namespace cyh" in stderr  # the variant's cyh redefines the lab's (duplicate warning)
    o = Out("03-allow-from-labelled-namespace")
    assert o.conn("cyh/test", "web/web1") == "TCP 80"  # cyh carries project=myproject
    assert o.sources_of("web/web1") == {"cyh/test"}  # web itself is not labelled


def test_04_every_namespace_reaches_web1_but_no_external_address() -> None:
    o = Out("04-allow-from-all-namespaces")
    assert all(o.conn(p, "web/web1") == "TCP 80" for p in others("web/web1"))
    assert o.sources_of("web/web1") == others("web/web1")  # namespaceSelector {} never matches IPs


def test_05_ipblock_admits_the_lab_network_minus_the_except() -> None:
    o = Out("05-ipblock-with-except")
    assert o.conn("10.1.8.0-10.1.8.127", "web/web1") == "TCP 80"
    assert o.conn("10.1.8.192-10.1.8.255", "web/web1") == "TCP 80"
    assert o.conn("10.1.8.128-10.1.8.191", "web/web1") is None  # except 10.1.8.128/26
    assert o.conn("0.0.0.0-10.1.7.255", "web/web1") is None
    assert o.conn("10.1.9.0-255.255.255.255", "web/web1") is None
    assert o.sources_of("web/web1") == {"10.1.8.0-10.1.8.127", "10.1.8.192-10.1.8.255"}  # no pod IP is in 10.1.8.0/24
    # the external ranges are exactly the partition the cidr and its except cut the space into
    assert o.externals() == {
        "0.0.0.0-10.1.7.255",
        "10.1.8.0-10.1.8.127",
        "10.1.8.128-10.1.8.191",
        "10.1.8.192-10.1.8.255",
        "10.1.9.0-255.255.255.255",
    }


def test_06_a_rule_without_ports_opens_every_port() -> None:
    o = Out("06-all-ports")
    assert o.conn("web/test", "web/web1") == ALL
    assert o.sources_of("web/web1") == {"web/test"}


def test_07_end_port_range_is_inclusive() -> None:
    o = Out("07-port-range")
    assert o.conn("web/test", "web/web1") == "TCP 32000-32768"
    assert o.sources_of("web/web1") == {"web/test"}


def test_08_whole_namespace_as_target_isolates_every_web_pod() -> None:
    o = Out("08-whole-namespace-as-target")
    assert o.conn("web/test", "web/web1") == "TCP 80"
    assert o.conn("web/test", "web/web2") == "TCP 80"
    assert o.sources_of("web/test") == set()  # selected too; run=test admits only itself (loopback, unlisted)
    assert o.sources_of("web/web1") == {"web/test"}
    assert o.sources_of("web/web2") == {"web/test"}
    assert o.conn("web/web1", "cyh/test") == ALL  # egress untouched
    assert o.conn("cyh/test", "web/web1") is None


def test_09_multi_peer_rule_ors_ipblock_namespace_and_pod() -> None:
    o = Out("09-multi-peer-rule")
    assert o.conn("10.1.8.0-10.1.8.255", "web/web1") == "TCP 80"  # ipBlock peer
    assert o.conn("cyh/test", "web/web1") == "TCP 80"  # namespaceSelector peer
    assert o.conn("web/test", "web/web1") == "TCP 80"  # podSelector peer
    assert o.conn("web/web2", "web/web1") is None  # matches none of the three
    assert o.conn("0.0.0.0-10.1.7.255", "web/web1") is None


def test_10_default_deny_ingress_admits_nothing_into_web() -> None:
    o = Out("10-default-deny-ingress")
    for dst in ("web/test", "web/web1", "web/web2"):
        assert o.sources_of(dst) == set()
    assert o.conn("web/web1", "cyh/test") == ALL  # egress stays open
    assert o.conn("web/web1", EVERYWHERE) == ALL
    assert o.conn(EVERYWHERE, "cyh/test") == ALL  # cyh has no policy


def test_11_allow_all_ingress_changes_nothing() -> None:
    o = Out("11-allow-all-ingress")
    for src in PODS:
        for dst in others(src):
            assert o.conn(src, dst) == ALL
    assert o.conn(EVERYWHERE, "web/web1") == ALL  # an empty rule admits external addresses too


def test_12_default_deny_egress_lets_nothing_out_of_web() -> None:
    o = Out("12-default-deny-egress")
    for src in ("web/test", "web/web1", "web/web2"):
        assert o.destinations_of(src) == set()
    assert o.conn("cyh/test", "web/web1") == ALL  # ingress stays open
    assert o.conn(EVERYWHERE, "web/web1") == ALL


def test_13_allow_all_egress_changes_nothing() -> None:
    o = Out("13-allow-all-egress")
    for src in PODS:
        for dst in others(src):
            assert o.conn(src, dst) == ALL
    assert o.conn("web/web1", EVERYWHERE) == ALL


def test_14_default_deny_all_cuts_web_off_both_ways() -> None:
    o = Out("14-default-deny-all")
    assert not [pair for pair in o.conns if any(e.startswith("web/") for e in pair)]
    assert o.conn("cyh/test", EVERYWHERE) == ALL
    assert o.conn(EVERYWHERE, "cyh/test") == ALL


def test_variant_folders_carry_no_pods_or_nodes() -> None:
    """The variants carry policies (and 03 a Namespace), never pods: they only make sense with the lab's cluster."""
    for n in VARIANT_NAMES:
        text = "".join(p.read_text() for p in (ROOT / VARIANTS / n).glob("*.yaml"))
        assert "kind: Pod" not in text and "kind: Node" not in text
