"""A worker's process when it speaks line-delimited JSON on stdio (the eslint worker): started as the leader of
its own process group, its stderr drained into the log, answers matched to requests by id, the group killed
with it."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import signal
from collections import deque
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lintel.process import PARSE_CAP_BYTES, signal_group, stop_group
from lintel.proxy.child_process import describe_exit, telling_line
from lintel.workers.base import WorkerError

log = logging.getLogger(__name__)

STDERR_TAIL = 20  # lines of stderr kept for the message when the process fails
STOP_GRACE = 0.5  # seconds between closing its stdin and killing its group
_EXIT_POLL = 0.02


class JsonLinesChild:
    """One process: `request` sends a JSON object with a fresh id and returns the answer carrying that id;
    answers to requests nobody waits for any more (cancelled) are dropped; anything else it writes (its
    greeting) is handed out by `receive`."""

    def __init__(self, process: asyncio.subprocess.Process, label: str) -> None:
        self.process = process
        self.label = label
        self.tail: deque[str] = deque(maxlen=STDERR_TAIL)
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._unsolicited: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self._ended: str | None = None  # how it ended, once its output closed
        self._tasks = [
            asyncio.create_task(self._read(), name=f"{label} stdout"),
            asyncio.create_task(self._drain(), name=f"{label} stderr"),
        ]

    @classmethod
    async def spawn(cls, argv: Sequence[str], *, cwd: Path, env: Mapping[str, str], label: str) -> JsonLinesChild:
        """Start it; WorkerError when it cannot be started."""
        try:
            process = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                cwd=cwd,
                env=dict(env),
                start_new_session=True,  # its own process group: killed as a whole
                limit=PARSE_CAP_BYTES,  # one answer is one line; a few hundred findings are ~100 KB
            )
        except OSError as exc:
            raise WorkerError(f"cannot start {label}: {exc}") from exc
        log.info("%s started (pid %d): %s", label, process.pid, " ".join(argv))
        return cls(process, label)

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def alive(self) -> bool:
        return self._ended is None and self.process.returncode is None

    def failure(self) -> str:
        """What went wrong, for a WorkerError: how it ended and the telling line of its stderr."""
        how = self._ended or describe_exit(self.process.returncode)
        said = telling_line("\n".join(self.tail))
        return f"{self.label} {how}" + (f": {said}" if said else "")

    async def receive(self) -> dict[str, Any]:
        """The next message that answers no request (the greeting); WorkerError once the process ended."""
        message = await self._unsolicited.get()
        if message is None:
            self._unsolicited.put_nowait(None)  # for any later reader too
            raise WorkerError(self.failure())
        return message

    async def request(self, message: Mapping[str, Any]) -> dict[str, Any]:
        """Send `message` with a fresh id; its answer. A cancelled request is withdrawn (`{"cancel": id}`), so a
        process that has not started on it skips it, and its late answer is dropped."""
        if not self.alive:
            raise WorkerError(self.failure())
        msg_id = next(self._ids)
        answer: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[msg_id] = answer
        try:
            await self._write({**message, "id": msg_id})
            return await answer
        except asyncio.CancelledError:
            if self.alive:
                with contextlib.suppress(Exception):
                    await asyncio.shield(self._write({"cancel": msg_id}))
            raise
        finally:
            self._pending.pop(msg_id, None)

    async def _write(self, message: Mapping[str, Any]) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        try:
            stdin.write(json.dumps(message, ensure_ascii=False).encode("utf-8") + b"\n")
            await stdin.drain()
        except (ConnectionError, RuntimeError) as exc:  # its stdin closed: it is ending
            raise WorkerError(f"{self.failure()} ({exc})") from exc

    async def _read(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        try:
            while True:
                line = await stdout.readline()
                if not line:
                    break
                self._dispatch(line)
        except (ValueError, asyncio.LimitOverrunError) as exc:  # a line above PARSE_CAP_BYTES
            self._ended = f"wrote an answer larger than {PARSE_CAP_BYTES // 2**20} MiB ({exc})"
            signal_group(self.pid, signal.SIGKILL)
        await self._wait_exit()
        if self._ended is None:
            self._ended = describe_exit(self.process.returncode)
        log.info("%s (pid %d) %s", self.label, self.pid, self._ended)
        error = WorkerError(self.failure())
        for pending in self._pending.values():
            if not pending.done():
                pending.set_exception(error)
        self._unsolicited.put_nowait(None)

    def _dispatch(self, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            log.warning("%s wrote a line that is not JSON: %.200r", self.label, line)
            return
        if not isinstance(message, dict):
            log.warning("%s wrote JSON that is not an object: %.200r", self.label, line)
            return
        if "id" not in message:
            self._unsolicited.put_nowait(message)
            return
        msg_id = message["id"]
        pending = self._pending.get(msg_id) if isinstance(msg_id, int) else None
        if pending is not None and not pending.done():
            pending.set_result(message)
        elif msg_id is None:
            log.warning("%s: %s", self.label, message.get("error"))
        else:
            log.debug("%s: dropped the answer to withdrawn request %s", self.label, msg_id)

    async def _drain(self) -> None:
        """Read stderr to the end (an unread pipe blocks the process), into the log and the tail."""
        stderr = self.process.stderr
        assert stderr is not None
        with contextlib.suppress(ValueError, asyncio.LimitOverrunError):
            while True:
                line = await stderr.readline()
                if not line:
                    return
                text = line.decode("utf-8", errors="replace").rstrip()
                if text:
                    self.tail.append(text)
                    log.info("%s stderr: %s", self.label, text)

    async def _wait_exit(self, timeout: float = STOP_GRACE) -> None:
        """Until the exit is known (returncode), at most `timeout`: Process.wait() would also wait for the
        pipes, which a helper it started may still hold (CPython 3.11)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self.process.returncode is None and loop.time() < deadline:  # noqa: ASYNC110 - no exit event to wait on
            await asyncio.sleep(_EXIT_POLL)

    async def stop(self) -> None:
        """Close its stdin (it exits on EOF), then SIGTERM and SIGKILL what is left of its group; idempotent."""
        stdin = self.process.stdin
        if stdin is not None and not stdin.is_closing():
            stdin.close()
        if self.process.returncode is None:
            await self._wait_exit()
        if self.process.returncode is None:
            await stop_group(self.pid, STOP_GRACE)
        self.kill()  # helpers it left behind in its group
        await self._wait_exit()
        _, pending = await asyncio.wait(self._tasks, timeout=1.0)
        for task in pending:
            task.cancel()

    def kill(self) -> None:
        """SIGKILL the whole group at once (at interpreter exit: no await possible)."""
        signal_group(self.pid, signal.SIGKILL)
