"""The warm workers of one lintel server: one per WorkerKey (tool, project root), started on first use, stopped
when idle, restarted when the tool's configuration or installation changed, when it died or after a failure.
A request the worker cannot answer comes back None and the caller runs the CLI; the failure is reported.
The slots, starts, rests after failures and idle stops are lintel.runtime.supervisor's, on an injected clock.
docs/architecture.md, "Warm workers"."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar, cast

from lintel.core.issues import Issue
from lintel.engine.workers.base import FixingWorker, LintWorker, WorkerError, WorkerKey, WorkerUnsupported
from lintel.runtime import supervisor
from lintel.runtime.clock import Clock
from lintel.runtime.supervisor import RestartPolicy, Supervisor

log = logging.getLogger(__name__)

# (worker key, program, environment) -> a worker, not started yet.
WorkerFactory = Callable[[WorkerKey, Path, Mapping[str, str]], LintWorker]
# (cause, message): told once per cause (the server's Notifier.once), logged every time.
Report = Callable[[str, str], object]

# Failures in a row (a start that fails, a request that fails) after which a worker is left alone for a while:
# a project whose worker cannot start (a node too old for its eslint) must not pay a failed start on every save.
MAX_FAILURES = 3
BACKOFF_SECONDS = 300.0
# Failures in a row (an answer forgives them), no delay before the next start: the caller is on the CLI meanwhile.
POLICY = RestartPolicy(max_restarts=MAX_FAILURES - 1, window=float("inf"), base=0.0, cap=0.0, cooldown=BACKOFF_SECONDS)

# (exists, mtime_ns, size) of a watched file: a change of any means the tool must be loaded again.
Stamp = tuple[bool, int, int]


@dataclass(frozen=True)
class WorkerKind:
    """How to run one tool's worker: the program it runs (resolved like a tool's binary: the user's
    `binaries` setting, the project's, PATH), the factory, and what keeps a project on the CLI."""

    binary: str
    factory: WorkerFactory
    # A project the worker cannot lint exactly as the CLI does: the reason (logged), else None.
    declines: Callable[[Path], str | None] = lambda root: None


T = TypeVar("T")


async def _within(awaitable: Awaitable[T], seconds: float) -> T:
    """Its result, or asyncio.TimeoutError after `seconds` (it is cancelled). Unlike asyncio.wait_for on Python
    3.11, a cancellation that arrives just as it finishes is not lost (a superseded lint must end)."""
    task = asyncio.ensure_future(awaitable)
    try:
        await asyncio.wait({task}, timeout=seconds)
    except asyncio.CancelledError:
        task.cancel()
        await asyncio.wait({task})
        raise
    if not task.done():
        task.cancel()
        await asyncio.wait({task})
        raise asyncio.TimeoutError
    return task.result()


async def _raises(exc: BaseException) -> list[Issue]:
    raise exc


def _failure(key: WorkerKey, exc: Exception, timeout: float) -> str:
    """What a failed request is reported as; a bug in a worker (not a WorkerError or a timeout) is logged whole."""
    if isinstance(exc, (WorkerError, asyncio.TimeoutError)):
        return f"failed ({str(exc) or f'no answer within {timeout:g}s'})"
    log.exception("%s worker for %s: unexpected error", key.tool, key.root)
    return f"failed ({exc!r})"


def stamp(path: Path) -> Stamp:
    try:
        st = os.stat(path)
    except OSError:
        return (False, 0, 0)
    return (True, st.st_mtime_ns, st.st_size)


