"""Every option with a value rejects a bad value at the edge: exit 2, a message naming the option (or the
value), never a traceback (issue 13, item 3). The parsers are introspected, so an option added later without
an entry in BAD fails here until someone says what a bad value for it is."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest

from netpol.cli import COMMANDS, build_parser
from tests.conftest import ROOT

# dest → a value that must be refused
BAD = {
    "output": "pdf",
    "cluster_cidr": "nonsense",
    "ipblock_pods": "maybe",
    "cilium_enforcement": "sometimes",
    "context": "kind-kind",  # without --live
    "kubeconfig": "/no/such/kubeconfig",  # without --live
    "kubectl": "/no/such/kubectl",  # without --live
    "seed": "-1",
    "namespace": "Not_A_Namespace",
    "port": "99999",
    "protocol": "ICMP",
    "focus": "web//web1",
    "direction": "sideways",
    "by": "team",
    "cordon": "Not_A_Node!",
    "drain": "Not_A_Node!",
    "cordon_new": "Not_A_Node!",
    "drain_new": "Not_A_Node!",
    "selector": "app in (",
    "expect": "/no/such/expectations.yaml",
    "junit": "/no/such/folder/junit.xml",
    "fail_on": "urgent",
    "ignore": "NP999",
    "interval": "0",
    "old": "/no/such/old",
    "new": "/no/such/new",
    "explain": "web//web2",
    "node_cidr_mask_size": "99",
    "node_cidr_mask_size_ipv4": "99",
    "node_cidr_mask_size_ipv6": "999",
    "kubectl_timeout": "soon",
    "max_pods": "-5",
    "add": "/no/such/manifests",
    "against": "/no/such/new",
    "baseline": "/no/such/baseline.json",
    "write_baseline": "/no/such/folder/baseline.json",
    "output_file": "/no/such/folder/report.html",
    "cluster_traffic_source": "sometimes",
    "proxy_pods": "ingressclass/nginx",  # no =PODS
    "from_": "space",
}
# (command, dest) whose bad value differs from BAD's
BAD_FOR = {("report", "output_file"): "/no/such/folder/report.html"}
# options whose every value is valid (free text)
FREE_TEXT = {"title"}
# what each command needs besides the option under test
BASE = {
    "who-can-reach": ["web1"],
    "can-reach": ["web1"],
    "explain": ["web/test", "web/web1"],
    "check": ["--expect", str(ROOT / "samples" / "expectations" / "seed-lab.yaml")],
    "diff": [str(ROOT / "samples" / "seed-lab"), str(ROOT / "samples" / "seed-lab")],
    "report": ["-O", "/dev/null"],
}

DRIVER = """
import contextlib, io, json, sys
from netpol.cli import main
for argv in json.loads(sys.argv[1]):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(argv)
    print(json.dumps({"argv": argv, "rc": rc, "err": err.getvalue()}))
"""


def bad(command: str, dest: str) -> str:
    return BAD_FOR.get((command, dest), BAD[dest])


def value_options(command: str) -> list[tuple[str, str]]:
    """(option string, dest) of every option of `command` that takes a value."""
    parser = build_parser(only=command)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))  # noqa: SLF001
    out = []
    for action in sub.choices[command]._actions:  # noqa: SLF001
        if not action.option_strings or action.nargs == 0:
            continue
        out.append((max(action.option_strings, key=len), action.dest))
    return out


CASES = [(cmd, opt, dest) for cmd in COMMANDS for opt, dest in value_options(cmd) if dest not in FREE_TEXT]


def test_every_option_has_a_bad_value_to_try() -> None:
    missing = sorted({dest for _, _, dest in CASES} - set(BAD) - FREE_TEXT)
    assert not missing, f"say what a bad value is for {missing}"


@pytest.fixture(scope="module")
def answers() -> dict[tuple[str, str], dict]:
    todo = [[cmd, *BASE.get(cmd, []), opt, bad(cmd, dest)] for cmd, opt, dest in CASES if dest in BAD]
    proc = subprocess.run(
        [sys.executable, "-c", DRIVER, json.dumps(todo)], capture_output=True, text=True, cwd=ROOT, timeout=600
    )
    assert proc.returncode == 0, proc.stderr
    return {(r["argv"][0], r["argv"][-2]): r for r in map(json.loads, proc.stdout.splitlines())}


@pytest.mark.parametrize(("command", "option", "dest"), CASES, ids=[f"{c}{o}" for c, o, _ in CASES])
def test_a_bad_value_exits_2_naming_the_option(answers, command: str, option: str, dest: str) -> None:  # noqa: ANN001
    r = answers[(command, option)]
    assert r["rc"] == 2, r
    assert "Traceback" not in r["err"], r["err"]
    assert option in r["err"] or bad(command, dest) in r["err"], r["err"]


def test_cluster_cidr_nonsense_is_a_usage_error_not_a_traceback() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "netpol.cli", "matrix", "--cluster-cidr", "nonsense"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "argument --cluster-cidr: 'nonsense' is not a CIDR (e.g. 10.244.0.0/16)" in out.stderr
