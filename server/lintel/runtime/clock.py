"""The time a component waits by, passed in: the event loop's in the server, a fake one that tests advance, so
that a debounce or a deadline is checked without waiting for it."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Callable
from typing import Protocol


class Handle(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    def now(self) -> float: ...

    def call_later(self, delay: float, callback: Callable[[], None]) -> Handle: ...


class LoopClock:
    """The running asyncio loop's clock (monotonic)."""

    def now(self) -> float:
        return asyncio.get_running_loop().time()

    def call_later(self, delay: float, callback: Callable[[], None]) -> Handle:
        return asyncio.get_running_loop().call_later(delay, callback)


class _FakeHandle:
    def __init__(self, callback: Callable[[], None]) -> None:
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class FakeClock:
    """A clock that moves only when told to: `advance` runs the callbacks that fall due, in the order of their
    times (and of their scheduling, for the same time), each seeing `now` at its own time."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self._due: list[tuple[float, int, _FakeHandle]] = []
        self._order = itertools.count()

    def now(self) -> float:
        return self._now

    def call_later(self, delay: float, callback: Callable[[], None]) -> Handle:
        handle = _FakeHandle(callback)
        heapq.heappush(self._due, (self._now + max(0.0, delay), next(self._order), handle))
        return handle

    def advance(self, seconds: float) -> None:
        until = self._now + seconds
        while self._due and self._due[0][0] <= until:
            at, _, handle = heapq.heappop(self._due)
            self._now = at
            if not handle.cancelled:
                handle.callback()
        self._now = until
