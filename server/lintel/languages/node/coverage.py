"""Node coverage from the project's `test` script (docs/architecture.md, Coverage):

- `node --test`: node's own coverage (`--experimental-test-coverage`) as lcov beside the TAP lintel reads;
  for one line, each test file run alone (granularity `file`);
- jest: its built-in istanbul coverage (`--coverage --coverageReporters=json`), granularity `project`;
- vitest: `--coverage.enabled` with the json reporter when the project has a coverage provider
  (`@vitest/coverage-v8` or `-istanbul`), else not_checked with how to add it; granularity `project`.

Anything else (mocha, a chain of commands ending elsewhere) is not measured: lintel says which runner it saw."""

from __future__ import annotations

import glob
import re
import shlex
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from lintel.core.results import RunResult
from lintel.core.runenv import defaults_for
from lintel.languages.base import ToolSpec
from lintel.languages.coverage.base import (
    CoverageHost,
    Measurement,
    Refined,
    blank_result,
    covers,
    not_checked,
    read_text,
)
from lintel.languages.coverage.data import CoverageDataError, read_json, relative_path
from lintel.languages.coverage.model import CoverageIndex, FileCoverage, Files

# The most test files run one by one for a line; with more the answer stays per project.
MAX_FILE_RUNS = 30
_ENV_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_CHAIN = re.compile(r"&&|\|\||;")
# node 20's default test file patterns (`node --test` without files), node_modules left out.
NODE_TEST_PATTERNS = (
    "**/*.test.?(c|m)js",
    "**/*-test.?(c|m)js",
    "**/*_test.?(c|m)js",
    "**/test-*.?(c|m)js",
    "**/test.?(c|m)js",
    "**/test/**/*.?(c|m)js",
)
_ADD_DEV = {
    "npm": "npm install --save-dev",
    "yarn": "yarn add --dev",
    "pnpm": "pnpm add --save-dev",
    "bun": "bun add --dev",
}
VITEST_PROVIDERS = ("@vitest/coverage-v8", "@vitest/coverage-istanbul")


def _words(script: str) -> list[str]:
    """The last command of a script (`npm run lint && vitest run` → vitest's), env assignments dropped: the one
    extra arguments reach."""
    last = _CHAIN.split(script)[-1]
    try:
        words = shlex.split(last)
    except ValueError:
        return []
    while words and _ENV_ASSIGNMENT.match(words[0]):
        words = words[1:]
    return words


def runner(script: str) -> str | None:
    words = _words(script)
    if not words:
        return None
    command = Path(words[0]).name
    if command == "node" and "--test" in words:
        return "node --test"
    if command in ("jest", "vitest"):
        return command
    if command == "npx" and len(words) > 1 and Path(words[-1]).name in ("jest", "vitest"):
        return Path(words[-1]).name
    return None


async def measure(request: CoverageHost) -> Measurement:
    project = request.project
    script = project.scripts.get("test")
    if project.problem is not None:
        return Measurement(blank_result(project, "npm test", [], f"coverage: {project.problem}"))
    if script is None:
        reason = "coverage: package.json has no `test` script (lintel measures what that script's runner covers)"
        return Measurement(blank_result(project, "npm test", [], reason))
    which = runner(script)
    if which == "node --test":
        return await _node_test(request, _words(script))
    if which in ("jest", "vitest"):
        return await _istanbul(request, which)
    reason = (
        f"coverage: the `test` script ({script!r}) does not end in node --test, jest or vitest, "
        "the runners lintel measures coverage with"
    )
    return Measurement(blank_result(project, "npm test", [], reason))


