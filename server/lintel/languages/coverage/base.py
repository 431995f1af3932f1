"""What a language's coverage run is given and gives back (docs/design.md, Coverage): the engine hands it a
`CoverageHost` (its project, and the test run with coverage flags added); it answers a `Measurement`."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from lintel.core.results import RunResult
from lintel.core.runenv import run_environment
from lintel.languages.base import Project, ToolSpec
from lintel.languages.coverage.model import CoverageIndex, FileCoverage
from lintel.runtime.process import PARSE_CAP_BYTES, ProcessResult, ProcessStartError, run_process

log = logging.getLogger(__name__)

COVERAGE_CHECK = "coverage"


class CoverageUnsupported(Exception):
    """The contract's `<command> is not supported for <language> projects yet`, with why."""

    def __init__(self, language: str, detail: str = "") -> None:
        super().__init__(detail)
        self.language = language
        self.detail = detail

    def message(self, command: str) -> str:
        tail = f" ({self.detail})" if self.detail else ""
        return f"{command} is not supported for {self.language} projects yet{tail}"


class CoverageHost(Protocol):
    """What the engine gives a language's coverage run: the project and the runs the engine plans (binaries resolved
    through the user's settings, the check's timeout), so no language reads the configuration itself."""

    @property
    def project(self) -> Project: ...

    @property
    def workspace(self) -> Path: ...

    @property
    def seconds(self) -> float: ...

    @property
    def on_start(self) -> Callable[[int], None] | None: ...

    async def run_tests(self, extra_args: Sequence[str], env: Mapping[str, str] | None = None) -> RunResult:
        """The project's test command (what `lintel.runTests` runs, the user's override included) with coverage
        flags appended, as a `coverage` run."""
        ...

    async def run_spec(self, spec: ToolSpec) -> RunResult:
        """`spec` run as the project's test check would be (its binaries resolved the same way), as a `coverage`
        run."""
        ...

    def test_spec(self) -> ToolSpec:
        """The project's planned test command (with the binaries lintel runs directly)."""
        ...

    def test_binary(self) -> str | None:
        """The resolved path of the test command's program, None when it is not found."""
        ...

    def binary_setting(self, name: str) -> str | None:
        """The user's `binaries` setting for `name` in the project's language."""
        ...


@dataclass
class Measurement:
    """A coverage run's RunResult (check `coverage`, with the coverage summary) and its index (None when no
    coverage data came out: the result then says why, `not_checked`)."""

    result: RunResult
    index: CoverageIndex | None = None


@dataclass
class Refined:
    """Who covers one line, measured more finely than the index (a Go test run alone, a node test file alone)."""

    granularity: str
    tests: list[str]
    note: str | None = None
    runs: int = 0  # how many runs it took
    skipped: list[str] = field(default_factory=list)  # candidates not run (over the bound)


Measure = Callable[[CoverageHost], Awaitable[Measurement]]
Refine = Callable[[CoverageHost, str, int], Awaitable["Refined | None"]]


@dataclass(frozen=True)
class CoverageSupport:
    """How a language measures coverage (None: it cannot, and `unsupported` says why), and how it asks who covers
    one line more finely than its index (None: the index is the answer)."""

    measure: Measure | None
    refine: Refine | None = None
    unsupported: str = ""


async def run_tool(
    argv: Sequence[str], cwd: Path, host: CoverageHost, env: Mapping[str, str] | None = None
) -> ProcessResult | str:
    """A helper process of a coverage run (`coverage json`, a Go test binary): its result, or why it could not
    start."""
    try:
        return await run_process(
            list(argv),
            cwd=cwd,
            env=run_environment({}, env),
            timeout=host.seconds,
            on_start=host.on_start,
            cap_bytes=PARSE_CAP_BYTES,
        )
    except ProcessStartError as exc:
        return str(exc)


def not_checked(result: RunResult, reason: str) -> Measurement:
    """The run did not give coverage: a test run that worked is still not a coverage run that did."""
    log.info("%s coverage not measured: %s", result.language, reason)
    result.status = "not_checked"
    result.reason = reason
    result.output = f"{result.output}\n{reason}" if result.output else reason
    return Measurement(result)


def blank_result(project: Project, tool: str, argv: Sequence[str], reason: str) -> RunResult:
    """A coverage run that did not start (a missing tool): not_checked with the reason."""
    return RunResult(
        language=project.language,
        check=COVERAGE_CHECK,
        tool=tool,
        argv=list(argv),
        cwd=project.root,
        status="not_checked",
        reason=reason,
        output=reason,
    )


def read_text(path: Path) -> str | None:
    try:
        if path.stat().st_size > PARSE_CAP_BYTES:
            log.warning("coverage data %s is larger than %d bytes; ignored", path, PARSE_CAP_BYTES)
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def covers(files: Mapping[str, FileCoverage], rel: str, line: int) -> bool:
    found = files.get(rel)
    return found is not None and line in found.lines
