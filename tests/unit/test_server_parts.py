"""Pure pieces of the server: column conversion, Issue -> Diagnostic, the diagnostics store, the scheduler."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest
from lintel.core.issues import make_issue
from lintel.core.positions import convert_column
from lintel.frontends.lsp.convert import issue_to_diagnostic, plain_diagnostic_json
from lintel.frontends.lsp.scheduler import Scheduler
from lintel.frontends.lsp.store import DiagnosticsStore
from lintel.languages.sources import unit_for
from lintel.runtime.clock import ManualClock
from lsprotocol import types
from pygls.protocol import default_converter

LINE = 'price = "café" if x == None else 1  # 😀 y'


@pytest.mark.parametrize(
    ("source", "target", "column0", "expected"),
    [
        ("utf-32", "utf-16", LINE.index("x"), LINE.index("x")),  # BMP text: same count
        ("utf-32", "utf-8", LINE.index("x"), LINE.index("x") + 1),  # é is two bytes
        ("utf-8", "utf-32", len(LINE[: LINE.index("x")].encode()), LINE.index("x")),
        ("utf-32", "utf-16", LINE.index("y"), LINE.index("y") + 1),  # the emoji is two UTF-16 units
        ("utf-16", "utf-8", LINE.index("y") + 1, len(LINE[: LINE.index("y")].encode())),
        ("utf-32", "utf-16", 0, 0),
    ],
)
def test_convert_column(source: str, target: str, column0: int, expected: int) -> None:
    assert convert_column(LINE, column0, source, target) == expected  # type: ignore[arg-type]


def test_convert_column_past_line_end_and_unknown_line() -> None:
    assert convert_column("abc", 4, "utf-8", "utf-16") == 4
    assert convert_column(None, 7, "utf-8", "utf-16") == 7


def test_issue_to_diagnostic_converts_to_zero_based_and_encoding() -> None:
    col = len(LINE[: LINE.index("x")].encode()) + 1  # go tools print byte columns, 1-based
    issue = make_issue(
        kind="lint", message="m", source="golangci-lint", file="a.go", line=3, column=col, rule="errcheck"
    )
    lines = {2: LINE}
    diag = issue_to_diagnostic(issue, lines.get, tool_unit=unit_for(issue.source), encoding="utf-16")
    assert diag.range.start == types.Position(line=2, character=LINE.index("x"))
    assert diag.source == "golangci-lint"
    assert diag.code == "errcheck"
    assert diag.severity == types.DiagnosticSeverity.Error
    assert diag.data == {"signature": issue.signature, "fingerprint": issue.fingerprint, "kind": "lint"}


def test_issue_without_column_spans_the_line() -> None:
    issue = make_issue(kind="format", message="not formatted", source="gofmt", file="a.go", line=1)
    diag = issue_to_diagnostic(issue, {0: "package main"}.get)
    assert (diag.range.start.character, diag.range.end.character) == (0, len("package main"))


def test_plain_diagnostics_are_written_as_pyglss_converter_writes_them() -> None:
    converter = default_converter()  # type: ignore[no-untyped-call]
    position = types.Position(line=4, character=2)
    span = types.Range(start=position, end=types.Position(line=5, character=0))
    issue = make_issue(kind="lint", message="`os` imported but unused", source="ruff", file="a.py", line=5, rule="F401")
    plain = [
        issue_to_diagnostic(issue, {4: "import os"}.get),
        types.Diagnostic(range=span, message="no severity, code or source"),
        types.Diagnostic(range=span, message='é😀\n"quoted"', severity=types.DiagnosticSeverity.Hint, code=7),
        types.Diagnostic(range=span, message="m", data={"nested": [1, {"a": None}], "n": 2.5}, source="mypy"),
        types.Diagnostic(range=span, message="m", code_description=types.CodeDescription(href="https://x.dev/r")),
    ]
    for diag in plain:
        assert plain_diagnostic_json(diag) == converter.unstructure(diag)
    others = [
        types.Diagnostic(range=span, message="m", tags=[types.DiagnosticTag.Unnecessary]),
        types.Diagnostic(range=span, message="m", related_information=[]),
    ]
    assert [plain_diagnostic_json(diag) for diag in others] == [None, None]


def diagnostic(message: str) -> types.Diagnostic:
    zero = types.Position(line=0, character=0)
    return types.Diagnostic(range=types.Range(start=zero, end=zero), message=message)


def finding(message: str, signature: str, severity: types.DiagnosticSeverity, column: int = 4) -> types.Diagnostic:
    start = types.Position(line=2, character=column)
    return types.Diagnostic(
        range=types.Range(start=start, end=start),
        message=message,
        severity=severity,
        data={"signature": signature, "fingerprint": "f"},
    )


def test_one_finding_in_two_channels_is_shown_once_at_its_highest_severity() -> None:
    """rustc's E0277 from clippy (lint) and cargo check (typecheck) in their two wordings; a lint script's
    prettier failure (error) and the format check (warning) with one signature; another column stays."""
    error, warning = types.DiagnosticSeverity.Error, types.DiagnosticSeverity.Warning
    store = DiagnosticsStore()
    store.put("a", "format", [finding("would reformat", "format:src/a.js:1:would reformat", warning)])
    store.put(
        "a",
        "lint",
        [
            finding(
                "`Point` doesn't implement `std::fmt::Display`",
                "build:src/m.rs:3:`Point` doesn't implement `std::fmt::Display`",
                error,
            ),
            finding("would reformat", "format:src/a.js:1:would reformat", error),
        ],
    )
    store.put(
        "a",
        "typecheck",
        [
            finding(
                "`Point` doesn't implement `Display`", "build:src/m.rs:3:`Point` doesn't implement `Display`", error
            ),
            finding(
                "`Point` doesn't implement `Display`", "build:src/m.rs:3:`Point` doesn't implement `Display`", error, 9
            ),
        ],
    )
    merged = [(d.message, d.severity, d.range.start.character) for d in store.merged("a")]
    assert merged == [
        ("`Point` doesn't implement `std::fmt::Display`", error, 4),
        ("would reformat", error, 4),
        ("`Point` doesn't implement `Display`", error, 9),
    ]


def test_store_merges_channels_and_replaces_one() -> None:
    store = DiagnosticsStore()
    store.put("a", "lint", [diagnostic("l1")])
    store.put("a", "typecheck", [diagnostic("t1")])
    assert [d.message for d in store.merged("a")] == ["l1", "t1"]
    assert store.put("a", "lint", [diagnostic("l2")])
    assert [d.message for d in store.merged("a")] == ["l2", "t1"]
    assert not store.put("a", "lint", [diagnostic("l2")])  # unchanged


def test_project_run_clears_files_that_became_clean() -> None:
    store = DiagnosticsStore()
    store.put("a", "typecheck", [diagnostic("t")])
    store.put("b", "typecheck", [diagnostic("t")])
    store.put("b", "lint", [diagnostic("l")])
    changed = store.replace_channel("typecheck", {"a": [diagnostic("t2")]})
    assert changed == {"a", "b"}
    assert [d.message for d in store.merged("b")] == ["l"]  # lint survives
    assert store.uris_with("typecheck") == {"a"}


async def _ticks(n: int = 10) -> None:
    """The tasks woken so far run as far as they can (none of them waits on wall time)."""
    for _ in range(n):
        await asyncio.sleep(0)


async def test_scheduler_supersedes_and_collapses_a_storm() -> None:
    clock = ManualClock()
    scheduler = Scheduler(clock)
    ran: list[int] = []
    cancelled: list[int] = []

    def job(n: int) -> Callable[[], Awaitable[None]]:
        async def run() -> None:
            try:
                await clock.sleep(0.05)  # the tool's run takes 50 ms of the scheduler's clock
                ran.append(n)
            except asyncio.CancelledError:
                cancelled.append(n)
                raise

        return run

    tasks = []
    for n in range(50):
        tasks.append(scheduler.submit("k", job(n), busy_delay=0.05))
        await _ticks()
        await clock.advance(0.005)  # a save every 5 ms
    for _ in range(100):  # a second of the clock: far more than the last run's debounce and run
        await _ticks()
        await clock.advance(0.01)
    assert ran == [49]
    assert scheduler.started <= 3
    assert cancelled  # the first run was started and then superseded
    assert all(task.done() for task in tasks)


async def test_scheduler_debounces_by_its_clock() -> None:
    """A run waits its delay on the scheduler's clock: not one tick earlier, and at once when it is up."""
    clock = ManualClock()
    scheduler = Scheduler(clock)
    ran: list[float] = []

    async def job() -> None:
        ran.append(clock.now())

    scheduler.submit("k", job, delay=0.2)
    await _ticks()
    await clock.advance(0.199)
    await _ticks()
    assert ran == []
    await clock.advance(0.001)
    await _ticks()
    assert ran == [0.2]


async def test_manual_clock_runs_due_callbacks_in_order() -> None:
    clock = ManualClock(10.0)
    seen: list[tuple[str, float]] = []
    clock.call_later(2.0, lambda: seen.append(("late", clock.now())))
    clock.call_later(1.0, lambda: seen.append(("early", clock.now())))
    clock.call_later(1.0, lambda: seen.append(("early, second", clock.now())))
    dropped = clock.call_later(1.5, lambda: seen.append(("cancelled", clock.now())))
    dropped.cancel()
    await clock.advance(1.0)
    assert seen == [("early", 11.0), ("early, second", 11.0)]
    await clock.advance(5.0)
    assert seen[2:] == [("late", 12.0)]
    assert clock.now() == 16.0


async def test_scheduler_shutdown_cancels_running() -> None:
    scheduler = Scheduler()
    started = asyncio.Event()

    async def forever() -> None:
        started.set()
        await asyncio.sleep(60)

    task = scheduler.submit("k", forever)
    await started.wait()
    await scheduler.shutdown()
    assert task.cancelled()
