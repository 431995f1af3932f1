"""A validator's outcome as the RunResult the CLI reports and the server publishes (one conversion for both)."""

from __future__ import annotations

from pathlib import Path

from lintel.core.issues import make_issue
from lintel.engine.validators import ValidateResult


def test_a_clean_run_is_clean_and_says_what_ran(tmp_path: Path) -> None:
    result = ValidateResult(id="docs", ok=True, raw_output="", exit_code=0, duration_ms=12, command="make docs")
    run = result.as_run_result(tmp_path)
    assert (run.language, run.check, run.tool, run.status, run.reason) == (None, "validators", "docs", "clean", None)
    assert (run.argv, run.cwd, run.exit_code, run.duration_ms) == (["/bin/sh", "-c", "make docs"], tmp_path, 0, 12)


def test_a_failing_run_has_findings_with_its_issues_and_output(tmp_path: Path) -> None:
    issue = make_issue(kind="lint", message="bad", source="docs", file="a.md", line=1)
    result = ValidateResult(id="docs", ok=False, raw_output="a.md:1: bad", issues=[issue], exit_code=1, command="x")
    run = result.as_run_result(tmp_path)
    assert (run.status, run.issues, run.output, run.ok) == ("findings", [issue], "a.md:1: bad", False)


def test_a_timeout_or_a_command_that_never_started_was_not_checked(tmp_path: Path) -> None:
    timeout = make_issue(kind="timeout", message="validator docs timed out after 5s", source="docs")
    timed_out = ValidateResult(id="docs", ok=False, raw_output="", issues=[timeout], exit_code=124, timed_out=True)
    run = timed_out.as_run_result(tmp_path)
    assert (run.status, run.reason, run.timed_out) == ("not_checked", "validator docs timed out after 5s", True)
    never = ValidateResult(id="docs", ok=False, raw_output="/bin/sh: not found")
    not_run = never.as_run_result(tmp_path)
    assert (not_run.status, not_run.reason) == ("not_checked", "did not run")
