"""The tier walk knows no policy kind (issue 20): a kind is a compiler into the tiered form, and the evaluation
(netpol/engine/evaluate.py; its specification is netpol/engine/tiers.py's docstring) decides it unchanged.

Each test plugs a small compiler of its own — netpol/engine/ENGINE.md's worked example — beside the real
NetworkPolicy compiler, and checks one rule of the walk, derived by hand in the comments:
tiers in order; first match per port inside a tier; Pass leaves the tier; Log matches and goes on; a tier's end
for the owners it isolates (Deny) or not (Pass); allowed when no tier decides; a layer-7 allow is an allow whose
ports are marked as filtered unless a plain allow of the same port exists.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import yaml

from netpol.engine import (
    DEFAULT_TIER,
    CompiledPolicy,
    CompiledRule,
    Endpoint,
    PeerPart,
    Reachability,
    Tier,
    build_reachability,
    verdict,
)
from netpol.engine.compile import compilers_for
from netpol.engine.compile.networkpolicy import selector_peer
from netpol.manifests import load_text
from netpol.model.labels import Labels, LabelSelector
from netpol.model.objects import IPBlock, Node
from netpol.pipeline import prepare
from tests.helpers import namespace, pod, policy

FOO_TIER = Tier("foo", 500, "Pass", "Foo tier")  # before kube-admin (1,000): walked first


@dataclass(frozen=True, slots=True)
class Rule:
    action: str  # Allow | Deny | Pass | Log
    app: str  # the peer: pods labelled app=<app>, any namespace
    port: int | None = None  # TCP port, None: every port
    l7: str = ""


@dataclass(frozen=True, slots=True)
class FooCompiler:
    """Ingress rules of one made-up policy over the pods of namespace `ns`, in `tier`."""

    ns: str
    rules: tuple[Rule, ...]
    tier: Tier = FOO_TIER
    isolates: bool = False

    def label_keys(self) -> Iterable[str]:
        return ["app"]

    def splits_by_service_account(self) -> bool:
        return False

    def ip_blocks(self, nodes: Sequence[Node]) -> Iterable[IPBlock]:
        return ()

    def port_cuts(self, universe: object) -> Iterable[tuple[str, int, int]]:
        return [("TCP", r.port, r.port) for r in self.rules if r.port is not None]

    def mask_count(self) -> int:
        return 1 + len(self.rules)

    def compile(self, ctx):  # noqa: ANN001, ANN201
        u = ctx.universe
        out = []
        for i, r in enumerate(self.rules):
            sel = LabelSelector(Labels({"app": r.app}))
            peer = selector_peer([PeerPart("pod", f"app={r.app}", u.pods_matching(sel))], u)
            bits = ctx.ports.range_bits("TCP", r.port) if r.port is not None else ctx.ports.all_bits
            out.append(CompiledRule("ingress", i, r.action, (peer,), bits, l7=r.l7))  # type: ignore[arg-type]
        yield CompiledPolicy(
            "FooPolicy",
            f"foo {self.ns}",
            self.tier,
            (0.0, self.ns),
            u.in_namespace(self.ns),
            frozenset({"ingress"}) if self.isolates else frozenset(),
            tuple(out),
            namespace=self.ns,
        )


def _engine(foo: Sequence[FooCompiler], *extra: dict) -> Reachability:
    objs = [
        namespace("x"),
        namespace("y"),
        pod("x", "db", {"app": "db"}),
        pod("y", "api", {"app": "api"}),
        pod("y", "web", {"app": "web"}),
        *extra,
    ]
    cluster, _ = prepare(load_text(yaml.safe_dump_all(objs)))
    return Reachability(
        cluster.running_pods, cluster.namespaces, [*compilers_for(cluster), *foo], nodes=cluster.nodes
    )


def _conn(r: Reachability, src: str, dst: str) -> str:
    return r.connection(r.pod_index[src], r.pod_index[dst]).render()


def test_a_new_tier_walked_first_denies_before_any_networkpolicy_allow() -> None:
    # foo: Deny from app=api into x. The NetworkPolicy allows everything into x, in the default tier, later.
    allow_all = policy("x", "allow-all", {"podSelector": {}, "ingress": [{}]})
    r = _engine([FooCompiler("x", (Rule("Deny", "api"),))], allow_all)
    assert _conn(r, "y/api", "x/db") == "No Connections"
    assert _conn(r, "y/web", "x/db") == "All Connections"  # foo does not match web; the NP allows


def test_first_match_per_port_inside_a_tier() -> None:
    # Rules in order: Allow api on TCP 80, then Deny api on every port. Port 80 is decided by the first rule, the
    # other ports by the second; a NetworkPolicy allowing all into x (later tier) cannot bring them back.
    allow_all = policy("x", "allow-all", {"podSelector": {}, "ingress": [{}]})
    r = _engine([FooCompiler("x", (Rule("Allow", "api", 80), Rule("Deny", "api")))], allow_all)
    assert _conn(r, "y/api", "x/db") == "TCP 80"


def test_pass_leaves_the_tier_and_the_networkpolicy_decides() -> None:
    # Pass api on TCP 80, then Deny api everywhere: port 80 goes on to the default tier, where x's NetworkPolicy
    # admits only TCP 80 and 443: api gets 80 (passed, then allowed); 443 was denied by foo's second rule.
    np_ = policy("x", "web-ports", {"podSelector": {}, "ingress": [{"ports": [{"port": 80}, {"port": 443}]}]})
    r = _engine([FooCompiler("x", (Rule("Pass", "api", 80), Rule("Deny", "api")))], np_)
    assert _conn(r, "y/api", "x/db") == "TCP 80"


def test_log_matches_and_goes_on() -> None:
    # Log api, then Deny api: the Log rule decides nothing, so the Deny does (Calico's Log action).
    r = _engine([FooCompiler("x", (Rule("Log", "api"), Rule("Deny", "api")))])
    assert _conn(r, "y/api", "x/db") == "No Connections"
    v = verdict(r, Endpoint(pod=r.pod_index["y/api"]), Endpoint(pod=r.pod_index["x/db"]))
    assert [h.rule.action for h in v.ingress.hits] == ["Log", "Deny"]
    assert not v.ingress.hits[0].decided.any() and v.ingress.hits[1].decided.any()


def test_a_tier_ending_in_deny_isolates_and_one_ending_in_pass_does_not() -> None:
    # A tier ending in Deny for the pods its policy isolates: only api's TCP 80 is allowed into x, the rest ends
    # there; web, matched by nothing, is denied too. Ending in Pass instead, web goes on and is allowed.
    deny_end = Tier("calico-like", 100, "Deny")
    pass_end = Tier("calico-like-pass", 100, "Pass")
    r = _engine([FooCompiler("x", (Rule("Allow", "api", 80),), deny_end, isolates=True)])
    assert (_conn(r, "y/api", "x/db"), _conn(r, "y/web", "x/db")) == ("TCP 80", "No Connections")
    r = _engine([FooCompiler("x", (Rule("Allow", "api", 80),), pass_end, isolates=True)])
    assert (_conn(r, "y/api", "x/db"), _conn(r, "y/web", "x/db")) == ("All Connections", "All Connections")


def test_a_layer7_allow_is_allowed_and_marked_filtered_unless_a_plain_allow_holds_the_port() -> None:
    # In the default tier (a union with the NetworkPolicies), an L7 rule allows api on TCP 80 into x and isolates
    # x's ingress: api gets TCP 80, filtered. Adding a NetworkPolicy that admits api on TCP 80 plainly removes the
    # mark (the unfiltered allow wins); web gets nothing either way.
    l7 = FooCompiler("x", (Rule("Allow", "api", 80, l7="HTTP GET /v1/"),), DEFAULT_TIER, isolates=True)
    r = _engine([l7])
    api, db, web = (Endpoint(pod=r.pod_index[k]) for k in ("y/api", "x/db", "y/web"))
    assert r.ports.to_set(r.endpoint_bits(api, db)).render() == "TCP 80"
    assert r.ports.to_set(r.endpoint_filtered(api, db)).render() == "TCP 80"
    assert r.ports.to_set(r.endpoint_bits(web, db)).is_empty
    plain = policy(
        "x",
        "api-80",
        {
            "podSelector": {},
            "ingress": [{"from": [{"namespaceSelector": {}, "podSelector": {"matchLabels": {"app": "api"}}}], "ports": [{"port": 80}]}],
        },
    )
    r = _engine([l7], plain)
    api, db = Endpoint(pod=r.pod_index["y/api"]), Endpoint(pod=r.pod_index["x/db"])
    assert r.ports.to_set(r.endpoint_bits(api, db)).render() == "TCP 80"
    assert r.ports.to_set(r.endpoint_filtered(api, db)).is_empty


def test_the_build_door_compiles_every_kind_the_cluster_holds() -> None:
    cluster, _ = prepare(load_text(yaml.safe_dump_all([namespace("x"), pod("x", "a")])))
    r = build_reachability(cluster)
    assert r.policies == () and r.tiers == ()
    assert r.connection(0, 0).is_all


def test_pass_skips_the_tier_end_too() -> None:
    # Calico's Pass (docs.tigera.io, "Pass action": "skip to the next tier"): in a tier ending in Deny for the pods it
    # isolates, api's TCP 80 is passed on, so the tier's end does not deny it; the NetworkPolicy tier (allow all
    # into x) then allows it. Every other port of api, and web entirely, end denied in the first tier.
    allow_all = policy("x", "allow-all", {"podSelector": {}, "ingress": [{}]})
    tier = Tier("calico-like", 100, "Deny")
    r = _engine([FooCompiler("x", (Rule("Pass", "api", 80),), tier, isolates=True)], allow_all)
    assert (_conn(r, "y/api", "x/db"), _conn(r, "y/web", "x/db")) == ("TCP 80", "No Connections")
    v = verdict(r, Endpoint(pod=r.pod_index["y/api"]), Endpoint(pod=r.pod_index["x/db"]))
    end = v.ingress.ends[0]
    assert end.tier is tier and not v.ingress.ends[1].denied.any()  # the NetworkPolicy tier's end denies nothing
    assert r.ports.to_set(end.denied).render() == "TCP 1-79,81-65535,UDP,SCTP"  # a whole protocol is written bare
