"""Debounce and supersede runs per key (a uri and a check): a new request cancels the pending or running
one — cancelling kills its process group through the runner — so a save storm ends with one run on the
last content, and a superseded run never publishes."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Hashable

from lintel.runtime.clock import Clock, LoopClock

log = logging.getLogger(__name__)


class Scheduler:
    def __init__(self, clock: Clock | None = None) -> None:
        self.clock: Clock = clock if clock is not None else LoopClock()
        self._tasks: dict[Hashable, asyncio.Task[None]] = {}
        self._submitted: dict[Hashable, list[float]] = {}  # the last two request times per key
        self.started = 0  # runs that got past their debounce (benchmarks and tests count them)

    def submit(
        self, key: Hashable, job: Callable[[], Awaitable[None]], delay: float = 0.0, *, busy_delay: float = 0.0
    ) -> asyncio.Task[None]:
        """Run `job` after `delay`; an earlier run for `key` still pending or running is cancelled (its
        process killed). While a run is going, or after two requests within `busy_delay`, the new one waits
        `busy_delay` instead: a single save is linted at once, and a storm of saves collapses into at most
        the first runs plus one on the final content."""
        previous = self._tasks.get(key)
        now = self.clock.now()
        recent = [t for t in self._submitted.get(key, []) if now - t < busy_delay]
        self._submitted[key] = [*recent[-1:], now]
        busy = previous is not None and not previous.done()
        if previous is not None and busy:
            previous.cancel()
        # A burst: a run still going, or two earlier requests inside the window (when the tool is faster than
        # the saves, "still going" alone never holds and every save of a storm would start a process).
        if busy or len(recent) >= 2:
            delay = max(delay, busy_delay)

        async def runner() -> None:
            if previous is not None and not previous.done():
                # Let the superseded run finish killing its process before a new one starts.
                await asyncio.wait({previous})
            if delay > 0:
                await self.clock.sleep(delay)  # the scheduler's clock: a manual one in tests
            self.started += 1
            try:
                await job()
            except asyncio.CancelledError:
                raise
            except Exception:  # one failing run must not take the server down
                log.exception("run %s failed", key)

        task = asyncio.ensure_future(runner())
        self._tasks[key] = task
        task.add_done_callback(lambda done: self._forget(key, done))
        return task

    def _forget(self, key: Hashable, task: asyncio.Task[None]) -> None:
        if self._tasks.get(key) is task:
            del self._tasks[key]

    def cancel(self, key: Hashable) -> None:
        task = self._tasks.get(key)
        if task is not None:
            task.cancel()

    async def shutdown(self) -> None:
        """Cancel everything and wait until every process is gone."""
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)

    @property
    def pending(self) -> int:
        return sum(1 for t in self._tasks.values() if not t.done())
