"""What the editor knows of each test after a run (docs/editors.md, Tests in the editor): the outcome of every test
a run covered, per workspace folder, for the code lenses; and a run's failures as `lintel-test` diagnostics at the
assertion line, pointing back to the test's declaration."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from lsprotocol import types

from lintel.core.issues import Issue, TestFailure, make_issue
from lintel.core.positions import Unit, convert_column
from lintel.core.testitems import FoundTest
from lintel.engine.checks import RunResult
from lintel.frontends.lsp.convert import LineText
from lintel.frontends.lsp.diagnostics import Diagnostics, line_reader
from lintel.frontends.lsp.session import Folder
from lintel.languages import Project

if TYPE_CHECKING:
    from lintel.frontends.lsp.app import LintelServer

log = logging.getLogger(__name__)

SOURCE = "lintel-test"
CHANNEL = "test"
# Runs remembered per folder: enough for every test a session reruns; the oldest go first.
MAX_RUNS = 200
# A selection's files looked into for a failure's test when the failure names no file of its own.
MAX_SCOPE_FILES = 50
# What follows a test's id in the name of one of its cases: pytest's parameters, go's subtests, a nested name.
_CASE_SEPARATORS = ("[", "::", "/", " ")

# The tests one file declares now (lintel.engine.testdiscovery.file_tests): static, the editor's text if open.
FileTests = Callable[[Project, Path, "str | None"], list[FoundTest]]
# The folder, nearest project and path of a document (Documents.locate); None outside the workspace.
Locate = Callable[[str], "tuple[Folder, Project, Path] | None"]

State = Literal["passed", "failed"]


@dataclass(frozen=True)
class Outcome:
    state: State
    message: str | None = None  # the failure's first line
    duration_ms: int | None = None  # the run's, when it ran this one test alone


@dataclass(frozen=True)
class _Run:
    """One run of tests: where it ran (a project folder, or the files of a selection), which tests it asked for
    (None: all there), what failed, and whether it completed (only then did the others pass)."""

    scope: Path | tuple[Path, ...]
    ids: frozenset[str] | None
    failures: Mapping[str, TestFailure]
    completed: bool
    duration_ms: int

    def holds(self, file: Path) -> bool:
        if isinstance(self.scope, tuple):
            return file in self.scope
        return file == self.scope or self.scope in file.parents

    def covers(self, test: FoundTest, ancestors: Sequence[str]) -> bool:
        if not self.holds(test.file):
            return False
        return self.ids is None or test.id in self.ids or any(a in self.ids for a in ancestors)

    def failure_of(self, test: FoundTest) -> TestFailure | None:
        found = self.failures.get(test.id)
        if found is not None or test.kind == "file":
            return found
        return next((f for name, f in self.failures.items() if within(name, test.id)), None)


def within(name: str, test_id: str) -> bool:
    """Whether a failure's `name` is the test `test_id` or one of its cases (a parameter set, a subtest)."""
    if name == test_id:
        return True
    return name.startswith(test_id) and name[len(test_id) :].startswith(_CASE_SEPARATORS)


def first_line(message: str) -> str:
    return next((line.strip() for line in message.splitlines() if line.strip()), "")


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path


def asked_ids(arguments: Sequence[Any] | None) -> frozenset[str] | None:
    """The test ids a runTests call named (`tests`: names, or failure objects with a `name`); None without."""
    first = arguments[0] if arguments else None
    tests = first.get("tests") if isinstance(first, dict) else None
    if not isinstance(tests, list):
        return None
    names = [t if isinstance(t, str) else t.get("name") if isinstance(t, dict) else None for t in tests]
    return frozenset(n for n in names if isinstance(n, str))


