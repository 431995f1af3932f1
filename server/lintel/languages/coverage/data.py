"""Coverage data as the tools write it -> `Files` (lintel.languages.coverage.model): pure functions, no I/O.
Each keeps a sample of what it reads; tests/unit/test_coverage_parsers.py runs them on output captured from the
real tools."""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Mapping
from typing import Any

from lintel.languages.coverage.model import FileCoverage, Files


class CoverageDataError(ValueError):
    """The coverage data could not be read: the run is reported not_checked with this message."""


# pytest-cov names each dynamic context after the test's node id and the phase: `tests/t.py::test_x|run`.
_PHASE = re.compile(r"\|(setup|run|teardown)$")


def parse_coveragepy_json(text: str) -> Files:
    """`coverage json --show-contexts` (coverage.py 7, format 3):

        {"meta": {"format": 3, "show_contexts": true, ...},
         "files": {"src/inventory/models.py": {
             "executed_lines": [3, 20, 21], "missing_lines": [25],
             "contexts": {"3": [""], "20": ["tests/test_models.py::test_restock_adds_units|run"]},
             "summary": {"num_statements": 4, "covered_lines": 3, ...}}}}

    A line's contexts name the tests that ran it (phase suffix dropped); the empty context is code run outside
    any test (imports at collection), which covers the line without naming a test. Without contexts every
    covered line is covered by no one in particular."""
    document = _json(text, "coverage.py JSON")
    files = document.get("files")
    if not isinstance(files, dict):
        raise CoverageDataError("coverage.py JSON has no `files` object")
    out: Files = {}
    for name, data in files.items():
        if not isinstance(data, dict):
            continue
        summary = data.get("summary") or {}
        coverage = FileCoverage(
            statements=int(summary.get("num_statements", 0)), covered_statements=int(summary.get("covered_lines", 0))
        )
        contexts: Mapping[str, list[str]] = data.get("contexts") or {}
        for line in data.get("executed_lines") or []:
            names = {_PHASE.sub("", c) for c in contexts.get(str(line), [])}
            coverage.cover(int(line), (n for n in names if n))
        for line in data.get("missing_lines") or []:
            coverage.miss(int(line))
        out[str(name).replace("\\", "/")] = coverage
    return out


# mode line, then `import/path/file.go:startLine.startCol,endLine.endCol numStatements count`.
_GO_BLOCK = re.compile(r"^(?P<file>.+):(?P<l1>\d+)\.(?P<c1>\d+),(?P<l2>\d+)\.(?P<c2>\d+) (?P<n>\d+) (?P<count>\d+)$")


def parse_go_profile(text: str, modules: Mapping[str, str], covered_by: str | None = None) -> Files:
    """A `go test -coverprofile` file:

        mode: set
        example.com/lintelgo/sub/calc.go:7.24,7.40 1 1
        example.com/lintelgo/sub/calc.go:10.31,13.2 2 0

    Files are named by import path: `modules` maps each module path to its folder relative to the project root
    ("" for the root), the longest match wins; a file of no listed module keeps its import path. A block covers
    every line from its start to its end; a line in a run block is covered (by `covered_by`, else the file's
    package), one only in blocks that never ran is missing. Statement counts are the profile's, as
    `go tool cover` counts them; a block listed twice (several packages' profiles) counts once, run if any ran.
    """
    lines = text.splitlines()
    if not lines or not lines[0].startswith("mode:"):
        raise CoverageDataError("not a Go coverage profile (no `mode:` line)")
    blocks: dict[tuple[str, str], tuple[int, int, int, int]] = {}
    for raw in lines[1:]:
        match = _GO_BLOCK.match(raw.strip())
        if match is None:
            continue
        key = (match["file"], raw.rsplit(" ", 2)[0])
        start, end, statements, count = int(match["l1"]), int(match["l2"]), int(match["n"]), int(match["count"])
        previous = blocks.get(key)
        blocks[key] = (start, end, statements, max(count, previous[3] if previous else 0))
    out: Files = {}
    for (import_path, _), (start, end, statements, count) in blocks.items():
        name = _module_relative(import_path, modules)
        coverage = out.setdefault(name, FileCoverage())
        coverage.statements += statements
        who = covered_by if covered_by is not None else posixpath.dirname(import_path)
        for line in range(start, end + 1):
            if count > 0:
                coverage.cover(line, (who,))
            else:
                coverage.miss(line)
        if count > 0:
            coverage.covered_statements += statements
    return out


