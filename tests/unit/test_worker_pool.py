"""The warm-worker pool's rules, with fake workers (no process): one worker per key, restarted when a watched
file changes or it died, replaced after a failure (reported, the caller told to use the CLI), a superseded request
cancelled without touching the worker, stopped when idle and at stop_all. The real eslint worker:
tests/integration/test_warm_eslint.py and tests/e2e/test_warm_workers.py."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Mapping, Sequence
from pathlib import Path

import pytest
from lintel.core.issues import Issue, make_issue
from lintel.engine.workers.base import LintWorker, WorkerError, WorkerKey, WorkerUnsupported
from lintel.engine.workers.pool import BACKOFF_SECONDS, MAX_FAILURES, WorkerKind, WorkerPool
from lintel.runtime.clock import ManualClock

FINDING = make_issue(kind="lint", message="m", source="fake", severity="error", file="a.js", line=1, column=1)


class FakeWorker:
    """A worker whose start and answers the test controls."""

    def __init__(self, key: WorkerKey, watched: Sequence[Path]) -> None:
        self.key = key
        self.files = list(watched)
        self.starting = asyncio.Event()
        self.may_start = asyncio.Event()
        self.may_start.set()
        self.linting = asyncio.Event()
        self.may_answer = asyncio.Event()
        self.may_answer.set()
        self.answer: list[Issue] | Exception = [FINDING]
        self.refusal: WorkerError | None = None  # what start raises
        self.running = False
        self.stopped = False
        self.ended = asyncio.Event()

    async def start(self) -> None:
        self.starting.set()
        await self.may_start.wait()
        if self.refusal is not None:
            raise self.refusal
        self.running = True

    async def lint(self, file: Path, text: str, *, workspace: Path) -> list[Issue]:
        self.linting.set()
        await self.may_answer.wait()
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer

    def watched(self) -> Sequence[Path]:
        return self.files

    @property
    def alive(self) -> bool:
        return self.running and not self.stopped

    async def stop(self) -> None:
        self.stopped = True
        self.ended.set()


class Harness:
    """A pool of fake workers for one key, what it reported, and a shortcut for one request."""

    def __init__(self, root: Path, watched: Sequence[Path] = ()) -> None:
        self.root = root
        self.key = WorkerKey("fake", root)
        self.made: list[FakeWorker] = []
        self.told: list[tuple[str, str]] = []
        self.watched = watched
        self.answer: list[Issue] | Exception = [FINDING]  # what the workers made from now on answer
        self.refusal: WorkerError | None = None  # what their start raises
        self.first_made = asyncio.Event()
        self.clock = ManualClock()  # idle stops and rests: advanced by the tests, never slept on
        self.pool = WorkerPool(
            {"fake": WorkerKind("true", self.factory)},
            report=lambda cause, message: self.told.append((cause, message)),
            clock=self.clock,
        )

    def factory(self, key: WorkerKey, binary: Path, env: Mapping[str, str]) -> FakeWorker:
        self.made.append(FakeWorker(key, self.watched))
        self.made[-1].answer = self.answer
        self.made[-1].refusal = self.refusal
        self.first_made.set()
        return self.made[-1]

    def request(self, *, timeout: float = 60, idle_seconds: float = 300) -> asyncio.Task[list[Issue] | None]:
        return asyncio.ensure_future(
            self.pool.lint(
                self.key,
                self.root / "a.js",
                "",
                workspace=self.root,
                binary=Path("true"),
                env={},
                timeout=timeout,
                idle_seconds=idle_seconds,
            )
        )

    async def lint(self, **options: float) -> list[Issue] | None:
        return await self.request(**options)


async def test_one_worker_serves_every_request_of_its_key(tmp_path: Path) -> None:
    harness = Harness(tmp_path)
    assert await harness.lint() == [FINDING]
    assert await harness.lint() == [FINDING]
    assert len(harness.made) == 1
    assert harness.told == []
    await harness.pool.stop_all()
    assert harness.made[0].stopped


async def test_running_says_whether_a_lint_is_a_request_to_a_worker_up(tmp_path: Path) -> None:
    """A save is not debounced when its lint goes to a running worker (server/documents.py): not before one
    started, not after a failure stopped it, not after stop_all."""
    harness = Harness(tmp_path)
    assert not harness.pool.running(harness.key)
    await harness.lint()
    assert harness.pool.running(harness.key)
    harness.made[0].answer = WorkerError("broken")
    assert await harness.lint() is None
    assert not harness.pool.running(harness.key)
    await harness.lint()
    assert harness.pool.running(harness.key)
    await harness.pool.stop_all()
    assert not harness.pool.running(harness.key)


async def test_a_changed_created_or_removed_watched_file_restarts_the_worker(tmp_path: Path) -> None:
    config, lock = tmp_path / "eslint.config.js", tmp_path / "package-lock.json"
    config.write_text("a", encoding="utf-8")
    harness = Harness(tmp_path, [config, lock])
    await harness.lint()
    config.write_text("ab", encoding="utf-8")  # modified
    await harness.lint()
    lock.write_text("{}", encoding="utf-8")  # created
    await harness.lint()
    config.unlink()  # removed
    await harness.lint()
    await harness.lint()  # nothing changed since
    assert len(harness.made) == 4
    assert [w.stopped for w in harness.made] == [True, True, True, False]
    assert harness.told == []  # a restart is no failure
    await harness.pool.stop_all()


async def test_a_worker_that_died_is_replaced(tmp_path: Path) -> None:
    harness = Harness(tmp_path)
    await harness.lint()
    harness.made[0].running = False  # its process ended between requests
    assert await harness.lint() == [FINDING]
    assert len(harness.made) == 2
    await harness.pool.stop_all()


@pytest.mark.parametrize(
    "failure", [WorkerError("crashed"), asyncio.TimeoutError(), RuntimeError("bug")], ids=["error", "timeout", "bug"]
)
async def test_a_failed_request_means_the_cli_a_report_and_a_fresh_worker(tmp_path: Path, failure: Exception) -> None:
    harness = Harness(tmp_path)
    await harness.lint()
    harness.made[0].answer = failure
    assert await harness.lint() is None  # the caller runs the CLI
    assert harness.made[0].stopped
    [(cause, message)] = harness.told
    assert cause == f"worker:fake:{tmp_path}"
    assert "fake CLI" in message
    assert await harness.lint() == [FINDING]
    assert len(harness.made) == 2
    await harness.pool.stop_all()


async def test_a_request_that_outlasts_the_timeout_is_a_failure(tmp_path: Path) -> None:
    harness = Harness(tmp_path)
    await harness.lint()
    harness.made[0].may_answer.clear()
    assert await harness.lint(timeout=0.05) is None
    assert harness.made[0].stopped
    assert "no answer within 0.05s" in harness.told[0][1]
    await harness.pool.stop_all()


async def test_repeated_failures_rest_the_key_until_its_files_change(tmp_path: Path) -> None:
    config = tmp_path / "eslint.config.js"
    config.write_text("broken", encoding="utf-8")
    harness = Harness(tmp_path, [config])
    harness.answer = WorkerError("bad config")
    for _ in range(MAX_FAILURES):
        assert await harness.lint() is None
    made = len(harness.made)
    assert await harness.lint() is None  # resting: no worker started at all
    assert len(harness.made) == made
    causes = [cause for cause, _ in harness.told]
    assert causes.count(f"worker:fake:{tmp_path}") == MAX_FAILURES
    assert causes.count(f"worker-resting:fake:{tmp_path}") == 1

    config.write_text("fixed", encoding="utf-8")
    harness.answer = [FINDING]
    assert await harness.lint() == [FINDING]
    assert len(harness.made) == made + 1
    await harness.pool.stop_all()


async def test_a_superseded_request_leaves_the_worker_starting_or_running(tmp_path: Path) -> None:
    """Superseding a run cancels its request, never the worker: neither its start (saves faster than eslint
    loads must not restart the loading) nor, once it runs, the worker itself."""
    harness = Harness(tmp_path)
    during_start = harness.request()
    await harness.first_made.wait()
    worker = harness.made[0]
    worker.may_start.clear()
    worker.may_answer.clear()
    await worker.starting.wait()
    during_start.cancel()
    with pytest.raises(asyncio.CancelledError):
        await during_start

    during_lint = harness.request()
    worker.may_start.set()
    await worker.linting.wait()
    during_lint.cancel()
    with pytest.raises(asyncio.CancelledError):
        await during_lint

    answered = harness.request()
    worker.may_answer.set()
    assert await answered == [FINDING]
    assert harness.made == [worker]
    assert not worker.stopped
    assert harness.told == []
    await harness.pool.stop_all()
    assert worker.stopped


async def test_an_idle_worker_is_stopped_and_the_next_request_starts_one(tmp_path: Path) -> None:
    harness = Harness(tmp_path)
    await harness.lint(idle_seconds=30)
    worker = harness.made[0]
    await harness.clock.advance(29)
    assert not worker.stopped
    await harness.lint(idle_seconds=30)  # a request re-arms the idle stop
    await harness.clock.advance(29)
    assert not worker.stopped
    await harness.clock.advance(1)
    await asyncio.wait_for(worker.ended.wait(), 10)
    assert harness.pool.worker(harness.key) is None
    assert await harness.lint() == [FINDING]
    assert len(harness.made) == 2
    await harness.pool.stop_all()


async def test_a_resting_key_tries_again_after_its_rest(tmp_path: Path) -> None:
    harness = Harness(tmp_path)
    harness.answer = WorkerError("it crashed")
    for _ in range(MAX_FAILURES):
        assert await harness.lint() is None
    made = len(harness.made)
    await harness.clock.advance(BACKOFF_SECONDS - 1)
    assert await harness.lint() is None  # still resting: no worker started
    assert len(harness.made) == made
    harness.answer = [FINDING]
    await harness.clock.advance(1)
    assert await harness.lint() == [FINDING]
    assert len(harness.made) == made + 1
    await harness.pool.stop_all()


async def test_no_worker_starts_after_stop_all(tmp_path: Path) -> None:
    harness = Harness(tmp_path)
    await harness.pool.stop_all()
    assert await harness.lint() is None
    assert harness.made == []


async def test_an_unsupported_tool_is_left_to_the_cli_quietly_until_its_installation_changes(tmp_path: Path) -> None:
    """An older ruff (WorkerUnsupported): no report (no pop-up on every start), no start on each save; a new
    installation (a watched file changed) is tried again."""
    binary = tmp_path / "ruff"
    binary.write_text("0.12", encoding="utf-8")
    harness = Harness(tmp_path, [binary])
    harness.refusal = WorkerUnsupported("ruff 0.12.12 is older than the warm worker reads (0.17)")
    for _ in range(MAX_FAILURES + 1):
        assert await harness.lint() is None
    assert len(harness.made) == 1
    assert harness.told == []

    binary.write_text("0.17.6", encoding="utf-8")
    harness.refusal = None
    assert await harness.lint() == [FINDING]
    assert len(harness.made) == 2
    await harness.pool.stop_all()


async def test_a_worker_that_cannot_even_be_made_is_a_reported_start_failure(tmp_path: Path) -> None:
    def broken(key: WorkerKey, binary: Path, env: Mapping[str, str]) -> FakeWorker:
        raise RuntimeError("no such worker")

    told: list[tuple[str, str]] = []
    pool = WorkerPool({"fake": WorkerKind("true", broken)}, report=lambda cause, message: told.append((cause, message)))
    key = WorkerKey("fake", tmp_path)
    answer = await pool.lint(
        key, tmp_path / "a.js", "", workspace=tmp_path, binary=Path("true"), env={}, timeout=60, idle_seconds=300
    )
    assert answer is None
    assert "could not start (no such worker)" in told[0][1]
    await pool.stop_all()


# -- lint_now: the request written at the call (a lint ahead, server/documents.py) ------------------------------------


class EagerWorker(FakeWorker):
    """Like ruff's worker: `lint` sends at the call (recorded) and returns what waits for the answer."""

    def __init__(self, key: WorkerKey, watched: Sequence[Path]) -> None:
        super().__init__(key, watched)
        self.sent: list[str] = []
        self.in_flight = 0
        self.most_in_flight = 0

    def lint(self, file: Path, text: str, *, workspace: Path) -> Awaitable[list[Issue]]:  # type: ignore[override]
        self.sent.append(text)
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        return self._answer()

    async def _answer(self) -> list[Issue]:
        try:
            self.linting.set()
            await self.may_answer.wait()
            if isinstance(self.answer, Exception):
                raise self.answer
            return self.answer
        finally:
            self.in_flight -= 1


