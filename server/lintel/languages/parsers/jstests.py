"""vitest's and jest's default (human) reporters, as a `test` script that chains steps (`pnpm lint && pnpm build
&& vitest run`) leaves them in its output: lintel cannot add a JSON reporter to such a script, so it reads what
the runner printed for people. Pure functions over text already stripped of colour codes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from lintel.core.issues import ParseContext, TestFailure

NAME_SEPARATOR = " > "  # as the JSON reports' failures are named (ancestor titles, then the test's title)

# --------------------------------------------------------------------------------------------------
# vitest (measured: vitest 3.2), its "Failed Tests" section on stderr:
#
#   ⎯⎯⎯⎯⎯⎯⎯ Failed Tests 2 ⎯⎯⎯⎯⎯⎯⎯
#
#    FAIL  test/math.test.js > add > adds to five
#   AssertionError: 2 + 2 should make five here: expected 4 to be 5 // Object.is equality
#   ...
#    ❯ test/math.test.js:10:54
#   ⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/2]⎯
#
# A file that fails to load is `FAIL  test/broken.test.js [ test/broken.test.js ]`. Paths are relative to
# vitest's root, the cwd of a package's script.
# Always a test's name or the file's bracket after the file, never a bare `FAIL file` (jest's suite line).
_VITEST_FAIL = re.compile(r"^\s*FAIL\s+(?P<file>\S+?)(?: > (?P<name>.+?)| \[ .* \])\s*$")
_VITEST_AT = re.compile(r"^\s*❯ (?P<file>[^\s:]+):(?P<line>\d+):(?P<col>\d+)\s*$")
_VITEST_RULE = re.compile(r"^⎯{3,}")


def vitest_failures(text: str, ctx: ParseContext) -> list[TestFailure]:
    failures: list[TestFailure] = []
    lines = text.splitlines()
    for index, line in enumerate(lines):
        header = _VITEST_FAIL.match(line)
        if header is None:
            continue
        block = list(_until(lines[index + 1 :], _VITEST_RULE))
        message = next((b.strip() for b in block if b.strip()), "test failed")
        file = header.group("file")
        where = next((m for m in map(_VITEST_AT.match, block) if m and m.group("file") == file), None)
        where = where or next((m for m in map(_VITEST_AT.match, block) if m), None)
        failures.append(
            TestFailure(
                name=header.group("name") or file,
                message=message,
                file=ctx.relpath(where.group("file") if where else file),
                line=int(where.group("line")) if where else None,
                output="\n".join(block).strip() or None,
            )
        )
    return failures


# --------------------------------------------------------------------------------------------------
# jest (measured: jest 30), on stderr: a `FAIL <file>` line per failing suite, then one block per failure:
#
#   FAIL jest/calc.test.cjs
#     ...
#     ● multiply › two by three
#
#       expect(received).toBe(expected) // Object.is equality
#       ...
#       at Object.<anonymous> (jest/calc.test.cjs:11:28)
#
# A suite that fails to run has a block `● Test suite failed to run` instead. Paths are relative to jest's
# rootDir, the cwd of a package's script.
_JEST_SUITE = re.compile(r"^FAIL\s+(?P<file>\S+)(?:\s+\(.*\))?\s*$")
_JEST_TEST = re.compile(r"^  ● (?P<name>.+?)\s*$")
_JEST_FRAME = re.compile(r"^\s+at .*?\(?(?P<file>[^\s():]+):(?P<line>\d+):(?P<col>\d+)\)?\s*$")
_JEST_END = re.compile(r"^(?:PASS|FAIL)\s+\S|^(?:Test Suites|Tests|Snapshots|Time):|^  ● ")


def jest_failures(text: str, ctx: ParseContext) -> list[TestFailure]:
    failures: list[TestFailure] = []
    lines = text.splitlines()
    suite: str | None = None  # the file of the `FAIL` line the blocks below belong to
    for index, line in enumerate(lines):
        started = _JEST_SUITE.match(line)
        if started is not None:
            suite = started.group("file")
            continue
        test = _JEST_TEST.match(line)
        if test is None or suite is None:
            continue
        block = list(_until(lines[index + 1 :], _JEST_END))
        body = [b.strip() for b in block if b.strip() and not _JEST_FRAME.match(b) and not _code_frame(b)]
        frames = [m for m in map(_JEST_FRAME.match, block) if m]
        where = next((m for m in frames if m.group("file") == suite), None)
        where = where or next((m for m in frames if "node_modules" not in m.group("file")), None)
        name = test.group("name").replace(" › ", NAME_SEPARATOR)
        failures.append(
            TestFailure(
                name=suite if name == "Test suite failed to run" else name,
                message="\n".join(body[:10]) or "test failed",
                file=ctx.relpath(where.group("file") if where else suite),
                line=int(where.group("line")) if where else None,
                output="\n".join(block).strip() or None,
            )
        )
    return failures


_CODE_FRAME = re.compile(r"^\s*>?\s*\d*\s*\|")


def _code_frame(line: str) -> bool:
    """jest's source excerpt (`> 11 |     expect(...)`, `     |     ^`)."""
    return _CODE_FRAME.match(line) is not None


