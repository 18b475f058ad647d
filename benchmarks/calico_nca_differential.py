"""netpol against network-config-analyzer (NCA) on random clusters with Calico policies: a second opinion.

NCA (PyPI `network-config-analyzer`) evaluates Calico's policies; its pins clash with ours, so it runs from its
own virtual environment (default /work/nca-venv; `--nca PATH` to its `nca`). For every seed, one random cluster
(tests/netpol/calico_random.py, kept to what NCA reads: single-quoted selectors, no Tier objects) is written to
a folder, NCA's connectivity map is read from its `txt_no_fw_rules` output, and netpol's verdicts come from the
real CLI (`netpol can-reach`-free: `netpol matrix -o json`) once Calico is wired, or from the compiled form
walked pair by pair before. Every disagreement is printed with its probe; decide each from Calico's docs and
keep a reproducer in tests/data/calico-nca/.

    PYTHONPATH=. python3 benchmarks/calico_nca_differential.py --seeds 200 --out /tmp/nca-diff
"""

from __future__ import annotations

import argparse
import ipaddress
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.netpol.calico_harness import compile_objects  # noqa: E402
from tests.netpol.calico_random import PROBES, endpoints, random_cluster  # noqa: E402
from tests.netpol.calico_reference import PodRef, Reference  # noqa: E402

_LINE = re.compile(r"^(?P<src>\S+) => (?P<dst>\S+) : (?P<conn>.*)$")
_GROUP = re.compile(r"\{([^}]*)\}")


def conn_allows(conn: str, proto: str, port: int) -> bool:
    """One of NCA's connection texts (`All connections`, `{protocols:TCP,dst_ports:80,8000-8090},…`)."""
    conn = conn.strip()
    if conn == "All connections":
        return True
    negate = conn.startswith("All but")
    hit = False
    for group in _GROUP.findall(conn):
        protos: set[str] = set()
        ports: list[tuple[int, int]] | None = None
        key = ""
        for item in group.split(","):
            if ":" in item:
                key, item = item.split(":", 1)
            item = item.strip()
            if key == "protocols":
                protos.add(item.upper())
            elif key == "dst_ports":
                ports = ports or []
                lo, _, hi = item.partition("-")
                ports.append((int(lo), int(hi or lo)))
        if proto in protos and (ports is None or any(lo <= port <= hi for lo, hi in ports)):
            hit = True
    return hit != negate


def _endpoint(text: str) -> str:
    return text[: -len("[Pod]")] if text.endswith("[Pod]") else text


def _holds(name: str, ep: str) -> bool:
    """Does NCA's endpoint text (`ns/pod` or address ranges `a-b,c-d` / CIDRs) stand for `ep`?"""
    if "/" in ep and not ep[0].isdigit():
        return name == ep
    if "/" in name and not name[0].isdigit():
        return False
    ip = ipaddress.ip_address(ep)
    for part in name.split(","):
        if "-" in part:
            lo, hi = (ipaddress.ip_address(x) for x in part.split("-"))
            if lo.version == ip.version and lo <= ip <= hi:
                return True
        elif ip in ipaddress.ip_network(part, strict=False):
            return True
    return False


