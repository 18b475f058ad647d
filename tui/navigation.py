"""The app's navigation part: views by name and k9s `:` commands, opening pods and objects, the namespace
scope, help, export and the command palette."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import App, SystemCommand
from textual.screen import Screen

from netpol.errors import UsageError
from netpol.targets import resolve_pod_name
from tui.messages import ExplainConnection, GoBack, OpenObject, OpenPod, RunCommand, SetNamespace
from tui.model import ViewModel
from tui.screens.base import ReachScreen
from tui.screens.changes import ChangesScreen
from tui.screens.detail import ExplainScreen, PodDetailScreen
from tui.screens.matrix import MatrixScreen
from tui.screens.modals import ConfirmWriteScreen, HelpScreen, TextScreen
from tui.screens.namespaces import NamespacesScreen
from tui.screens.policies import PoliciesScreen

if TYPE_CHECKING:
    from netpol.diff import DiffReport

ALIASES = {
    "pods": "pods",
    "pod": "pods",
    "po": "pods",
    "nodes": "nodes",
    "node": "nodes",
    "no": "nodes",
    "policies": "policies",
    "policy": "policies",
    "netpol": "policies",
    "netpols": "policies",
    "np": "policies",
    "pol": "policies",
    "audit": "audit",
    "matrix": "matrix",
    "mx": "matrix",
    "grid": "matrix",
    "exposure": "exposure",
    "ex": "exposure",
    "doors": "exposure",
}


class Navigation(App[None]):
    """Mixed into ReachApp; the attributes are set by ReachApp.__init__."""

    model: ViewModel | None
    views: dict[str, ReachScreen]
    detail: PodDetailScreen
    explainer: ExplainScreen
    help_screen: HelpScreen
    namespace: str | None
    export_dir: Path
    load_notes: tuple[str, ...]

    if TYPE_CHECKING:

        @property
        def changes(self) -> DiffReport | None: ...

        def _schedule_warm_up(self) -> None: ...

        def action_reload(self, user: bool = True) -> None: ...

        def action_quit_asking(self) -> None: ...

    # ------------------------------------------------------------------------------------ requests of the screens

    def on_run_command(self, message: RunCommand) -> None:
        self.run_command_line(message.line)

    def on_go_back(self, message: GoBack) -> None:
        self.back()

    def on_open_pod(self, message: OpenPod) -> None:
        self.open_pod(message.index)

    def on_open_object(self, message: OpenObject) -> None:
        self.open_object(message.ref)

    def on_explain_connection(self, message: ExplainConnection) -> None:
        self.explain(message.src, message.dst, message.note)

    def on_set_namespace(self, message: SetNamespace) -> None:
        self.set_namespace(message.name)

    # ------------------------------------------------------------------------------------ moving

    def back(self) -> None:
        if len(self.screen_stack) > 1:
            self.pop_screen()

    def goto(self, view: str) -> None:
        """Show a view: back down the stack to it when it is open below (k9s-style), else on top."""
        if view == "pods":
            while len(self.screen_stack) > 1:
                self.pop_screen()
            return
        self._show(self.views[view])

    def _show(self, screen: Screen) -> None:
        if screen is self.screen:
            return
        if screen in self.screen_stack:
            while self.screen is not screen:
                self.pop_screen()
            return
        self.push_screen(screen)

    def open_pod(self, index: int) -> None:
        if self.model is None:
            return
        key = self.model.all_pods[index].key
        if self.screen is self.detail:
            self.detail.follow(key)
        elif self.detail in self.screen_stack:  # e.g. pod → :audit → a pod: a second detail view on top
            self.push_screen(PodDetailScreen(key))
        else:
            self.detail.start(key)
            self.push_screen(self.detail)

    def explain(self, src: str, dst: str, note: str = "") -> None:
        """The explain view for one connection (from the matrix)."""
        if self.explainer in self.screen_stack:
            self.push_screen(ExplainScreen(src, dst, note))
            return
        self.explainer.set_connection(src, dst, note)
        self.push_screen(self.explainer)

    def open_pod_key(self, key: str) -> bool:
        """Open a pod named as the CLI names one (`ns/name`, `pod/ns/name`, a bare name unique across
        namespaces: netpol.targets' grammar); a name that is no pod is said with kubectl's words and a
        did-you-mean."""
        model = self.model
        if model is None:
            return False
        try:
            key = resolve_pod_name(key, model.index_of)
        except UsageError as exc:
            self.notify(str(exc), severity="warning")
            return False
        self.open_pod(model.index_of[key])
        return True

    def open_object(self, ref: str) -> None:
        """`pod:ns/name`, `policy:ns/name`, `namespace:ns`, `node:name` (audit findings)."""
        kind, _, name = ref.partition(":")
        match kind:
            case "pod":
                self.open_pod_key(name)
            case "policy" | "networkpolicy":
                policies = self.views["policies"]
                assert isinstance(policies, PoliciesScreen)
                policies.select_policy(name)
                self._show(policies)
            case "namespace" | "ns":
                self.set_namespace(name)
                self.goto("pods")
            case "node":
                self.goto("nodes")
            case _:
                self.notify(f"cannot open {ref}", severity="warning")

    def set_namespace(self, ns: str | None) -> None:
        if ns in (None, "", "all", "0", "-", "*"):  # k9s: 0 is every namespace
            ns = None
        elif self.model is not None and ns not in self.model.namespaces:
            self.notify(f"no namespace {ns!r}; known: {', '.join(self.model.namespaces)}", severity="warning")
            return
        self.namespace = ns
        for screen in self.screen_stack:
            if isinstance(screen, ReachScreen) and screen.is_mounted:
                screen.refresh_view()
        self._schedule_warm_up()  # the hidden views, for the new scope

    def run_command_line(self, text: str) -> None:
        """k9s-style `:` commands."""
        words = text.strip().lstrip(":").split()
        if not words:
            return
        cmd, args = words[0].lower(), words[1:]
        if cmd in ALIASES:
            if cmd in ("pod", "po") and args:
                self.open_pod_key(args[0])
                return
            self.goto(ALIASES[cmd])
            return
        match cmd:
            case "ns" | "namespace" | "namespaces":
                if args:
                    self.set_namespace(args[0])
                elif self.model is not None:
                    self.push_screen(NamespacesScreen())
            case "port" if isinstance(self.screen, MatrixScreen):
                self.screen.apply_port(" ".join(args))
            case "help" | "h":
                self.action_help()
            case "q" | "quit":
                self.action_quit_asking()
            case "q!" | "quit!":  # vim: quit without asking, what-if edits or not
                self.exit()
            case "warnings" | "warning" | "notes":
                self.show_load_notes()
            case "reload":
                self.action_reload()
            case "changes" | "diff":
                if self.changes is None:
                    self.notify("no what-if edits: space in :policies disables a policy", severity="warning")
                else:
                    self.push_screen(ChangesScreen())
            case "export":
                self.action_export(" ".join(args))
            case _:
                self.notify(f"unknown command :{cmd} (try :help)", severity="warning")

    def show_load_notes(self) -> None:
        """`:warnings`: what the last load said (what the CLI prints on stderr), which the screen would hide."""
        notes = self.load_notes
        text = "\n".join(notes) if notes else "Loading said nothing: no warnings, no notes."
        self.push_screen(TextScreen(f"warnings and notes of the last load ({len(notes)})", text + "\n"))

    # ------------------------------------------------------------------------------------ help, export

    def action_help(self) -> None:
        screen = self.screen
        if isinstance(screen, ReachScreen):
            if self.help_screen in self.screen_stack:
                return
            self.help_screen.set_view(screen.VIEW, screen.HELP)
            self.push_screen(self.help_screen)

    def action_export(self, target: str = "") -> None:
        """Write the current view to `target` (default `netpol-VIEW.txt` in the export directory), once the
        user confirmed with the path shown."""
        screen = self.screen
        if not isinstance(screen, ReachScreen) or self.model is None:
            return
        stem, text = screen.export_text()
        stem = re.sub(r"[\x00-\x1f\x7f-\x9f]", "_", stem)  # a name's control characters never reach a path
        path = Path(target).expanduser() if target else self.export_dir / f"netpol-{stem}.txt"
        if not path.is_absolute():
            path = self.export_dir / path
        self.confirm_write(path, f"the {screen.VIEW} view", lambda: path.write_text(text, encoding="utf-8"))

    def confirm_write(
        self,
        path: Path,
        what: str,
        write: Callable[[], object],
        note: str = "",
        elsewhere: str = ":export PATH writes elsewhere",
    ) -> None:
        """Every file the UI writes goes through here: a dialog names the path (and `note`), only `y` writes.
        `elsewhere`: how to write it to another path (empty: there is no other way)."""

        def answered(yes: bool | None) -> None:
            if not yes:
                self.notify("nothing written")
                return
            try:
                write()
            except (OSError, ValueError) as exc:  # ValueError: a typed path with a NUL in it
                self.notify(f"cannot write {path}: {getattr(exc, 'strerror', None) or exc}", severity="error")
                return
            self.notify(f"wrote {what} to {path}")

        self.push_screen(ConfirmWriteScreen(path, what, note, elsewhere), answered)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("Pods", "All pods by namespace (:pods)", lambda: self.goto("pods"))
        yield SystemCommand("Matrix", "The reachability truth table (:matrix)", lambda: self.goto("matrix"))
        yield SystemCommand("Audit", "Namespace isolation findings (:audit)", lambda: self.goto("audit"))
        yield SystemCommand("Nodes", "Nodes, capacity and Pending pods (:nodes)", lambda: self.goto("nodes"))
        yield SystemCommand("Policies", "NetworkPolicies as written (:policies)", lambda: self.goto("policies"))
        yield SystemCommand(
            "Exposure", "What reaches pods from outside, through which door (:exposure)", lambda: self.goto("exposure")
        )
        yield SystemCommand("Reload", "Read the manifests again (r)", self.action_reload)
        yield SystemCommand("Export view", "Write the current view to a file (e)", self.action_export)
        yield SystemCommand("Help", "Keys and filter syntax (?)", self.action_help)
        yield SystemCommand("Warnings", "What the last load could not read (:warnings)", self.show_load_notes)
        yield SystemCommand("Back", "Previous view (Esc)", self.back)
        if isinstance(screen, ReachScreen) and screen.FILTERABLE:
            yield SystemCommand("Filter", "Filter this view (/)", lambda: screen.action_prompt("filter"))
        if isinstance(screen, MatrixScreen):
            yield SystemCommand("Toggle workloads", "Matrix by pod / by workload (w)", screen.action_toggle_workloads)
            yield SystemCommand("Port filter", "Matrix for one port (p)", lambda: screen.action_prompt("port"))
        if self.model is not None:
            yield SystemCommand("Namespace: all", "Show every namespace (:ns)", lambda: self.set_namespace(None))
            for ns in self.model.namespaces:
                yield SystemCommand(
                    f"Namespace: {ns}", f"Only namespace {ns} (:ns {ns})", lambda ns=ns: self.set_namespace(ns)
                )
            if len(self.model.all_pods) <= 500:
                for p in self.model.all_pods:
                    yield SystemCommand(
                        f"Open pod {p.key}", "Who can reach it, what it can reach", lambda k=p.key: self.open_pod_key(k)
                    )
