"""What a language's coverage run is given and gives back (docs/architecture.md, Coverage): the engine hands it a
`CoverageHost` (its project, and the test run with coverage flags added); it answers a `Measurement`."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path

from lintel.core.results import RunResult
from lintel.core.runenv import run_environment

# Declared beside LanguageSpec, which holds a CoverageSupport; named here too, where the readers look for them.
from lintel.languages.base import COVERAGE_CHECK as COVERAGE_CHECK
from lintel.languages.base import CoverageHost as CoverageHost
from lintel.languages.base import CoverageSupport as CoverageSupport
from lintel.languages.base import Measure as Measure
from lintel.languages.base import Measurement as Measurement
from lintel.languages.base import Project
from lintel.languages.base import Refine as Refine
from lintel.languages.base import Refined as Refined
from lintel.languages.coverage.model import FileCoverage
from lintel.runtime.process import PARSE_CAP_BYTES, ProcessResult, ProcessStartError, run_process

log = logging.getLogger(__name__)


class CoverageUnsupported(Exception):
    """The contract's `<command> is not supported for <language> projects yet`, with why."""

    def __init__(self, language: str, detail: str = "") -> None:
        super().__init__(detail)
        self.language = language
        self.detail = detail

    def message(self, command: str) -> str:
        tail = f" ({self.detail})" if self.detail else ""
        return f"{command} is not supported for {self.language} projects yet{tail}"


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
