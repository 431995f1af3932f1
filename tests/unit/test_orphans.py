"""The watchdog that ends what lintel started once lintel has ended, however it ended (orphans.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from lintel.runtime import orphans

pytestmark = pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs a Linux /proc")

SLEEP = [sys.executable, "-c", "import time; time.sleep(600)"]


def sleeper(owners: str | None, *, detached: bool = False) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if k != orphans.OWNERS_VARIABLE}
    if owners is not None:
        env[orphans.OWNERS_VARIABLE] = owners
    return subprocess.Popen(SLEEP, env=env, start_new_session=detached)


def wait_ended(process: subprocess.Popen[bytes], timeout: float = 10) -> int:
    return process.wait(timeout)


def until(predicate: Callable[[], bool], what: str) -> None:
    """Poll until `predicate` holds (a process got where the test needs it); fails after ~10 s of polls."""
    for _ in range(1000):
        if predicate():
            return
        time.sleep(0.01)
    raise AssertionError(f"{what} never happened")


def ignores(pid: int, sig: signal.Signals) -> bool:
    """Whether process `pid` ignores `sig` now (its SigIgn mask in /proc)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    except OSError:
        return False
    mask = next((line.split()[1] for line in status.splitlines() if line.startswith("SigIgn:")), "0")
    return bool(int(mask, 16) & (1 << (sig - 1)))


def execed(process: subprocess.Popen[bytes]) -> bool:
    """Whether the exec is done: /proc shows the program's command line (and its new environment)."""
    try:
        return b"time.sleep(600)" in Path(f"/proc/{process.pid}/cmdline").read_bytes()
    except OSError:
        return False


def test_carries_reads_the_cookie_among_several_owners() -> None:
    tagged = sleeper("outer-1 inner-2")
    other = sleeper("outer-12")
    try:
        until(lambda: execed(tagged) and execed(other), "the exec")  # /proc shows the new environment
        assert orphans.carries(tagged.pid, "inner-2")
        assert orphans.carries(tagged.pid, "outer-1")
        assert not orphans.carries(other.pid, "outer-1")  # a token, not a prefix
        assert not orphans.carries(os.getpid(), "inner-2")
    finally:
        for process in (tagged, other):
            process.kill()
            process.wait()


def test_sweep_ends_tagged_processes_only_even_those_that_left_the_group() -> None:
    tagged = [sleeper("c-1"), sleeper("x c-1", detached=True)]
    bystander = sleeper("c-2")
    try:
        until(lambda: all(execed(p) for p in (*tagged, bystander)), "the exec")
        assert orphans.sweep("c-1", grace=1.0) == 2
        for process in tagged:
            assert wait_ended(process) == -signal.SIGTERM
        assert bystander.poll() is None
    finally:
        for process in (*tagged, bystander):
            process.kill()
            process.wait()


def test_sweep_kills_what_ignores_sigterm() -> None:
    stubborn = subprocess.Popen(
        [sys.executable, "-c", "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)"],
        env={**os.environ, orphans.OWNERS_VARIABLE: "s-1"},
    )
    try:
        until(lambda: ignores(stubborn.pid, signal.SIGTERM), "SIGTERM ignored")
        assert orphans.sweep("s-1", grace=0.5) >= 1
        assert wait_ended(stubborn) == -signal.SIGKILL
    finally:
        stubborn.kill()
        stubborn.wait()


def test_the_watchdog_sweeps_when_its_pipe_closes_and_not_before() -> None:
    watchdog = subprocess.Popen(
        [sys.executable, "-I", "-S", orphans.__file__, "w-1", str(os.getpid())],
        stdin=subprocess.PIPE,
        start_new_session=True,
    )
    tagged = sleeper("w-1")
    try:
        # Its handlers set, it is in its read loop: only the pipe's end makes it sweep.
        until(lambda: ignores(watchdog.pid, signal.SIGTERM) and execed(tagged), "the watchdog's start")
        assert tagged.poll() is None  # lintel still runs: nothing is touched
        assert watchdog.stdin is not None
        watchdog.stdin.close()  # what lintel's end does, SIGKILL included
        assert wait_ended(tagged) == -signal.SIGTERM
        assert watchdog.wait(10) == 0
    finally:
        for process in (tagged, watchdog):
            process.kill()
            process.wait()