def _node_argv(words: Sequence[str], lcov: Path, files: Sequence[str] = ()) -> list[str]:
    """The script's `node --test …` with TAP on stdout (what the test parser reads) and lcov to a file; `files`
    replace the script's own file arguments."""
    kept: list[str] = []
    skip = False
    for word in words[1:]:
        if skip:
            skip = False
            continue
        if word in ("--test-reporter", "--test-reporter-destination"):
            skip = True
            continue
        if word.startswith(("--test-reporter=", "--test-reporter-destination=", "--experimental-test-coverage")):
            continue
        if files and not word.startswith("-"):
            continue
        kept.append(word)
    flags = [
        "--experimental-test-coverage",
        "--test-reporter=tap",
        "--test-reporter-destination=stdout",
        "--test-reporter=lcov",
        f"--test-reporter-destination={lcov}",
    ]
    return [words[0], *flags, *kept, *files]


def _node_spec(argv: Sequence[str]) -> ToolSpec:
    return ToolSpec(
        check="test",
        tool="node --test",
        argv=tuple(argv),
        parser="node-test-auto",
        finding_codes=frozenset({1}),
        install_hint="install Node.js 20 or later (https://nodejs.org)",
        env_defaults=defaults_for("node", "test"),
    )


async def _run_node(request: CoverageHost, argv: Sequence[str]) -> RunResult:
    return await request.run_spec(_node_spec(argv))


async def _node_test(request: CoverageHost, words: list[str]) -> Measurement:
    started = time.time()
    with tempfile.TemporaryDirectory(prefix="lintel-coverage-") as scratch:
        lcov = Path(scratch) / "lcov.info"
        result = await _run_node(request, _node_argv(words, lcov))
        if result.exit_code is None and not result.timed_out:
            return Measurement(result)
        text = read_text(lcov)
    if text is None:
        if result.status == "not_checked":
            return Measurement(result)
        return not_checked(result, "coverage: node --test wrote no lcov report (node 20.11 or later is needed)")
    try:
        files = _without_tests(parse_lcov(text, str(request.project.root), covered_by="node --test"), words)
    except CoverageDataError as exc:
        return not_checked(result, f"coverage: {exc}")
    index = CoverageIndex(
        language="node",
        root=str(request.project.root),
        tool="node --test --experimental-test-coverage (lcov)",
        granularity="project",
        measured_at=started,
        argv=result.argv,
        files=files,
    )
    return Measurement(result, index)


def _without_tests(files: Files, words: Sequence[str]) -> Files:
    """node counts the test files themselves: they are what runs, not what is covered."""
    tests = set(_test_files_in(words, None))
    return {name: f for name, f in files.items() if name not in tests and not _looks_like_test(name)}


def _looks_like_test(name: str) -> bool:
    base = Path(name).name
    return bool(re.search(r"([.\-_]test\.[cm]?js$)|(^test[.\-])", base)) or "/test/" in f"/{name}"


def _test_files_in(words: Sequence[str], root: Path | None) -> list[str]:
    """The test files a `node --test` command runs: its file arguments (globs expanded), else node's default
    patterns under `root`."""
    given = [w for w in words[1:] if not w.startswith("-")]
    if root is None:
        return given
    patterns = given or list(NODE_TEST_PATTERNS)
    found: set[str] = set()
    for pattern in patterns:
        for variant in _extglob(pattern):
            for match in glob.glob(variant, root_dir=root, recursive=True):
                if "node_modules" not in Path(match).parts and (root / match).is_file():
                    found.add(Path(match).as_posix())
    return sorted(found)


def _extglob(pattern: str) -> list[str]:
    """`?(c|m)js` (node's patterns) as the plain globs Python's glob takes."""
    if "?(c|m)" not in pattern:
        return [pattern]
    return [pattern.replace("?(c|m)", option) for option in ("", "c", "m")]


