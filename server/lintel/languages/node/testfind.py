"""lintel.discoverTests for JavaScript and TypeScript: the suites and tests `jsnames` reads in the project's test
files (as testselect finds them), with the ids a run's failures carry.

Ids are the titles joined by ` > ` (jest's and vitest's JSON, node's TAP, mocha's spec reporter); under mocha,
whose JSON report gives a test's suites as one space-joined title, the suites' titles are joined by spaces
(`outer inner > test`). Tests `jsnames` cannot read are left out: `.each` tables, titles computed at run time.
A project whose `test` script calls no runner lintel can narrow (`pnpm -r test`) lists none.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from pathlib import Path

from lintel.core.errors import BadArgument
from lintel.core.testitems import FoundTest, TestKind
from lintel.languages.base import Project
from lintel.languages.node.jsnames import SOURCES, scan_text
from lintel.languages.node.testglobs import runner_matcher
from lintel.languages.node.testselect import is_test_file, test_runner
from lintel.languages.parsers.jstests import NAME_SEPARATOR
from lintel.languages.testselect.base import relative


def discover(project: Project, files: Sequence[Path], texts: Mapping[Path, str]) -> list[FoundTest]:
    try:
        runner = test_runner(project).kind
    except BadArgument:
        return []  # no runner lintel can narrow to a test: nothing it lists could be run by its id
    mocha = runner == "mocha"
    # The runner's own file patterns where its configuration lists them, else the usual test file names.
    matches = runner_matcher(project, runner)
    found: list[FoundTest] = []
    for file in files:
        if file.suffix not in SOURCES:
            continue
        if matches(relative(project, file)) if matches is not None else is_test_file(project, file):
            found.extend(file_tests(project, file, texts.get(file), mocha=mocha))
    return found


def file_tests(project: Project, file: Path, text: str | None, *, mocha: bool = False) -> list[FoundTest]:
    """The file's record, then its suites and tests in source order; none for a file without any."""
    if text is None:
        try:
            text = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return []
    calls = scan_text(text)
    if not calls:
        return []
    starts = [0, *(m.end() for m in re.finditer("\n", text))]

    def at(offset: int) -> tuple[int, int]:
        line = bisect_right(starts, offset)
        return line, offset - starts[line - 1] + 1

    file_id = relative(project, file)
    end = at(max(c.end for c in calls))
    out = [FoundTest(file_id, file.name, file, 1, 1, end[0], end[1], "file", None)]
    for call in calls:
        kind: TestKind = "suite" if call.suite else "test"
        parent = test_id(call.path[:-1], suite=True, mocha=mocha) if len(call.path) > 1 else file_id
        first, last = at(call.start), at(call.end)
        label = call.path[-1]
        ident = test_id(call.path, suite=call.suite, mocha=mocha)
        out.append(FoundTest(ident, label, file, first[0], first[1], last[0], last[1], kind, parent))
    return out


def test_id(path: Sequence[str], *, suite: bool, mocha: bool) -> str:
    """The name a failure of this test carries (a suite's: its tests' without their own title)."""
    if not mocha:
        return NAME_SEPARATOR.join(path)
    if suite:
        return " ".join(path)
    return NAME_SEPARATOR.join(p for p in (" ".join(path[:-1]), path[-1]) if p)
