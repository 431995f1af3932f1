"""`lintel.coverage` and `lintel.testsCovering` without pygls: a project in, a JSON-ready answer out. The server's
commands and `lintel mcp` are thin wrappers around `coverage` and `tests_covering` (docs/architecture.md, Coverage)."""

from __future__ import annotations

import datetime
import logging
from pathlib import Path
from typing import Any

from lintel.engine.coverage.base import CoverageUnsupported, Measurement, Request
from lintel.engine.coverage.store import CoverageStore
from lintel.languages.base import LanguageSpec
from lintel.languages.coverage.base import Measure

log = logging.getLogger(__name__)

NO_TOOL = "lintel knows no coverage tool for it"
NOT_IN_DATA = "the file is not in the coverage data: no test loaded it, or the coverage configuration leaves it out"


def supported(language: LanguageSpec) -> bool:
    """Whether lintel measures coverage for the language (its folder declares how: `LanguageSpec.coverage`)."""
    return _measure(language) is not None


def _measure(language: LanguageSpec) -> Measure | None:
    return language.coverage.measure if language.coverage is not None else None


def _unsupported(language: LanguageSpec) -> CoverageUnsupported:
    """Why the language has none (said in the contract's "not supported" error)."""
    reason = language.coverage.unsupported if language.coverage is not None else ""
    return CoverageUnsupported(language.name, reason or NO_TOOL)


async def measure(request: Request) -> Measurement:
    """Run the project's tests with coverage. Raises CoverageUnsupported for a language lintel cannot measure;
    a tool that is missing or fails is a `not_checked` result, as for any check."""
    run = _measure(request.project.spec)
    if run is None:
        raise _unsupported(request.project.spec)
    measurement = await run(request)
    if measurement.index is not None:
        prefix = _prefix(request.project.root, request.workspace)
        measurement.result.coverage = measurement.index.summary(prefix)
    return measurement


async def coverage(request: Request, store: CoverageStore) -> Measurement:
    """`lintel.coverage`: measure, and keep the index for tests_covering (this process and the next ones)."""
    measurement = await measure(request)
    if measurement.index is not None:
        store.put(measurement.index)
    return measurement


def _prefix(root: Path, workspace: Path) -> str:
    try:
        rel = root.resolve().relative_to(workspace.resolve()).as_posix()
    except ValueError:
        return f"{root.resolve().as_posix()}/"
    return "" if rel == "." else f"{rel}/"


def _when(seconds: float) -> str:
    return datetime.datetime.fromtimestamp(seconds, tz=datetime.timezone.utc).isoformat(timespec="seconds")


async def tests_covering(request: Request, file: Path, line: int, store: CoverageStore) -> dict[str, Any]:
    """Which tests run `file`:`line` (file absolute, inside the project; line 1-based). Answers from the stored
    index of the project's last coverage run, running coverage first when there is none or `file` changed
    since; where the index is coarser than a test and the language allows, the line's candidates are run one by
    one (Go tests, node test files). Raises CoverageUnsupported; a coverage run that gave no data raises
    CoverageFailed with its reason."""
    project = request.project
    if not supported(project.spec):
        raise _unsupported(project.spec)
    rel = file.resolve().relative_to(project.root.resolve()).as_posix()
    index = store.get(project.root, project.language)
    ran = False
    if index is None or _changed_since(file, index.measured_at):
        measurement = await measure(request)
        if measurement.index is None:
            raise CoverageFailed(measurement.result.reason or "the coverage run gave no data")
        index = measurement.index
        store.put(index)
        ran = True
    covered = index.files.get(rel)
    answer: dict[str, Any] = {
        "file": _prefix(project.root, request.workspace) + rel,
        "line": line,
        "granularity": index.granularity,
        "tests": [],
        "covered": False,
        "executable": covered is not None and (line in covered.lines or line in covered.missing),
        "source": f"{index.tool}, measured {_when(index.measured_at)}"
        + (" by this call" if ran else " by an earlier lintel.coverage run"),
        "measuredAt": _when(index.measured_at),
        "ranCoverage": ran,
    }
    if covered is None:
        answer["note"] = NOT_IN_DATA
        return answer
    if line not in covered.lines:
        answer["note"] = "no test runs this line" if answer["executable"] else "not an executable line"
        return answer
    answer["covered"] = True
    answer["tests"] = sorted(covered.lines[line])
    refine = project.spec.coverage.refine if project.spec.coverage is not None else None
    if index.granularity in ("package", "project") and refine is not None:
        finer = await refine(request, rel, line)
        if finer is not None:
            answer["granularity"] = finer.granularity
            answer["tests"] = sorted(finer.tests)
            answer["refinedRuns"] = finer.runs
            answer["source"] += f"; then {finer.runs} runs, one per candidate {finer.granularity}"
            if finer.note:
                answer["note"] = finer.note
    if not answer["tests"] and answer["granularity"] == "test":
        answer["note"] = answer.get("note") or "covered only outside any test (at import or collection time)"
    return answer


def _changed_since(file: Path, measured_at: float) -> bool:
    try:
        return file.stat().st_mtime > measured_at
    except OSError:
        return False


class CoverageFailed(Exception):
    """A coverage run that gave no data (a missing tool, no tests): the message says why and how to fix it."""
