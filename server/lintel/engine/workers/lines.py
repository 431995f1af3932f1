"""A worker's process when it speaks line-delimited JSON on stdio (the eslint worker): a ChildProcess (own process
group, stderr drained, the group killed with it) and a lintel.runtime.rpc Connection in the JSON-lines dialect."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lintel.engine.workers.base import WorkerError
from lintel.runtime.child_process import ChildProcess, describe_exit, telling_line
from lintel.runtime.process import PARSE_CAP_BYTES
from lintel.runtime.rpc import Callbacks, Connection, JsonLines

log = logging.getLogger(__name__)

STDERR_TAIL = 20  # lines of stderr kept for the message when the process fails
STOP_GRACE = 0.5  # seconds between closing its stdin and killing its group


class JsonLinesChild:
    """One process: `request` sends a JSON object with a fresh id and returns the answer carrying that id;
    answers to requests nobody waits for any more (cancelled) are dropped; anything else it writes (its
    greeting) is handed out by `receive`."""

    def __init__(self, process: ChildProcess, label: str) -> None:
        self.pid = process.pid
        self.label = label
        self.tail = process.tail
        self._process = process
        self._unsolicited: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self._ended: str | None = None  # how it ended, once its output closed
        # One answer is one line (a few hundred findings are ~100 KB): lines up to the parse cap.
        self._conn = Connection(
            process,
            JsonLines(PARSE_CAP_BYTES),
            label=label,
            failed=lambda reason: WorkerError(self.failure()),
            callbacks=Callbacks(on_notification=self._greeting, on_end=self._on_end),
        )

    @classmethod
    async def spawn(cls, argv: Sequence[str], *, cwd: Path, env: Mapping[str, str], label: str) -> JsonLinesChild:
        """Start it in its own process group (lintel.runtime.piped: never through asyncio's subprocess transport,
        which hangs when the start is cancelled at the loop's end); WorkerError when it cannot be started."""
        tail: deque[str] = deque(maxlen=STDERR_TAIL)
        try:
            process = await ChildProcess.spawn(argv, cwd=cwd, env=env, label=label, tail=tail)
        except OSError as exc:
            raise WorkerError(f"cannot start {label}: {exc}") from exc
        child = cls(process, label)
        await child._conn.open()
        log.info("%s started (pid %d): %s", label, process.pid, " ".join(argv))
        return child

    @property
    def returncode(self) -> int | None:
        """How it ended (negative: the signal that killed it); None while it runs."""
        return self._process.returncode

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
        answer: dict[str, Any] = await self._conn.request("", message)
        return answer

    def _greeting(self, method: str | None, message: Any) -> None:
        if isinstance(message, dict):
            self._unsolicited.put_nowait(message)

    def _on_end(self, how: str) -> None:
        if self._ended is None:
            self._ended = how
            log.info("%s (pid %d) %s", self.label, self.pid, how)
        self._conn.fail(self.failure())
        self._unsolicited.put_nowait(None)

    async def stop(self) -> None:
        """Close its stdin (it exits on EOF), then SIGTERM and SIGKILL what is left of its group; idempotent."""
        process = self._process
        process.stopping = True
        self._conn.close_input()
        if process.returncode is None:
            await process.exited(STOP_GRACE)
        await process.stop()  # SIGTERM (if it still runs), then SIGKILL to helpers it left in its group
        if self._ended is None:
            self._on_end(describe_exit(self.returncode))
        with contextlib.suppress(Exception):
            await process.finish()

    def kill(self) -> None:
        """SIGKILL the whole group at once (at interpreter exit: no await possible)."""
        self._process.kill()
