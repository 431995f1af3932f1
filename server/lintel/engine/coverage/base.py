"""What every language's coverage run shares: the request, the outcome, the test run with coverage flags added,
and the errors (docs/design.md, Coverage)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lintel.core.runenv import run_environment
from lintel.engine.checks import RunResult, plan_check, run_planned, timeout_for
from lintel.engine.config import LintelConfig
from lintel.engine.coverage.model import CoverageIndex, FileCoverage
from lintel.languages import Project
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


@dataclass(frozen=True)
class Request:
    """One coverage run: the project, where it lives, and the run's options."""

    project: Project
    workspace: Path
    config: LintelConfig
    timeout: float | None = None
    on_start: Callable[[int], None] | None = None

    @property
    def seconds(self) -> float:
        return timeout_for("test", self.config, self.timeout)


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


async def run_tests_with(
    request: Request, extra_args: Sequence[str], env: Mapping[str, str] | None = None
) -> RunResult:
    """The project's test command (what `lintel.runTests` runs, the user's override included) with coverage
    flags appended, as a `coverage` run."""
    project, workspace = request.project, request.workspace.resolve()
    planned = plan_check(project, "test", request.config, workspace)
    result = await run_planned(
        planned,
        workspace=workspace,
        timeout=request.seconds,
        env=env,
        on_start=request.on_start,
        extra_args=extra_args,
    )
    result.check = COVERAGE_CHECK
    return result


async def run_tool(
    argv: Sequence[str], cwd: Path, request: Request, env: Mapping[str, str] | None = None
) -> ProcessResult | str:
    """A helper process of a coverage run (`coverage json`, a Go test binary): its result, or why it could not
    start."""
    try:
        return await run_process(
            list(argv),
            cwd=cwd,
            env=run_environment({}, env),
            timeout=request.seconds,
            on_start=request.on_start,
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