def _module_relative(import_path: str, modules: Mapping[str, str]) -> str:
    best = max((m for m in modules if import_path.startswith(f"{m}/")), key=len, default=None)
    if best is None:
        return import_path
    return posixpath.join(modules[best], import_path[len(best) + 1 :])


def parse_istanbul_json(text: str, root: str, covered_by: str | None = None) -> Files:
    """istanbul's `coverage-final.json` (jest `--coverageReporters=json`, vitest `--coverage.reporter=json`):

        {"/abs/src/math.js": {"path": "/abs/src/math.js",
            "statementMap": {"0": {"start": {"line": 2, "column": 2}, "end": {"line": 2, "column": 14}}},
            "s": {"0": 3}, "fnMap": {...}, "f": {...}, "branchMap": {...}, "b": {...}}}

    A statement counts for its first line, as istanbul's own line coverage does; paths become relative to `root`
    (the project root). Covered lines are covered by `covered_by` (the suite or a test file)."""
    document = _json(text, "istanbul coverage JSON")
    out: Files = {}
    for key, data in document.items():
        if not isinstance(data, dict) or not isinstance(data.get("statementMap"), dict):
            continue
        coverage = FileCoverage()
        counts: Mapping[str, int] = data.get("s") or {}
        for sid, span in data["statementMap"].items():
            line = int(span["start"]["line"])
            coverage.statements += 1
            if counts.get(sid, 0) > 0:
                coverage.covered_statements += 1
                coverage.cover(line, (covered_by,) if covered_by else ())
            else:
                coverage.miss(line)
        out[_relative(str(data.get("path") or key), root)] = coverage
    return out


def parse_lcov(text: str, root: str, covered_by: str | None = None) -> Files:
    """An lcov tracefile (node `--test-reporter=lcov`, c8, istanbul's `lcovonly`):

        SF:src/math.js
        DA:1,1
        DA:12,2
        DA:14,0
        end_of_record

    Each `DA:line,count` is an executable line, covered when its count is above 0; `SF` paths become relative
    to `root`. Covered lines are covered by `covered_by` (the suite or a test file)."""
    out: Files = {}
    current: FileCoverage | None = None
    seen_record = False
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("SF:"):
            current = out.setdefault(_relative(line[3:], root), FileCoverage())
            seen_record = True
        elif line.startswith("DA:") and current is not None:
            parts = line[3:].split(",")
            try:
                number, count = int(parts[0]), int(parts[1])
            except (IndexError, ValueError):
                continue
            current.statements += 1
            if count > 0:
                current.covered_statements += 1
                current.cover(number, (covered_by,) if covered_by else ())
            else:
                current.miss(number)
        elif line == "end_of_record":
            current = None
    if not seen_record and text.strip():
        raise CoverageDataError("not an lcov tracefile (no `SF:` record)")
    return out


def _relative(path: str, root: str) -> str:
    path = path.replace("\\", "/")
    if path.startswith("file://"):
        path = path[len("file://") :]
    base = root.rstrip("/") + "/"
    if path.startswith(base):
        return path[len(base) :]
    return posixpath.normpath(path) if not path.startswith("/") else path


def _json(text: str, what: str) -> dict[str, Any]:
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise CoverageDataError(f"{what} could not be read: {exc}") from exc
    if not isinstance(document, dict):
        raise CoverageDataError(f"{what} is not an object")
    return document