class EagerHarness(Harness):
    def factory(self, key: WorkerKey, binary: Path, env: Mapping[str, str]) -> FakeWorker:
        self.made.append(EagerWorker(key, self.watched))
        self.made[-1].answer = self.answer
        self.made[-1].refusal = self.refusal
        self.first_made.set()
        return self.made[-1]

    def now(self, text: str) -> asyncio.Task[tuple[list[Issue], LintWorker] | None] | None:
        return self.pool.lint_now(self.key, self.root / "a.js", text, workspace=self.root, timeout=60, idle_seconds=300)


async def test_lint_now_sends_at_the_call_once_a_worker_runs(tmp_path: Path) -> None:
    harness = EagerHarness(tmp_path)
    assert harness.now("first") is None  # no worker yet: `lint` starts one
    await harness.lint()
    worker = harness.made[0]
    assert isinstance(worker, EagerWorker)

    sent = harness.now("ahead")
    assert worker.sent[-1] == "ahead"  # written before anything was awaited
    assert sent is not None
    assert await sent == ([FINDING], worker)
    assert harness.told == []


async def test_lint_waits_for_a_request_lint_now_sent(tmp_path: Path) -> None:
    harness = EagerHarness(tmp_path)
    await harness.lint()
    worker = harness.made[0]
    assert isinstance(worker, EagerWorker)
    worker.may_answer.clear()
    sent = harness.now("ahead")
    assert sent is not None
    assert harness.now("another") is None  # one at a time
    queued = harness.request()
    await asyncio.sleep(0.05)
    assert worker.sent[-1] == "ahead"  # the queued lint has not been sent
    worker.may_answer.set()
    assert await sent == ([FINDING], worker)
    assert await queued == [FINDING]
    assert worker.most_in_flight == 1