class TestResults:
    """The outcome of each test by the runs of this session (newest first), per workspace folder."""

    __test__ = False  # not a pytest test class

    def __init__(self) -> None:
        self._runs: dict[Path, list[_Run]] = {}

    def record(
        self, folder_root: Path, result: RunResult, scope: Path | Sequence[Path], ids: frozenset[str] | None
    ) -> None:
        """A finished run: `scope` where it ran (the project's folder, or the selection's files), `ids` the tests
        it asked for. A timed-out or not-run result marks nothing passed; its failures still count."""
        where: Path | tuple[Path, ...] = (
            _resolved(scope) if isinstance(scope, Path) else tuple(_resolved(p) for p in scope)
        )
        completed = not result.timed_out and result.status in ("clean", "passed", "findings")
        failures = {f.name: f for f in result.failures}
        runs = self._runs.setdefault(_resolved(folder_root), [])
        runs.insert(0, _Run(where, ids, failures, completed, result.duration_ms))
        del runs[MAX_RUNS:]

    def failed_before(self, folder_root: Path, files: Path | Sequence[Path]) -> frozenset[str]:
        """What runFailingTests reruns, as this session saw it: the failures of the newest run that ran where the
        rerun's `files` are (the project's last run)."""
        wanted = [_resolved(f) for f in ([files] if isinstance(files, Path) else files)]
        for run in self._runs.get(_resolved(folder_root), ()):
            if any(run.holds(f) for f in wanted):
                return frozenset(run.failures)
        return frozenset()

    def outcome(self, folder_root: Path, test: FoundTest, ancestors: Sequence[str]) -> Outcome | None:
        """The test's outcome in the newest run that covered it (a suite's: failed when a test in it failed); None
        when no run of this session did."""
        for run in self._runs.get(_resolved(folder_root), ()):
            if not run.covers(test, ancestors):
                continue
            failure = run.failure_of(test)
            if failure is not None:
                return Outcome("failed", first_line(failure.message) or "failed")
            if run.completed:
                alone = test.kind == "test" and run.ids == frozenset({test.id})
                return Outcome("passed", duration_ms=run.duration_ms if alone else None)
        return None


def ancestors_of(test: FoundTest, by_id: Mapping[str, FoundTest]) -> list[str]:
    """The ids of the suites and file around `test`, innermost first."""
    out: list[str] = []
    parent = test.parent
    while parent is not None and parent not in out:
        out.append(parent)
        above = by_id.get(parent)
        parent = above.parent if above is not None else None
    return out


def declaration_range(test: FoundTest, read: LineText, encoding: Unit) -> types.Range:
    """The test's first line (its decorators' or attributes' first), in the editor's positions: where a lens goes,
    and what a failure elsewhere points back to."""
    line0 = test.line - 1
    text = read(line0)
    start = convert_column(text, test.column - 1, "utf-32", encoding)
    end = convert_column(text, len(text), "utf-32", encoding) if text is not None else start
    return types.Range(
        start=types.Position(line=line0, character=start), end=types.Position(line=line0, character=max(start, end))
    )


class TestPublisher:
    """The test channel's diagnostics of a run, and the record of its outcomes; the editor's code lenses are
    asked to refresh after it (where the client can)."""

    __test__ = False

    def __init__(
        self,
        server: LintelServer,
        diagnostics: Diagnostics,
        results: TestResults,
        file_tests: FileTests,
        locate: Locate,
    ) -> None:
        self.server = server
        self.diagnostics = diagnostics
        self.results = results
        self.file_tests = file_tests
        self.locate = locate

    def publish(
        self, folder: Folder, result: RunResult, scope: Path | Sequence[Path], command: str, arguments: Any
    ) -> None:
        ids = asked_ids(arguments)
        if command == "lintel.runFailingTests":
            ids = self.results.failed_before(folder.root, scope) | {f.name for f in result.failures}
        self.results.record(folder.root, result, scope, ids)
        tests = _FailedTests(self, folder, scope)
        placed = [*result.issues, *tests.unplaced_issues(result)]
        self.diagnostics.publish_run(
            folder, dataclasses.replace(result, issues=placed), CHANNEL, scope, finish=tests.finish
        )
        self.refresh_lenses()

    def refresh_lenses(self) -> None:
        workspace = self.server.client_capabilities.workspace
        code_lens = workspace.code_lens if workspace is not None else None
        if code_lens is None or not code_lens.refresh_support:
            return
        server = self.server

        async def refresh() -> None:
            try:
                await server.workspace_code_lens_refresh_async(None)
            except Exception as exc:  # an editor that refuses it still shows the new lenses on its next request
                log.info("workspace/codeLens/refresh: %s", exc)

        server.spawn(refresh())

    def tests_of(self, path: Path) -> list[FoundTest]:
        """The tests `path` declares (the open document's text if it is open); none outside a project."""
        uri = path.as_uri()
        located = self.locate(uri)
        if located is None:
            return []
        document = self.server.workspace.text_documents.get(uri)
        try:
            return self.file_tests(located[1], _resolved(path), document.source if document is not None else None)
        except Exception:  # discovery is static and must not raise; a bug there costs the lens, not the run
            log.exception("test discovery failed for %s", path)
            return []


