"""The one supervisor of lintel's long-lived children (child language servers, warm lint workers): a slot per key
(kind, root), its child started on demand (one start at a time, shared by whoever waits), restarted with backoff
after failures and rested after too many, stopped when idle, every child stopped or killed at the end. Time comes
from an injected Clock, so tests of backoff and idle stops advance a ManualClock instead of sleeping.

What to start and how to tell a running child is the owner's (the relay manager, the worker pool); nothing a
child is started with escapes the parent-death guard either (lintel.runtime.piped carries the orphan cookie)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections.abc import Awaitable, Callable, Coroutine, Hashable
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from lintel.runtime.clock import Clock, LoopClock, Timer

log = logging.getLogger(__name__)


class Stoppable(Protocol):
    async def stop(self) -> None: ...


C = TypeVar("C", bound=Stoppable)
K = TypeVar("K", bound=Hashable)
S = TypeVar("S", bound="Slot[Any, Any]")


@dataclass(frozen=True)
class RestartPolicy:
    """At most `max_restarts` restarts after failures within `window` seconds; the first at once, then `base`,
    2×`base`… up to `cap`. One failure more and the slot rests for `cooldown` seconds (the next request after it
    tries again)."""

    max_restarts: int = 3
    window: float = 60.0
    base: float = 1.0
    cap: float = 8.0
    cooldown: float = 300.0

    def delay(self, recent_failures: int) -> float:
        if recent_failures <= 1:
            return 0.0
        return float(min(self.base * 2 ** (recent_failures - 2), self.cap))


@dataclass(eq=False)
class Slot(Generic[K, C]):
    """One key's child and its history."""

    key: K
    child: C | None = None
    starting: asyncio.Future[C | None] | None = None
    start_at: float = 0.0  # clock time the pending start begins (after its backoff)
    failures: list[float] = field(default_factory=list)  # clock times, within the policy's window
    resting_until: float = 0.0  # clock time before which nothing starts (gave up); 0: not resting
    idle: Timer | None = None

    @property
    def gave_up(self) -> bool:
        return self.resting_until > 0