async def test_a_failed_lint_now_is_reported_and_replaces_the_worker(tmp_path: Path) -> None:
    harness = EagerHarness(tmp_path)
    await harness.lint()
    first = harness.made[0]
    first.answer = WorkerError("it crashed")
    sent = harness.now("ahead")
    assert sent is not None
    assert await sent is None
    assert first.stopped
    assert any("it crashed" in message for _, message in harness.told)
    assert await harness.lint() == [FINDING]
    assert len(harness.made) == 2


async def test_an_answer_lint_now_got_before_a_config_change_is_not_current(tmp_path: Path) -> None:
    """lint_now does not look at the watched files before sending: still_current, asked before its answer is
    used, does; and the next `lint` restarts the worker."""
    config = tmp_path / "eslint.config.js"
    config.write_text("a", encoding="utf-8")
    harness = EagerHarness(tmp_path, [config])
    await harness.lint()
    worker = harness.made[0]
    sent = harness.now("ahead")
    assert sent is not None
    answer = await sent
    assert answer is not None
    assert harness.pool.still_current(harness.key, answer[1])
    config.write_text("ab", encoding="utf-8")
    assert not harness.pool.still_current(harness.key, worker)
    assert await harness.lint() == [FINDING]
    assert len(harness.made) == 2
    assert not harness.pool.still_current(harness.key, worker)
