"""The values rule of set-based requirements, as the API server applies it: `In`/`NotIn` need values and
`Exists`/`DoesNotExist` forbid them, in label selectors (apimachinery ValidateLabelSelectorRequirement) and in
node selector terms (core/validation ValidateNodeSelectorRequirement). Driven through `netpol` on stdin."""

from __future__ import annotations

import pytest

from tests.conftest import ROOT
from tests.helpers import run_cli

POLICY = """apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {{name: p, namespace: default}}
spec:
  podSelector: {{matchExpressions: [{requirement}]}}
"""
POD = """apiVersion: v1
kind: Pod
metadata: {{name: p, namespace: default}}
spec:
  containers: [{{name: c, image: i}}]
  affinity: {{nodeAffinity: {{requiredDuringSchedulingIgnoredDuringExecution: {{nodeSelectorTerms: [{{matchExpressions: [{requirement}]}}]}}}}}}
"""
NODE_FIELD = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"


@pytest.mark.parametrize(
    ("template", "field"),
    [(POLICY, "spec.podSelector"), (POD, NODE_FIELD)],
    ids=["label-selector", "node-selector"],
)
@pytest.mark.parametrize(
    ("requirement", "message"),
    [
        ("{key: a, operator: In}", "Required value: must be specified when `operator` is 'In'"),
        ("{key: a, operator: NotIn, values: []}", "Required value: must be specified when `operator` is 'NotIn'"),
        ("{key: a, operator: Exists, values: [x]}", "Forbidden: may not be specified when `operator` is 'Exists'"),
        (
            "{key: a, operator: DoesNotExist, values: [x]}",
            "Forbidden: may not be specified when `operator` is 'DoesNotExist'",
        ),
    ],
)
def test_set_based_requirement_values_are_checked_like_the_api_server(
    template: str, field: str, requirement: str, message: str
) -> None:
    done = run_cli("matrix", "-", stdin=template.format(requirement=requirement), cwd=ROOT)
    assert done.returncode == 2
    assert f"{field}.matchExpressions[0].values: {message}" in done.stderr
    assert "Traceback" not in done.stderr