def _until(lines: list[str], end: re.Pattern[str]) -> Iterator[str]:
    for line in lines:
        if end.match(line):
            return
        yield line


# --------------------------------------------------------------------------------------------------
# mocha (measured: mocha 12). `--reporter json`: {"stats": {...}, "tests": [...], "failures": [{"title":
# "never goes below zero", "fullTitle": "restock never goes below zero", "file": "/w/mocha/stock.test.cjs",
# "err": {"message": "...", "stack": "AssertionError ...\n    at Context.<anonymous> (mocha/stock.test.cjs:13:12)"}}]}
# Its default `spec` reporter lists the failures after the summary, the suites one per line, then the test:
#
#     1) restock
#          never goes below zero:
#
#         AssertionError [ERR_ASSERTION]: stock cannot be negative
#         ...
#         at Context.<anonymous> (mocha/stock.test.cjs:13:12)
#
# Stack paths are relative to the cwd (`file:///abs/...` for an ES module). mocha runs each test and hook as a
# method of its `Context`, so the `at Context.<anonymous>` frame is the test's own line, below the frames of
# the code it called. mocha exits with the number of failed tests (at most 255). Before the failures, the
# tally (also the whole epilogue of a run that passed, pending tests included):
#
#     3 passing (8ms)
#     3 pending
#     1 failing
_MOCHA_FAILURE = re.compile(r"^  (?P<number>\d+)\) (?P<title>.+?)(?P<colon>:)?\s*$")
_MOCHA_TITLE = re.compile(r"^ {5,}(?P<title>\S.*?)(?P<colon>:)?\s*$")
_MOCHA_FRAME = re.compile(
    r"^\s+at (?P<function>.*?)\(?(?:file://)?(?P<file>[^\s():]+):(?P<line>\d+):(?P<col>\d+)\)?\s*$"
)
_MOCHA_PASSING = re.compile(r"^  (?P<count>\d+) passing \(\d+(?:\.\d+)?(?:ms|s|m)\)\s*$")
_MOCHA_TALLY = re.compile(r"^  (?P<count>\d+) (?P<what>pending|failing)\s*$")


def is_mocha_report(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("stats"), dict) and isinstance(value.get("failures"), list)


def mocha_report_failures(report: Mapping[str, Any], ctx: ParseContext) -> list[TestFailure]:
    failures: list[TestFailure] = []
    listed = report.get("failures")
    for failed in listed if isinstance(listed, list) else []:
        if not isinstance(failed, dict):
            continue
        title, full = str(failed.get("title") or "test"), str(failed.get("fullTitle") or "")
        suites = full[: -len(title)].strip() if full.endswith(title) else ""
        raw_err = failed.get("err")
        err: Mapping[str, Any] = raw_err if isinstance(raw_err, dict) else {}
        stack = str(err.get("stack") or "")
        file = failed.get("file")
        relative = ctx.relpath(file) if isinstance(file, str) and file else None
        failures.append(
            TestFailure(
                name=NAME_SEPARATOR.join(p for p in (suites, title) if p),
                message=_first_lines(str(err.get("message") or "") or stack) or "test failed",
                file=relative,
                line=_frame_in(stack.splitlines(), relative, ctx),
                output=stack or None,
            )
        )
    return failures


