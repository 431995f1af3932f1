"""go test's test2json events (`go test -json`): failed tests, packages that failed without one, and the compile
errors that stopped a package from building (kind `build`, read as go.py reads the go command's output).

`go test -fullpath` prints absolute paths; without it a test's lines name only the file, placed here in its
package's directory.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from lintel.core.issues import Issue, ParseContext, ParseResult, TestFailure, make_issue
from lintel.languages.go.parsers import LOCATED, located_issues, located_lines, module_errors, vet_kind
from lintel.languages.parsers.base import ToolOutput
from lintel.languages.parsers.common import clean, json_lines, one_line

_MAX_OUTPUT = 20_000

# `    calc_test.go:13: Scale(2, 3) = 6, want 7` (or an absolute path with -fullpath); a message's further
# lines follow indented deeper.
_TEST_LOG = re.compile(r"^(?P<indent> +)(?P<file>(?:[A-Za-z]:)?[^:\n]*?\.go):(?P<line>\d+): (?P<message>.*)$")
_PANIC = re.compile(r"^panic: (?P<message>.*?)(?: \[recovered[^\]]*\])?$")
# A stack frame's location line: `\t/w/boom/boom.go:5 +0x1d`.
_FRAME_FILE = re.compile(r"^\t(?P<file>.+?\.go):(?P<line>\d+)(?: \+0x[0-9a-fA-F]+)?$")
# A stack frame's function line: `example.org/gotests/boom.TestPanics(0xc000104ea0)`, `created by ...`.
_FRAME_FUNC = re.compile(r"^(?:created by )?(?P<func>[^\s(]+)")
_BUILD_HEADER = re.compile(r"^# (?P<package>[^\s\[]+)(?: \[[^\]]*\])?$")
# The package summary lines test2json also reports as output: `FAIL\tpkg\t0.01s`, `ok  \tpkg\t0.1s`, `PASS`.
_SUMMARY = re.compile(r"^(?:(?:FAIL|ok|\?)\s+\S+(?:\s.*)?|FAIL|PASS|--- (?:FAIL|PASS|SKIP): .*|=== \w+ .*)$")
_TERMINAL = frozenset({"pass", "fail", "skip"})
_BUILD_FAILED = ("[build failed]", "[setup failed]")

# Turns a path a test printed into a root-relative one, or None when it cannot be placed.
_Resolve = Callable[[str], "str | None"]


@dataclass
class _Test:
    package: str
    name: str
    output: list[str] = field(default_factory=list)
    action: str | None = None  # pass / fail / skip; None while (or if it never stopped) running


@dataclass
class _Package:
    name: str
    output: list[str] = field(default_factory=list)
    action: str | None = None
    failed_build: bool = False


@dataclass
class _Note:
    """Something a failing test printed that explains it: a t.Error line or a panic."""

    message: str
    file: str | None
    line: int | None
    panic: bool = False


@dataclass
class _Run:
    tests: dict[tuple[str, str], _Test] = field(default_factory=dict)
    packages: dict[str, _Package] = field(default_factory=dict)
    build_output: list[str] = field(default_factory=list)
    events: int = 0

    def package(self, name: str) -> _Package:
        return self.packages.setdefault(name, _Package(name))


def parse_go_test(output: ToolOutput, ctx: ParseContext) -> ParseResult:
    """`go test -json -count=1 -fullpath ./...`: test2json events, one JSON object per stdout line.

        {"ImportPath":"example.com/m/sub [example.com/m/sub.test]","Action":"build-output",
         "Output":"sub/broken.go:5:9: undefined: missing\\n"}
        {"Action":"run","Package":"example.com/m/sub","Test":"TestScale"}
        {"Action":"output","Package":"example.com/m/sub","Test":"TestScale",
         "Output":"    /w/sub/calc_test.go:13: Scale(2, 3) = 6, want 7\\n"}
        {"Action":"fail","Package":"example.com/m/sub","Test":"TestScale","Elapsed":0}
        {"Action":"fail","Package":"example.com/m/sub","Elapsed":0.004,"FailedBuild":"..."}

    Each failed leaf test (a parent failing only through its subtests is left out) is a TestFailure named
    `<import path>.<test>` and a `test` issue at the first line it logged or, for a panic, at the innermost
    stack frame inside the root. A test still running when its package failed (a timeout, a crash) failed
    too. A package that failed with no failing test (TestMain, init) is one failure named after the package.
    Compile errors (build-output events, or stderr lines from go before 1.24) and the go command's module errors
    on stderr (go.mod needs `go mod tidy`, a missing go.sum entry, inconsistent vendoring) are `build` issues.

    Without -fullpath a test's lines name only the file (`calc_test.go:13`) while events name the import
    path, so the package directory is inferred: from what the run itself shows (a build error's relative
    path or a panic frame's absolute path under a known package), else by taking the module path to be the
    longest common prefix of the run's packages, with the module root the cwd. That guess is wrong only when
    every package of the module sits in one subdirectory; then the file is misplaced under the cwd.
    """
    run = _Run()
    for event in _events(output.stdout):
        _apply(run, event)
    stderr_lines = clean(output.stderr).splitlines()
    resolver = _DirResolver.build(run, ctx)

    module, lines = module_errors([*run.build_output, *stderr_lines], "go test", ctx)
    compiled, vetted = split_vet_output(lines)
    # go test runs vet's checks before the tests and fails the build on a finding (under a `# [pkg]` header): the
    # finding is go vet's, reported as go vet reports it, so a check that runs both shows it once.
    issues = module + located_issues(located_lines(compiled), "go test", ctx)
    issues += located_issues(located_lines(vetted), "go vet", ctx, kind=vet_kind)
    build_issues = bool(issues)

    failures: list[TestFailure] = []
    failed = _failed_tests(run)
    # A panic in one test ends its package's test binary: the tests running beside it (t.Parallel) are cut
    # short, not failed. They are named in the panicking test's failure instead.
    panicked = {test.package: test for test in failed if test.action == "fail" and _panicked(test)}
    cut_short: dict[str, list[str]] = {}
    for test in failed:
        if test.action is None and test.package in panicked:
            cut_short.setdefault(test.package, []).append(test.name)
    for test in failed:
        if test.action is None and test.package in panicked:
            continue
        failure = _test_failure(test, resolver)
        stopped = cut_short.get(test.package) if panicked.get(test.package) is test else None
        if stopped:
            note = f"(the panic ended the test binary: {', '.join(stopped)} did not finish)"
            failure = dataclasses.replace(failure, message=f"{failure.message}\n{note}")
        failures.append(failure)
        issues.append(_failure_issue(failure, test.name))
    failing_packages = {test.package for test in failed}
    for package in run.packages.values():
        if package.action != "fail" or package.name in failing_packages:
            continue
        if package.failed_build:
            if not build_issues:  # the build failed but said nothing we could place
                issues.append(
                    make_issue(
                        kind="build",
                        message=f"{package.name}: build failed",
                        source="go test",
                        severity="error",
                    )
                )
            continue
        failure = _package_failure(package, ctx)
        failures.append(failure)
        issues.append(_failure_issue(failure, package.name))

    explained = bool(issues) or bool(failures)
    recognized = explained or (output.exit_code in (0, None) and run.events > 0)
    return ParseResult(issues=issues, failures=failures, recognized=recognized)


def tests_run(stdout: str) -> set[str]:
    """The names of the tests (`TestX`, `TestX/case`) a `go test -json` run started, in any package. A `-run`
    pattern that matches nothing is no failure to go (`testing: warning: no tests to run`, exit 0), nor is a
    subtest level that matches nothing (the parent runs, alone): only the events tell."""
    return {
        event["Test"] for event in _events(stdout) if event["Action"] == "run" and isinstance(event.get("Test"), str)
    }


def _events(stdout: str) -> Iterator[Mapping[str, Any]]:
    return (event for event in json_lines(stdout) if isinstance(event.get("Action"), str))


def _apply(run: _Run, event: Mapping[str, Any]) -> None:
    run.events += 1
    action = event["Action"]
    text = event.get("Output")
    text = clean(text) if isinstance(text, str) else None
    if action == "build-output":
        if text is not None:
            run.build_output.extend(text.splitlines())
        return
    package = event.get("Package")
    if not isinstance(package, str) or not package:
        return
    pkg = run.package(package)
    test_name = event.get("Test")
    if isinstance(test_name, str) and test_name:
        test = run.tests.setdefault((package, test_name), _Test(package, test_name))
        if action == "output" and text is not None:
            test.output.append(text)
        elif action in _TERMINAL:
            test.action = action
        return
    if action == "output" and text is not None:
        pkg.output.append(text)
    elif action in _TERMINAL:
        pkg.action = action
        # FailedBuild arrived with go 1.24; before it only the summary line says so.
        pkg.failed_build = bool(event.get("FailedBuild")) or any(
            marker in line for line in pkg.output for marker in _BUILD_FAILED
        )


def _failed_tests(run: _Run) -> list[_Test]:
    """Failed leaf tests, plus those still running when their package failed."""
    candidates = [
        test
        for test in run.tests.values()
        if test.action == "fail"
        or (test.action is None and run.packages.get(test.package, _Package("")).action == "fail")
    ]
    names = {(t.package, t.name) for t in candidates}
    out: list[_Test] = []
    for test in candidates:
        has_failed_child = any(p == test.package and n.startswith(test.name + "/") for p, n in names)
        if has_failed_child and not _notes(test.output, None):
            continue
        out.append(test)
    return out


def _panicked(test: _Test) -> bool:
    return any(_PANIC.match(line) for line in "".join(test.output).splitlines())


def _notes(output: list[str], resolve: _Resolve | None) -> list[_Note]:
    """t.Error/t.Log lines and panics in a test's output, in order."""
    lines = "".join(output).splitlines()
    notes: list[_Note] = []
    current: _Note | None = None
    current_indent = 0
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        log = _TEST_LOG.match(line)
        if log:
            file = resolve(log.group("file")) if resolve is not None else log.group("file")
            current = _Note(log.group("message").rstrip(), file, int(log.group("line")))
            current_indent = len(log.group("indent"))
            notes.append(current)
            continue
        if current is not None and line.startswith(" " * (current_indent + 1)) and line.strip():
            current.message = f"{current.message}\n{line.strip()}"
            continue
        current = None
        panic = _PANIC.match(line)
        if panic:
            frame = _panic_frame(lines[index:], resolve)
            notes.append(_Note(f"panic: {panic.group('message').strip()}", *frame, panic=True))
            break  # the rest is the stack
    return notes


def _panic_frame(stack: list[str], resolve: _Resolve | None) -> tuple[str | None, int | None]:
    """The innermost frame inside the checked root: where the user's code panicked."""
    for line in stack:
        frame = _FRAME_FILE.match(line)
        if not frame or not PurePosixPath(frame.group("file").replace("\\", "/")).is_absolute():
            continue
        file = resolve(frame.group("file")) if resolve is not None else frame.group("file")
        if file is not None and not PurePosixPath(file).is_absolute():
            return file, int(frame.group("line"))
    return None, None


def _test_failure(test: _Test, resolver: _DirResolver) -> TestFailure:
    notes = _notes(test.output, lambda printed: resolver.file(test.package, printed))
    if notes:
        message = "\n".join(note.message for note in notes)
        # A panic is what stopped the test, so its frame beats an earlier t.Log/t.Error line.
        panics = [n for n in notes if n.panic and n.file is not None]
        located = panics or [n for n in notes if n.file is not None]
        file, line = (located[0].file, located[0].line) if located else (None, None)
    elif test.action is None:
        message, file, line = "did not finish (the test binary stopped while it ran)", None, None
    else:
        message, file, line = "failed", None, None
    return TestFailure(
        name=f"{test.package}.{test.name}",
        message=message,
        file=file,
        line=line,
        output=_capped("".join(test.output)),
    )


def _package_failure(package: _Package, ctx: ParseContext) -> TestFailure:
    lines = [line for line in "".join(package.output).splitlines() if line.strip()]
    notes = _notes(package.output, ctx.relpath)
    explaining = [line for line in lines if not _SUMMARY.match(line)]
    panic = next((n for n in notes if n.file is not None), None)
    message = "\n".join(explaining[:20]) or "the test binary failed"
    return TestFailure(
        name=package.name,
        message=message,
        file=panic.file if panic else None,
        line=panic.line if panic else None,
        output=_capped("".join(package.output)),
    )


def _failure_issue(failure: TestFailure, shown_as: str) -> Issue:
    """The issue for a failure, named as go prints it (`TestAbs/minus_three`); its file tells packages apart."""
    return make_issue(
        kind="test",
        message=f"{shown_as} failed: {one_line(failure.message)}",
        source="go test",
        severity="error",
        file=failure.file,
        line=failure.line,
    )


def _capped(text: str) -> str | None:
    text = text.strip("\n")
    if not text:
        return None
    return text if len(text) <= _MAX_OUTPUT else text[-_MAX_OUTPUT:]


@dataclass(frozen=True)
class _DirResolver:
    """Places a test's bare file name (`calc_test.go`) in its package directory, relative to the root."""

    ctx: ParseContext
    module: str | None

    @classmethod
    def build(cls, run: _Run, ctx: ParseContext) -> _DirResolver:
        return cls(ctx, _module_path(run, ctx))

    def file(self, package: str, printed: str) -> str | None:
        path = printed.replace("\\", "/")
        if "/" in path or self.module is None:
            return self.ctx.relpath(path)
        if package == self.module:
            return self.ctx.relpath(path)
        if package.startswith(self.module + "/"):
            return self.ctx.relpath(f"{package[len(self.module) + 1 :]}/{path}")
        return None  # a package outside the inferred module: better no file than a wrong one


def _module_path(run: _Run, ctx: ParseContext) -> str | None:
    cwd = PurePosixPath(ctx.cwd.replace("\\", "/"))
    for package, directory in _known_dirs(run):
        directory = directory.replace("\\", "/")
        path = PurePosixPath(directory)
        if path.is_absolute():
            try:
                path = path.relative_to(cwd)
            except ValueError:  # GOROOT, the module cache
                continue
        relative = path.as_posix()
        if relative == ".":
            return package
        if package.endswith("/" + relative):
            return package[: -len(relative) - 1]
    packages = sorted(run.packages)
    if not packages:
        return None
    common = packages[0].split("/")
    for package in packages[1:]:
        parts = package.split("/")
        size = 0
        while size < min(len(common), len(parts)) and common[size] == parts[size]:
            size += 1
        common = common[:size]
    return "/".join(common) or None


_VET_HEADER = re.compile(r"^# \[[^\]]+\]$")


def split_vet_output(lines: list[str]) -> tuple[list[str], list[str]]:
    """The build output's lines split into the compiler's and vet's: go test heads vet's findings `# [pkg]`, a
    package's compile errors `# pkg`."""
    compiled: list[str] = []
    vetted: list[str] = []
    current = compiled
    for line in lines:
        if line.startswith("# "):
            current = vetted if _VET_HEADER.match(line) else compiled
        current.append(line)
    return compiled, vetted


def _known_dirs(run: _Run) -> Iterator[tuple[str, str]]:
    """(import path, directory) pairs the run shows: build errors under their `# pkg` header, and stack
    frames whose function names its package."""
    header: str | None = None
    for line in run.build_output:
        match = _BUILD_HEADER.match(line)
        if match:
            header = match.group("package")
            continue
        loc = LOCATED.match(line)
        if loc and header is not None:
            yield header, str(PurePosixPath(loc.group("file").replace("\\", "/")).parent)
    for test in run.tests.values():
        lines = "".join(test.output).splitlines()
        for function_line, file_line in itertools.pairwise(lines):
            func = _FRAME_FUNC.match(function_line)
            frame = _FRAME_FILE.match(file_line)
            if func and frame and "/" in frame.group("file"):
                yield _function_package(func.group("func")), str(PurePosixPath(frame.group("file")).parent)


def _function_package(function: str) -> str:
    """`example.org/m/boom.(*T).Run` -> `example.org/m/boom`: the package ends at the first dot after
    the last slash."""
    slash = function.rfind("/")
    dot = function.find(".", slash + 1)
    return function[:dot] if dot != -1 else function
