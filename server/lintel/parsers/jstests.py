"""vitest's and jest's default (human) reporters, as a `test` script that chains steps (`pnpm lint && pnpm build
&& vitest run`) leaves them in its output: lintel cannot add a JSON reporter to such a script, so it reads what
the runner printed for people. Pure functions over text already stripped of colour codes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from lintel.issues import ParseContext, TestFailure

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
