"""The time a supervisor or a connection reads and waits on: the event loop's monotonic clock in lintel, a
ManualClock in tests, which advance it instead of sleeping (backoff, idle stops, request timeouts)."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Callable
from typing import Protocol


class Timer(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    def now(self) -> float:
        """Seconds on a monotonic scale (only differences mean anything)."""

    async def sleep(self, seconds: float) -> None: ...

    def call_later(self, seconds: float, callback: Callable[[], object]) -> Timer:
        """Run `callback` once after `seconds`, unless the timer returned is cancelled first."""


class LoopClock:
    """The running event loop's clock (asyncio's own timers)."""

    def now(self) -> float:
        return asyncio.get_running_loop().time()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)

    def call_later(self, seconds: float, callback: Callable[[], object]) -> Timer:
        return asyncio.get_running_loop().call_later(seconds, callback)


class _ManualTimer:
    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class ManualClock:
    """A clock that moves only when told to (`advance`): the timers and sleeps due by then run, in order of their
    due time, each given the loop's turns it needs to go on."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self._order = itertools.count()
        self._due: list[tuple[float, int, _ManualTimer, Callable[[], object]]] = []

    def now(self) -> float:
        return self._now

    def call_later(self, seconds: float, callback: Callable[[], object]) -> Timer:
        timer = _ManualTimer()
        heapq.heappush(self._due, (_grid(self._now + max(seconds, 0.0)), next(self._order), timer, callback))
        return timer

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        woken: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def wake() -> None:
            if not woken.done():
                woken.set_result(None)

        timer = self.call_later(seconds, wake)
        try:
            await woken
        finally:
            timer.cancel()

    @property
    def pending(self) -> int:
        """Timers and sleeps not yet due (cancelled ones left out)."""
        return sum(1 for _, _, timer, _ in self._due if not timer.cancelled)

    async def advance(self, seconds: float) -> None:
        """Move the time on by `seconds`, running what falls due on the way."""
        target = _grid(self._now + seconds)
        await _turns()
        while self._due and self._due[0][0] <= target:
            due, _, timer, callback = heapq.heappop(self._due)
            self._now = max(self._now, due)
            if not timer.cancelled:
                callback()
                await _turns()
        self._now = target
        await _turns()


def _grid(seconds: float) -> float:
    """Times on a nanosecond grid: advancing by 0.19 then 0.01 reaches a deadline set 0.2 ahead."""
    return round(seconds, 9)


async def _turns(count: int = 10) -> None:
    """A few turns of the loop: enough for the tasks a timer woke to run to their next real wait."""
    for _ in range(count):
        await asyncio.sleep(0)
