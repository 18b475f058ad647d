"""What-if on the seed lab: disable a policy, remove a rule (`x`), add a default-deny (listed in Policies,
marked added); every view follows, `:changes` lists what `netpol diff` reports for the same edit made on disk,
`W` writes what `netpol diff` confirms, `u` undoes."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import yaml

from tests.helpers import run_cli
from tests.tui.conftest import SEED, loaded, settle
from tui.app import ReachApp
from tui.model import ALLOWED, DENIED
from tui.screens.changes import ChangesScreen
from tui.screens.matrix import MatrixScreen
from tui.screens.modals import ConfirmQuitScreen
from tui.screens.policies import PoliciesScreen
from tui.screens.rules import RulesScreen
from tui.widgets.matrix import LOST, MARK_STEP, MatrixGrid
from tui.widgets.vtable import VirtualTable


def rows(app: ReachApp, sel: str) -> list[list[str]]:
    t = app.screen.query_one(sel, VirtualTable)
    return [t.row_text(k) for k in range(t.count)]


def title(app: ReachApp) -> str:
    return str(app.screen.query_one("#title").render())


def text_of(app: ReachApp, sel: str) -> str:
    return "".join(str(w.render()) for w in app.screen.query(sel))


async def edited(pilot) -> None:  # noqa: ANN001
    """Until the what-if worker delivered the edited model and the screens show it."""
    await pilot.app.workers.wait_for_complete()
    await settle(pilot)


def diff_on_disk(tmp_path: Path, edit) -> list[str]:  # noqa: ANN001 - (Path) -> None, changes the copy
    """`netpol diff SEED EDITED` where EDITED is a copy of the seed lab edited on disk: the independent answer."""
    copy = tmp_path / "edited"
    shutil.copytree(SEED, copy)
    edit(copy)
    out = run_cli("diff", str(SEED), str(copy))
    assert out.returncode in (0, 1), out.stderr
    return [line for line in out.stdout.splitlines() if line.strip()]


async def test_disabling_web1_allow_test_opens_web1_in_every_view(seed_app: ReachApp, tmp_path) -> None:
    async with seed_app.run_test(size=(120, 36)) as pilot:
        await loaded(pilot)
        await pilot.press("colon", *"np", "enter", "space")
        await edited(pilot)
        assert "what-if: 1 edit" in title(seed_app)
        assert rows(seed_app, "#policies")[0][0] == "web/web1-allow-test (disabled)"
        # Pods: web1 is no longer isolated for ingress.
        await pilot.press("colon", *"pods", "enter")
        web1 = next(r for r in rows(seed_app, "#pods") if r[:2] == ["web", "web1"])
        assert web1[5] == "open"
        # :changes is what `netpol diff` says of the same edit made on disk (the policy file removed).
        await pilot.press("colon", *"changes", "enter")
        assert isinstance(seed_app.screen, ChangesScreen)
        listed = {(r[1], r[2]): (r[0], r[3], r[4]) for r in rows(seed_app, "#changes")}
        assert listed[("web/test", "web/web1")] == ("~", "TCP 80", "All Connections")  # more, not less
        assert listed[("cyh/test", "web/web1")] == ("+", "-", "All Connections")
        expected = diff_on_disk(tmp_path, lambda d: (d / "policy-web1-allow-test.yaml").unlink())
        ours = seed_app.screen.export_text()[1].splitlines()
        assert [line for line in ours if line.strip()] == expected
        # The matrix marks the gained cells; the status line says what the cell was.
        await pilot.press("colon", *"matrix", "enter")
        screen = seed_app.screen
        assert isinstance(screen, MatrixScreen)
        grid = screen.query_one(MatrixGrid)
        grid.row, grid.col = screen.names.index("cyh/test"), screen.names.index("web/web1")
        await settle(pilot)
        line = grid.render_line(2 + grid.row).text
        assert "+." in line
        assert "(was No Connections)" in str(screen.query_one("#cell").render())
        # u undoes: the loaded cluster again.
        await pilot.press("u")
        await edited(pilot)
        assert "what-if" not in title(seed_app) and "+" not in grid.render_line(2 + grid.row).text


async def test_a_default_deny_on_cyh_loses_every_connection_into_cyh_test(seed_app: ReachApp, tmp_path) -> None:
    async with seed_app.run_test(size=(120, 36)) as pilot:
        await loaded(pilot)
        assert rows(seed_app, "#pods")[0][:2] == ["cyh", "test"]  # the cursor's pod: its namespace gets the deny
        await pilot.press("n", *"ingress", "enter")
        await edited(pilot)
        assert "what-if: 1 edit" in title(seed_app)
        await pilot.press("colon", *"changes", "enter")
        listed = rows(seed_app, "#changes")
        assert listed and all(r[0] == "−" and r[2] == "cyh/test" and r[4] == "-" for r in listed)
        assert {r[1] for r in listed} == {"web/test", "web/web1", "web/web2", "0.0.0.0-255.255.255.255"}
        deny = {
            "apiVersion": "networking.k8s.io/v1",
            "kind": "NetworkPolicy",
            "metadata": {"name": "deny", "namespace": "cyh"},
            "spec": {"podSelector": {}, "policyTypes": ["Ingress"]},
        }
        expected = diff_on_disk(tmp_path, lambda d: (d / "deny.yaml").write_text(yaml.safe_dump(deny)))
        assert [line for line in seed_app.screen.export_text()[1].splitlines() if line.strip()] == expected
        # The matrix column of cyh/test is marked lost on every row but its own.
        await pilot.press("colon", *"matrix", "enter")
        screen = seed_app.screen
        grid = screen.query_one(MatrixGrid)
        col = screen.names.index("cyh/test")
        states = [grid._state(r, np.arange(len(screen.names)))[col] for r in range(len(screen.names))]
        assert [s >= 6 for s in states] == [name != "cyh/test" for name in screen.names]  # LOST marks


async def test_writing_the_edits_gives_yaml_that_netpol_diff_confirms(seed_app: ReachApp, tmp_path) -> None:
    async with seed_app.run_test(size=(120, 36)) as pilot:
        await loaded(pilot)
        await pilot.press("n", *"both", "enter")  # default-deny both ways in cyh (the first pod's namespace)
        await edited(pilot)
        await pilot.press("colon", *"np", "enter", "space")  # and web1-allow-test disabled
        await edited(pilot)
        assert "what-if: 2 edits" in title(seed_app)
        await pilot.press("colon", *"changes", "enter")
        ours = [line for line in seed_app.screen.export_text()[1].splitlines() if line.strip()]
        await pilot.press("W")
        written = tmp_path / "netpol-whatif-1.yaml"
        assert str(written) in "".join(str(w.render()) for w in seed_app.screen.query("#export-path"))
        await pilot.press("enter")  # the default writes nothing
        assert not written.exists()
        await pilot.press("W", "y")
        assert written.exists()
    # The edited cluster on disk: the seed lab's other manifests and the written policies instead of its own.
    edited_dir = tmp_path / "edited"
    edited_dir.mkdir()
    shutil.copy(SEED / "cluster.yaml", edited_dir)
    shutil.copy(written, edited_dir)
    out = run_cli("diff", str(SEED), str(edited_dir))
    assert out.returncode in (0, 1), out.stderr
    assert [line for line in out.stdout.splitlines() if line.strip()] == ours
    assert ours  # the edits change something: the comparison is not between two empty lists


async def test_x_removes_a_rule_that_netpol_diff_confirms_and_again_restores_it(seed_app: ReachApp, tmp_path) -> None:
    async with seed_app.run_test(size=(120, 36)) as pilot:
        await loaded(pilot)
        await pilot.press("colon", *"np", "enter", "x")
        assert isinstance(seed_app.screen, RulesScreen)
        (rule,) = rows(seed_app, "#rules")
        assert rule[0] == "ingress #1" and "podSelector" in rule[2] and "test" in rule[2]
        await pilot.press("enter")
        await edited(pilot)
        assert isinstance(seed_app.screen, PoliciesScreen) and "what-if: 1 edit" in title(seed_app)
        assert rows(seed_app, "#policies")[0][0] == "web/web1-allow-test (rules removed)"
        shown = yaml.safe_load(str(seed_app.screen.query_one("#policy-yaml").render()))
        assert shown["spec"]["ingress"] == []  # the detail shows the policy as edited
        # web1 stays isolated and now admits nobody: what `netpol diff` says of the same edit on disk
        await pilot.press("colon", *"changes", "enter")
        listed = {(r[1], r[2]): (r[0], r[3], r[4]) for r in rows(seed_app, "#changes")}
        assert listed == {("web/test", "web/web1"): ("−", "TCP 80", "-")}

        def drop_rule(d: Path) -> None:
            path = d / "policy-web1-allow-test.yaml"
            doc = yaml.safe_load(path.read_text())
            doc["spec"]["ingress"] = []
            path.write_text(yaml.safe_dump(doc))

        expected = diff_on_disk(tmp_path, drop_rule)
        assert [line for line in seed_app.screen.export_text()[1].splitlines() if line.strip()] == expected
        # W writes policies that `netpol diff` confirms
        await pilot.press("W", "y")
        written = tmp_path / "netpol-whatif-1.yaml"
        assert written.exists()
        edited_dir = tmp_path / "written"
        edited_dir.mkdir()
        shutil.copy(SEED / "cluster.yaml", edited_dir)
        shutil.copy(written, edited_dir)
        out = run_cli("diff", str(SEED), str(edited_dir))
        assert [line for line in out.stdout.splitlines() if line.strip()] == expected
        # x again on the edited policy: the rule is marked removed; Enter restores it
        await pilot.press("escape", "x")
        assert rows(seed_app, "#rules")[0][1] == "removed"
        await pilot.press("enter")
        await edited(pilot)
        assert "what-if" not in title(seed_app) and rows(seed_app, "#policies")[0][0] == "web/web1-allow-test"


async def test_an_added_default_deny_is_listed_marked_and_u_or_space_takes_it_back(seed_app: ReachApp) -> None:
    async with seed_app.run_test(size=(120, 36)) as pilot:
        await loaded(pilot)
        await pilot.press("colon", *"np", "enter", "n", *"e", "enter")  # the cursor's policy is in web
        await edited(pilot)
        assert [r[0] for r in rows(seed_app, "#policies")] == [
            "web/web1-allow-test",
            "web/whatif-default-deny-egress (added)",
        ]
        assert seed_app.screen.query_one("#policies", VirtualTable).cursor == 1  # on the added policy
        assert "what-if: added" in str(seed_app.screen.query_one("#policy-pods").render())
        assert rows(seed_app, "#policies")[1][1:] == ["Egress", "3"]  # selects web's three pods
        await pilot.press("x")  # an added default-deny has no rule to remove
        assert isinstance(seed_app.screen, PoliciesScreen)
        await pilot.press("u")
        await edited(pilot)
        assert [r[0] for r in rows(seed_app, "#policies")] == ["web/web1-allow-test"]
        assert "what-if" not in title(seed_app)
        await pilot.press("n", *"i", "enter")
        await edited(pilot)
        assert rows(seed_app, "#policies")[1][0] == "web/whatif-default-deny-ingress (added)"
        await pilot.press("space")  # space on the added policy takes that edit back
        await edited(pilot)
        assert [r[0] for r in rows(seed_app, "#policies")] == ["web/web1-allow-test"] and not seed_app.edits


async def test_q_asks_before_dropping_edits_that_were_not_written(seed_app: ReachApp, tmp_path) -> None:
    """Issue 25: `q` discarded unsaved what-if edits without asking. With edits W has not written, q asks: any key
    but y stays (the edits kept), y quits; once W wrote them, q quits at once."""
    async with seed_app.run_test(size=(120, 36)) as pilot:
        await loaded(pilot)
        await pilot.press("colon", *"np", "enter", "space")
        await edited(pilot)
        await pilot.press("q")
        assert isinstance(seed_app.screen, ConfirmQuitScreen) and seed_app.is_running
        assert "drop 1 what-if edit" in text_of(seed_app, "#quit-title")
        await pilot.press("enter")  # the default stays
        await settle(pilot)
        assert isinstance(seed_app.screen, PoliciesScreen) and seed_app.edits
        await pilot.press("colon", *"q", "enter")  # :q asks the same
        await settle(pilot)
        assert isinstance(seed_app.screen, ConfirmQuitScreen)
        await pilot.press("y")
        await settle(pilot)
        assert not seed_app.is_running
    assert list(tmp_path.iterdir()) == []


async def test_q_quits_at_once_when_the_edits_were_written(seed_app: ReachApp, tmp_path) -> None:
    async with seed_app.run_test(size=(120, 36)) as pilot:
        await loaded(pilot)
        await pilot.press("colon", *"np", "enter", "space")
        await edited(pilot)
        await pilot.press("W", "y")
        await settle(pilot)
        assert (tmp_path / "netpol-whatif-1.yaml").exists()
        await pilot.press("q")
        await settle(pilot)
        assert not seed_app.is_running


async def test_w_says_the_file_holds_the_policies_to_use_in_place_of_the_inputs(seed_app: ReachApp) -> None:
    """Issue 25: `W` wrote only policies without saying that the file stands for the input's policies."""
    async with seed_app.run_test(size=(120, 36)) as pilot:
        await loaded(pilot)
        await pilot.press("colon", *"np", "enter", "space")
        await edited(pilot)
        await pilot.press("W")
        note = " ".join(text_of(seed_app, "#export-note").split())
        assert "NetworkPolicies only" in note and "in place of the input's policies" in note
        assert "does not delete it" in note  # a disabled policy is left out: applying the file keeps it
        await pilot.press("escape")