def nca_verdicts(nca: str, folder: Path) -> tuple[list[tuple[str, str, str]], str]:
    r = subprocess.run(
        [nca, "--connectivity", "-r", str(folder), "-o", "txt_no_fw_rules"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=folder,
    )
    lines = []
    for line in r.stdout.splitlines():
        m = _LINE.match(line)
        if m:
            lines.append((_endpoint(m["src"]), _endpoint(m["dst"]), m["conn"]))
    return lines, (r.stderr if r.returncode else "")


def nca_allows(lines: list[tuple[str, str, str]], src: str, dst: str, proto: str, port: int) -> bool:
    return any(_holds(s, src) and _holds(d, dst) and conn_allows(c, proto, port) for s, d, c in lines)


def explicit_types(objs: list[dict]) -> list[dict]:
    """Write each Calico policy's `types` as Calico defaults it (networkpolicy.go NetworkPolicySpec.Types):
    the same policy, with nothing left for NCA to default."""
    out = []
    for o in objs:
        spec = o.get("spec")
        if o["kind"] in ("NetworkPolicy", "GlobalNetworkPolicy") and isinstance(spec, dict) and not spec.get("types"):
            ingress, egress = spec.get("ingress") or [], spec.get("egress") or []
            types = ["Egress"] if egress and not ingress else (["Ingress", "Egress"] if egress else ["Ingress"])
            o = {**o, "spec": {**spec, "types": types}}
        if o["kind"] in ("NetworkPolicy", "GlobalNetworkPolicy") and isinstance(spec, dict):
            # rules of a direction `types` leaves out have no effect: drop them (NCA refuses them)
            types = o["spec"]["types"]
            o = {
                **o,
                "spec": {
                    k: v
                    for k, v in o["spec"].items()
                    if not (k in ("ingress", "egress") and k.capitalize() not in types)
                },
            }
        out.append(o)
    return out


def namespace_limit_spelt_out(objs: list[dict]) -> list[dict]:
    """In a namespaced policy, give an entity rule whose only selector field is `notSelector` the selector
    `all()`: GetEntityRuleSelector already limits it to the namespace, so the policy means the same."""
    out = []
    for o in objs:
        if o["kind"] == "NetworkPolicy" and o["apiVersion"].startswith("projectcalico"):
            spec = dict(o["spec"])
            for d in ("ingress", "egress"):
                rules = []
                for r in spec.get(d) or []:
                    r = dict(r)
                    for side in ("source", "destination"):
                        e = r.get(side)
                        if e and "notSelector" in e and not {"selector", "namespaceSelector"} & set(e):
                            r[side] = {**e, "selector": "all()"}
                    rules.append(r)
                if d in spec:
                    spec[d] = rules
            o = {**o, "spec": spec}
        out.append(o)
    return out


class PodBlindNets(Reference):
    """The reference with one change, NCA's documented gap: an entity rule with `nets` or `notNets` holds no
    pod at all (NCA matches them against IP blocks only; tests/data/calico-nca/README.md). Used to attribute
    disagreements, never as the truth."""

    def _entity(self, e: dict, ns: str | None, endpoint: object) -> bool:
        if isinstance(endpoint, PodRef) and (e.get("nets") or e.get("notNets")):
            return False
        return super()._entity(e, ns, endpoint)


STAGES = (
    ("as generated", lambda o: o),
    ("types written out", explicit_types),
    ("namespace limit spelt out", lambda o: namespace_limit_spelt_out(explicit_types(o))),
)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=100)
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--nca", default="/work/nca-venv/bin/nca")
    ap.add_argument("--out", default="/tmp/calico-nca")
    args = ap.parse_args()
    out = Path(args.out)
    stats: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    t_nca = t_netpol = 0.0
    for seed in range(args.first, args.first + args.seeds):
        generated = random_cluster(seed, nca_safe=True)
        t1 = time.perf_counter()
        compiled = compile_objects(generated)
        ref = Reference(generated)
        t_netpol += time.perf_counter() - t1
        eps = endpoints(generated)
        for stage, transform in STAGES:
            objs = transform(generated)
            folder = out / f"seed{seed}" / stage.replace(" ", "-")
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "cluster.yaml").write_text(yaml.safe_dump_all(objs))
            t0 = time.perf_counter()
            lines, err = nca_verdicts(args.nca, folder)
            t_nca += time.perf_counter() - t0
            if err:
                stats[f"{stage}: NCA refused"] += 1
                kinds[err.strip().splitlines()[-1][:80]] += 1
                continue
            stats[f"{stage}: clusters"] += 1
            seen = differ = 0
            blind: PodBlindNets | None = None
            for s in eps:
                for d in eps:
                    if s == d or ("/" not in s and "/" not in d):
                        continue
                    for proto, port in PROBES:
                        ours = compiled.allowed(s, d, proto, port)
                        assert ours == ref.allowed(s, d, proto, port)
                        theirs = nca_allows(lines, s, d, proto, port)
                        stats[f"{stage}: probes"] += 1
                        if ours == theirs:
                            continue
                        stats[f"{stage}: disagree"] += 1
                        differ += 1
                        if stage != STAGES[-1][0]:
                            continue
                        if blind is None:
                            blind = PodBlindNets(objs)
                        if blind.allowed(s, d, proto, port) == theirs:
                            stats[f"{stage}: disagree, explained by nets blind to pods"] += 1
                            continue
                        seen += 1
                        stats[f"{stage}: disagree, unexplained"] += 1
                        if seen <= 2:
                            print(f"seed {seed} ({stage}): {s} -> {d} {proto} {port}: netpol {ours}, NCA {theirs}")
            stats[f"{stage}: clusters disagreeing"] += bool(differ)
            stats[f"{stage}: clusters with unexplained disagreements"] += bool(seen)
    for k in sorted(stats):
        print(f"{k}: {stats[k]}")
    print("NCA refusals:", dict(kinds))
    print(f"time: NCA {t_nca:.1f} s, netpol compile+walk {t_netpol:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
