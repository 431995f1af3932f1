"""A long-lived child's process — a child language server (lintel.runtime.child_process) or a warm worker speaking
JSON lines (lintel.engine.workers.lines), both started by lintel.runtime.piped: its start can be cancelled at any
point, as an
editor's `shutdown` does to a child still starting, without lintel waiting forever or leaving it running."""

from __future__ import annotations

import asyncio
import os
import sys
from collections import deque
from pathlib import Path

import pytest
from lintel.engine.workers.lines import JsonLinesChild
from lintel.runtime.child_process import ChildProcess

SLEEPER = [sys.executable, "-c", "import time; time.sleep(60)"]


def running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/status")
    return not status.exists() or "\nState:\tZ" not in status.read_text(encoding="utf-8")


async def _start_server(cwd: Path) -> ChildProcess:
    return await ChildProcess.spawn(SLEEPER, cwd=cwd, env=None, label="sleeper", tail=deque())


async def _start_worker(cwd: Path) -> JsonLinesChild:
    return await JsonLinesChild.spawn(SLEEPER, cwd=cwd, env=dict(os.environ), label="sleeper")


@pytest.mark.parametrize("kind", ["language server", "worker"])
@pytest.mark.parametrize("turns", range(8))
async def test_a_start_cancelled_at_any_turn_ends_and_leaves_no_child(tmp_path: Path, turns: int, kind: str) -> None:
    """asyncio's subprocess transport, cancelled while it connects pipes it made (the connecting task cancelled
    too), waits forever for them (CPython 3.11): each turn of the loop is a later point of the start."""
    before = set(os.listdir("/proc"))
    starter = _start_server if kind == "language server" else _start_worker
    start: asyncio.Future[ChildProcess | JsonLinesChild] = asyncio.ensure_future(starter(tmp_path))
    for _ in range(turns):
        await asyncio.sleep(0)
    start.cancel()
    # And every other task at once, as asyncio.run does when the editor's connection closes with its `shutdown`.
    for task in asyncio.all_tasks():
        if task is not asyncio.current_task():
            task.cancel()
    done, _ = await asyncio.wait({start}, timeout=10)
    assert start in done, "the cancelled start never ended"
    if not start.cancelled():  # it had finished before the cancel came: stopping it is the caller's
        child = start.result()
        await child.stop()
        if isinstance(child, ChildProcess):
            await child.finish()
    children = [int(p) for p in set(os.listdir("/proc")) - before if p.isdigit()]
    for _ in range(100):
        alive = [pid for pid in children if running(pid) and _is_sleeper(pid)]
        if not alive:
            break
        await asyncio.sleep(0.05)
    assert not alive, f"the child outlived its cancelled start: {alive}"


def _is_sleeper(pid: int) -> bool:
    try:
        return b"time.sleep(60)" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