@dataclass(eq=False)
class _Slot(supervisor.Slot[WorkerKey, LintWorker]):
    """One key's worker (`child`) and its history."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)  # one request at a time
    stamps: dict[Path, Stamp] = field(default_factory=dict)  # of its watched files, as it loaded them
    # A request sent at once by `lint_now`, outside the lock: the next `lint` waits for it (one at a time).
    sent: asyncio.Task[tuple[list[Issue], LintWorker] | None] | None = None


def _alive(worker: LintWorker) -> bool:
    return worker.alive


class WorkerPool:
    """Warm workers by key. `lint` answers from the key's worker or returns None for the CLI to run."""

    def __init__(self, kinds: Mapping[str, WorkerKind], report: Report, clock: Clock | None = None) -> None:
        self.kinds = kinds
        self.report = report
        self._slots: Supervisor[WorkerKey, LintWorker, _Slot] = Supervisor(
            _Slot, policy=POLICY, clock=clock, alive=_alive, label="warm worker"
        )

    @property
    def _closed(self) -> bool:
        return self._slots.closed

    def kind(self, tool: str) -> WorkerKind | None:
        return self.kinds.get(tool)

    def running(self, key: WorkerKey) -> bool:
        """Whether the key's worker is up, so that a lint of its is a request and not a process (a key resting
        after failures, or with no worker yet, is linted by the CLI or by a worker still to start)."""
        slot = self._slots.get(key)
        worker = slot.child if slot is not None else None
        return worker is not None and worker.alive and not self._closed

    def worker(self, key: WorkerKey) -> LintWorker | None:
        """The key's running worker, if any (tests and benchmarks look at its process)."""
        slot = self._slots.get(key)
        return slot.child if slot is not None else None

    async def lint(
        self,
        key: WorkerKey,
        file: Path,
        text: str,
        *,
        workspace: Path,
        binary: Path,
        env: Mapping[str, str],
        timeout: float,
        idle_seconds: float,
    ) -> list[Issue] | None:
        """The findings of `file` with content `text` from the key's worker (started if need be), as the worker
        gives them (not finalized); None when it cannot answer, which has been reported: the caller lints with
        the CLI. Cancelling it cancels the request, never the worker."""
        kind = self.kinds.get(key.tool)
        if kind is None or self._closed:
            return None
        slot = self._slots.slot(key)
        async with slot.lock:
            if slot.sent is not None:
                await asyncio.wait({slot.sent})
            self._slots.disarm_idle(slot)
            worker = await self._ready(key, slot, kind, binary, env, timeout)
            if worker is None:
                return None
            try:
                issues = await _within(worker.lint(file, text, workspace=workspace), timeout)
            except Exception as exc:  # a bug in a worker, too, must not take lint on save with it
                await self._failed(key, slot, _failure(key, exc, timeout))
                return None
            self._answered(key, slot, worker, idle_seconds)
            return issues

    async def prestart(
        self, key: WorkerKey, *, binary: Path, env: Mapping[str, str], timeout: float, idle_seconds: float
    ) -> None:
        """The key's worker started ahead of its first request (the server's start, as its folders are read), so
        the first open file's lint is a request to a tool already loading; a lint that comes meanwhile waits for
        this start rather than making its own. Failures are those of any start (reported, the CLI lints)."""
        kind = self.kinds.get(key.tool)
        if kind is None or self._closed or self.running(key):
            return
        slot = self._slots.slot(key)
        async with slot.lock:
            self._slots.disarm_idle(slot)
            worker = await self._ready(key, slot, kind, binary, env, timeout)
            if worker is not None:
                # Unused, it stops as any idle worker does.
                self._slots.arm_idle(slot, idle_seconds, lambda: self._idle(key, slot))

    async def fix(self, key: WorkerKey, file: Path, text: str, *, timeout: float) -> str:
        """`text` as the key's running worker's fix mode leaves it (the editor's fix-all: a request, not a process).
        WorkerUnsupported when no running worker of the key can fix; WorkerError when it could not answer."""
        slot = self._slots.get(key)
        worker = slot.child if slot is not None else None
        fix = getattr(worker, "fix", None)
        if slot is None or worker is None or not worker.alive or fix is None or self._closed:
            raise WorkerUnsupported(f"no running {key.tool} worker fixes {file.name}")
        async with slot.lock:
            fixed: str | None = await _within(cast(FixingWorker, worker).fix(file, text), timeout)
        return text if fixed is None else fixed

    def lint_now(
        self, key: WorkerKey, file: Path, text: str, *, workspace: Path, timeout: float, idle_seconds: float
    ) -> asyncio.Task[tuple[list[Issue], LintWorker] | None] | None:
        """`lint`, with the request written before this returns — when the key's worker is running and no
        request of its own is under way; None when it cannot be (the caller uses `lint`). The task's answer names
        the worker that gave it, for `still_current` before it is used (its files are not checked here). A lint
        ahead starts this way as a change arrives, before the messages behind it are handled
        (server/documents.py)."""
        slot = self._slots.get(key)
        if self._closed or slot is None or slot.lock.locked() or slot.sent is not None or slot.starting is not None:
            return None
        worker = slot.child
        # Its watched files are not looked at here (a dozen stats before the request): the answer's user looks
        # after it (`still_current`), and a change of configuration meanwhile is caught there as well.
        if worker is None or not worker.alive:
            return None
        self._slots.disarm_idle(slot)
        try:
            answer = worker.lint(file, text, workspace=workspace)
        except WorkerError as exc:
            answer = _raises(exc)
        sent = asyncio.ensure_future(self._sent(key, slot, worker, answer, timeout, idle_seconds))
        slot.sent = sent
        sent.add_done_callback(lambda done: setattr(slot, "sent", None) if slot.sent is done else None)
        return sent

    async def _sent(
        self,
        key: WorkerKey,
        slot: _Slot,
        worker: LintWorker,
        answer: Awaitable[list[Issue]],
        timeout: float,
        idle_seconds: float,
    ) -> tuple[list[Issue], LintWorker] | None:
        try:
            issues = await _within(answer, timeout)
        except Exception as exc:  # a bug in a worker, too, must not take lint on save with it
            what = _failure(key, exc, timeout)
            slot.sent = None  # the lock's next holder must not wait for this very task
            async with slot.lock:
                if slot.child is worker and not self._closed:
                    await self._failed(key, slot, what)
            return None
        # A `lint` holding the lock now arms the idle stop when it ends.
        self._answered(key, slot, worker, 0 if slot.lock.locked() or slot.idle is not None else idle_seconds)
        return issues, worker

    def _answered(self, key: WorkerKey, slot: _Slot, worker: LintWorker, idle_seconds: float) -> None:
        """After an answer: no failure in a row, the files it named (a config found) watched, the idle stop armed."""
        self._slots.forgive(slot)
        self._note_watched(slot, worker.watched())
        self._slots.arm_idle(slot, idle_seconds, lambda: self._idle(key, slot))

    def still_current(self, key: WorkerKey, worker: LintWorker) -> bool:
        """Whether `worker` is still the key's running worker with its tool's files as it loaded them: an answer
        it gave earlier for a text is the answer it would give for that text now (server/documents.py)."""
        slot = self._slots.get(key)
        return (
            slot is not None and slot.child is worker and worker.alive and self._changed(slot, worker.watched()) is None
        )

    async def _ready(
        self,
        key: WorkerKey,
        slot: _Slot,
        kind: WorkerKind,
        binary: Path,
        env: Mapping[str, str],
        timeout: float,
    ) -> LintWorker | None:
        """The key's worker, restarted when its files changed or it died, started when there is none and the
        key is not resting after repeated failures; None when there is none to ask."""
        worker = slot.child
        if worker is not None:
            changed = self._changed(slot, worker.watched())
            if changed is None and worker.alive:
                return worker
            why = f"{changed} changed" if changed is not None else "its process ended"
            log.info("%s worker for %s: restarting (%s)", key.tool, key.root, why)
            await self._stop(slot)
        if self._slots.resting(slot):
            if self._changed(slot, list(slot.stamps)) is None:
                return None
            self._slots.forgive(slot)  # its installation changed: try again
        starting = self._slots.start(slot, lambda: self._start(key, slot, kind, binary, env, timeout))
        # A superseded request stops waiting, the start goes on for the next one: saves that come faster than
        # the tool loads must not restart its loading each time.
        return await asyncio.shield(starting)

    async def _start(
        self, key: WorkerKey, slot: _Slot, kind: WorkerKind, binary: Path, env: Mapping[str, str], timeout: float
    ) -> LintWorker | None:
        worker: LintWorker | None = None
        try:
            worker = kind.factory(key, binary, env)
            await _within(worker.start(), timeout)
        except BaseException as exc:
            if worker is not None:
                with contextlib.suppress(Exception):
                    await worker.stop()
                slot.stamps = {path: stamp(path) for path in worker.watched()}
            if not isinstance(exc, Exception):
                raise  # cancelled (the pool is stopping): the process is gone, nothing to report
            if isinstance(exc, WorkerUnsupported):
                # Not a fault (an older ruff): one log line, no pop-up, and no new start until the installation
                # (or configuration) changes.
                log.info("%s worker for %s: not used (%s); the %s CLI lints", key.tool, key.root, exc, key.tool)
                self._slots.rest(slot)
                return None
            reason = str(exc) or (f"it did not start within {timeout:g}s" if worker else repr(exc))
            await self._failed(key, slot, f"could not start ({reason})")
            return None
        slot.child = worker
        slot.stamps = {path: stamp(path) for path in worker.watched()}
        return worker

    async def _failed(self, key: WorkerKey, slot: _Slot, what: str) -> None:
        """Stop the worker (the next request starts a fresh one), say so, and rest after repeated failures."""
        await self._stop(slot)
        resting = self._slots.failed(slot)
        self.report(
            f"worker:{key.tool}:{key.root}",
            f"the warm {key.tool} worker for {key.root} {what}; this run uses the {key.tool} CLI",
        )
        if resting:
            self.report(
                f"worker-resting:{key.tool}:{key.root}",
                f"the warm {key.tool} worker for {key.root} failed {len(slot.failures)} times in a row: the "
                f"{key.tool} CLI is used for the next {BACKOFF_SECONDS / 60:g} minutes, or until its "
                "configuration or installation changes",
            )

    @staticmethod
    def _changed(slot: _Slot, watched: Sequence[Path]) -> Path | None:
        """The first watched file whose stamp differs from the one taken when the worker loaded it."""
        for path in watched:
            before = slot.stamps.get(path)
            if before is not None and stamp(path) != before:
                return path
        return None

    @staticmethod
    def _note_watched(slot: _Slot, watched: Sequence[Path]) -> None:
        for path in watched:
            if path not in slot.stamps:
                slot.stamps[path] = stamp(path)

    def _idle(self, key: WorkerKey, slot: _Slot) -> None:
        slot.idle = None
        if slot.child is None or slot.lock.locked() or slot.sent is not None:
            return
        log.info("%s worker for %s: stopped after being idle", key.tool, key.root)
        self._slots.background(self._stop_idle(slot), "idle stop")

    async def _stop_idle(self, slot: _Slot) -> None:
        async with slot.lock:
            if slot.idle is None:  # no request came meanwhile
                await self._stop(slot)

    async def _stop(self, slot: _Slot) -> None:
        await self._slots.stop(slot)

    async def stop_all(self) -> None:
        """Every worker stopped, no new one started (the server's shutdown)."""
        await self._slots.stop_all()

    def kill_all(self) -> None:
        """At interpreter exit (an editor that never sent shutdown): no worker outlives lintel."""
        self._slots.kill_all()
