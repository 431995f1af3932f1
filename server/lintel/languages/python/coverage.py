"""Python coverage: pytest with pytest-cov's per-test dynamic contexts, read back with `coverage json
--show-contexts` — granularity `test` (docs/architecture.md, Coverage).

Both tools come from the project's environment (the `coverage` script beside the `pytest` that runs, else the
usual chain); lintel installs nothing. The data file goes to a scratch folder (COVERAGE_FILE), so the project
gets no `.coverage`, and the project's own coverage configuration (`[tool.coverage]`, .coveragerc: source, omit)
applies to both steps untouched."""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

from lintel.languages.binaries import resolve_binary
from lintel.languages.coverage.base import CoverageHost, Measurement, not_checked, read_text, run_tool
from lintel.languages.coverage.data import CoverageDataError, read_json
from lintel.languages.coverage.model import CoverageIndex, FileCoverage, Files

INSTALL_HINT = "pip install coverage pytest-cov"
# `--cov` alone measures what the project's coverage config names (`source`), else everything under the cwd;
# `--cov-report=` (empty) prints no table into the output the test parser reads.
PYTEST_COV_ARGS = ("--cov", "--cov-context=test", "--cov-report=")
# With plugin autoloading off (PYTEST_DISABLE_PLUGIN_AUTOLOAD) pytest-cov must be named; naming it when it is
# autoloaded as well fails ("Plugin already registered under a different name").
LOAD_PYTEST_COV = ("-p", "pytest_cov.plugin")
# What pytest says when pytest-cov is not there: the options are unknown, or the named plugin is not found.
_NO_PYTEST_COV = ("unrecognized arguments: --cov", 'Error importing plugin "pytest_cov')


def _coverage_binary(request: CoverageHost, pytest_path: str | None) -> str | None:
    """The `coverage` of pytest's own environment first: the data file must be read by the coverage.py that
    wrote it."""
    if pytest_path is not None:
        beside = Path(pytest_path).parent / "coverage"
        if beside.is_file():
            return str(beside)
    project = request.project
    found = resolve_binary(
        "coverage",
        project_root=project.root,
        workspace_root=request.workspace,
        setting=request.binary_setting("coverage"),
        install_dirs=project.spec.install_dirs(),
    )
    return found.path


async def measure(request: CoverageHost) -> Measurement:
    started = time.time()
    with tempfile.TemporaryDirectory(prefix="lintel-coverage-") as scratch:
        data = Path(scratch) / ".coverage"
        load = LOAD_PYTEST_COV if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD") else ()
        result = await request.run_tests([*load, *PYTEST_COV_ARGS], env={"COVERAGE_FILE": str(data)})
        if result.exit_code is None and not result.timed_out:
            return Measurement(result)  # pytest itself is missing: its not-found message says so
        if any(sign in result.output for sign in _NO_PYTEST_COV):
            result.failures, result.issues = [], []
            return not_checked(
                result,
                f"coverage: pytest-cov is not installed in the project's environment — install it with: {INSTALL_HINT}",
            )
        if not data.exists():
            if result.status == "not_checked":
                return Measurement(result)
            return not_checked(result, "coverage: pytest wrote no coverage data (pytest-cov did not run)")
        coverage = _coverage_binary(request, result.binary)
        if coverage is None:
            return not_checked(result, f"coverage: coverage: not found on PATH — install it with: {INSTALL_HINT}")
        report = Path(scratch) / "coverage.json"
        argv = [coverage, "json", f"--data-file={data}", "--show-contexts", "-o", str(report)]
        done = await run_tool(argv, request.project.root, request)
        text = read_text(report)
        if isinstance(done, str) or text is None:
            why = done if isinstance(done, str) else (done.stderr.strip() or done.stdout.strip() or "no report")
            return not_checked(result, f"coverage: `coverage json` failed: {why}")
    try:
        files = parse_coveragepy_json(text)
    except CoverageDataError as exc:
        return not_checked(result, f"coverage: {exc}")
    version = _version(text)
    index = CoverageIndex(
        language=request.project.language,
        root=str(request.project.root),
        tool=f"coverage.py {version} (pytest-cov, a context per test)" if version else "coverage.py (pytest-cov)",
        granularity="test",
        measured_at=started,
        argv=result.argv,
        files=files,
    )
    return Measurement(result, index)


def _version(text: str) -> str:
    try:
        meta = json.loads(text).get("meta", {})
    except ValueError:
        return ""
    return str(meta.get("version", "")) if isinstance(meta, dict) else ""


# --- the coverage data coverage.py writes ------------------------------------------------------------


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
    document = read_json(text, "coverage.py JSON")
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