class Supervisor(Generic[K, C, S]):
    """Slots by key. `start` runs the owner's start for a slot (after its backoff); `failed` counts a failure and
    says whether the slot gave up; `stop`, `stop_all` and `kill_all` end children."""

    def __init__(
        self,
        make_slot: Callable[[K], S],
        *,
        policy: RestartPolicy | None = None,
        clock: Clock | None = None,
        alive: Callable[[C], bool],
        label: str,
    ) -> None:
        self.policy = policy or RestartPolicy()
        self.clock: Clock = clock or LoopClock()
        self.closed = False
        self._make_slot = make_slot
        self._alive = alive
        self._label = label
        self._slots: dict[K, S] = {}
        self._tasks: set[asyncio.Future[Any]] = set()

    # -- slots ----------------------------------------------------------------------------------------------

    def slot(self, key: K) -> S:
        slot = self._slots.get(key)
        if slot is None:
            slot = self._slots[key] = self._make_slot(key)
        return slot

    def get(self, key: K) -> S | None:
        return self._slots.get(key)

    def slots(self) -> list[S]:
        return list(self._slots.values())

    def items(self) -> list[tuple[K, S]]:
        return list(self._slots.items())

    def remove(self, key: K) -> None:
        self._slots.pop(key, None)

    def running(self, slot: S) -> C | None:
        child: C | None = slot.child
        return child if child is not None and self._alive(child) else None

    # -- failures, backoff, rest ----------------------------------------------------------------------------

    def failed(self, slot: S, at: float | None = None) -> bool:
        """Count a failure (at clock time `at`, else now); True when it is one too many: the slot rests."""
        now = self.clock.now()
        slot.failures.append(now if at is None else at)
        slot.failures = [t for t in slot.failures if now - t < self.policy.window]
        if len(slot.failures) <= self.policy.max_restarts:
            return False
        slot.resting_until = now + self.policy.cooldown
        return True

    def recent_failures(self, slot: S) -> int:
        now = self.clock.now()
        slot.failures = [t for t in slot.failures if now - t < self.policy.window]
        return len(slot.failures)

    def rest(self, slot: S, seconds: float = math.inf) -> None:
        """No start for `seconds` (forever: until `forgive`)."""
        slot.resting_until = self.clock.now() + seconds

    def resting(self, slot: S) -> bool:
        """Whether the slot still rests; one whose rest is over starts afresh (its failures forgotten)."""
        if not slot.resting_until:
            return False
        if self.clock.now() < slot.resting_until:
            return True
        log.info("%s %s: rested; trying again", self._label, slot.key)
        self.forgive(slot)
        return False

    @staticmethod
    def forgive(slot: S) -> None:
        """Forget the slot's failures and any rest (its command or installation changed; an answer came)."""
        slot.failures = []
        slot.resting_until = 0.0

    def backing_off(self, slot: S) -> bool:
        """Whether a start is pending behind its backoff delay (a request then does not wait for it)."""
        return slot.starting is not None and slot.start_at > self.clock.now()

    # -- starting -------------------------------------------------------------------------------------------

    def start(self, slot: S, run: Callable[[], Awaitable[C | None]], delay: float = 0.0) -> asyncio.Future[C | None]:
        """The slot's start, begun now (after `delay` seconds) unless one is under way: `run` starts the child
        and puts it in the slot. Await it shielded: a waiter cancelled must not cancel the start others wait on."""
        if slot.starting is None:
            slot.start_at = self.clock.now() + delay
            starting = asyncio.ensure_future(self._start(run, delay))
            slot.starting = starting
            starting.add_done_callback(lambda done: self._started(slot, done))
        return slot.starting

    async def _start(self, run: Callable[[], Awaitable[C | None]], delay: float) -> C | None:
        if delay > 0:
            await self.clock.sleep(delay)
        if self.closed:
            return None
        return await run()

    @staticmethod
    def _started(slot: S, done: asyncio.Future[Any]) -> None:
        if slot.starting is done:
            slot.starting = None
            slot.start_at = 0.0

    # -- idle -----------------------------------------------------------------------------------------------

    def arm_idle(self, slot: S, seconds: float, on_idle: Callable[[], object]) -> None:
        """`on_idle` after `seconds` unless the timer is disarmed first (0: leave the slot's timer as it is)."""
        if seconds > 0:
            self.disarm_idle(slot)
            slot.idle = self.clock.call_later(seconds, on_idle)

    @staticmethod
    def disarm_idle(slot: S) -> None:
        if slot.idle is not None:
            slot.idle.cancel()
            slot.idle = None

    # -- stopping -------------------------------------------------------------------------------------------

    def background(self, coro: Coroutine[Any, Any, Any], what: str) -> asyncio.Task[Any]:
        """A task of the supervisor's (a start nobody awaits, an idle stop): cancelled by `stop_all`."""
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)

        def done(finished: asyncio.Task[Any]) -> None:
            self._tasks.discard(finished)
            if not finished.cancelled() and finished.exception() is not None:
                log.error("%s: %s failed", self._label, what, exc_info=finished.exception())

        task.add_done_callback(done)
        return task

    async def stop(self, slot: S) -> None:
        """Stop the slot's child (killed if its stop fails); the slot stays, empty."""
        child, slot.child = slot.child, None
        await self._stop(slot, child)

    async def _stop(self, slot: S, child: C | None) -> None:
        self.disarm_idle(slot)
        if child is None:
            return
        try:
            await child.stop()
        except Exception:
            log.exception("%s %s: stop failed", self._label, slot.key)
            _kill(child)

    async def stop_all(self) -> None:
        """Every start cancelled and every child stopped; nothing starts afterwards (the server's shutdown)."""
        self.closed = True
        waiting: list[asyncio.Future[Any]] = [s.starting for s in self._slots.values() if s.starting is not None]
        waiting.extend(self._tasks)
        for task in waiting:
            task.cancel()
        for task in waiting:
            with contextlib.suppress(BaseException):
                await task
        # The children stay in their slots: `kill_all` at interpreter exit still reaches what a stop left behind.
        await asyncio.gather(*(self._stop(slot, slot.child) for slot in self.slots()), return_exceptions=True)

    def kill_all(self) -> None:
        """At interpreter exit (an editor that never sent shutdown): no child outlives lintel."""
        for slot in self._slots.values():
            _kill(slot.child)


def _kill(child: object) -> None:
    """SIGKILL a child's processes at once, where it can (`stop` is async: no use at exit)."""
    kill = getattr(child, "kill", None)
    if callable(kill):
        kill()
