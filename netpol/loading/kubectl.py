"""Running kubectl: one process per request (the user's kubeconfig, contexts and credentials, unchanged),
killed with its process group at the deadline, a failure reduced to kubectl's own reason on one line."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO

from netpol.errors import UsageError

DEFAULT_TIMEOUT = 60.0
STDERR_KEEP = 64 * 1024  # the tail of kubectl's stderr that is read: the reason is on its last lines
REASON_CHARS = 400

_KLOG = re.compile(r"^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ [^\]]+\] ")
_KLOG_ERR = re.compile(r'err="((?:[^"\\]|\\.)*)"')


class LiveError(UsageError):
    """kubectl could not read what the answer needs (exit 2)."""


@dataclass(frozen=True, slots=True)
class LiveOptions:
    context: str | None = None
    kubeconfig: str | None = None
    kubectl: str = "kubectl"
    timeout: float = DEFAULT_TIMEOUT
    namespaces: tuple[str, ...] = ()  # -n: the namespaces to fall back to when cluster-wide lists are refused

    def flags(self) -> list[str]:
        out = []
        if self.context:
            out += ["--context", self.context]
        if self.kubeconfig:
            out += ["--kubeconfig", self.kubeconfig]
        return out


def one_line_reason(stderr: str, returncode: int | None = None) -> str:
    """kubectl's reason on one line: its final `error: …` / `Error from server …` line, else the last klog
    error (kubectl 1.32 logs a failed discovery five times before saying it once)."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    plain = [line for line in lines if not _KLOG.match(line)]
    if plain:
        reason = plain[-1]
    elif lines:
        m = _KLOG_ERR.search(lines[-1])
        reason = m.group(1).replace('\\"', '"') if m else _KLOG.sub("", lines[-1])
    else:
        reason = f"kubectl exited with status {returncode}"
    reason = reason.removeprefix("error: ")
    return reason if len(reason) <= REASON_CHARS else reason[: REASON_CHARS - 1] + "…"


@dataclass
class KubectlCall:
    """One kubectl process: stdout spooled to a temporary file (a 10,000-pod list is ~50 MB), stderr's tail."""

    argv: list[str]
    proc: subprocess.Popen[bytes]
    out: IO[bytes]
    err: IO[bytes]
    returncode: int | None = None

    def stdout(self) -> bytes:
        self.out.seek(0)
        return self.out.read()

    def stderr(self) -> str:
        size = self.err.seek(0, os.SEEK_END)
        self.err.seek(max(0, size - STDERR_KEEP))
        return self.err.read().decode("utf-8", "replace")

    def close(self) -> None:
        self.out.close()
        self.err.close()


def start(options: LiveOptions, args: Sequence[str]) -> KubectlCall:
    argv = [options.kubectl, *args, *options.flags()]
    out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    try:
        # Its own process group: a timeout kills kubectl and anything it started (exec credential plugins).
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err, start_new_session=True)
    except FileNotFoundError:
        out.close()
        err.close()
        raise LiveError(f"--live needs {options.kubectl!r} on PATH (or --kubectl PATH)") from None
    except OSError as exc:  # not executable, a folder, a text file without #!: say why, never a traceback
        out.close()
        err.close()
        raise LiveError(f"--kubectl {options.kubectl!r} cannot be run: {exc.strerror or exc}") from None
    return KubectlCall(argv, proc, out, err)


def kill(call: KubectlCall) -> None:
    try:
        os.killpg(call.proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    call.proc.wait()


def wait(call: KubectlCall, deadline: float, timeout: float) -> None:
    """Wait for kubectl until the read's deadline; past it, kill its process group."""
    try:
        call.returncode = call.proc.wait(timeout=max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        kill(call)
        raise LiveError(
            f"kubectl did not answer within {timeout:g} s (--kubectl-timeout); is the cluster reachable?"
        ) from None


def run_kubectl(options: LiveOptions, args: Sequence[str]) -> str:
    """One kubectl command's stdout; its one-line reason as a LiveError when it fails."""
    call = start(options, args)
    try:
        wait(call, time.monotonic() + options.timeout, options.timeout)
        if call.returncode != 0:
            raise LiveError(f"kubectl: {one_line_reason(call.stderr(), call.returncode)}")
        return call.stdout().decode("utf-8", "replace")
    finally:
        call.close()
