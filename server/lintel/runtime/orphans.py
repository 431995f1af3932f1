"""Nothing lintel starts outlives it, even when lintel itself is killed with SIGKILL (docs/architecture.md,
"Processes").

lintel ends the process groups it starts on timeout, cancel, `exit` and stop signals; a SIGKILL leaves it no
chance to. So every process it starts carries a cookie in its environment (`LINTEL_OWNERS`, the cookies of every
lintel it descends from), and a small watchdog started beside lintel waits on a pipe that only lintel holds. When
the pipe closes, lintel has ended, however it ended: the watchdog then finds the processes that carry lintel's
cookie — grandchildren included, also those that left lintel's process groups with setsid — and ends them
(SIGTERM, then SIGKILL after a grace). Jenkins' process tree killer finds a build's leftovers the same way.

This file is also the watchdog's program: `python -I -S orphans.py COOKIE LINTEL_PID` (standard library only).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from typing import IO

OWNERS_VARIABLE = "LINTEL_OWNERS"
PARENT_GUARDS_VARIABLE = "LINTEL_PARENT_GUARDS"  # the pid of a lintel whose parent sweeps its leftovers
GRACE = 2.0  # seconds between SIGTERM and SIGKILL
_ROUNDS = 3  # sweeps: a process that was forking while the previous one ran is caught by the next


class Watchdog:
    """The running watchdog: it sweeps lintel's leftovers when this process ends (the pipe closes with it) or
    when `release` is called. Keep the object alive for as long as lintel runs."""

    def __init__(self, cookie: str, process: subprocess.Popen[bytes]) -> None:
        self.cookie = cookie
        self.process = process

    @property
    def pid(self) -> int:
        return self.process.pid

    def release(self) -> None:
        """Sweep now (lintel is ending normally and has stopped its own processes: this catches the rest)."""
        pipe: IO[bytes] | None = self.process.stdin
        if pipe is not None and not pipe.closed:
            pipe.close()


def guard() -> Watchdog | None:
    """Tag every process lintel starts from now on and start the watchdog that ends them once lintel has ended.
    None where there is no Linux /proc to find them by (the process groups are still killed as usual), and in a
    lintel the warm lintel forked, which it guards itself (guarded_by_parent)."""
    if not os.path.isdir("/proc/self") or os.environ.get(PARENT_GUARDS_VARIABLE) == str(os.getpid()):
        return None
    cookie = f"{os.getpid()}-{secrets.token_hex(6)}"
    env = {k: v for k, v in os.environ.items() if k != OWNERS_VARIABLE}
    try:
        process = subprocess.Popen(
            [sys.executable, "-I", "-S", os.path.abspath(__file__), cookie, str(os.getpid())],
            stdin=subprocess.PIPE,  # the pipe lintel alone holds (non-inheritable: no tool it starts gets it)
            stdout=subprocess.DEVNULL,  # never lintel's stdout: that is the editor's connection
            stderr=subprocess.DEVNULL,
            env=env,
            start_new_session=True,  # a Ctrl-C or kill of lintel's group must not take it along
        )
    except OSError:
        return None
    os.environ[OWNERS_VARIABLE] = f"{os.environ.get(OWNERS_VARIABLE, '')} {cookie}".strip()
    return Watchdog(cookie, process)


def guarded_by_parent(cookie: str) -> None:
    """Tag every process this lintel starts with `cookie`, which its parent (the warm lintel that forked it)
    sweeps once it has ended: no watchdog of its own to start. The mark names this process, so a lintel started
    below it (inheriting the environment) still guards itself."""
    os.environ[OWNERS_VARIABLE] = f"{os.environ.get(OWNERS_VARIABLE, '')} {cookie}".strip()
    os.environ[PARENT_GUARDS_VARIABLE] = str(os.getpid())


def run_cookie() -> str:
    """A cookie for one run: its processes carry it beside lintel's own, so a cancelled or timed-out run's
    leftovers (started in a session of their own) can be found and ended without waiting for lintel's exit."""
    return f"run-{secrets.token_hex(6)}"


def with_cookie(env: Mapping[str, str] | None, cookie: str) -> dict[str, str]:
    """`env` (None: this process's environment) with `cookie` added to the owners variable."""
    base = os.environ if env is None else env
    return {**base, OWNERS_VARIABLE: f"{base.get(OWNERS_VARIABLE, '')} {cookie}".strip()}


def inherited(env: Mapping[str, str] | None) -> dict[str, str] | None:
    """An environment for a child: `env` with the owners of this process added (None: this process's own, which
    has them). The cookie survives a caller that built the child's environment from scratch."""
    if env is None:
        return None
    mine = os.environ.get(OWNERS_VARIABLE, "").split()
    theirs = env.get(OWNERS_VARIABLE, "").split()
    missing = [cookie for cookie in mine if cookie not in theirs]
    if not missing:
        return dict(env)
    return {**env, OWNERS_VARIABLE: " ".join([*theirs, *missing])}


def carries(pid: int, cookie: str) -> bool:
    """Whether process `pid` was started (at any depth) by the lintel whose cookie this is."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as environ:
            entries = environ.read().split(b"\0")
    except OSError:  # gone, or not ours to read
        return False
    prefix = f"{OWNERS_VARIABLE}=".encode()
    wanted = cookie.encode()
    return any(entry.startswith(prefix) and wanted in entry[len(prefix) :].split() for entry in entries)


def owned(cookie: str, spare: frozenset[int] = frozenset()) -> list[int]:
    """The live processes that carry `cookie`, leaving out this one and those in `spare`."""
    left_out = spare | {os.getpid()}
    return [int(e) for e in os.listdir("/proc") if e.isdigit() and int(e) not in left_out and carries(int(e), cookie)]


def _signal(pid: int, cookie: str, sig: signal.Signals) -> None:
    """Signal `pid` only if it is still the process that carries the cookie (a pidfd pins it against reuse)."""
    with contextlib.suppress(OSError):  # it ended meanwhile, or is not ours to signal
        if not hasattr(os, "pidfd_open"):
            if carries(pid, cookie):
                os.kill(pid, sig)
            return
        pidfd = os.pidfd_open(pid)
        try:
            if carries(pid, cookie):
                signal.pidfd_send_signal(pidfd, sig)
        finally:
            os.close(pidfd)


def sweep(cookie: str, grace: float = GRACE, spare: frozenset[int] = frozenset()) -> int:
    """End every process carrying `cookie` (but those in `spare`): SIGTERM, then SIGKILL for those alive after
    `grace`. How many there were."""
    total = 0
    for _ in range(_ROUNDS):
        pids = owned(cookie, spare)
        if not pids:
            break
        total += len(pids)
        for pid in pids:
            _signal(pid, cookie, signal.SIGTERM)
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and owned(cookie, spare):
            time.sleep(0.05)
        for pid in owned(cookie, spare):
            _signal(pid, cookie, signal.SIGKILL)
    return total


def _watch(cookie: str, lintel_pid: int) -> None:
    # Signals meant for lintel's terminal or group are not for the watchdog: it must outlive lintel.
    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
        signal.signal(sig, signal.SIG_IGN)
    while sys.stdin.buffer.read(4096):
        pass  # nothing is ever written: EOF is the message
    sweep(cookie, spare=frozenset({lintel_pid}))  # lintel itself, if it released us and is still ending


if __name__ == "__main__":
    _watch(sys.argv[1], int(sys.argv[2]))