async def refine(request: CoverageHost, rel: str, line: int) -> Refined | None:
    """The test files that run `line`, each run alone with coverage (node --test only: jest and vitest
    answer per project)."""
    script = request.project.scripts.get("test") or ""
    if runner(script) != "node --test":
        return None
    words = _words(script)
    candidates = _test_files_in(words, request.project.root)
    if len(candidates) > MAX_FILE_RUNS:
        note = f"{len(candidates)} test files, more than the {MAX_FILE_RUNS} lintel runs one by one"
        return Refined("project", ["node --test"], note=note)
    hits: list[str] = []
    with tempfile.TemporaryDirectory(prefix="lintel-coverage-") as scratch:
        for number, candidate in enumerate(candidates):
            lcov = Path(scratch) / f"{number}.info"
            await _run_node(request, _node_argv(words, lcov, [candidate]))
            text = read_text(lcov)
            if text is None:
                continue
            try:
                files = parse_lcov(text, str(request.project.root), covered_by=candidate)
            except CoverageDataError:
                continue
            if covers(files, rel, line):
                hits.append(candidate)
    return Refined("file", hits, runs=len(candidates))


def _provider(root: Path, workspace: Path) -> bool:
    folder = root.resolve()
    top = workspace.resolve()
    while True:
        if any((folder / "node_modules" / p / "package.json").is_file() for p in VITEST_PROVIDERS):
            return True
        if folder == top or folder.parent == folder or not folder.is_relative_to(top):
            return False
        folder = folder.parent


async def _istanbul(request: CoverageHost, which: str) -> Measurement:
    project = request.project
    manager = project.package_manager or "npm"
    if which == "vitest" and not _provider(project.root, request.workspace):
        hint = f"{_ADD_DEV.get(manager, _ADD_DEV['npm'])} @vitest/coverage-v8"
        reason = f"coverage: vitest has no coverage provider in this project — install it with: {hint}"
        return Measurement(blank_result(project, "vitest", [], reason))
    started = time.time()
    with tempfile.TemporaryDirectory(prefix="lintel-coverage-") as scratch:
        if which == "jest":
            extra = ["--coverage", "--coverageReporters=json", f"--coverageDirectory={scratch}"]
        else:
            extra = [
                "--coverage.enabled=true",
                "--coverage.reporter=json",
                f"--coverage.reportsDirectory={scratch}",
            ]
        planned_argv = _script_argv(request)
        if manager == "npm" and "--" not in planned_argv:
            extra = ["--", *extra]
        result = await request.run_tests(extra)
        if result.exit_code is None and not result.timed_out:
            return Measurement(result)
        text = read_text(Path(scratch) / "coverage-final.json")
    if text is None:
        if result.status == "not_checked":
            return Measurement(result)
        return not_checked(result, f"coverage: {which} wrote no coverage-final.json")
    try:
        files = parse_istanbul_json(text, str(project.root), covered_by=which)
    except CoverageDataError as exc:
        return not_checked(result, f"coverage: {exc}")
    index = CoverageIndex(
        language="node",
        root=str(project.root),
        tool=f"{which} --coverage (istanbul json)",
        granularity="project",
        measured_at=started,
        argv=result.argv,
        files=files,
    )
    return Measurement(result, index)


def _script_argv(request: CoverageHost) -> tuple[str, ...]:
    return request.test_spec().argv


# --- the coverage data node, jest and vitest write ------------------------------------------------------------


def parse_istanbul_json(text: str, root: str, covered_by: str | None = None) -> Files:
    """istanbul's `coverage-final.json` (jest `--coverageReporters=json`, vitest `--coverage.reporter=json`):

        {"/abs/src/math.js": {"path": "/abs/src/math.js",
            "statementMap": {"0": {"start": {"line": 2, "column": 2}, "end": {"line": 2, "column": 14}}},
            "s": {"0": 3}, "fnMap": {...}, "f": {...}, "branchMap": {...}, "b": {...}}}

    A statement counts for its first line, as istanbul's own line coverage does; paths become relative to `root`
    (the project root). Covered lines are covered by `covered_by` (the suite or a test file)."""
    document = read_json(text, "istanbul coverage JSON")
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
        out[relative_path(str(data.get("path") or key), root)] = coverage
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
            current = out.setdefault(relative_path(line[3:], root), FileCoverage())
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