async def test_the_default_deny_prompt_names_the_namespace(seed_app: ReachApp) -> None:
    """Issue 25: the `n` prompt did not say which namespace the default-deny goes to: the highlighted pod's
    (Pods view) or policy's (Policies view)."""
    async with seed_app.run_test(size=(120, 36)) as pilot:
        await loaded(pilot)
        assert rows(seed_app, "#pods")[0][:2] == ["cyh", "test"]
        await pilot.press("n")
        assert text_of(seed_app, "#prompt-label") == "default-deny in namespace cyh: "
        await pilot.press("escape", "colon", *"np", "enter", "n")  # web/web1-allow-test
        assert text_of(seed_app, "#prompt-label") == "default-deny in namespace web: "


async def test_grouping_by_workload_keeps_the_change_marks(seed_app: ReachApp) -> None:
    """Issue 25 item 8: `w` dropped the what-if marks. A default-deny for ingress in cyh: cyh/test (a bare pod, so
    its own workload `cyh/test[Pod]`) loses every connection into it from the three other workloads, which
    reached it before (nothing isolated it); its own diagonal stays allowed (a pod reaches itself)."""
    async with seed_app.run_test(size=(120, 36)) as pilot:
        await loaded(pilot)
        await pilot.press("n", *"ingress", "enter")
        await edited(pilot)
        await pilot.press("colon", *"matrix", "enter", "w")
        await settle(pilot)
        screen = seed_app.screen
        assert isinstance(screen, MatrixScreen) and screen.by_workload
        assert screen.names == ["cyh/test[Pod]", "web/test[Pod]", "web/web1[Pod]", "web/web2[Pod]"]
        grid = screen.query_one(MatrixGrid)
        column = [int(grid._state(r, np.arange(4))[0]) for r in range(4)]
        # DENIED with the LOST mark from the other three; ALLOWED unmarked on the diagonal.
        lost = DENIED + MARK_STEP * LOST
        assert column == [ALLOWED, lost, lost, lost]
        grid.row, grid.col = 1, 0
        await settle(pilot)
        assert "(was all ports)" in text_of(seed_app, "#cell")
        assert "−X" in grid.render_line(2 + 1).text
