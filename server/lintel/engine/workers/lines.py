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

from lintel.engine.workers.base import WorkerError
from lintel.runtime import piped
from lintel.runtime.child_process import describe_exit, telling_line
from lintel.runtime.piped import Piped
from lintel.runtime.process import PARSE_CAP_BYTES, signal_group, stop_group

log = logging.getLogger(__name__)

STDERR_TAIL = 20  # lines of stderr kept for the message when the process fails
STOP_GRACE = 0.5  # seconds between closing its stdin and killing its group


class JsonLinesChild:
    """One process: `request` sends a JSON object with a fresh id and returns the answer carrying that id;
    answers to requests nobody waits for any more (cancelled) are dropped; anything else it writes (its
    greeting) is handed out by `receive`."""

    def __init__(self, pid: int, streams: Piped, label: str) -> None:
        self.pid = pid
        self.label = label
        self._streams = streams
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
        """Start it in its own process group (lintel.runtime.piped: never through asyncio's subprocess transport, which
        hangs when the start is cancelled at the loop's end); WorkerError when it cannot be started."""
        try:
            proc = piped.fork(argv, cwd=cwd, env=env)
        except OSError as exc:
            raise WorkerError(f"cannot start {label}: {exc}") from exc
        # One answer is one line (a few hundred findings are ~100 KB): lines up to the parse cap.
        streams = await piped.connect(proc, limit=PARSE_CAP_BYTES)
        log.info("%s started (pid %d): %s", label, proc.pid, " ".join(argv))
        return cls(proc.pid, streams, label)

    @property
    def returncode(self) -> int | None:
        """How it ended (negative: the signal that killed it); None while it runs."""
        return self._streams.exit.returncode

    @property
    def alive(self) -> bool:
        return self._ended is None and self.returncode is None

    def failure(self) -> str:
        """What went wrong, for a WorkerError: how it ended and the telling line of its stderr."""
        how = self._ended or describe_exit(self.returncode)
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
        stdin = self._streams.stdin
        try:
            stdin.write(json.dumps(message, ensure_ascii=False).encode("utf-8") + b"\n")
            await stdin.drain()
        except (ConnectionError, RuntimeError) as exc:  # its stdin closed: it is ending
            raise WorkerError(f"{self.failure()} ({exc})") from exc

    async def _read(self) -> None:
        stdout = self._streams.stdout
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
            self._ended = describe_exit(self.returncode)
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
        stderr = self._streams.stderr
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
        """Until the exit is known (returncode), at most `timeout`; not until its pipes close, which a helper it
        started may still hold."""
        with contextlib.suppress(asyncio.TimeoutError, TimeoutError):
            await asyncio.wait_for(self._streams.exit.exited.wait(), timeout)

    async def stop(self) -> None:
        """Close its stdin (it exits on EOF), then SIGTERM and SIGKILL what is left of its group; idempotent."""
        stdin = self._streams.stdin
        if not stdin.is_closing():
            stdin.close()
        if self.returncode is None:
            await self._wait_exit()
        if self.returncode is None:
            await stop_group(self.pid, STOP_GRACE)
        self.kill()  # helpers it left behind in its group
        await self._wait_exit()
        _, pending = await asyncio.wait(self._tasks, timeout=1.0)
        for task in pending:
            task.cancel()

    def kill(self) -> None:
        """SIGKILL the whole group at once (at interpreter exit: no await possible)."""
        signal_group(self.pid, signal.SIGKILL)