class _FailedTests:
    """One run's failures matched to the tests discovered in the files they name (or the run's)."""

    def __init__(self, publisher: TestPublisher, folder: Folder, scope: Path | Sequence[Path]) -> None:
        self.publisher = publisher
        self.folder = folder
        self.scope = scope
        self._by_file: dict[Path, list[FoundTest]] = {}
        self._by_location: dict[tuple[str | None, int | None], TestFailure] = {}

    def _tests_in(self, path: Path) -> list[FoundTest]:
        path = _resolved(path)
        if path not in self._by_file:
            self._by_file[path] = self.publisher.tests_of(path) if path.is_file() else []
        return self._by_file[path]

    def _candidates(self, failure: TestFailure) -> list[Path]:
        root = self.folder.root
        files = [root / failure.file] if failure.file else []
        base = self.scope if isinstance(self.scope, Path) and self.scope.is_dir() else root
        if "::" in failure.name:  # a node id: its file, relative to the project
            files.append(base / failure.name.split("::", 1)[0])
        if not isinstance(self.scope, Path):
            files.extend(list(self.scope)[:MAX_SCOPE_FILES])
        return files

    def test_of(self, failure: TestFailure) -> FoundTest | None:
        """The declaration of the failed test: the exact id, else the test whose case failed."""
        best: FoundTest | None = None
        for path in self._candidates(failure):
            for test in self._tests_in(path):
                if test.kind == "file" or not within(failure.name, test.id):
                    continue
                if best is None or len(test.id) > len(best.id):
                    best = test
            if best is not None:
                return best
        return None

    def unplaced_issues(self, result: RunResult) -> list[Issue]:
        """Failures that name no line: shown at their test's declaration, when it is found."""
        out: list[Issue] = []
        for failure in result.failures:
            if failure.file is not None and failure.line is not None:
                self._by_location.setdefault((failure.file, failure.line), failure)
                continue
            test = self.test_of(failure)
            if test is None:
                continue
            file = relative(test.file, self.folder.root)
            out.append(
                make_issue(
                    kind="test",
                    message=f"{failure.name} failed: {first_line(failure.message) or 'failed'}",
                    source=result.tool,
                    file=file,
                    line=test.line,
                )
            )
        return out

    def finish(self, issue: Issue, diagnostic: types.Diagnostic) -> None:
        """The runner named in `code`, the source `lintel-test`; a failure away from its test's declaration
        points back to it."""
        diagnostic.code = f"{issue.source}:{issue.rule}" if issue.rule else issue.source
        diagnostic.source = SOURCE
        failure = self._by_location.get((issue.file, issue.line))
        test = self.test_of(failure) if failure is not None else None
        if test is None or (relative(test.file, self.folder.root) == issue.file and test.line == issue.line):
            return
        server = self.publisher.server
        document = server.workspace.text_documents.get(test.file.as_uri())
        where = declaration_range(test, line_reader(document, test.file), server.session.encoding)
        diagnostic.related_information = [
            types.DiagnosticRelatedInformation(
                location=types.Location(uri=test.file.as_uri(), range=where), message=f"the test {test.label}"
            )
        ]


def relative(path: Path, root: Path) -> str:
    for base in (root, _resolved(root)):
        try:
            return path.relative_to(base).as_posix()
        except ValueError:
            continue
    return str(path)
