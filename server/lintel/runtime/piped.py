"""A long-lived child (a language server, a warm worker) forked in its own session, with asyncio streams on its
pipes and its end watched.

Started without asyncio's subprocess transport on purpose: cancelled while it connects its pipes (a `shutdown`
cancelling a child still starting, and the loop's end cancelling every task with it), that transport waits forever
for pipes it never connected (CPython 3.11). Here the fork is synchronous — no await separates the started process
from what stops it — and a start cancelled after the fork kills the child's group.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import signal
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from lintel.runtime.orphans import inherited
from lintel.runtime.process import ExitWatch, signal_group

STDIN_PIPE_BYTES = 1 << 20  # /proc/sys/fs/pipe-max-size's default: what an unprivileged process may ask


class Piped(NamedTuple):
    exit: ExitWatch
    stdin: asyncio.StreamWriter
    stderr: asyncio.StreamReader
    stdout: asyncio.StreamReader | None  # None when the caller reads stdout itself (`stdout=` an fd)


def fork(
    argv: Sequence[str], *, cwd: Path, env: Mapping[str, str] | None, stdout: int = subprocess.PIPE
) -> subprocess.Popen[bytes]:
    """Fork and exec it, the leader of its own session (so of its own process group, killed as a whole);
    OSError when it cannot be started. It carries lintel's orphan cookie (lintel.runtime.orphans) even when given
    an environment of its own: the watchdog ends it should lintel die without stopping it."""
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=stdout,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env=inherited(env),
        start_new_session=True,
    )
    assert proc.stdin is not None
    # A whole document (a 2,000-line module is ~65 KB, the default pipe holds 64 KB) goes in one write, not the
    # rest at a later turn of the loop after the child has read the start. Linux only; best effort.
    with contextlib.suppress(OSError, AttributeError):
        fcntl.fcntl(proc.stdin.fileno(), fcntl.F_SETPIPE_SZ, STDIN_PIPE_BYTES)
    return proc


async def connect(proc: subprocess.Popen[bytes], *, limit: int = 2**16) -> Piped:
    """A forked child's end watched, a writer on its stdin, readers of its stderr and (when piped) stdout,
    `limit` the longest line a reader returns. A failure or cancellation here kills the child's group."""
    assert proc.stdin is not None
    assert proc.stderr is not None
    loop = asyncio.get_running_loop()
    exit_watch = ExitWatch(proc)
    try:
        stderr = asyncio.StreamReader(limit=limit)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stderr), proc.stderr)
        stdout: asyncio.StreamReader | None = None
        if proc.stdout is not None:
            reader = stdout = asyncio.StreamReader(limit=limit)
            await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), proc.stdout)
        # The protocol a StreamWriter's drain() needs; its reading side is never used (the pipe is write-only).
        transport, protocol = await loop.connect_write_pipe(
            lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader()), proc.stdin
        )
    except BaseException:
        signal_group(proc.pid, signal.SIGKILL)
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
        exit_watch.close()
        raise
    return Piped(exit_watch, asyncio.StreamWriter(transport, protocol, None, loop), stderr, stdout)