def mocha_spec_failures(text: str, ctx: ParseContext) -> list[TestFailure]:
    failures: list[TestFailure] = []
    lines = text.splitlines()
    for index, line in enumerate(lines):
        head = _MOCHA_FAILURE.match(line)
        if head is None:
            continue
        names = [head.group("title")]
        position = index + 1
        ended = head.group("colon") is not None
        while not ended and position < len(lines):
            title = _MOCHA_TITLE.match(lines[position])
            if title is None:
                break
            names.append(title.group("title"))
            ended = title.group("colon") is not None
            position += 1
        if not ended:
            continue  # a numbered line that is not a failure heading
        block: list[str] = []
        for following in lines[position:]:
            if _MOCHA_FAILURE.match(following):
                break
            block.append(following)
        body = [b.strip() for b in block if b.strip() and not _MOCHA_FRAME.match(b)]
        frames = [m for m in map(_MOCHA_FRAME.match, block) if m and not m.group("file").startswith("node:")]
        ours = [m for m in frames if "node_modules" not in m.group("file")]
        # The test's own line (as the JSON report's reader finds it), else where the stack enters the project.
        where = next((m for m in ours if m.group("function").startswith("Context.")), None)
        where = where or next(iter(ours), None)
        failures.append(
            TestFailure(
                name=NAME_SEPARATOR.join(names),
                message=body[0] if body else "test failed",
                file=ctx.relpath(where.group("file")) if where else None,
                line=int(where.group("line")) if where else None,
                output="\n".join(block).strip() or None,
            )
        )
    return failures


@dataclass(frozen=True)
class MochaTally:
    passing: int
    pending: int
    failing: int


def mocha_tally(text: str) -> MochaTally | None:
    """The counts mocha printed after the run (its spec, dot and list reporters end with them); None when the
    text holds no `N passing (time)` line."""
    lines = text.splitlines()
    for index, line in enumerate(lines):
        passing = _MOCHA_PASSING.match(line)
        if passing is None:
            continue
        counts = {"pending": 0, "failing": 0}
        for following in lines[index + 1 : index + 3]:
            tally = _MOCHA_TALLY.match(following)
            if tally is not None:
                counts[tally.group("what")] = int(tally.group("count"))
        return MochaTally(int(passing.group("count")), counts["pending"], counts["failing"])
    return None


def _first_lines(text: str, count: int = 3) -> str:
    return "\n".join(line for line in text.strip().splitlines()[:count] if line.strip())


def _frame_in(stack: list[str], file: str | None, ctx: ParseContext) -> int | None:
    """The line of the first stack frame in `file` (the failing assertion in the test file)."""
    for line in stack:
        frame = _MOCHA_FRAME.match(line)
        if frame is not None and file is not None and ctx.relpath(frame.group("file")) == file:
            return int(frame.group("line"))
    return None


# --------------------------------------------------------------------------------------------------
# node's test runner, its `spec` reporter: the default from node 23 on, also when stdout is not a terminal
# (node 20 and 22 print TAP there, read by node.py). Measured with node 24.21; after the run, a summary:
#
#   ✖ failing tests:
#
#   test at src/math.test.js:10:1
#   ✖ multiply multiplies two numbers (0.671736ms)
#     AssertionError [ERR_ASSERTION]: multiply(3, 4) should be 12
#     ...
#         at TestContext.<anonymous> (file:///w/src/math.test.js:11:10)
_SPEC_FAILING = re.compile(r"^✖ failing tests:\s*$")
_SPEC_AT = re.compile(r"^test at (?P<file>.+?):(?P<line>\d+):(?P<col>\d+)\s*$")
_SPEC_NAME = re.compile(r"^✖ (?P<name>.+?)(?: \([\d.]+m?s\))?\s*$")


def node_spec_failures(text: str, ctx: ParseContext) -> list[TestFailure]:
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if _SPEC_FAILING.match(line)), None)
    if start is None:
        return []
    failures: list[TestFailure] = []
    index = start + 1
    while index < len(lines):
        at = _SPEC_AT.match(lines[index])
        name = _SPEC_NAME.match(lines[index + 1]) if at is not None and index + 1 < len(lines) else None
        if at is None or name is None:
            index += 1
            continue
        block = list(_until(lines[index + 2 :], _SPEC_AT))
        file = ctx.relpath(at.group("file"))
        body = [b.strip() for b in block if b.strip() and not _MOCHA_FRAME.match(b)]
        failures.append(
            TestFailure(
                name=name.group("name"),
                message=body[0] if body else "test failed",
                file=file,
                line=_frame_in(block, file, ctx) or int(at.group("line")),
                output="\n".join(block).strip() or None,
            )
        )
        index += 2 + len(block)
    return failures
