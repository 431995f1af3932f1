"""A long-lived child's operating-system process (a language server, a warm worker): started as the leader of its
own process group, its stdout read as framed messages (lintel.runtime.wire), its stderr drained, its end noticed,
and the whole group killed with it. lintel.runtime.rpc speaks over it."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import signal
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from lintel.runtime import piped
from lintel.runtime.piped import Piped
from lintel.runtime.process import signal_group, stop_group
from lintel.runtime.wire import LineReader, MessageReader

# A framing reader of the child's stdout: `done` once the pipe closed.
Reader = MessageReader | LineReader

log = logging.getLogger(__name__)

STDERR_TAIL = 20  # lines of the child's stderr kept for the failure message
TERM_GRACE = 0.5  # seconds a child that did not exit on `exit` gets between SIGTERM and SIGKILL

# Lines of a backtrace or stack trace, which say where, not what: `  15: <unknown>`, `     at ./csu/…`,
# `    at Module._load (node:internal…)`, `\t/usr/lib/go/src/runtime/panic.go:12 +0x1d`, `  File "x.py", line 3`.
_TRACE_LINE = re.compile(r"^(\d+: |at |File \"|/\S+:\d+ \+0x|goroutine \d+ \[|stack backtrace:|traceback )", re.I)
_ERROR_LINE = re.compile(r"^(error|fatal|panic)\b|panicked at|^\w*(Error|Exception)\b", re.I)


def telling_line(stderr: str) -> str:
    """The line of a failed child's last words that says what went wrong: the last error line (`error: Unknown
    binary 'rust-analyzer'…`, `ModuleNotFoundError: …`, `panic: …`), else the last line that is not part of a
    backtrace — never `15: <unknown>`."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    errors = [line for line in lines if _ERROR_LINE.search(line)]
    if errors:
        return errors[-1]
    told = [line for line in lines if not _TRACE_LINE.match(line)]
    return (told or lines or [""])[-1]


def describe_exit(returncode: int | None) -> str:
    if returncode is None:
        return "closed its output"
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"was killed by {name}"
    return f"exited with code {returncode}"


class ChildProcess:
    """One run of a child: `spawn` starts it, `read` connects its output, `stop`/`kill` end its process group.

    Its stdout is a pipe of lintel's own, read by a framing protocol (lintel.runtime.wire) rather than a StreamReader.
    """

    def __init__(self, started: Piped, read_end: int, label: str, tail: deque[str]) -> None:
        self.pid = started.exit.proc.pid
        self.label = label  # for the log
        self.tail = tail  # the last lines of its stderr
        self.stopping = False  # lintel is ending it: its end is no failure
        self._exit = started.exit
        self._stdin = started.stdin
        self._stderr = started.stderr
        self._read_end = read_end
        self._stdout: asyncio.BaseTransport | None = None
        self._tasks: list[asyncio.Future[Any]] = []

    @classmethod
    async def spawn(
        cls, argv: Sequence[str], *, cwd: Path, env: Mapping[str, str] | None, label: str, tail: deque[str]
    ) -> ChildProcess:
        """Start it (lintel.runtime.piped: forked synchronously, never through asyncio's subprocess transport); OSError
        when it cannot be. Nothing is read from it before `read`."""
        read_end, write_end = os.pipe()
        try:
            proc = piped.fork(argv, cwd=cwd, env=env, stdout=write_end)
        except BaseException:
            os.close(read_end)
            raise
        finally:
            os.close(write_end)
        try:
            started = await piped.connect(proc)
        except BaseException:
            os.close(read_end)
            raise
        return cls(started, read_end, label, tail)

    @property
    def returncode(self) -> int | None:
        """How it ended (negative: the signal that killed it); None while it runs."""
        return self._exit.returncode

    @property
    def stdin(self) -> asyncio.StreamWriter:
        return self._stdin

    async def read(self, messages: Reader, on_exit: Callable[[str], None]) -> None:
        """Feed its output to `messages`; if it ends without `stop`, `on_exit(how it ended)`."""
        try:
            self._stdout, _ = await asyncio.get_running_loop().connect_read_pipe(
                lambda: messages, os.fdopen(self._read_end, "rb", buffering=0)
            )
        except BaseException:
            self.kill()  # cancelled while connecting (a start cancelled at shutdown): nothing is left running
            raise
        reader = asyncio.ensure_future(messages.done)
        drain = asyncio.create_task(self._drain(), name=f"{self.label} stderr")
        watch = asyncio.create_task(self._watch(reader, drain, on_exit), name=f"{self.label} watch")
        self._tasks = [reader, drain, watch]

    async def _drain(self) -> None:
        """Read stderr to the end (an unread pipe blocks the child), into the log and the tail."""
        stderr = self._stderr
        while True:
            line = await stderr.readline()
            if not line:
                return
            text = line.decode("utf-8", errors="replace").rstrip()
            if text:
                self.tail.append(text)
                log.debug("%s stderr: %s", self.label, text)

    async def _watch(
        self, reader: asyncio.Future[None], drain: asyncio.Task[None], on_exit: Callable[[str], None]
    ) -> None:
        """Notice the child's end within 0.1 s. Process.wait() is no use: it also waits for the pipes,
        which a surviving helper (tsserver, node under a Python launcher) keeps open."""
        while self.returncode is None and not reader.done():
            await asyncio.wait({reader}, timeout=0.1)
        if self.stopping:
            return
        if self.returncode is None:
            await self.exited(0.2)
        # Helpers left behind go first (they hold the pipes), then the last words on stderr are read.
        self.kill()
        await asyncio.wait({drain}, timeout=0.3)
        on_exit(describe_exit(self.returncode))

    async def exited(self, timeout: float) -> bool:
        """Whether it has exited, waiting up to `timeout` seconds for it."""
        if self.returncode is None:
            with contextlib.suppress(asyncio.TimeoutError, TimeoutError):
                await asyncio.wait_for(self._exit.exited.wait(), timeout)
        return self.returncode is not None

    def kill(self) -> None:
        """SIGKILL the whole group: the child and any helper it left behind."""
        signal_group(self.pid, signal.SIGKILL)

    async def stop(self) -> None:
        """SIGTERM and then SIGKILL the group if the child still runs; SIGKILL what it left behind if not."""
        self.stopping = True
        if self.returncode is None:
            await stop_group(self.pid, TERM_GRACE)
        self.kill()

    async def finish(self) -> None:
        """Close its input and wait for the reader, stderr and watcher to end (the pipes close once the group is
        dead)."""
        with contextlib.suppress(Exception):
            self.stdin.close()
        current = asyncio.current_task()
        tasks = [t for t in self._tasks if t is not current]
        if not tasks:
            return
        _, pending = await asyncio.wait(tasks, timeout=2.0)
        for task in pending:
            task.cancel()
        if self._stdout is not None:
            self._stdout.close()  # a helper that outlived the group's kill may still hold its write end
